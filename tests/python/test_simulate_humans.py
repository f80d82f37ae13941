"""The human panel's residuals (simulate/humans.py): one SD (and optionally Student t tails) per
emotion, checked against closed forms of the scaled t distribution (scipy.stats.t)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.simulate.humans import per_emotion, residual_draws, residual_sds
from scipy import stats

EMOTIONS = ["happy", "sad"]


def test_one_number_or_one_per_emotion():
    human = {"variance": {"valence": {"residual_sd": 1.2}, "arousal": {"residual_sd": {"happy": 1.0, "sad": 2.0}}}}
    assert residual_sds(human, "valence", EMOTIONS).tolist() == [1.2, 1.2]
    assert residual_sds(human, "arousal", EMOTIONS).tolist() == [1.0, 2.0]
    assert per_emotion(human, "valence", "residual_df", EMOTIONS, np.inf).tolist() == [np.inf, np.inf]
    with pytest.raises(ValueError, match=r"variance.arousal.residual_sd has no value for emotion\(s\) \['fear'\]"):
        residual_sds(human, "arousal", ["happy", "fear"])


def test_normal_where_no_df_and_a_finite_variance_asked():
    sd = np.full(1000, 1.5)
    a = residual_draws(np.random.default_rng(3), sd, np.full(1000, np.inf))
    assert np.array_equal(a, 1.5 * np.random.default_rng(3).standard_normal(1000))
    with pytest.raises(ValueError, match="residual_df must be > 2"):
        residual_draws(np.random.default_rng(3), sd, np.full(1000, 2.0))


@settings(max_examples=8, deadline=None)
@given(st.floats(2.5, 30), st.floats(0.3, 3))
def test_t_residuals_keep_the_sd_and_have_the_t_share_within_one_sd(df, sd):
    """X = sd * T * sqrt((df - 2) / df): Var X = sd^2 and P(|X| <= sd) = P(|T| <= sqrt(df / (df - 2)))."""
    n = 400_000
    x = residual_draws(np.random.default_rng(11), np.full(n, sd), np.full(n, df))
    share = 2 * stats.t.cdf(np.sqrt(df / (df - 2)), df) - 1
    assert np.mean(np.abs(x) <= sd) == pytest.approx(share, abs=4 * np.sqrt(share * (1 - share) / n))
    assert share > stats.norm.cdf(1) - stats.norm.cdf(-1)  # the sharper peak the LOO W1SD needs
    # the variance: a robust check (t's fourth moment is infinite below 4 df), the median of |X|
    med = sd * np.sqrt((df - 2) / df) * stats.t.ppf(0.75, df)
    assert np.median(np.abs(x)) == pytest.approx(med, rel=0.02)


def test_the_df_of_one_emotion_does_not_move_the_next_draws():
    sd = np.full(500, 1.0)
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    residual_draws(rng_a, sd, np.full(500, 3.0))
    residual_draws(rng_b, sd, np.full(500, 7.0))
    assert rng_a.random() == rng_b.random()
