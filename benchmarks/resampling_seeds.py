"""The resampling marts over several seeds, for comparing two versions' draws within Monte Carlo error.

Runs the statistics of bootstrap_psig, response_diversity_k_human and response_diversity_images
(rater1001.marts.zscores / diversity, the calls the dbt models make) on a built warehouse's inputs
with seeds 1..N and writes one Parquet per mart with a `seed` column. Run it once per version
(e.g. with PYTHONPATH pointing at an older checkout's python/ and --humans int_image_human_lists
for a version that read the per-image lists), then `--compare OLD NEW` prints, per mart and
statistic, old mean +- SD across seeds against the new one and the largest difference of means in
units of its standard error.

    .venv/bin/python benchmarks/resampling_seeds.py --warehouse W.duckdb --out DIR [--seeds 8]
    .venv/bin/python benchmarks/resampling_seeds.py --compare OLD_DIR NEW_DIR
"""

from __future__ import annotations

import argparse
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

KEYS = {
    "bootstrap_psig": (["condition_id", "dimension", "category"], ["p_sig"]),
    "response_diversity_k_human": (
        ["dimension", "category"],
        ["human_sd", "human_variance", "human_sd_ci_low", "human_sd_ci_high", "share_human_sd_at_or_below_model"],
    ),
    "response_diversity_images": (["dimension", "category", "image_id", "source"], ["sd"]),
}


def run(warehouse: str, humans: str, seeds: int, out: Path) -> None:
    from rater1001.marts import diversity, zscores
    from rater1001.marts._shared import in_pool

    con = duckdb.connect(warehouse, read_only=True)
    model_long = con.sql("select * from int_model_vs_human_long").df()
    pools = con.sql("select * from int_condition_pools").df()
    human = con.sql(f"select * from {humans}").df()
    answered = model_long[model_long["model_value"].notna()]
    pooled = in_pool(model_long, pools, diversity.POOL)
    out.mkdir(parents=True, exist_ok=True)
    frames: dict[str, list] = {m: [] for m in KEYS}
    for seed in range(1, seeds + 1):
        frames["bootstrap_psig"].append(zscores.psig_table(answered, human, seed=seed).assign(seed=seed))
        frames["response_diversity_k_human"].append(
            diversity.k_human_diversity(pooled, human, seed=seed).assign(seed=seed)
        )
        frames["response_diversity_images"].append(
            diversity.k_human_image_sd(pooled, human, seed=seed).assign(seed=seed)
        )
    for mart, parts in frames.items():
        pd.concat(parts, ignore_index=True).to_parquet(out / f"{mart}.parquet")


def compare(old: Path, new: Path) -> None:
    """Per statistic: rows, the mean over rows of the old and new SD across seeds, the mean |difference
    of means|, the largest Welch |t| and the share of rows with |t| > 3 beside its share under equal
    means (Student t on 2 (seeds - 1) df). Rows with no spread in either version must be equal."""
    from scipy import stats as sps

    print(
        f"{'mart / statistic':<58} {'rows':>5} {'sd old':>7} {'sd new':>7} {'|diff|':>7} "
        f"{'varied':>6} {'max|t|':>7} {'|t|>3':>6} {'expect':>6} {'fixed rows differ':>17}"
    )
    for mart, (keys, stats) in KEYS.items():
        # a version before the slot rename called the category column emotion
        a, b = (pd.read_parquet(v / f"{mart}.parquet").rename(columns={"emotion": "category"}) for v in (old, new))
        seeds = a["seed"].nunique()
        for stat in stats:
            agg = ["mean", "std", "count"]
            m = a.groupby(keys)[stat].agg(agg).join(b.groupby(keys)[stat].agg(agg).add_suffix("_new"), how="outer")
            se = np.sqrt(m["std"] ** 2 / m["count"] + m["std_new"] ** 2 / m["count_new"])
            diff = (m["mean_new"] - m["mean"]).abs()
            spread = se > 0
            t = diff[spread] / se[spread]
            expect = 2 * sps.t.sf(3, 2 * (seeds - 1))
            print(
                f"{mart + ' / ' + stat:<58} {len(m):>5} {m['std'].mean():>7.4f} {m['std_new'].mean():>7.4f} "
                f"{diff.mean():>7.4f} {int(spread.sum()):>6} {t.max():>7.2f} {(t > 3).mean():>6.3f} {expect:>6.3f} "
                f"{int((diff[~spread] > 1e-12).sum()):>17}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warehouse")
    ap.add_argument("--humans", default="int_image_value_counts")
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--compare", nargs=2, type=Path)
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
    else:
        run(args.warehouse, args.humans, args.seeds, args.out)


if __name__ == "__main__":
    main()
