"""rater1001.stats.welch against Welch's formula, a constant group included."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.stats import welch
from scipy import stats

SCORES = st.sampled_from([0.0, 0.5, 1.0])


@settings(max_examples=30, deadline=None)
@given(
    value=SCORES,
    n_constant=st.integers(2, 60),
    varying=st.lists(SCORES, min_size=2, max_size=60).filter(lambda v: len(set(v)) > 1),
    constant_first=st.booleans(),
)
def test_score_difference_with_a_constant_group_is_welchs_formula_without_a_warning(
    value, n_constant, varying, constant_first
):
    """A group whose scores are all equal has variance exactly 0: Welch's t is (m1 - m2) / sqrt(s2^2 / n2)
    on n2 - 1 df, written out here; scipy's precision-loss warning is not raised and the note says it."""
    a, b = ([value] * n_constant, varying) if constant_first else (varying, [value] * n_constant)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        r = welch.score_difference(a, b)
    a, b = np.asarray(a), np.asarray(b)
    varying = b if np.ptp(a) == 0 else a
    se = math.sqrt(varying.var(ddof=1) / len(varying))
    t = (a.mean() - b.mean()) / se
    p = 2 * stats.t.sf(abs(t), len(varying) - 1)
    half = stats.t.ppf(0.975, len(varying) - 1) * se
    assert r.p_value == pytest.approx(p) and r.ci_low == pytest.approx(a.mean() - b.mean() - half)
    assert "all equal" in r.note and r.ci_high == pytest.approx(a.mean() - b.mean() + half)
