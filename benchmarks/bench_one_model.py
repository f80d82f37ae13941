"""One dbt model at a time on a kept, built project: `dbt run -s MODEL --threads 1` in a child.

A whole build's node seconds carry the node running beside it and the memory they share; this
runs each model alone on a project kept by `bench_pipeline.py --keep` (its warehouse rebuilt in
place: the same table again). Printed per model, the median of --repeats: wall, CPU seconds of the
child (user + system), dbt's execution_time of the node, the child's peak RSS, and the CPU minus
that of a trivial node (int_study_provenance: dbt's start and parse), the model's own.

    .venv/bin/python benchmarks/bench_one_model.py PROJECT MODEL [MODEL ...] [--repeats 3] [--json out.json]

A kept project's views read the landing by the path it was built from: link that path's
data/raw to the cached landing first (the error names it). Results: docs/performance.md ("One
model at a time").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

import bench_pipeline as bp

BASELINE = "int_study_provenance"
_CHILD = (
    "import sys; from rater1001.paths import project; from rater1001 import warehouse; "
    "r = warehouse._invoke(project(sys.argv[1]), ['run', '-s', sys.argv[2], '--threads', '1']); "
    "sys.exit(0 if r.success else 1)"
)


def one(project: Path, model: str, repeats: int) -> dict:
    runs = []
    for _ in range(repeats):
        wall, _, maxrss, rc, cpu = bp.measured_run_full(
            [sys.executable, "-c", _CHILD, str(project), model], dict(os.environ)
        )
        if rc != 0:
            raise SystemExit(f"dbt run -s {model} exited {rc}: see {project / 'logs' / 'dbt.log'}")
        node = dict(bp.node_seconds(project / "target" / "run_results.json"))[model]
        runs.append({"wall": wall, "cpu": cpu, "node": node, "rss_gib": maxrss / 2**20})
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]} | {"runs": runs}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("project", type=Path)
    ap.add_argument("models", nargs="+")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    out = {m: one(args.project, m, args.repeats) for m in [BASELINE, *args.models]}
    base = out[BASELINE]["cpu"]
    print(f"{'model':36s} {'wall':>7s} {'CPU':>7s} {'node':>7s} {'own CPU':>7s} {'RSS GiB':>7s}")
    for m, r in out.items():
        print(f"{m:36s} {r['wall']:7.2f} {r['cpu']:7.2f} {r['node']:7.2f} {r['cpu'] - base:7.2f} {r['rss_gib']:7.2f}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
