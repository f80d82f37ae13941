"""Property-based check of the human leave-one-out baseline and interval alpha on random small
studies (2-6 ratings per item, ties, constant items, missing ratings): every LOO mean, SD, z, the
W1SD / mean |z| summary and alpha, from the Python closed forms and from the rendered SQL macros,
equal a brute force in exact rational arithmetic."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rater1001.stats import alpha as A
from rater1001.stats import zscores as Z
from stats_helpers import loo_z
from stats_sql import alpha_interval_sql, macros, run


@st.composite
def studies(draw):
    """Long (image_id, rater, rating) frame; each image has 2-6 ratings on a 1-k scale, some
    constant, and raters are missing from some images (rater ids are not contiguous)."""
    k = draw(st.integers(2, 9))
    rows = []
    for image in range(draw(st.integers(1, 8))):
        n = draw(st.integers(2, 6))
        raters = draw(st.lists(st.integers(0, 7), min_size=n, max_size=n, unique=True))
        if draw(st.booleans()):
            values = [draw(st.integers(1, k))] * n  # a constant item
        else:
            values = draw(st.lists(st.integers(1, k), min_size=n, max_size=n))
        rows += [(image, r, v) for r, v in zip(raters, values)]
    return pd.DataFrame(rows, columns=["image_id", "rater", "rating"]).sort_values(
        ["image_id", "rater"], ignore_index=True
    )


def brute_loo(df: pd.DataFrame) -> pd.DataFrame:
    """Each rating against the other ratings of its image, mean and variance as exact fractions."""
    out = []
    for _, g in df.groupby("image_id", sort=True):
        ys = [int(v) for v in g.rating]
        for h, y in enumerate(ys):
            rest = ys[:h] + ys[h + 1 :]
            mean = Fraction(sum(rest), len(rest))
            var = sum((Fraction(v) - mean) ** 2 for v in rest) / (len(rest) - 1) if len(rest) >= 2 else None
            sd = math.sqrt(var) if var is not None else math.nan
            z = float((y - mean) / Fraction(sd)) if var else math.nan
            out.append((float(mean), sd, z))
    return pd.DataFrame(out, columns=["loo_mean", "loo_sd", "loo_z"])


def brute_alpha(df: pd.DataFrame) -> float:
    """Krippendorff's interval alpha from its definition: pairs within units over all pairs."""
    units = [[int(v) for v in g.rating] for _, g in df.groupby("image_id") if len(g) >= 2]
    values = [v for u in units for v in u]
    n = len(values)
    d_o = sum(Fraction(sum((a - b) ** 2 for a, b in combinations(u, 2)) * 2, len(u) - 1) for u in units) / n
    d_e = Fraction(sum((a - b) ** 2 for a, b in combinations(values, 2)) * 2, n * (n - 1))
    return math.nan if d_e == 0 else float(1 - d_o / d_e)


def with_sums(df):
    g = df.groupby("image_id").rating
    return df.assign(
        n=g.transform("count"), total=g.transform("sum"), total_sq=(df.rating**2).groupby(df.image_id).transform("sum")
    )


def sql_loo(df: pd.DataFrame) -> pd.DataFrame:
    """The SQL route as int_image_human_stats + int_human_loo compute it: integer sums per image,
    then the leave_one_out and zscore macros."""
    m = macros("zscore", "leave_one_out")
    mean, sd = m.loo_mean("s.n", "s.total", "r.rating"), m.loo_sd("s.n", "s.total", "s.total_sq", "r.rating")
    sql = f"""with s as (select image_id, count(*) as n, sum(rating) as total, sum(rating * rating) as total_sq
                        from ratings group by image_id)
              select {mean} as loo_mean, {sd} as loo_sd, {m.zscore("r.rating", mean, sd)} as loo_z
              from ratings r join s using (image_id) order by r.image_id, r.rater"""
    return run(sql, ratings=df.astype({"rating": "int32"}))


def assert_same(got, ref, what):
    got, ref = np.asarray(got, dtype=float), np.asarray(ref, dtype=float)
    assert np.array_equal(np.isnan(got), np.isnan(ref)), what
    np.testing.assert_allclose(got[~np.isnan(ref)], ref[~np.isnan(ref)], rtol=1e-12, atol=1e-12, err_msg=what)


PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(studies())
def test_python_loo_mean_sd_z_and_summary_equal_brute_force(df):
    ref = brute_loo(df)
    s = with_sums(df)
    assert_same(Z.loo_mean(s.n, s.total, s.rating), ref.loo_mean, "mean")
    assert_same(Z.loo_sd(s.n, s.total, s.total_sq, s.rating), ref.loo_sd, "sd")
    z = loo_z(s.n, s.total, s.total_sq, s.rating)
    assert_same(z, ref.loo_z, "z")
    got, want = Z.summarise(z), Z.summarise(ref.loo_z.to_numpy())
    assert (got.n_images, got.n_zero_sd) == (want.n_images, want.n_zero_sd)
    assert_same([got.w1sd, got.mean_abs_z], [want.w1sd, want.mean_abs_z], "summary")


@PROPERTY
@given(studies())
def test_sql_loo_mean_sd_z_and_summary_equal_brute_force(df):
    ref = brute_loo(df)
    got = sql_loo(df)
    for col in ("loo_mean", "loo_sd", "loo_z"):
        assert_same(got[col], ref[col], col)
    summary = run(
        f"select {macros('zscore_summary').zscore_summary_columns('z')} from t",
        t=pd.DataFrame({"z": got.loo_z.astype(float)}),
    ).iloc[0]
    want = Z.summarise(ref.loo_z.to_numpy())
    assert (int(summary.n_images), int(summary.n_zero_sd_images)) == (want.n_images, want.n_zero_sd)
    assert_same([summary.w1sd, summary.mean_abs_z], [want.w1sd, want.mean_abs_z], "summary")


@PROPERTY
@given(studies())
def test_python_and_sql_interval_alpha_equal_brute_force(df):
    ref = brute_alpha(df)
    assert_same([A.alpha(df, "interval").alpha], [ref], "python alpha")
    sql = run(alpha_interval_sql("ratings", "image_id", "rating"), ratings=df)
    got = float(sql.alpha.iloc[0]) if len(sql) and pd.notna(sql.alpha.iloc[0]) else math.nan
    assert_same([got], [ref], "sql alpha")


def test_the_strategy_reaches_the_edges():
    # The properties above only mean something if the studies contain the cases that broke:
    # items whose other ratings are all equal while the item itself is not constant.
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {"image_id": np.repeat(np.arange(200), 3), "rater": np.tile([0, 1, 2], 200), "rating": rng.integers(1, 4, 600)}
    )
    ref = brute_loo(df)
    s = with_sums(df)
    sd = Z.loo_sd(s.n, s.total, s.total_sq, s.rating)
    edge = (ref.loo_sd == 0) & (s.groupby("image_id").rating.transform("nunique") > 1)
    assert edge.sum() > 50
    assert (sd[edge.to_numpy()] == 0).all()
    assert pytest.approx(float(np.nanmean(np.abs(loo_z(s.n, s.total, s.total_sq, s.rating))))) == float(
        np.nanmean(np.abs(ref.loo_z))
    )
