"""How the per-image and leave-one-out layer scales: the SQL of the intermediate models that scan
ratings (int_human_ratings_long, int_image_human_stats, int_human_loo; execution times from dbt's
run_results.json) against a pandas baseline computing the same per-image statistics and LOO
z-scores, on simulated studies of 1x, 10x and (with --full) 100x the paper's 72,000 ratings.
Prints the whole `dbt build` of the staging + intermediate layers too (it carries dbt's fixed
parse/start-up cost), and the ratio pandas / SQL measured in the same run.

    .venv/bin/python benchmarks/bench_warehouse.py [--full]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import pandas as pd
from rater1001.paths import project
from rater1001.simulate import simulate_study
from rater1001.stats.zscores import loo_mean, loo_sd, zscore
from rater1001.warehouse import dbt_build


def pandas_baseline(paths) -> float:
    t0 = time.perf_counter()
    ratings = pd.read_parquet(paths.raw_table("human_ratings"))
    long = ratings.melt(
        id_vars=["rater_id", "image_id"],
        value_vars=["valence", "arousal", "naturalness"],
        var_name="dimension",
        value_name="rating",
    ).dropna(subset=["rating"])
    g = long.groupby(["image_id", "dimension"])["rating"]
    long["n"] = g.transform("count")
    long["total"] = g.transform("sum")
    long["total_sq"] = (long["rating"] ** 2).groupby([long["image_id"], long["dimension"]]).transform("sum")
    n, total, total_sq, y = long["n"], long["total"], long["total_sq"], long["rating"]
    _ = zscore(y, loo_mean(n, total, y), loo_sd(n, total, total_sq, y))
    return time.perf_counter() - t0


SCAN_MODELS = ("int_human_ratings_long", "int_image_human_stats", "int_human_loo")


def sql_seconds(paths) -> float:
    results = json.loads((paths.root / "target" / "run_results.json").read_text())["results"]
    return sum(r["execution_time"] for r in results if r["unique_id"].split(".")[-1] in SCAN_MODELS)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true", help="also run the 100x study (7.2 million ratings)")
    args = ap.parse_args()
    # Only the layer measured here: tests that also read marts are not selected.
    os.environ["DBT_INDIRECT_SELECTION"] = "cautious"
    scales = [1, 10] + ([100] if args.full else [])
    print(
        f"{'scale':>6} {'ratings':>10} {'simulate s':>11} {'dbt build s':>12} {'SQL s':>7} {'pandas s':>9} {'pandas/SQL':>11}"
    )
    for k in scales:
        with tempfile.TemporaryDirectory() as tmp:
            paths = project(tmp)
            t0 = time.perf_counter()
            summary = simulate_study(paths, n_identities=40 * k)
            t_sim = time.perf_counter() - t0
            t0 = time.perf_counter()
            ok = dbt_build(paths, select="path:seeds path:models/staging path:models/intermediate")
            t_dbt = time.perf_counter() - t0
            if not ok:
                raise SystemExit(f"dbt build failed at scale {k}")
            t_sql = sql_seconds(paths)
            t_pd = pandas_baseline(paths)
            print(
                f"{k:>5}x {summary.n_ratings:>10,} {t_sim:>11.1f} {t_dbt:>12.1f} {t_sql:>7.2f} {t_pd:>9.1f} "
                f"{t_pd / t_sql:>11.1f}"
            )


if __name__ == "__main__":
    main()
