"""rater1001.stats.alpha_sums: the weighted per-unit terms of a bootstrap replicate give the alpha of
the units written out as often as they were drawn (stats.alpha on the repeated units)."""

from __future__ import annotations

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
