"""Ablation statistics (paper section 4A; docs/ablations.md).

* McNemar test on paired correct/incorrect outcomes of two conditions on the same images (4A-1,
  thinking on vs off; the paper reports no test). statsmodels' `mcnemar`: the exact binomial test
  on the discordant pairs when there are fewer than 25 of them, otherwise the chi-square with
  continuity correction, (|b - c| - 1)^2 / (b + c).
* Mann-Whitney U of thinking length, correct vs wrong answers (4A-3), scipy two-sided, with the
  rank-biserial correlation as effect size (positive: wrong answers think longer).
* Spearman between per-category thinking length and human median response time (4A-3). With one
  point per category n is tiny (6), so the p-value is the exact permutation p (all n! orderings for
  n <= 8) and a caveat string travels with the number.
* Size-to-size deltas of a scaling series (4A-2): each size minus the next smaller one.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial

import numpy as np
import pandas as pd
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

EXACT_DISCORDANT_MAX = 25  # below this many discordant pairs the exact binomial test is used
EXACT_PERMUTATION_MAX_N = 8  # 8! = 40,320 orderings: exact Spearman p is cheap up to here
SMALL_N = 10


@dataclass(frozen=True)
class McNemar:
    n_pairs: int  # images both conditions answered
    both_correct: int
    only_a_correct: int  # b: a right, b wrong
    only_b_correct: int  # c: a wrong, b right
    both_wrong: int
    statistic: float  # chi-square (corrected) or, for the exact test, min(b, c)
    p_value: float
    method: str
    reason: str | None = None  # why the test is undefined (p NaN)


def mcnemar_paired(correct_a, correct_b) -> McNemar:
    """Paired McNemar test of two conditions' correct / wrong outcomes on the same images.

    Parameters
    ----------
    correct_a, correct_b : array_like of bool
        Aligned per-image outcomes (True = correct); pairs where either is missing (NaN / None)
        are dropped.

    Returns
    -------
    McNemar
        The 2 x 2 counts, ``statistic``, two-sided ``p_value``, ``method`` and, when there are no
        discordant pairs, NaN with a ``reason``.

    Notes
    -----
    With b = a right / b wrong and c = a wrong / b right: below ``EXACT_DISCORDANT_MAX`` discordant
    pairs the exact binomial test, ``p = min(1, 2 P(Binom(b + c, 1/2) <= min(b, c)))`` (statistic
    ``min(b, c)``); otherwise ``(|b - c| - 1)^2 / (b + c)`` against chi-square(1). statsmodels'
    ``mcnemar`` computes both.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 4A-1 (the paper reports no test); docs/ablations.md. McNemar (1947), Note on the
    sampling error of the difference between correlated proportions or percentages,
    *Psychometrika* 12(2), 153-157.

    Examples
    --------
    A is right and B wrong on 6 images, never the reverse: p = 2 x (1/2)^6 = 0.03125.

    >>> r = mcnemar_paired([True] * 7 + [False], [False] * 6 + [True, False])
    >>> (r.only_a_correct, r.only_b_correct, r.both_correct, r.both_wrong), r.p_value, r.method
    ((6, 0, 1, 1), 0.03125, 'exact binomial')
    """
    a = pd.Series(correct_a, dtype="object").reset_index(drop=True)
    b = pd.Series(correct_b, dtype="object").reset_index(drop=True)
    if len(a) != len(b):
        raise ValueError(f"correct_a has {len(a)} rows but correct_b has {len(b)}; align by image first")
    ok = a.notna() & b.notna()
    a, b = a[ok].astype(bool).to_numpy(), b[ok].astype(bool).to_numpy()
    n11, n10 = int((a & b).sum()), int((a & ~b).sum())
    n01, n00 = int((~a & b).sum()), int((~a & ~b).sum())
    discordant = n10 + n01
    if discordant == 0:
        return McNemar(
            len(a),
            n11,
            n10,
            n01,
            n00,
            float("nan"),
            float("nan"),
            "none",
            "no discordant pairs: the two conditions agree on every image",
        )
    exact = discordant < EXACT_DISCORDANT_MAX
    res = sm_mcnemar(np.array([[n11, n10], [n01, n00]]), exact=exact, correction=True)
    method = "exact binomial" if exact else "chi-square, continuity corrected"
    return McNemar(len(a), n11, n10, n01, n00, float(res.statistic), float(res.pvalue), method)


@dataclass(frozen=True)
class MannWhitney:
    n_x: int
    n_y: int
    median_x: float
    median_y: float
    u: float  # U of x (count of pairs with x > y, ties 1/2)
    p_value: float
    rank_biserial: float  # 2 U / (n_x n_y) - 1: P(x > y) - P(x < y)
    reason: str | None = None


def mann_whitney(x, y) -> MannWhitney:
    """Two-sided Mann-Whitney U test of x against y, with the rank-biserial correlation.

    Parameters
    ----------
    x, y : array_like
        The two samples (e.g. thinking length of wrong and of correct answers); NaNs dropped.

    Returns
    -------
    MannWhitney
        Sizes, medians, ``u`` (of x), two-sided ``p_value`` (scipy), ``rank_biserial``; NaN with a
        ``reason`` when a side is empty.

    Notes
    -----
    ``U_x = #{(i, j): x_i > y_j} + #{ties} / 2``; rank-biserial
    ``r = 2 U_x / (n_x n_y) - 1 = P(x > y) - P(x < y)``.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 4A-3; docs/ablations.md. Mann & Whitney (1947), *Ann. Math. Statist.* 18(1),
    50-60; Kerby (2014), The simple difference formula, *Comprehensive Psychology* 3, 11.IT.3.1.

    Examples
    --------
    Every x is below every y: U = 0, r = -1; exact p = 2 / C(5, 2) = 0.2.

    >>> r = mann_whitney([1, 2, 3], [4, 5])
    >>> r.u, r.rank_biserial, round(r.p_value, 6)
    (0.0, -1.0, 0.2)
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    x, y = x[~np.isnan(x)], y[~np.isnan(y)]
    med = lambda v: float(np.median(v)) if len(v) else float("nan")  # noqa: E731
    if len(x) == 0 or len(y) == 0:
        return MannWhitney(
            len(x), len(y), med(x), med(y), float("nan"), float("nan"), float("nan"), "one group is empty"
        )
    res = sps.mannwhitneyu(x, y, alternative="two-sided")
    u = float(res.statistic)
    return MannWhitney(len(x), len(y), med(x), med(y), u, float(res.pvalue), 2 * u / (len(x) * len(y)) - 1)


