"""rater1001.stats.studentized_range against closed forms (two means: a t test; the range of two
normals) and against scipy.stats.studentized_range, whose own integration error bounds the
agreement (below 1e-13 at a few hundred df, 1e-12 at 2,400, 4e-11 at 50,000)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.stats import studentized_range as sr
from scipy import stats


@settings(max_examples=40, deadline=None)
@given(q=st.floats(0.0, 40.0), df=st.integers(1, 200_000))
def test_two_means_is_the_two_sided_t_test(q, df):
    """k = 2: Q = |difference| / (s / sqrt(n/2)) = sqrt(2) |T|, so P(Q >= q) = 2 P(T_df >= q / sqrt 2)
    (at infinite df, 2 Phi(-q / sqrt 2): scipy's switch to it is at 100,000 df)."""
    closed = 2 * (stats.norm.sf(q / np.sqrt(2)) if df >= sr.ASYMPTOTIC_DF else stats.t.sf(q / np.sqrt(2), df))
    assert float(sr.sf([q], 2, df)[0]) == pytest.approx(closed, abs=2e-14)


@settings(max_examples=40, deadline=None)
@given(w=st.floats(0.0, 20.0))
def test_range_of_two_normals(w):
    assert float(sr.range_tail([w], 2)[0]) == pytest.approx(2 * stats.norm.sf(w / np.sqrt(2)), abs=2e-15)


@settings(max_examples=25, deadline=None)
@given(
    q=st.lists(st.floats(0.0, 25.0), min_size=1, max_size=4),
    k=st.integers(2, 40),
    df=st.one_of(st.integers(1, 1_000), st.integers(1_000, 60_000)),
)
def test_sf_agrees_with_scipy(q, k, df):
    ours, ref = sr.sf(q, k, df), stats.studentized_range.sf(q, k, df)
    # scipy's nquad (epsabs 1e-11) is the looser of the two: against the t closed form (k = 2)
    # its error grows with df (2e-14 at 234 df, 3e-13 at 498, 1e-12 at 2,394, 4e-11 at 50,000;
    # this module's stays below 1e-15), and at k = 22, 1,000 df it is 5.0e-13
    # (test_sf_equals_a_tight_quadrature_where_scipy_is_loose): scipy is held to its own epsabs
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-11 if df <= 1_000 else 5e-11)


def test_sf_equals_a_tight_quadrature_where_scipy_is_loose():
    """q = 5, k = 22, 1,000 df, where scipy's sf is 5.0e-13 off. The reference is the double
    integral by nested scipy.integrate.quad at epsabs 1e-16 / epsrel 1e-14 (chi density of s on
    [0.7, 1.4], its mass outside < 1e-45; inner z on [-12, 12]): 0.062074066640932915 (~65 s, so
    written here). scipy's studentized_range.sf gives 0.062074066641429004."""
    assert float(sr.sf([5.0], 22, 1_000)[0]) == pytest.approx(0.062074066640932915, abs=1e-13)


@settings(max_examples=8, deadline=None)
@given(k=st.integers(2, 12), df=st.integers(2, 500), alpha=st.sampled_from([0.01, 0.05, 0.1]))
def test_isf_inverts_sf_and_agrees_with_scipy_ppf(k, df, alpha):
    crit = sr.isf(alpha, k, df)
    assert float(sr.sf([crit], k, df)[0]) == pytest.approx(alpha, abs=1e-14)
    # scipy's root of its own cdf, whose error is up to its nquad epsabs (1e-11): the quantile's
    # is that over the density at the root (1e-11 seen at 429 df, alpha .01)
    h = 1e-4
    density = float(sr.sf([crit - h], k, df)[0] - sr.sf([crit + h], k, df)[0]) / (2 * h)
    assert crit == pytest.approx(stats.studentized_range.ppf(1 - alpha, k, df), abs=1e-11 / density + 1e-13)
    if k == 2:  # two means: sqrt(2) times the two-sided t quantile
        assert crit == pytest.approx(np.sqrt(2) * stats.t.isf(alpha / 2, df), abs=1e-13)


@settings(max_examples=30, deadline=None)
@given(q=st.lists(st.floats(0.0, 30.0), min_size=2, max_size=8), k=st.integers(2, 30), df=st.integers(1, 5_000))
def test_sf_is_a_decreasing_probability(q, k, df):
    q = np.sort(np.asarray(q))
    p = sr.sf(q, k, df)
    assert ((p >= 0) & (p <= 1)).all()
    assert (np.diff(p) <= 1e-15).all()


def test_edges_as_scipy():
    q = np.array([-1.0, 0.0, np.inf, np.nan])
    np.testing.assert_array_equal(sr.sf(q, 6, 30), stats.studentized_range.sf(q, 6, 30))
    assert np.isnan(sr.sf([1.0], 1, 30)).all() and np.isnan(sr.sf([1.0], 6, 0)).all()
    assert np.isnan(sr.isf(0.05, 6, 0))
