"""The one-sided paired Wilcoxon signed-rank test, row-wise over many replicates (the test of
stats.bootstrap.p_sig; docs/stats.md, "Resampling at scale").

Each row's differences are ranked once into integer codes (:func:`signed_codes`: 2 x rank of |d|
+ sign), so a replicate's statistic is a sum over its sorted codes (:func:`signed_rank_sums`); the
p-value is scipy's: exact for <= 50 pairs without ties, the normal approximation with tie
correction otherwise (zero_method='wilcox', alternative 'greater').
"""

from __future__ import annotations

import functools

import numba
import numpy as np
from scipy import special
from scipy import stats as sps


def wilcoxon_greater_asymptotic(d) -> np.ndarray:
    """Row-wise p of the one-sided Wilcoxon signed-rank test that d is shifted above 0 (normal
    approximation).

    Parameters
    ----------
    d : array_like, shape (rows, pairs)
        Paired differences (model |z| - human |z|), one test per row.

    Returns
    -------
    numpy.ndarray, shape (rows,)
        p per row; NaN when every difference is 0.

    Notes
    -----
    Zeros dropped (n non-zero left), average ranks of |d| for ties, W+ = sum of the positive
    differences' ranks, z = (W+ - n(n + 1)/4) / sqrt(n(n + 1)(2n + 1)/24 - sum(t^3 - t)/48) over
    runs of t tied |d|, p = 1 - Phi(z): exactly ``scipy.stats.wilcoxon(d, alternative='greater',
    zero_method='wilcox', method='asymptotic', correction=False, axis=1)``. The |d| are ranked
    once into integer codes (:func:`signed_codes`) and each row sorts its codes, instead of
    scipy's per-row ranking and per-call overhead (tested against scipy).

    References
    ----------
    Wilcoxon (1945), "Individual comparisons by ranking methods", Biometrics Bulletin 1(6),
    80-83; Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, Discussion 5.1 (p_sig); docs/stats.md, "Bootstrap p_sig".

    Examples
    --------
    Differences 1, 2, 3, 4: W+ = 10, mean 5, SD sqrt(4 x 5 x 9 / 24) = sqrt(7.5), so
    p = 1 - Phi(5 / sqrt(7.5)) = 1 - Phi(1.8257):

    >>> wilcoxon_greater_asymptotic([[1, 2, 3, 4]]).round(6)
    array([0.033945])
    """
    d = np.asarray(d, dtype=float)
    return signed_rank_p(np.sort(signed_codes(d), axis=1))


def signed_codes(d: np.ndarray) -> np.ndarray:
    """An integer code per difference that sorts as |d| and carries its sign.

    Parameters
    ----------
    d : numpy.ndarray
        Differences (NaN where undefined).

    Returns
    -------
    numpy.ndarray of int32
        Same shape; -1 for NaN.

    Raises
    ------
    ValueError
        More distinct differences than int32 codes can hold.

    Notes
    -----
    code = 2 r + 1[d > 0], r the 1-based rank of |d| among the distinct non-zero |d| of the whole
    array (0 for d = 0). Equal codes are exactly the equal |d| a float sort would tie, so a
    replicate can sort its drawn codes instead of ranking floats afresh.

    References
    ----------
    docs/stats.md, "Resampling at scale".

    Examples
    --------
    |d| 1.5 has rank 1 and 2 rank 2: +1.5 -> 3, -1.5 -> 2, 0 -> 0, +2 -> 5:

    >>> import numpy as np
    >>> signed_codes(np.array([[1.5, -1.5, 0.0, 2.0]]))
    array([[3, 2, 0, 5]], dtype=int32)
    """
    a = np.abs(d)
    ok = ~np.isnan(a)
    if not ok.any():
        return np.full(a.shape, -1, dtype=np.int32)
    # one sort: undefined differences count as zeros here and are coded -1 below
    values, rank = np.unique(np.where(ok, a, 0.0), return_inverse=True)
    distinct = len(values) - int(values[0] == 0)
    if 2 * distinct + 1 >= np.iinfo(np.int32).max:
        raise ValueError(f"{distinct} distinct differences do not fit the int32 codes")
    rank = rank.reshape(a.shape) + int(values[0] > 0)  # 0 for d = 0, non-zero |d| from 1
    return np.where(ok, 2 * rank + (d > 0), -1).astype(np.int32)


