"""rater1001.stats.kappa against a textbook table, scikit-learn's cohen_kappa_score (bit for bit),
statsmodels' cohens_kappa and fleiss_kappa(method="randolph"), and the Landis-Koch bands."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.stats import classification as C
from rater1001.stats import kappa as K
from sklearn import metrics


def test_cohen_kappa_textbook_table():
    # 50 items: both yes 20, yes/no 5, no/yes 10, both no 15 -> po = .70, pe = .50, kappa = .40
    r1 = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
    r2 = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    k = K.cohen_kappa(r1, r2)
    assert k.kappa == pytest.approx(0.4, abs=1e-12) and k.agreement == pytest.approx(0.7)
    assert math.isnan(K.cohen_kappa(["tie"] * 5, ["tie"] * 5).kappa)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["a", "b", "tie", None]), st.sampled_from(["a", "b", "tie", None])), max_size=40)
)
def test_cohen_kappa_is_scikit_learns(pairs):
    """cohen_kappa (the two judges' count table through kappa_from_tables) against scikit-learn's
    cohen_kappa_score on the pairs both judges labelled; NaN exactly where that is undefined."""
    import warnings

    from sklearn.metrics import cohen_kappa_score

    got = K.cohen_kappa([x for x, _ in pairs], [y for _, y in pairs])
    both = [(x, y) for x, y in pairs if x is not None and y is not None]
    assert got.n == len(both)
    if both:
        assert got.agreement == pytest.approx(sum(x == y for x, y in both) / len(both), abs=1e-15)
    if len(both) < 2 or len({v for pair in both for v in pair}) == 1:
        assert math.isnan(got.kappa)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = cohen_kappa_score([x for x, _ in both], [y for _, y in both])
    assert got.kappa == pytest.approx(expected, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize(
    "kappa,band",
    [
        (-0.1, "poor"),
        (0.0, "slight"),
        (0.20, "slight"),
        (0.21, "fair"),
        (0.536, "moderate"),
        (0.668, "substantial"),
        (0.80, "substantial"),
        (0.853, "almost perfect"),
        (1.0, "almost perfect"),
    ],
)
def test_landis_koch_band(kappa, band):
    # 0.536 (LLaMA), 0.668 (Gemma3-4B), 0.853 (Gemini NoThink): the paper's Table 2 kappas.
    assert K.landis_koch_band(kappa) == band


@settings(max_examples=40, deadline=None)
@given(k=st.integers(1, 5), n=st.integers(1, 60), seed=st.integers(0, 2**16))
def test_kappa_from_tables_is_statsmodels_cohens_kappa_for_each_table(k, n, seed):
    from statsmodels.stats.inter_rater import cohens_kappa

    rng = np.random.default_rng(seed)
    tables = np.stack([np.bincount(rng.integers(0, k * k, n), minlength=k * k).reshape(k, k) for _ in range(4)])
    got = K.kappa_from_tables(tables)
    with np.errstate(divide="ignore", invalid="ignore"):
        ref = np.array([cohens_kappa(t, return_results=False) for t in tables], dtype=float)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-14)


@settings(max_examples=60, deadline=None)
@given(k=st.integers(1, 5), n=st.integers(1, 60), seed=st.integers(0, 2**16))
def test_kappa_from_tables_is_scikit_learns_cohen_kappa_bit_for_bit(k, n, seed):
    rng = np.random.default_rng(seed)
    pairs = rng.integers(0, k, (4, n, 2))
    tables = np.stack([np.bincount(p[:, 0] * k + p[:, 1], minlength=k * k).reshape(k, k) for p in pairs])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = [metrics.cohen_kappa_score(p[:, 0], p[:, 1], labels=list(range(k))) for p in pairs]
    np.testing.assert_array_equal(K.kappa_from_tables(tables), np.array(ref, dtype=float))


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 8), st.lists(st.integers(0, 7), min_size=1, max_size=60))
def test_kappa_within_is_randolphs_free_marginal_kappa(k, answers):
    """Oracle: statsmodels' Fleiss kappa with method='randolph' (chance = 1/K) on the label's own
    items, two raters each (the intended label 0 and the model's answer)."""
    from statsmodels.stats.inter_rater import fleiss_kappa

    answers = [a % k for a in answers]
    table = np.zeros((len(answers), k))
    table[:, 0] += 1
    table[np.arange(len(answers)), answers] += 1
    truth, predicted = ["c0"] * len(answers), [f"c{a}" for a in answers]
    got = C.by_label(truth, predicted, [f"c{i}" for i in range(k)]).set_index("category").loc["c0", "kappa_within"]
    assert got == pytest.approx(fleiss_kappa(table, method="randolph"), abs=1e-12)


def test_kappa_within_counts_a_missing_answer_as_wrong_and_needs_two_labels():
    t = C.by_label(["a", "a", "a", "a"], ["a", "a", None, "b"], ["a", "b", "c"]).set_index("category")
    assert t.loc["a", "kappa_within"] == pytest.approx((0.5 - 1 / 3) / (2 / 3))
    with pytest.raises(ValueError, match="at least 2 labels"):
        K.kappa_within(0.5, 1)
