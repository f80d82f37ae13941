"""k*, the model's worth in human raters (stats.worth): the two expected-distance identities it
rests on, checked by exhaustive enumeration of subsets and by simulation, and k* itself against a
brute-force recomputation from individual answers (every ordered pair of raters), for ratings and
for one-hot labels."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.stats import worth
from stats_helpers import pairwise_k_star


def _enumerate(panel: np.ndarray, k: int, h: int, model: float | None = None) -> float:
    """Mean over every pair of disjoint subsets (A of size k, B of size h) of the squared distance
    between mean_A (or the model's answer) and mean_B: the expectation, exactly."""
    idx = range(len(panel))
    total, count = 0.0, 0
    for b in itertools.combinations(idx, h):
        mean_b = panel[list(b)].mean(axis=0)
        if model is not None:
            total += float(((model - mean_b) ** 2).sum())
            count += 1
            continue
        rest = [i for i in idx if i not in b]
        for a in itertools.combinations(rest, k):
            total += float(((panel[list(a)].mean(axis=0) - mean_b) ** 2).sum())
            count += 1
    return total / count


panels = st.lists(st.integers(1, 7), min_size=4, max_size=7).map(lambda v: np.array(v, dtype=float))


@settings(max_examples=40, deadline=None)
@given(panel=panels, data=st.data())
def test_human_subset_identity_holds_exactly_by_enumeration(panel, data):
    n = len(panel)
    k = data.draw(st.integers(1, n - 1))
    h = data.draw(st.integers(1, n - k))
    s2 = panel.var(ddof=1)
    assert _enumerate(panel, k, h) == pytest.approx(s2 * (1 / k + 1 / h), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(panel=panels, model=st.floats(-3, 10), data=st.data())
def test_model_identity_holds_exactly_by_enumeration(panel, model, data):
    n = len(panel)
    h = data.draw(st.integers(1, n))
    s2 = panel.var(ddof=1)
    expected = (model - panel.mean()) ** 2 + s2 * (1 / h - 1 / n)
    assert _enumerate(panel, 0, h, model) == pytest.approx(expected, abs=1e-9)


def test_identities_hold_for_one_hot_labels_with_the_variance_summed_over_categories():
    labels = np.array([0, 0, 1, 2, 0, 1])
    onehot = np.eye(3)[labels]
    s2 = onehot.var(axis=0, ddof=1).sum()
    s2_closed, n, dist = worth.stimulus_terms_labels([np.bincount(labels, minlength=3)], [[0.0, 1.0, 0.0]])
    assert s2_closed[0] == pytest.approx(s2, abs=1e-12)
    assert _enumerate(onehot, 2, 3) == pytest.approx(s2 * (1 / 2 + 1 / 3), abs=1e-12)
    model = np.array([0.0, 1.0, 0.0])
    assert _enumerate(onehot, 0, 2, model) == pytest.approx(dist[0] + s2 * (1 / 2 - 1 / 6), abs=1e-12)


def test_identities_hold_by_simulation_on_a_larger_panel():
    rng = np.random.default_rng(7)
    panel = rng.integers(1, 8, 30).astype(float)
    k, h, model, draws = 4, 6, 5.5, 40_000
    perms = np.argsort(rng.random((draws, len(panel))), axis=1)
    mean_a = panel[perms[:, :k]].mean(axis=1)
    mean_b = panel[perms[:, k : k + h]].mean(axis=1)
    s2 = panel.var(ddof=1)
    human, machine = (mean_a - mean_b) ** 2, (model - mean_b) ** 2
    se = lambda v: 4 * v.std() / np.sqrt(draws)  # noqa: E731  (4 Monte Carlo standard errors)
    assert abs(human.mean() - s2 * (1 / k + 1 / h)) < se(human)
    assert abs(machine.mean() - ((model - panel.mean()) ** 2 + s2 * (1 / h - 1 / len(panel)))) < se(machine)


@settings(max_examples=60, deadline=None)
@given(
    stimuli=st.lists(
        st.tuples(st.lists(st.integers(1, 7), min_size=2, max_size=8), st.floats(0, 8)), min_size=1, max_size=12
    )
)
def test_k_star_of_ratings_equals_the_brute_force_pair_enumeration(stimuli):
    panels_ = [np.array(p, dtype=float) for p, _ in stimuli]
    models = [np.array(m) for _, m in stimuli]
    s2, n, dist = worth.stimulus_terms_ratings(
        [len(p) for p in panels_], [p.mean() for p in panels_], [((p - p.mean()) ** 2).sum() for p in panels_], models
    )
    got = worth.k_star(s2, n, dist, replicates=0).k_star
    want = pairwise_k_star(panels_, models)
    if np.isinf(want):
        assert np.isinf(got) or got > 1e9
    elif np.isinf(got):
        assert want > 1e9
    else:
        assert got == pytest.approx(want, rel=1e-9, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    stimuli=st.lists(
        st.tuples(st.lists(st.integers(0, 3), min_size=2, max_size=9), st.integers(0, 3)), min_size=1, max_size=10
    )
)
def test_k_star_of_labels_equals_the_brute_force_pair_enumeration(stimuli):
    eye = np.eye(4)
    panels_ = [eye[np.array(p)] for p, _ in stimuli]
    models = [eye[m] for _, m in stimuli]
    counts = [np.bincount(p, minlength=4) for p, _ in stimuli]
    got = worth.k_star(*worth.stimulus_terms_labels(counts, models), replicates=0).k_star
    want = pairwise_k_star(panels_, models)
    if np.isinf(want) or np.isinf(got):
        assert (np.isinf(want) or want > 1e9) and (np.isinf(got) or got > 1e9)
    else:
        assert got == pytest.approx(want, rel=1e-9, abs=1e-9)


def test_a_model_as_far_from_the_humans_as_one_human_is_worth_one_rater():
    # the model answers like a random rater of the panel: M_i = P_i, so k* = 1 exactly
    labels = [0, 0, 1, 1]
    counts = [np.bincount(labels, minlength=2)] * 2
    model = [[0.5, 0.5]] * 2  # the probability vector of a random rater; distance 0 from the shares
    r = worth.k_star(*worth.stimulus_terms_labels(counts, model), replicates=0)
    assert np.isinf(r.k_star) and r.excess_distance < 0  # closer than the panel's own mean can tell
    one_hot = [[1.0, 0.0], [0.0, 1.0]]
    r = worth.k_star(*worth.stimulus_terms_labels(counts, one_hot), replicates=0)
    # P/2 = 2/3 (4 raters, 2 x 2 split), M = 1: k* = (2/3) / (1 - 2/3) = 2
    assert r.k_star == pytest.approx(2.0, abs=1e-12)


def test_a_closer_model_is_worth_more_and_the_interval_brackets_the_estimate():
    rng = np.random.default_rng(3)
    s2 = rng.uniform(0.5, 2.0, 300)
    n = np.full(300, 20.0)
    far, near = rng.uniform(1.0, 3.0, 300), rng.uniform(0.3, 0.9, 300)
    a, b = worth.k_star(s2, n, far, 500, 42), worth.k_star(s2, n, near, 500, 42)
    assert b.k_star > a.k_star
    for r in (a, b):
        assert r.lo <= r.k_star <= r.hi and r.replicates == 500


def test_batched_k_stars_equal_one_call_each():
    rng = np.random.default_rng(4)
    panels_ = [(rng.uniform(0.5, 2, m), np.full(m, 10.0), rng.uniform(0, 2, m)) for m in (50, 50, 80)]
    batch = worth.k_stars(panels_, 200, 42)
    for triple, got in zip(panels_, batch, strict=True):
        assert got == worth.k_star(*triple, 200, 42)


def test_an_interval_reaching_beyond_the_panel_has_an_infinite_upper_bound():
    s2 = np.full(40, 1.0)
    n = np.full(40, 10.0)
    dist = np.r_[np.full(20, 0.0), np.full(20, 0.22)]  # mean 0.11 - 0.1 = 0.01 > 0, but fragile
    r = worth.k_star(s2, n, dist, 500, 42)
    assert np.isfinite(r.k_star) and r.k_star == pytest.approx(100.0)
    assert np.isinf(r.hi) and np.isfinite(r.lo)


def test_no_stimuli_gives_nan_not_an_error():
    r = worth.k_star([], [], [], 100, 42)
    assert np.isnan(r.k_star) and np.isnan(r.lo) and r.n_stimuli == 0


def test_unanimous_panels_the_model_misses_are_worth_zero_raters_with_a_zero_interval():
    r = worth.k_star(np.zeros(30), np.full(30, 5.0), np.full(30, 1.0), 200, 42)
    assert (r.k_star, r.lo, r.hi) == (0.0, 0.0, 0.0)
    # and the model that matches them exactly is beyond the panel
    r = worth.k_star(np.zeros(30), np.full(30, 5.0), np.zeros(30), 200, 42)
    assert np.isinf(r.k_star) and np.isinf(r.lo) and np.isinf(r.hi)
