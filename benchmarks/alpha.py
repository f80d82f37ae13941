"""Interval alpha + delta alpha for every condition: the SQL sufficient-statistics route
(macros/alpha_sufficient_statistics.sql in DuckDB) and the Python closed form
(rater1001.stats.alpha) against the `krippendorff` package on the same data.

    .venv/bin/python benchmarks/alpha.py [--scale 1 10] [--conditions 8] [--package-max-scale 10]

Scale 1 is the paper's design (1,000 raters x 72 of 1,440 images, 50 ratings per image, 8 model
conditions); scale 10 multiplies raters and images by 10 (7.2 million ratings). The package needs
the dense rater x image matrix (scale 10: 10,001 x 14,400 doubles, 1.2 GB per call), so it runs
only up to --package-max-scale. Results of all routes are checked to agree to 1e-9.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import duckdb
import jinja2
import krippendorff
import numpy as np
import pandas as pd
from rater1001.stats import alpha as A

MACRO = Path(__file__).resolve().parents[1] / "macros" / "alpha_sufficient_statistics.sql"


def study(scale: int, n_conditions: int, seed: int = 20251129):
    """Long human ratings (rater_id, image_id, rating) and model predictions (condition_id,
    image_id, rating): every rater rates 72 images, every image gets 50 ratings."""
    rng = np.random.default_rng(seed)
    n_images, per_rater, per_image = 1440 * scale, 72, 50
    signal = rng.normal(5, 1.3, n_images)
    raters_per_block = n_images // per_rater
    image = np.concatenate([rng.permutation(n_images) for _ in range(per_image)])
    rater = np.repeat(np.arange(per_image * raters_per_block), per_rater)
    rating = np.clip(np.rint(signal[image] + rng.normal(0, 1.6, len(image))), 1, 9)
    humans = pd.DataFrame({"rater_id": rater, "image_id": image, "rating": rating})
    models = pd.DataFrame(
        {
            "condition_id": np.repeat([f"model_{c}" for c in range(n_conditions)], n_images),
            "image_id": np.tile(np.arange(n_images), n_conditions),
            "rating": np.clip(
                np.rint(np.tile(signal, n_conditions) + rng.normal(0.5, 0.8, n_images * n_conditions)), 1, 9
            ),
        }
    )
    return humans, models


def sql_route(humans, models) -> dict[str, float]:
    m = jinja2.Environment().from_string(MACRO.read_text()).module
    con = duckdb.connect()
    con.register("humans", humans)
    con.register("models", models)
    con.execute(f"create temp table unit_stats as {m.alpha_unit_stats('humans', 'image_id', 'rating')}")
    # Human + each model: add (1, x, x^2) to each unit of the human statistics, one GROUP BY.
    plus = """(select p.condition_id, s.unit_id, s.m + 1 as m, s.total + p.rating as total,
                      s.total_sq + p.rating * p.rating as total_sq
               from unit_stats s join models p on p.image_id = s.unit_id)"""
    base = con.execute(m.alpha_interval_from_stats("unit_stats")).df()
    per = con.execute(m.alpha_interval_from_stats(plus, ["condition_id"])).df()
    out = {"human": float(base.alpha[0])}
    out.update({r.condition_id: float(r.alpha) for r in per.itertuples()})
    return out


def python_route(humans, models) -> dict[str, float]:
    stats = A.sufficient_statistics(humans)
    out = {"human": A.alpha_interval_from_sufficient(stats.m, stats.total, stats.total_sq).alpha}
    for cond, p in models.groupby("condition_id"):
        out[cond] = A.delta_alpha(
            stats.m, stats.total, stats.total_sq, p.set_index("image_id")["rating"].reindex(stats.index)
        ).with_extra.alpha
    return out


def package_route(humans, models) -> dict[str, float]:
    wide = np.full((humans.rater_id.max() + 1, humans.image_id.max() + 1), np.nan)
    wide[humans.rater_id.to_numpy(), humans.image_id.to_numpy()] = humans.rating.to_numpy()
    out = {"human": float(krippendorff.alpha(reliability_data=wide, level_of_measurement="interval"))}
    for cond, p in models.groupby("condition_id"):
        row = np.full(wide.shape[1], np.nan)
        row[p.image_id.to_numpy()] = p.rating.to_numpy()
        out[cond] = float(krippendorff.alpha(reliability_data=np.vstack([wide, row]), level_of_measurement="interval"))
    return out


def timed(fn, *args):
    t0 = time.perf_counter()
    res = fn(*args)
    return res, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, nargs="+", default=[1, 10])
    ap.add_argument("--conditions", type=int, default=8)
    ap.add_argument("--package-max-scale", type=int, default=10)
    args = ap.parse_args(argv)
    for scale in args.scale:
        humans, models = study(scale, args.conditions)
        print(
            f"scale {scale}: {len(humans):,} ratings, {humans.image_id.nunique():,} images, "
            f"{humans.rater_id.nunique():,} raters, {args.conditions} conditions"
        )
        sql, t_sql = timed(sql_route, humans, models)
        py, t_py = timed(python_route, humans, models)
        print(f"  SQL (DuckDB, sufficient statistics): {t_sql:8.2f} s   human alpha {sql['human']:.6f}")
        print(f"  Python closed form:                  {t_py:8.2f} s")
        for k in sql:
            assert abs(sql[k] - py[k]) < 1e-9, (k, sql[k], py[k])
        if scale <= args.package_max_scale:
            pkg, t_pkg = timed(package_route, humans, models)
            worst = max(abs(sql[k] - pkg[k]) for k in sql)
            assert worst < 1e-9, worst
            print(f"  krippendorff package (dense matrix): {t_pkg:8.2f} s   max |diff| {worst:.1e}")
            print(f"  ratio package / SQL: {t_pkg / t_sql:6.1f}x   package / Python: {t_pkg / t_py:6.1f}x")
        print("  delta alpha: " + ", ".join(f"{k} {sql[k] - sql['human']:+.4f}" for k in sorted(sql) if k != "human"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
