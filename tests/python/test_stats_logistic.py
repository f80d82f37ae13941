"""rater1001.stats.logistic: planted coefficients recovered; a fit that does not converge is NULL with
its reason and no warning."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from rater1001.stats import logistic


def test_logistic_slope_recovers_planted_coefficients():
    rng = np.random.default_rng(2)
    x = rng.normal(0, 1, 5000)
    z = rng.normal(0, 1, 5000)
    y = rng.random(5000) < 1 / (1 + np.exp(-(0.3 + 0.8 * x - 0.5 * z)))
    fit = logistic.logistic_slope(y, x, z)
    assert fit.ci_low < 0.8 < fit.ci_high
    assert fit.intercept == pytest.approx(0.3, abs=0.1) and fit.p_value < 1e-10
    assert math.isnan(logistic.logistic_slope(np.ones(10), np.arange(10.0)).slope)


def test_logistic_slope_that_does_not_converge_is_null_with_a_reason_and_no_warning():

    # Quasi-complete separation: x > 0 always chooses 1, x < 0 always 0, except ties at x = 0.
    # The likelihood's supremum is at an infinite slope, so Newton's method cannot converge.
    x = np.concatenate([np.linspace(-3, -0.1, 40), [0.0, 0.0], np.linspace(0.1, 3, 40)])
    y = np.concatenate([np.zeros(40), [0.0, 1.0], np.ones(40)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = logistic.logistic_slope(y, x)
        good = logistic.logistic_slope(*_planted_logistic(400))
    assert caught == [], [str(w.message) for w in caught]
    assert fit.converged is False and math.isnan(fit.slope) and math.isnan(fit.p_value)
    assert "did not converge" in fit.note or "Separation" in fit.note, fit.note
    assert good.converged is True and good.note is None and math.isfinite(good.slope)


def _planted_logistic(n):
    rng = np.random.default_rng(4)
    x = rng.normal(0, 1, n)
    return (rng.random(n) < 1 / (1 + np.exp(-(0.2 + 0.7 * x)))).astype(float), x
