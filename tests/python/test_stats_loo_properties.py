"""Property-based check of the human leave-one-out baseline and interval alpha on random small
studies (2-6 ratings per item, ties, constant items, missing ratings): every LOO mean, SD, z, the
W1SD / mean |z| summary and alpha from the Python closed forms equal a brute force in exact
rational arithmetic (their SQL twins: test_twins.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from rater1001.stats import alpha as A
from rater1001.stats import zscores as Z
from stats_helpers import assert_same, brute_alpha, brute_loo, loo_z, studies, with_sums

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
def test_python_interval_alpha_equals_brute_force(df):
    assert_same([A.alpha(df, "interval").alpha], [brute_alpha(df)], "python alpha")


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
