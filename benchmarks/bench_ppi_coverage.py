"""Coverage of the PPI++ intervals (stats.prediction_powered, 90 % nominal) by simulation on the
demo: the demo's stimuli are the population, their human means (and label shares) the truth.

Per replication and estimand (each emotion's mean valence and arousal, each label's share, for the
eight VLM conditions), humans rate n = fraction x M stimuli drawn with replacement and the model
answers M more drawn independently (the i.i.d. sampling PPI assumes); the interval covers when it
holds the population value. Also the marts' own design (a subset without replacement and its
complement as the unlabelled stimuli), which is conservative by the finite-population factor.
Prints coverage per condition and overall with the Monte Carlo standard error sqrt(.9 x .1 / R).

    .venv/bin/python benchmarks/bench_ppi_coverage.py [--warehouse PATH] [--replications 500] [--fraction 0.1]
"""

from __future__ import annotations

import argparse
import time

import duckdb
import numpy as np
from rater1001.marts import worth
from rater1001.marts.demographics import slot_names
from rater1001.stats import prediction_powered as pp


def estimands(warehouse: str):
    con = duckdb.connect(warehouse, read_only=True)
    rows = con.sql("select * from int_model_vs_human").df()
    stats = con.sql("select * from int_image_human_stats").df()
    counts = con.sql("select * from int_human_label_counts").df()
    names = slot_names(con.sql("select * from stg_study_factors").df())
    vlm = set(con.sql("select condition_id from stg_model_conditions where kind = 'vlm'").df()["condition_id"])
    con.close()
    out = []
    for m in worth.measures(rows[rows["condition_id"].isin(vlm)], stats, counts, names):
        if m["measure_kind"] == worth.LABEL:
            out.append((m["condition_id"], m["measure"], m["y"], m["yhat"]))
            continue
        levels = m["slots"]["emotion"].to_numpy()
        for level in sorted(set(levels)):
            part = levels == level
            out.append((m["condition_id"], f"{m['measure']}:{level}", m["y"][part], m["yhat"][part]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--warehouse", default="warehouse/rater1001.duckdb")
    ap.add_argument("--replications", type=int, default=500)
    ap.add_argument("--fractions", type=float, nargs="+", default=[0.1, 0.25, 0.5])
    ap.add_argument("--seed", type=int, default=20260101)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    cases = estimands(args.warehouse)
    se = np.sqrt(0.9 * 0.1 / args.replications)
    print(f"PPI++ 90 % intervals, {args.replications} replications per estimand and fraction, 8 VLM conditions")
    for fraction in args.fractions:
        hits: dict[tuple[str, str], list] = {}
        for _cond, what, y, yhat in cases:
            kind = "label shares" if ":" not in what else "category-level means"
            truth = y.mean(axis=0)
            m = len(y)
            n = max(2, int(np.ceil(fraction * m)))
            for _ in range(args.replications):
                lab, unl = rng.integers(0, m, n), rng.integers(0, m, m)
                r = pp.ppi_mean(y[lab], yhat[lab], yhat[unl])
                hits.setdefault(("iid", kind), []).extend(((r.lo <= truth) & (truth <= r.hi)).tolist())
                mask = pp.human_subset(m, fraction, rng)
                r = pp.ppi_mean(y[mask], yhat[mask], yhat[~mask])
                hits.setdefault(("subset", kind), []).extend(((r.lo <= truth) & (truth <= r.hi)).tolist())
        for (design, kind), h in sorted(hits.items()):
            print(
                f"  {fraction:4.0%} human-rated  {design:6s}  {kind:20s} coverage {np.mean(h):.4f} "
                f"over {len(h)} intervals"
            )
    print(f"Monte Carlo SE of one estimand's coverage: {se:.4f}; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
