"""Named dbt models alone on one built project: alone.py's runs (`dbt run -s MODEL --threads 1`,
one child that parses once), without a second project to compare with.

Printed per model, the median of its runs: dbt's execution_time of the node, the child's CPU
seconds around the invocation (user + system), that CPU minus a trivial node's (dbt's own cost
per run), the runs and their spread, and the peak RSS during the runs.

    .venv/bin/python benchmarks/bench_one_model.py PROJECT MODEL [MODEL ...] [--repeats 3] [--json out.json]

Growth between two projects: `bench_pipeline.py --alone-only` (docs/performance.md, "Each model
alone").
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import alone


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("project", type=Path)
    ap.add_argument("models", nargs="+")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--long", type=float, default=float("inf"), help="a model whose first run took this many CPU seconds runs once"
    )
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    runs = alone.run_alone(args.project, args.models, args.repeats, args.long)
    out = alone.summarize(runs)
    print(f"{'model':36s} {'node':>7s} {'CPU':>7s} {'own CPU':>7s} {'runs':>4s} {'spread':>6s} {'RSS GiB':>7s}")
    for m, r in out.items():
        spread = f"{r['node_spread']:6.0%}" if r["node_spread"] is not None else f"{'-':>6s}"
        print(f"{m:36s} {r['node']:7.2f} {r['cpu']:7.2f} {r['own_cpu']:7.2f} {r['n']:4d} {spread} {r['rss_gib']:7.2f}")
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "summary": out}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
