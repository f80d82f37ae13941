"""rater1001.stats.floyd_sampling: distinct positions in range, each position and pair drawn with
its chance."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.stats import floyd_sampling


@settings(max_examples=25, deadline=None)
@given(m=st.lists(st.integers(1, 90), min_size=1, max_size=6), k=st.integers(0, 90), seed=st.integers(0, 2**16))
def test_draw_positions_are_distinct_and_in_range_for_both_bookkeepings(m, k, seed):
    # m <= 64 keeps taken positions as bits, larger m compares with the earlier picks
    m = np.array(m)
    size = np.minimum(k, m)
    picks = floyd_sampling.draw_positions(np.tile(m, (40, 1)), np.tile(size, (40, 1)), np.random.default_rng(seed))
    for r in range(40):
        for u in range(len(m)):
            got = picks[r, u][picks[r, u] >= 0]
            assert len(got) == size[u] and len(set(got.tolist())) == size[u] and (got < m[u]).all()


@pytest.mark.parametrize("m", [5, 70])
def test_draw_positions_gives_every_subset_the_same_chance(m):
    # 3 of m: every position is in the subset with probability 3/m, every pair with 3*2/(m(m-1))
    reps = 60000
    picks = floyd_sampling.draw_positions(np.full(reps, m), 3, np.random.default_rng(0))
    hit = np.zeros((reps, m), bool)
    np.put_along_axis(hit, picks, True, axis=1)
    share = hit.mean(axis=0)
    se = np.sqrt(3 / m * (1 - 3 / m) / reps)
    assert np.abs(share - 3 / m).max() < 5 * se
    pair = (hit[:, 0] & hit[:, m - 1]).mean()  # first and last: Floyd's edge cases
    assert pair == pytest.approx(6 / (m * (m - 1)), abs=5 * np.sqrt(6 / (m * (m - 1)) / reps))
