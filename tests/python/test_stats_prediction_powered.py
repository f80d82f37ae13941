"""Prediction-powered estimates (stats.prediction_powered over `ppi-python`): the PPI++ point
estimate and interval against the closed form written out here, the classical interval and the gap
of two groups."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.stats import ppi_budget
from rater1001.stats import prediction_powered as pp
from scipy.stats import norm


def closed_form(y, yhat, yhat_u, level=0.9):
    """PPI++ for a mean (Angelopoulos, Duchi & Zrnic 2023, Example 6.1), written out: lambda =
    Cov(y, yhat) / ((1 + n/N) Var(yhat over all n + N answers)) clipped to [0, 1] (Cov with the n
    divisor, Var with n + N - 1), theta = lambda mean(yhat_u) + mean(y - lambda yhat), variance
    lambda^2 Var_N(yhat_u) / N + Var_n(y - lambda yhat) / n."""
    n, big_n = len(y), len(yhat_u)
    cov = np.mean((y - y.mean()) * (yhat - yhat.mean()))
    both = np.concatenate([yhat, yhat_u])
    var = np.sum((both - both.mean()) ** 2) / (n + big_n - 1)
    # a constant model carries no information: lambda = 0, the classical estimate of the rated subset
    lam = min(max(cov / ((1 + n / big_n) * var), 0.0), 1.0) if var > 0 else 0.0
    theta = lam * yhat_u.mean() + np.mean(y - lam * yhat)
    se = np.sqrt(lam**2 * np.var(yhat_u) / big_n + np.var(y - lam * yhat) / n)
    z = norm.ppf(1 - (1 - level) / 2)
    return theta, theta - z * se, theta + z * se


samples = st.integers(0, 10_000).map(np.random.default_rng)


@settings(max_examples=60, deadline=None)
@given(rng=samples, n=st.integers(3, 60), big_n=st.integers(1, 200), slope=st.floats(-2, 2), noise=st.floats(0.1, 3))
def test_ppi_point_estimate_and_interval_equal_the_closed_form(rng, n, big_n, slope, noise):
    truth = rng.normal(size=n + big_n)
    yhat_all = slope * truth + noise * rng.normal(size=n + big_n)
    y, yhat, yhat_u = truth[:n], yhat_all[:n], yhat_all[n:]
    got = pp.ppi_mean(y, yhat, yhat_u)
    theta, lo, hi = closed_form(y, yhat, yhat_u)
    assert got.estimate[0] == pytest.approx(theta, abs=1e-10)
    assert got.lo[0] == pytest.approx(lo, abs=1e-10) and got.hi[0] == pytest.approx(hi, abs=1e-10)
    assert (got.n_labelled, got.n_unlabelled) == (n, big_n)


def test_label_shares_are_estimated_coordinate_by_coordinate():
    rng = np.random.default_rng(2)
    y = np.eye(3)[rng.integers(0, 3, 120)] * 0.8 + 0.2 / 3
    yhat = np.eye(3)[rng.integers(0, 3, 120)]
    got = pp.ppi_mean(y[:40], yhat[:40], yhat[40:])
    for c in range(3):
        theta, lo, hi = closed_form(y[:40, c], yhat[:40, c], yhat[40:, c])
        assert got.estimate[c] == pytest.approx(theta, abs=1e-10)
        assert (got.lo[c], got.hi[c]) == pytest.approx((lo, hi), abs=1e-10)


def test_a_constant_model_gives_the_classical_estimate_of_the_human_rated_subset():
    rng = np.random.default_rng(9)
    y = rng.normal(7, 0.3, 240)
    got = pp.ppi_mean(y[:24], np.full(24, 9.0), np.full(216, 9.0))
    assert got.estimate[0] == pytest.approx(y[:24].mean(), abs=1e-12)
    assert (got.lo[0], got.hi[0]) == pytest.approx(
        closed_form(y[:24], np.full(24, 9.0), np.full(216, 9.0))[1:], abs=1e-12
    )
    curve = ppi_budget.budget_curve(y, np.full(240, 9.0), fractions=(0.25,), repeats=3, seed=1)
    assert curve.width_ratio[0] == pytest.approx(2.0, rel=0.15)  # 1 / sqrt(0.25), never NaN


def test_a_useless_model_gives_the_classical_estimate_of_the_human_rated_subset():
    rng = np.random.default_rng(3)
    y = rng.normal(size=50)
    yhat = np.r_[np.zeros(25), np.ones(25)]  # uncorrelated with y on the rated half: lambda = 0
    got = pp.ppi_mean(y[:25], yhat[:25], yhat[25:])
    assert got.estimate[0] == pytest.approx(y[:25].mean(), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(rng=samples, n=st.integers(2, 80), d=st.integers(1, 4))
def test_classical_interval_is_the_normal_interval_of_each_column(rng, n, d):
    y = rng.normal(size=(n, d))
    got = pp.classical_mean(y)
    z = norm.ppf(0.95)
    half = z * y.std(axis=0) / np.sqrt(n)
    assert np.allclose(got.lo, y.mean(axis=0) - half, atol=1e-12)
    assert np.allclose(got.hi, y.mean(axis=0) + half, atol=1e-12)


def test_gap_of_two_independent_groups_adds_their_variances():
    rng = np.random.default_rng(5)
    a, b = pp.classical_mean(rng.normal(1, 1, 80)), pp.classical_mean(rng.normal(0, 2, 60))
    gap = pp.difference(a, b)
    z = norm.ppf(0.95)
    se = np.hypot((a.hi - a.lo) / (2 * z), (b.hi - b.lo) / (2 * z))
    assert gap.estimate[0] == pytest.approx(a.estimate[0] - b.estimate[0])
    assert gap.hi[0] - gap.lo[0] == pytest.approx(2 * z * se[0])


def test_importing_ppi_py_through_the_module_silences_no_warning_elsewhere():
    import subprocess
    import sys

    code = (
        "import warnings\n"
        "import rater1001.stats.prediction_powered\n"
        "print(any(f[0] == 'ignore' and f[2] is Warning and f[1] is None and f[3] is None for f in warnings.filters))\n"
        "import ppi_py.ppi\n"  # already imported: no second filter change
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
