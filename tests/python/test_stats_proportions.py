"""rater1001.stats.proportions against closed forms: Wilson's interval written out, the exact binomial tail."""

from __future__ import annotations

import math

import pytest
from rater1001.stats import proportions
from scipy import stats


@pytest.mark.parametrize("k,n", [(13.5, 20), (0, 7), (7, 7), (120.5, 224)])
def test_wilson_interval_closed_form(k, n):
    lo, hi = wilson_closed_form(k, n)
    ci = proportions.wilson_interval(k, n)
    assert ci.lo == pytest.approx(lo, abs=1e-12) and ci.hi == pytest.approx(hi, abs=1e-12)


def test_position_bias_exact_binomial():
    res = proportions.position_bias_test(15, 5)
    tail = sum(math.comb(20, k) for k in range(15, 21)) / 2**20
    assert res.p_value == pytest.approx(2 * tail, rel=1e-12)
    assert res.share_first == 0.75 and res.n_decisive == 20
    assert math.isnan(proportions.position_bias_test(0, 0).p_value)


def wilson_closed_form(k, n):
    z = stats.norm.ppf(0.975)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half
