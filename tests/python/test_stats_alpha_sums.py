"""rater1001.stats.alpha_sums: the weighted per-unit terms of a bootstrap replicate give the alpha of
the units written out as often as they were drawn (stats.alpha on the repeated units)."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rater1001.stats import alpha as A
from rater1001.stats import alpha_sums


@settings(max_examples=40, deadline=None)
@given(units=st.integers(1, 15), seed=st.integers(0, 2**16), centre=st.floats(-3, 12))
@example(units=1, seed=62, centre=0.99999)  # one unit of two equal values: no spread, not -0.5
def test_weighted_unit_terms_give_the_alpha_of_the_repeated_units(units, seed, centre):
    # a bootstrap replicate as weights: alpha_from_sums of the weighted unit_terms (any centre)
    # equals alpha of the units written out as often as they were drawn
    from hypothesis import assume

    rng = np.random.default_rng(seed)
    m = rng.integers(0, 6, units).astype(float)
    values = [rng.integers(1, 10, int(k)).astype(float) for k in m]
    total, total_sq = np.array([v.sum() for v in values]), np.array([(v**2).sum() for v in values])
    weights = rng.integers(0, 4, units)
    assume(weights.sum() > 0)
    idx = np.repeat(np.arange(units), weights)
    ref = A.alpha_interval_from_sufficient(m[idx], total[idx], total_sq[idx]).alpha
    got = alpha_sums.alpha_from_sums(*(np.stack(alpha_sums.unit_terms(m, total, total_sq, centre)) @ weights))
    assert (np.isnan(ref) and np.isnan(got)) or got == pytest.approx(ref, abs=1e-10)


@settings(max_examples=40, deadline=None)
@given(
    units=st.integers(2, 12),
    k=st.integers(2, 6),
    seed=st.integers(0, 2**16),
    centre=st.floats(-3, 12),
    missing=st.floats(0, 1),
)
def test_extra_rater_term_sums_give_krippendorff_alpha_of_the_pool_plus_the_rater(units, k, seed, centre, missing):
    # small_pools' shortcut: the summed terms of k-value pools plus one rater (some units unrated)
    # give the `krippendorff` package's alpha of the explicit matrix, and the sums of rebuilding
    # every unit's terms
    rng = np.random.default_rng(seed)
    pools = rng.integers(1, 10, (3, units, k)).astype(float)  # 3 replicates x units x k values
    extra = rng.integers(1, 10, (3, units)).astype(float)
    extra[rng.random((3, units)) < missing] = np.nan
    m, total, total_sq = np.full((3, units), float(k)), pools.sum(-1), (pools**2).sum(-1)
    terms = alpha_sums.unit_terms(m, total, total_sq, centre)
    got = alpha_sums.extra_rater_term_sums(k, terms, [t.sum(-1) for t in terms], extra, centre)
    rebuilt = [
        t.sum(-1) for t in alpha_sums.unit_terms(*alpha_sums.with_extra_rater(m, total, total_sq, extra), centre)
    ]
    np.testing.assert_allclose(np.stack(got), np.stack(rebuilt), rtol=1e-12, atol=1e-9)
    for r in range(3):
        matrix = np.column_stack([pools[r], extra[r]]).T  # raters x units
        if np.nanstd(matrix) == 0:
            continue
        ref = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
        assert float(alpha_sums.alpha_from_sums(*(g[r] for g in got))) == pytest.approx(ref, abs=1e-10)


def test_extra_rater_term_sums_refuse_pools_of_one_value():
    terms = alpha_sums.unit_terms([1.0], [3.0], [9.0], 0.0)
    with pytest.raises(ValueError, match="at least 2 values"):
        alpha_sums.extra_rater_term_sums(1, terms, [t.sum() for t in terms], np.array([2.0]), 0.0)
