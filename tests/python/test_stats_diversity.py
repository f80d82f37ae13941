"""Response diversity against direct counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rater1001.stats import diversity as D


def test_stereotyped_condition_has_one_value():
    d = D.diversity(np.full(240, 9.0))  # GPT-4o-mini's happy valence (section 4.4)
    assert (d.n, d.n_unique, d.sd, d.modal_share, d.modal_value) == (240, 1, 0.0, 1.0, 9.0)


def test_diversity_table_equals_direct_computation():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "condition_id": np.repeat(["a", "b"], 60),
            "category": np.tile(np.repeat(["happy", "sad"], 30), 2),
            "valence": rng.integers(1, 10, 120).astype(float),
        }
    )
    frame.loc[3, "valence"] = np.nan  # a failed parse is not a value
    out = D.diversity_table(frame, ["condition_id", "category"], "valence").set_index(["condition_id", "category"])
    for key, sub in frame.groupby(["condition_id", "category"]):
        v = sub.valence.dropna()
        row = out.loc[key]
        assert row.n == len(v) and row.n_unique == v.nunique()
        assert row.sd == pytest.approx(v.std(ddof=1))
        counts = v.value_counts()
        assert row.modal_share == pytest.approx(counts.max() / len(v))
        assert row.modal_value == min(counts[counts == counts.max()].index)


values_lists = st.lists(st.one_of(st.integers(-3, 9).map(float), st.just(np.nan)), max_size=40)


@given(values_lists)
def test_diversity_equals_brute_force(values):
    """Against the answers themselves: pandas' std and value counts over the repeated values."""
    v = pd.Series(values, dtype=float).dropna()
    d = D.diversity(values)
    assert d.n == len(v) and d.n_unique == v.nunique()
    if len(v) >= 2:
        assert d.sd == pytest.approx(v.std(ddof=1), rel=1e-12, abs=1e-12)
    else:
        assert np.isnan(d.sd)
    if len(v):
        counts = v.value_counts()
        assert d.modal_share == counts.max() / len(v)
        assert d.modal_value == min(counts[counts == counts.max()].index)


@given(st.lists(st.tuples(st.integers(-3, 9).map(float), st.integers(0, 6)), max_size=15))
def test_diversity_from_counts_equals_the_repeated_values(pairs):
    """Values may repeat (a scope summing several groups' counts) and counts may be 0."""
    values = [v for v, _ in pairs]
    counts = [c for _, c in pairs]
    got = D.diversity_from_counts(values, counts)
    want = D.diversity(np.repeat(np.asarray(values, float), counts))
    assert got.n == want.n and got.n_unique == want.n_unique
    for a, b in [(got.sd, want.sd), (got.modal_share, want.modal_share), (got.modal_value, want.modal_value)]:
        assert (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-12)


def test_diversity_table_from_counts_equals_from_values():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "condition_id": rng.choice(["a", "b", "c"], 500),
            "category": rng.choice(["happy", "sad"], 500),
            "valence": rng.integers(1, 10, 500).astype(float),
        }
    )
    frame.loc[::37, "valence"] = np.nan
    by = ["condition_id", "category"]
    counts = frame.groupby([*by, "valence"], dropna=False).size().rename("n").reset_index()
    got = D.diversity_table(counts, by, "valence", count="n")
    want = D.diversity_table(frame, by, "valence")
    pd.testing.assert_frame_equal(got, want, rtol=1e-12, atol=1e-12)
