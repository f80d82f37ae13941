"""z-scores and the human leave-one-out baseline: the Python closed forms equal brute force (their SQL
twins: test_twins.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from rater1001.stats import zscores as Z
from stats_helpers import brute_force_loo_z, loo_z, ragged_images, with_sums


def test_python_loo_closed_form_equals_brute_force():
    df = with_sums(ragged_images())
    got = loo_z(df.n, df.total, df.total_sq, df.rating)
    ref = brute_force_loo_z(df)
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got[~np.isnan(ref)], ref[~np.isnan(ref)], rtol=1e-12, atol=1e-12)
    # Images with 2 ratings have one rating left: no SD, so no z (NaN, counted).
    assert np.isnan(got[df.n.to_numpy() == 2]).all()


def test_equal_others_give_sd_exactly_zero_and_no_z():
    # Ratings (3, 3, 4) leaving out the 4: the other two are equal, so their SD is 0 and z is
    # undefined. The earlier closed form SS - (y - M)^2 n / (n - 1) left SD 1.8e-8 and z 5.5e7.
    df = with_sums(pd.DataFrame({"image_id": 0, "rater": [0, 1, 2], "rating": [3, 3, 4]}))
    sd = Z.loo_sd(df.n, df.total, df.total_sq, df.rating)
    assert sd[2] == 0.0 and np.isnan(loo_z(df.n, df.total, df.total_sq, df.rating)[2])
    np.testing.assert_allclose(sd[:2], np.std([3, 4], ddof=1), rtol=1e-15)  # leaving out a 3: (3, 4)


def test_non_integer_scale_zero_spread_is_zero_relative_to_the_scale():
    # 0.1 is not a binary fraction: n' Q' - T'^2 leaves a rounding residue that the zero test,
    # relative to n' Q', removes; a real spread of 0.1 on the same values survives.
    y = np.array([0.1, 0.1, 0.1, 0.7]) + 1000.3
    n, t, q = len(y), y.sum(), (y**2).sum()
    assert Z.loo_sd(n, t, q, y)[3] == 0.0
    y2 = np.array([1000.4, 1000.5, 1000.4, 1000.9])
    sd = Z.loo_sd(len(y2), y2.sum(), (y2**2).sum(), y2)[3]
    assert sd == pytest.approx(np.std(y2[:3], ddof=1), rel=1e-6)


def test_model_z_and_summary_count_zero_sd_images():
    mean, sd, x = np.array([5.0, 3.0, 7.0, 4.0]), np.array([1.0, 0.0, 2.0, 0.5]), np.array([6.0, 3.0, 4.0, 4.5])
    z = Z.zscore(x, mean, sd)
    np.testing.assert_allclose(z[[0, 2, 3]], [1.0, -1.5, 1.0])
    assert np.isnan(z[1])
    s = Z.summarise(z)
    # |z| <= 1 is inclusive (the paper's 1[|z| <= 1.0]): 2 of the 3 defined images.
    assert (s.n_images, s.n_zero_sd) == (3, 1)
    assert s.w1sd == pytest.approx(2 / 3) and s.mean_abs_z == pytest.approx((1 + 1.5 + 1) / 3)


def test_w1sd_of_normal_draws_is_about_68_percent():
    # Parameter recovery: draws from the human distribution fall within 1 SD 68.3 % of the time.
    rng = np.random.default_rng(2)
    s = Z.summarise(rng.normal(0, 1, 200_000))
    assert s.w1sd == pytest.approx(0.6827, abs=0.005)
    assert s.mean_abs_z == pytest.approx(np.sqrt(2 / np.pi), abs=0.005)


def test_a_missing_model_answer_counts_as_outside_one_sd():
    # 3 answered images with |z| = 0.5, 1.0, 2.0 and 1 unanswered: 2 of 4 within (answered-only 2 of 3).
    s = Z.summarise([0.5, -1.0, 2.0], n_missing=1)
    assert (s.w1sd, s.w1sd_answered_only, s.n_missing, s.n_images) == (0.5, pytest.approx(2 / 3), 1, 3)
    assert Z.summarise([np.nan], n_missing=2).w1sd == 0.0  # nothing answered: no image within
    assert np.isnan(Z.summarise([]).w1sd)
