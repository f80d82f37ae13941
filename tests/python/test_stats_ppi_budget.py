"""rater1001.stats.ppi_budget against `ppi_py` draw by draw, the median of the draws, a model that
knows nothing, and the tolerance rule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.stats import ppi_budget
from rater1001.stats import prediction_powered as pp
from scipy.stats import norm

samples = st.integers(0, 10_000).map(np.random.default_rng)


@settings(max_examples=30, deadline=None)
@given(
    rng=samples, m=st.integers(20, 200), fraction=st.floats(0.05, 0.95), groups=st.integers(1, 4), d=st.integers(1, 3)
)
def test_budget_widths_of_all_draws_at_once_equal_ppi_py_draw_by_draw(rng, m, fraction, groups, d):
    y = rng.normal(size=(m, d)) if d > 1 else rng.normal(size=m)
    yhat = 0.6 * y + rng.normal(size=y.shape)
    g = rng.integers(0, groups, m)
    z = norm.ppf(0.95)
    for _ in range(3):
        labelled = pp.human_subset(m, fraction, rng)
        want = pp.width_ratio(y, yhat, labelled, g)
        parts = [
            ppi_budget._draw_ratios(y.reshape(m, -1)[g == k], yhat.reshape(m, -1)[g == k], labelled[None, g == k], z)
            for k in np.unique(g)
        ]
        got = ppi_budget._nanmedian_of_means(np.concatenate(parts, axis=1))
        if np.isnan(want):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(want, rel=1e-10)


def test_budget_curve_is_the_median_of_the_draws_and_reaches_one_at_every_stimulus():
    rng = np.random.default_rng(6)
    y = rng.normal(size=400)
    yhat = y + 0.3 * rng.normal(size=400)
    curve = ppi_budget.budget_curve(y, yhat, fractions=(0.1, 0.5, 1.0), repeats=5, seed=1)
    assert curve.width_ratio[-1] == 1.0
    # a good model narrows the 10 % interval well below the classical one of 40 stimuli (sqrt(10))
    assert curve.width_ratio[0] < 0.6 * np.sqrt(10)
    assert curve.width_ratio[0] > curve.width_ratio[1] > 0.9
    # the median of the five draws of seed 1, each through ppi_py
    draws = np.random.default_rng(1)
    orders = [draws.permutation(400) for _ in range(5)]
    ratios = []
    for order in orders:
        labelled = np.zeros(400, dtype=bool)
        labelled[order[:40]] = True
        ratios.append(pp.width_ratio(y, yhat, labelled))
    assert curve.width_ratio[0] == pytest.approx(np.median(ratios), rel=1e-10)


def test_a_model_that_knows_nothing_needs_the_humans_in_proportion():
    rng = np.random.default_rng(8)
    y = rng.normal(size=2000)
    curve = ppi_budget.budget_curve(y, rng.normal(size=2000), fractions=(0.25, 1.0), repeats=5, seed=2)
    assert curve.width_ratio[0] == pytest.approx(2.0, rel=0.1)  # 1 / sqrt(0.25)


def test_budget_fraction_is_the_smallest_within_tolerance():
    assert ppi_budget.budget_fraction([0.05, 0.1, 0.2, 1.0], [1.5, 1.09, 1.2, 1.0]) == 0.1
    assert np.isnan(ppi_budget.budget_fraction([0.1], [1.5]))


@settings(max_examples=40, deadline=None)
@given(rng=samples, m=st.integers(1, 300), d=st.integers(1, 3), block=st.integers(1, 40))
def test_prefix_sums_in_steps_are_the_cumulative_sum_bit_for_bit(rng, m, d, block):
    answers = rng.normal(3.0, 2.0, size=(m, 2 * d)) * rng.lognormal(0.0, 3.0, size=(m, 1))
    order = rng.permutation(m)[: rng.integers(0, m + 1)]
    stops = np.sort(rng.integers(0, len(order) + 1, size=5))
    features = ppi_budget._features(answers[:, :d], answers[:, d:])
    whole = np.vstack([np.zeros((1, features.shape[1])), np.cumsum(features[order], axis=0)])
    got = ppi_budget._prefix_sums(answers, d, order, stops, block)
    assert np.array_equal(got, whole[stops])


@settings(max_examples=25, deadline=None)
@given(rng=samples, m=st.integers(8, 120), groups=st.integers(1, 4), seed=st.integers(0, 1000))
def test_budget_curve_per_estimand_is_the_median_of_ppi_py_draws(rng, m, groups, seed):
    # every draw through ppi_py's interval on the first ceil(f m) stimuli of the seed's permutations
    y = rng.normal(size=m)
    yhat = 0.7 * y + rng.normal(size=m)
    g = rng.choice(np.array(["b", "a", "c", "d"])[:groups], m)
    fractions = (0.3, 0.6)
    curve = ppi_budget.budget_curve(y, yhat, g, fractions, repeats=3, seed=seed)
    draws = np.random.default_rng(seed)
    orders = [draws.permutation(m) for _ in range(3)]
    for f, got in zip(fractions, curve.width_ratio, strict=True):
        ratios = []
        for order in orders:
            labelled = np.zeros(m, dtype=bool)
            labelled[order[: int(np.ceil(f * m - 1e-9))]] = True
            ratios.append(pp.width_ratio(y, yhat, labelled, g))
        want = np.nanmedian(ratios) if not np.isnan(ratios).all() else np.nan
        assert got == pytest.approx(want, rel=1e-9, nan_ok=True)