@dataclass(frozen=True)
class Spearman:
    rho: float
    p_value: float
    n: int
    method: str
    caveat: str | None  # always set when n < SMALL_N
    reason: str | None = None


def _exact_permutation_p(x: np.ndarray, y: np.ndarray, rho: float) -> float:
    """Share of all n! re-orderings of y whose |rho| reaches the observed |rho| (ties kept as
    mid-ranks, so this is the exact conditional permutation p)."""
    from itertools import permutations

    rx, ry = sps.rankdata(x), sps.rankdata(y)
    perms = np.array(list(permutations(ry)))
    cx = rx - rx.mean()
    cp = perms - perms.mean(axis=1, keepdims=True)
    rho_all = (cp @ cx) / (np.sqrt((cp**2).sum(axis=1)) * np.sqrt((cx**2).sum()))
    return float(np.mean(np.abs(rho_all) >= abs(rho) - 1e-12))


def spearman_small_n(x, y) -> Spearman:
    """Spearman rank correlation for very few points, with an exact p and a caveat.

    Parameters
    ----------
    x, y : array_like
        Aligned values (e.g. per-category thinking length and human median response time); pairs
        with a NaN are dropped.

    Returns
    -------
    Spearman
        ``rho``, two-sided ``p_value``, ``n``, ``method``; ``caveat`` for n < 10 (how far one swap
        of adjacent ranks moves rho, and the smallest attainable p); NaN with a ``reason`` when
        n < 3 or a side is constant.

    Notes
    -----
    Without ties ``rho = 1 - 6 sum d_i^2 / (n (n^2 - 1))`` (the Pearson r of the ranks in
    general). For n <= ``EXACT_PERMUTATION_MAX_N`` p is the share of all n! orderings of y whose
    |rho| reaches the observed |rho|; above, scipy's t approximation.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 4A-3; docs/ablations.md. Spearman (1904), The proof and measurement of
    association between two things, *Am. J. Psychol.* 15(1), 72-101.

    Examples
    --------
    One adjacent swap among 4: sum d^2 = 2, rho = 1 - 12/60 = 0.8; 8 of the 24 orderings have
    |rho| >= 0.8 (sum d^2 of 0 or 2, and their reverses), p = 1/3.

    >>> r = spearman_small_n([1, 2, 3, 4], [1, 3, 2, 4])
    >>> round(r.rho, 6), round(r.p_value, 6), r.method
    (0.8, 0.333333, 'exact permutation (24 orderings)')
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = ~(np.isnan(x) | np.isnan(y))
    x, y = x[ok], y[ok]
    n = len(x)
    if n < 3:
        return Spearman(float("nan"), float("nan"), n, "none", None, "fewer than 3 pairs")
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return Spearman(float("nan"), float("nan"), n, "none", None, "one side is constant")
    rho = float(sps.spearmanr(x, y).statistic)
    if n <= EXACT_PERMUTATION_MAX_N:
        p, method = _exact_permutation_p(x, y, rho), f"exact permutation ({factorial(n)} orderings)"
    else:
        p, method = float(sps.spearmanr(x, y).pvalue), "t approximation"
    caveat = None
    if n < SMALL_N:
        step = 12 / (n**3 - n)  # rho change when two adjacent ranks swap: 6 * 2 / (n^3 - n)
        caveat = (
            f"n = {n} points: swapping two adjacent ranks moves rho by {step:.3f}; the smallest "
            f"attainable two-sided p is {2 / factorial(n):.4f}. Read as descriptive."
        )
    return Spearman(rho, p, n, method, caveat)


def size_deltas(frame: pd.DataFrame, by: list[str], size: str, value_columns: list[str]) -> pd.DataFrame:
    """Size-to-size differences of a scaling series.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per group x size.
    by : list of str
        Group columns (e.g. family, category).
    size : str
        The size column (e.g. parameters in billions).
    value_columns : list of str
        Columns to difference.

    Returns
    -------
    pandas.DataFrame
        ``frame`` sorted by ``by`` and ``size`` with ``previous_size`` and ``delta_<col>``.

    Notes
    -----
    ``delta_col(s_k) = col(s_k) - col(s_(k-1))`` within a group; NaN for the smallest size.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 4A-2; docs/ablations.md.

    Examples
    --------
    >>> f = pd.DataFrame({"family": "gemma", "size": [12, 4, 27], "accuracy": [0.625, 0.5, 0.75]})
    >>> size_deltas(f, ["family"], "size", ["accuracy"])[["size", "previous_size", "delta_accuracy"]]
       size  previous_size  delta_accuracy
    0     4            NaN             NaN
    1    12            4.0           0.125
    2    27           12.0           0.125
    """
    out = frame.sort_values(by + [size]).copy()
    g = out.groupby(by, sort=False, dropna=False)
    out["previous_size"] = g[size].shift(1)
    for col in value_columns:
        out[f"delta_{col}"] = out[col] - g[col].shift(1)
    return out.reset_index(drop=True)
