"""Response diversity (paper section 3.4.3 "응답 다양성 분석", section 4.4, Table 6): how many
distinct values a condition uses within a category, their SD, and the share of the modal value.
A condition that gives 240 happy faces valence 9 has n_unique 1, sd 0, modal_share 1.
The k-human comparison of Table 6 lives in k_human_diversity.k_human_variance.
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
    """How many distinct values a set of answers uses, their SD and the modal value's share.

    Parameters
    ----------
    values : array_like
        Numeric answers (a condition's ratings of one category); missing values are ignored.

    Returns
    -------
    Diversity
        n, n_unique, sd (ddof = 1; NaN below two values), modal_share, modal_value (the smallest
        of the most frequent values); NaNs and 0s when there is no value.

    Notes
    -----
    sd = sqrt(sum (v - mean)^2 / (n - 1)); modal_share = max_c n_c / n. A condition that gives
    240 happy faces valence 9 has n_unique 1, sd 0, modal_share 1.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3
    (response diversity), section 4.4, Table 6.

    Examples
    --------
    Three 9s and an 8: mean 8.75, sd sqrt(0.75 / 3) = .5, the 9s are 3/4 of the answers:

    >>> diversity([9, 9, 9, 8])
    Diversity(n=4, n_unique=2, sd=0.5, modal_share=0.75, modal_value=9.0)
    """
    v = np.asarray(values, dtype=float).ravel()
    return diversity_from_counts(v, np.ones(v.size, dtype=np.int64))


def diversity_from_counts(values, counts) -> Diversity:
    """:func:`diversity` of answers given as distinct values and how often each was given.

    Parameters
    ----------
    values : array_like
        Numeric answers; a value may repeat (its counts add up); NaN is no answer.
    counts : array_like
        How many times each of `values` was given (>= 0).

    Returns
    -------
    Diversity
        As :func:`diversity` of the values each repeated its count times.

    Notes
    -----
    n = sum_c n_c; mean = sum_c n_c v_c / n; sd = sqrt(sum_c n_c (v_c - mean)^2 / (n - 1));
    modal_share = max_c n_c / n. Counts suffice: the work is the number of distinct values, not
    of answers (a mart sums its answers per value in DuckDB first).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3,
    section 4.4, Table 6.

    Examples
    --------
    Three 9s and an 8, as counts:

    >>> diversity_from_counts([9, 8], [3, 1])
    Diversity(n=4, n_unique=2, sd=0.5, modal_share=0.75, modal_value=9.0)
    """
    v = np.asarray(values, dtype=float)
    c = np.asarray(counts, dtype=np.int64)
    keep = ~np.isnan(v) & (c > 0)
    v, inverse = np.unique(v[keep], return_inverse=True)
    c = np.bincount(inverse.ravel(), weights=c[keep], minlength=v.size).astype(np.int64)
    n = int(c.sum())
    if n == 0:
        return Diversity(0, 0, float("nan"), float("nan"), float("nan"))
    mean = float(np.dot(c, v)) / n
    top = c.max()
    return Diversity(
        n=n,
        n_unique=int(v.size),
        sd=float(np.sqrt(np.dot(c, (v - mean) ** 2) / (n - 1))) if n >= 2 else float("nan"),
        modal_share=float(top / n),
        modal_value=float(v[c == top].min()),
    )


def diversity_table(frame: pd.DataFrame, by: list[str], value: str, count: str | None = None) -> pd.DataFrame:
    """:func:`diversity` per group.

    Parameters
    ----------
    frame : pandas.DataFrame
        Long answers.
    by : list of str
        Group columns (e.g. ['condition_id', 'dimension', 'category']).
    value : str
        The answer column.
    count : str, optional
        A column of how many times each row's value was given (a frame of value counts, see
        :func:`diversity_from_counts`); without it each row is one answer.

    Returns
    -------
    pandas.DataFrame
        The group columns and n, n_unique, sd, modal_share, modal_value per group (sorted).

    Notes
    -----
    Each group's row is :func:`diversity` of its values (see there for the formulas).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 4.4,
    Table 6.

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"category": ["happy"] * 3 + ["sad"] * 2, "valence": [9, 9, 9, 2, 4]})
    >>> diversity_table(f, ["category"], "valence")[["category", "n_unique", "sd", "modal_share"]].to_numpy().tolist()
    [['happy', 1, 0.0, 1.0], ['sad', 2, 1.4142135623730951, 0.5]]
    """
    rows = []
    if count is None:
        groups = (
            (key, (sub, np.ones(len(sub), dtype=np.int64)))
            for key, sub in frame.groupby(by, sort=True, observed=True)[value]
        )
    else:
        groups = (
            (key, (sub[value], sub[count]))
            for key, sub in frame[[*by, value, count]].groupby(by, sort=True, observed=True)
        )
    for key, (values, counts) in groups:
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, key)), **asdict(diversity_from_counts(values, counts))})
    return pd.DataFrame(rows)
