"""Seconds of chosen dbt models at 1x, 10x, 100x the paper's study, as multiples of the same-run floor.

bench_pipeline.py times the whole `rater1001 run`; this times a dbt selection (by default the
scan-heavy and resampling marts with everything upstream) on a fresh copy of the same cached
landing, so one model's growth from 10x to 100x can be measured without the rest of the run.
Per scale it prints dbt's execution_time of every model of the selection, the wall and CPU
seconds (user + system) and peak RSS of the build's process tree, and each figure as a multiple
of bench_pipeline's floor (one DuckDB aggregate over the ratings Parquet), measured before and
after the build and averaged.
Data tests of models outside the selection fail ("table does not exist"); they are not counted.

    .venv/bin/python benchmarks/bench_marts.py --scales 1 10 [--select "+alpha_delta"] [--json out.json]

Results: docs/performance.md ("Scan-heavy and resampling marts").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import bench_pipeline as bp
from run_results import model_seconds, node_seconds

SELECT = (
    "+alt_test_results +alpha_delta +bootstrap_psig +headline_intervals +small_pool_alpha "
    "+response_diversity_images +response_diversity_k_human +response_diversity +calibration_scores"
)

_CHILD = (
    "import sys; from rater1001.paths import project; from rater1001.warehouse import dbt_build; "
    "dbt_build(project(sys.argv[1]), select=sys.argv[2])"
)


def bench(scale: int, cache: Path, seed: int, select: str) -> dict:
    landing, _ = bp.simulated_landing(cache, scale, seed)
    with tempfile.TemporaryDirectory(prefix=f"marts{scale}x-") as tmp:
        work = bp.fresh_copy(landing, Path(tmp) / "project")
        ratings = work / "data" / "raw" / "human_ratings.parquet"
        before = bp.floor(ratings)["seconds"]
        wall, peak_tree, _, rc, cpu = bp.measured_run_full(
            [sys.executable, "-c", _CHILD, str(work), select], dict(os.environ)
        )
        if rc != 0:
            raise SystemExit(f"dbt build of {select!r} at {scale}x exited {rc}")
        after = bp.floor(ratings)["seconds"]
        results = node_seconds(work / "target" / "run_results.json", with_kind=True)
    nodes = model_seconds(results)
    return {
        "scale": scale,
        "wall": wall,
        "cpu": cpu,
        "peak_rss_gib": peak_tree / 2**20,
        "floor": (before + after) / 2,
        "floor_before_after": [before, after],
        "nodes": nodes,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 10])
    ap.add_argument("--select", default=SELECT)
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "rater1001-bench")
    ap.add_argument("--seed", type=int, default=bp.SEED)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    runs = [bench(scale, args.cache, args.seed, args.select) for scale in args.scales]
    for run in runs:
        print(
            f"\n{run['scale']}x: build {run['wall']:.0f} s wall, {run['cpu']:.0f} s CPU, peak RSS {run['peak_rss_gib']:.2f} GiB, "
            f"floor {run['floor']:.3f} s"
        )
        for name, seconds in sorted(run["nodes"].items(), key=lambda kv: -kv[1]):
            print(f"  {name:40s} {seconds:8.1f} s {seconds / run['floor']:8.0f}x floor")
    if len(runs) > 1:
        print("\ngrowth per model (multiples of the floor, each scale over the previous):")
        for name in runs[-1]["nodes"]:
            ratios = [
                b["nodes"].get(name, float("nan")) / b["floor"] / (a["nodes"].get(name, float("nan")) / a["floor"])
                for a, b in zip(runs, runs[1:])
            ]
            print(f"  {name:40s} " + "  ".join(f"{r:6.1f}x" for r in ratios))
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
