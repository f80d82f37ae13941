"""Response diversity against direct counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
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
