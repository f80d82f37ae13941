"""The mixed models and the demographic audit at scale: `dbt build` of lmm_rater_type and the
demographic marts (slices, GLMM LR tests, stratified ANOVA, Tukey) with everything upstream, on
the cached simulated landings bench_pipeline.py uses (1x, 10x, 100x the paper's study).

Per scale it prints each model's seconds (dbt's execution_time) next to the same-run floor of
bench_pipeline.py (one DuckDB aggregate over the ratings Parquet) and the peak RSS of the build's
process tree. Only this selection is built, so one heavy scale stays short.

    .venv/bin/python benchmarks/bench_mixed_models.py --scales 1 10 [--cache DIR]

Results: docs/performance.md, "Mixed models and the demographic audit".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pipeline import SEED, floor, fresh_copy, measured_run, node_seconds, simulated_landing  # noqa: E402

MARTS = (
    "lmm_rater_type",
    "demographic_slices",
    "demographic_glmm_lrt",
    "demographic_stratified_anova",
    "demographic_tukey",
)
SHOWN = (
    *MARTS,
    "int_rater_type_cells",
    "int_bias_cells",
    "int_demographic_label_counts",
    "int_model_vs_human",
    "int_model_vs_human_long",
    "int_human_label_counts",
)

_CHILD = r"""
import sys
from pathlib import Path
from rater1001.paths import ProjectPaths
from rater1001.warehouse import dbt_build
summary = dbt_build(ProjectPaths(Path(sys.argv[1])), select=sys.argv[2])
print(summary.success, file=sys.stderr)
"""


def bench_scale(scale: int, cache: Path, seed: int) -> dict:
    landing, _ = simulated_landing(cache, scale, seed)
    with tempfile.TemporaryDirectory(prefix=f"mixed{scale}x-") as tmp:
        work = fresh_copy(landing, Path(tmp) / "project")
        fl = floor(work / "data" / "raw" / "human_ratings.parquet")
        select = " ".join(f"+{m}" for m in MARTS)
        wall, peak_tree, peak_one = measured_run(
            [sys.executable, "-c", _CHILD, str(work), select], {**os.environ, "PYTHONUNBUFFERED": "1"}
        )
        nodes = dict(node_seconds(work / "target" / "run_results.json"))
    return {
        "scale": scale,
        "floor": fl,
        "wall": wall,
        "peak_kib": max(peak_tree, peak_one),
        "nodes": {n: s for n, s in nodes.items() if n.split(".")[-1] in SHOWN},
    }


def report(r: dict) -> None:
    f = r["floor"]["seconds"]
    print(
        f"\n== {r['scale']}x: floor {f:.3f} s; build of the selection {r['wall']:.1f} s "
        f"({r['wall'] / f:.0f} x floor), peak RSS {r['peak_kib'] / 2**20:.2f} GiB"
    )
    for name, seconds in sorted(r["nodes"].items(), key=lambda x: -x[1]):
        print(f"   {name.split('.')[-1]:<34} {seconds:9.2f} s {seconds / f:9.0f} x floor")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 10])
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument(
        "--cache", type=Path, default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "rater1001-bench"
    )
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    results = []
    for scale in args.scales:
        results.append(bench_scale(scale, args.cache, args.seed))
        report(results[-1])
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
