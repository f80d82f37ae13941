"""Response diversity (paper section 3.4.3 "응답 다양성 분석", section 4.4, Table 6): how many
distinct values a condition uses within an emotion, their SD, and the share of the modal value.
A condition that gives 240 happy faces valence 9 has n_unique 1, sd 0, modal_share 1.
The k-human comparison of Table 6 lives in bootstrap.k_human_variance.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Diversity:
    n: int
    n_unique: int
    sd: float  # ddof=1; NaN for n < 2
    modal_share: float  # share of the most frequent value (ties: any of them, same share)
    modal_value: float  # the smallest of the most frequent values


def diversity(values) -> Diversity:
    v = pd.Series(np.asarray(values, dtype=float)).dropna()
    if v.empty:
        return Diversity(0, 0, float("nan"), float("nan"), float("nan"))
    counts = v.value_counts()
    return Diversity(
        n=len(v), n_unique=int(counts.size),
        sd=float(v.std(ddof=1)) if len(v) >= 2 else float("nan"),
        modal_share=float(counts.iloc[0] / len(v)),
        modal_value=float(counts[counts == counts.iloc[0]].index.min()),
    )


def diversity_table(frame: pd.DataFrame, by: list[str], value: str) -> pd.DataFrame:
    """diversity() per group of `by` (e.g. ['condition_id', 'dimension', 'emotion'])."""
    rows = []
    for key, sub in frame.groupby(by, sort=True, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, key)), **asdict(diversity(sub[value]))})
    return pd.DataFrame(rows)
