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
    ap.add_argument("--fraction", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=20260101)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    hits: dict[str, list] = {"iid": [], "subset": []}
    per_condition: dict[str, list] = {}
    for cond, what, y, yhat in estimands(args.warehouse):
        truth = y.mean(axis=0)
        m = len(y)
        n = max(2, int(np.ceil(args.fraction * m)))
        for _ in range(args.replications):
            lab, unl = rng.integers(0, m, n), rng.integers(0, m, m)
            r = pp.ppi_mean(y[lab], yhat[lab], yhat[unl])
            covered = (r.lo <= truth) & (truth <= r.hi)
            hits["iid"].extend(covered.tolist())
            per_condition.setdefault(cond, []).extend(covered.tolist())
            mask = pp.human_subset(m, args.fraction, rng)
            r = pp.ppi_mean(y[mask], yhat[mask], yhat[~mask])
            hits["subset"].extend(((r.lo <= truth) & (truth <= r.hi)).tolist())
    se = np.sqrt(0.9 * 0.1 / args.replications)
    print(f"PPI++ 90 % intervals, {args.replications} replications per estimand, {args.fraction:.0%} human-rated")
    for cond, h in sorted(per_condition.items()):
        print(f"  {cond:26s} coverage {np.mean(h):.3f} over {len(h)} intervals")
    for design, h in hits.items():
        print(
            f"{design:7s} overall coverage {np.mean(h):.4f} over {len(h)} intervals "
            f"(Monte Carlo SE of one estimand's coverage {se:.4f})"
        )
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