def signed_rank_p(keys: np.ndarray) -> np.ndarray:
    """The signed-rank p of :func:`wilcoxon_greater_asymptotic` from sorted :func:`signed_codes`.

    Parameters
    ----------
    keys : numpy.ndarray, shape (rows, pairs)
        Each row's signed codes, sorted ascending.

    Returns
    -------
    numpy.ndarray, shape (rows,)
        One-sided p per row (normal approximation, tie-corrected); NaN when all differences are 0.

    Notes
    -----
    W+, the number of non-zero differences and the tie term come from :func:`signed_rank_sums`;
    z = (W+ - n(n + 1)/4) / sqrt(n(n + 1)(2n + 1)/24 - sum(t^3 - t)/48), p = 1 - Phi(z).

    References
    ----------
    Wilcoxon (1945); docs/stats.md, "Bootstrap p_sig".

    Examples
    --------
    The same p as :func:`wilcoxon_greater_asymptotic`'s example (differences 1, 2, 3, 4):

    >>> import numpy as np
    >>> signed_rank_p(np.sort(signed_codes(np.array([[1.0, 2.0, 3.0, 4.0]])), axis=1)).round(6)
    array([0.033945])
    """
    r_plus, n, ties, _ = signed_rank_sums(keys)
    return _normal_p(r_plus, n, ties)


