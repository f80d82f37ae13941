"""Treatment coding of a categorical factor (stats/design.py) against pandas' dummy coding of the
same categorical (pd.get_dummies of pd.Categorical: sorted levels, the first the reference)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.stats.design import dummy_columns, treatment_design

LEVELS = st.one_of(
    st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "b c", "Z", "é", "10", "9"])), max_size=30),
    st.lists(st.integers(-3, 12), max_size=30),
)


@settings(max_examples=200, deadline=None)
@given(LEVELS, st.sampled_from([object, "str", None]))
def test_treatment_design_is_pandas_dummy_coding(levels, dtype):
    values = pd.Series(levels, name="era", dtype=dtype if all(isinstance(v, str) for v in levels) else None)
    X, names = treatment_design(values)
    dummies = pd.get_dummies(pd.Categorical(values), dtype=float)
    assert names == ["(Intercept)"] + [f"era[{c}]" for c in dummies.columns[1:]]
    assert X.shape == (len(values), max(1, dummies.shape[1]))
    assert np.array_equal(X[:, 0], np.ones(len(values)))
    assert np.array_equal(X[:, 1:], dummies.to_numpy()[:, 1:])
    assert np.array_equal(dummy_columns(values), X[:, 1:])


def test_a_categorical_keeps_its_own_levels_and_order():
    values = pd.Series(pd.Categorical(["b", None, "b"], categories=["c", "b", "a"]), name="era")
    X, names = treatment_design(values)
    assert names == ["(Intercept)", "era[b]", "era[a]"]  # "c", unused, is the reference
    assert X.tolist() == [[1.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]