def signed_rank_sums(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """W+, n and the tie term of each row of sorted :func:`signed_codes`.

    Parameters
    ----------
    keys : numpy.ndarray of int, shape (rows, pairs)
        Each row's signed codes, sorted ascending.

    Returns
    -------
    r_plus, n, ties : numpy.ndarray of float, shape (rows,)
        W+ (sum of the average ranks of the positive differences, zeros dropped), the number of
        non-zero differences and sum(t^3 - t) over the runs of t tied non-zero |d|.
    untied : numpy.ndarray of bool, shape (rows,)
        No zero and no tied |d| in the row (where scipy's exact test applies).

    Notes
    -----
    Zeros sort first (code 0); after them, a run of t equal |d| (equal code >> 1) at 0-based
    positions j..e has the average rank (j + e)/2 - zeros + 1, so 2 W+ adds the run's positives
    x (j + e - 2 zeros + 2), and a run of t > 1 adds t^3 - t to the tie term. One compiled pass
    per row (numba; no temporary arrays, and it releases the GIL for :func:`bootstrap.p_sig`'s
    threads). Every sum is of integers, so the floats returned are exact and the p-values are the
    same bits as ranking each row's |d| afresh (tested against scipy and brute-force ranks).

    References
    ----------
    Wilcoxon (1945); docs/stats.md, "Resampling at scale".

    Examples
    --------
    Differences 0, +1, -1, +2: the zero is dropped, |d| = 1 is a tie (average rank 1.5), 2 has
    rank 3: W+ = 1.5 + 3 = 4.5, n = 3, one run of two: 2^3 - 2 = 6:

    >>> import numpy as np
    >>> keys = np.sort(signed_codes(np.array([[0.0, 1.0, -1.0, 2.0]])), axis=1)
    >>> [float(x[0]) for x in signed_rank_sums(keys)]
    [4.5, 3.0, 6.0, 0.0]
    """
    keys = np.ascontiguousarray(keys)
    b = keys.shape[0]
    twice_r_plus, n_zero, ties = np.zeros(b, dtype=np.int64), np.zeros(b, dtype=np.int64), np.zeros(b)
    untied = np.ones(b, dtype=bool)
    if keys.shape[1]:
        _row_sums(keys, twice_r_plus, n_zero, ties, untied)
    return twice_r_plus / 2, (keys.shape[1] - n_zero).astype(float), ties, untied


def _compiled(function):
    """numba's compiled function, cached beside the module (or in the user's cache folder); where
    neither can be written (numba raises at decoration) it compiles once per process instead."""
    try:
        return numba.njit(nogil=True, cache=True)(function)
    except RuntimeError:
        return numba.njit(nogil=True)(function)


@_compiled
def _row_sums(keys, twice_r_plus, n_zero, ties, untied):  # pragma: no cover - compiled
    """:func:`signed_rank_sums` row by row in one pass (compiled: no temporary arrays; releases the
    GIL, so threads can share the replicates). A run's end adds its terms multiplied by 0 or 1
    rather than behind a branch: the share of tied neighbours grows with the study (distinct |d|
    grow slower than the draws), and a mispredicted branch per run would make the cost per
    difference grow with it."""
    b, m = keys.shape
    for i in range(b):
        row = keys[i]
        z = 0
        while z < m and row[z] == 0:  # zeros sort first
            z += 1
        twice, tie = 0, 0
        start, positives = z, 0  # the current run of equal |d| (code >> 1): positions start..j
        for j in range(z, m):
            positives += row[j] & 1
            end = 1 if j + 1 == m else np.int64((row[j + 1] >> 1) != (row[j] >> 1))
            t = j - start + 1  # a run of t at start..j: average rank (start + j)/2 - z + 1
            twice += end * positives * (start + j - 2 * z + 2)
            tie += end * (t * t * t - t)
            positives *= 1 - end
            start += end * (j + 1 - start)
        twice_r_plus[i], n_zero[i], ties[i] = twice, z, tie
        untied[i] = z == 0 and tie == 0  # t^3 - t > 0 exactly when t > 1


def _normal_p(r_plus: np.ndarray, n: np.ndarray, ties: np.ndarray) -> np.ndarray:
    """One-sided p of the normal approximation (no continuity correction); NaN when n = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt((n * (n + 1) * (2 * n + 1) - ties / 2) / 24)
        z = (r_plus - n * (n + 1) / 4) / se
    return np.where(se > 0, special.ndtr(-z), np.nan)  # scipy.stats.norm.sf(z), without its per-call checks


@functools.cache
def _exact_greater_p(n: int) -> np.ndarray:
    """scipy's exact one-sided p (alternative 'greater') for every W+ = 0 .. n(n + 1)/2 of n untied
    non-zero differences: one scipy call on a sample per W+ (ranks 1..n, the positive ones taken
    greedily from the largest), so the table holds scipy's own values, which depend on n and W+
    only."""
    w = np.arange(n * (n + 1) // 2 + 1)
    left, d = w.copy(), np.empty((len(w), n))
    for r in range(n, 0, -1):
        take = left >= r
        d[:, r - 1] = np.where(take, r, -r)
        left -= take * r
    assert not left.any()
    table = sps.wilcoxon(d, alternative="greater", zero_method="wilcox", method="exact", axis=1).pvalue
    table.flags.writeable = False
    return table


def signed_rank_test(keys: np.ndarray) -> np.ndarray:
    """Row-wise one-sided signed-rank p from sorted :func:`signed_codes`: exact or normal.

    Parameters
    ----------
    keys : numpy.ndarray, shape (rows, pairs)
        Each row's signed codes, sorted ascending.

    Returns
    -------
    numpy.ndarray, shape (rows,)
        One-sided p per row (alternative: the differences are shifted above 0).

    Notes
    -----
    scipy's exact p for <= 50 pairs without ties or zeros (looked up by W+ in a table filled once),
    the normal approximation with tie correction otherwise. scipy's own method='auto' turns a
    small sample with ties into a permutation test, which would make 2,000 replicates take minutes.

    References
    ----------
    Wilcoxon (1945); scipy.stats.wilcoxon; docs/stats.md, "Bootstrap p_sig".

    Examples
    --------
    Four positive differences without ties: W+ = 10, the exact p is 1/16.

    >>> import numpy as np
    >>> float(signed_rank_test(np.sort(signed_codes(np.array([[1.0, 2.0, 3.0, 4.0]])), axis=1))[0])
    0.0625
    """
    r_plus, n, ties, untied = signed_rank_sums(keys)
    p = _normal_p(r_plus, n, ties)
    if 0 < keys.shape[1] <= 50 and untied.any():
        p[untied] = _exact_greater_p(keys.shape[1])[r_plus[untied].astype(np.int64)]
    return p
