"""Bootstraps (paper Discussion 5.1 and section 3.4.3 / Table 6; docs/stats.md).

p_sig: the share of bootstrap replicates in which the model deviates from the human mean
significantly more than an individual human does. Replicate b (generator seeded with 42):
  1. resample the images with replacement (same count as the input);
  2. for each drawn image, draw one of its human raters uniformly at random
     (replicates are drawn in blocks of 250, fewer above 16,777 images: per block first the
     image indices, then one uniform per drawn image for the rater); with per-(image, value)
     counts the raters are taken in value order, so a uniform picks value v with probability
     n_iv / n_i (a categorical draw from the counts, no per-rating rows);
  3. one-sided paired Wilcoxon signed-rank test (scipy, zero_method='wilcox', normal
     alternative 'greater'; scipy's method='auto': exact for <= 50 pairs without ties, normal
     approximation otherwise) of model |z| against that human's LOO |z|;
  4. the replicate is significant when p < 0.05.
p_sig = significant replicates / replicates. A model that behaves like one more human gets
p_sig near 0.05 (the test's size) or lower; a model far outside the human spread gets ~1.
Images whose model |z| is undefined (human SD 0) and humans whose LOO |z| is undefined are
removed before resampling and counted.

k-human diversity (section 3.4.3, Table 6): the mean over images of a category of the spread
(SD and variance, ddof=1) of the k model predictions of each image, against the same statistic for
k humans drawn without replacement from each image's raters, repeated (1,000 replicates, seed 42;
the draws are small_pools.subset_sums', a block of replicates at a time).
Table 6 prints the SD version ("mean of the per-image SD"); the paper's 3.4.3 formula is the
variance version; both are returned.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from scipy import special
from scipy import stats as sps

from . import small_pools

SEED = 42
# elements (replicates x pairs) a step of the signed-rank test works on: its arrays stay in the CPU's
# cache (docs/stats.md, "Resampling at scale"); 2^16 .. 2^19 cost the same on the demo
KERNEL = 1 << 17
TEST = "one-sided paired Wilcoxon signed-rank (model |z| > human LOO |z|), alpha 0.05"


def ragged_to_padded(groups, values) -> np.ndarray:
    """A long (group, value) list as a NaN-padded groups x values array.

    Parameters
    ----------
    groups : array_like of int
        Group index 0..G-1 per value (e.g. the image of each human's LOO |z|).
    values : array_like
        The values.

    Returns
    -------
    numpy.ndarray, shape (G, max_n)
        Row g holds group g's values in input order, padded with NaN.

    Notes
    -----
    out[g, j] = the j-th value of group g; the layout :func:`p_sig` and :func:`k_human_variance`
    take for ragged images (different numbers of raters per image).

    References
    ----------
    docs/stats.md, "Bootstrap p_sig".

    Examples
    --------
    >>> ragged_to_padded([0, 0, 1], [1.0, 2.0, 3.0])
    array([[ 1.,  2.],
           [ 3., nan]])
    """
    groups = np.asarray(groups)
    values = np.asarray(values, dtype=float)
    order = np.argsort(groups, kind="stable")
    g, v = groups[order], values[order]
    uniq, starts, counts = np.unique(g, return_index=True, return_counts=True)
    out = np.full((len(uniq), counts.max() if len(counts) else 0), np.nan)
    pos = np.arange(len(g)) - np.repeat(starts, counts)
    out[np.searchsorted(uniq, g), pos] = v
    return out


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
    """W+, n and the tie term of each row of sorted :func:`signed_codes`, without a loop over rows.

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
    The positives' positions give W+ for untied ranks after the zeros (which sort first, code 0):
    2 W+ = sum over positives of 2 (position + 1) - 2 zeros x positives. A run of t tied |d|
    holds its a negatives and then its t - a positives (code 2c before 2c + 1); average ranks
    lower W+ by a (t - a)/2, and the run adds t^3 - t to the tie term. Runs are found from the
    tied neighbours only (about a tenth of a bootstrap replicate's elements), never across rows.
    Every sum is of integers, so the floats returned are exact and the p-values are the same bits
    as ranking each row's |d| afresh (tested against scipy).

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
    b, m = keys.shape
    if m == 0:
        return np.zeros(b), np.zeros(b), np.zeros(b), np.ones(b, dtype=bool)
    positive = keys & 1
    twice_r_plus = np.einsum("ij,j->i", positive, np.arange(2, 2 * m + 2, 2, dtype=np.int32), dtype=np.int64)
    zero_rows = np.flatnonzero(keys[:, 0] == 0)  # zeros sort first
    n_zero = np.zeros(b, dtype=np.int64)
    if len(zero_rows):
        n_zero[zero_rows] = (keys[zero_rows] == 0).sum(axis=1)
        twice_r_plus[zero_rows] -= 2 * n_zero[zero_rows] * positive[zero_rows].sum(axis=1)
    x = (keys[:, 1:] ^ keys[:, :-1]).ravel()  # < 2: the same |d|; 1: a negative then a positive of it
    pair = np.flatnonzero(x < 2)
    ties = np.zeros(b)
    untied = n_zero == 0
    if len(pair):
        j = pair + pair // (m - 1)  # element j of the rows x m array ties with element j + 1
        starts = np.flatnonzero(np.diff(j, prepend=-2) != 1)  # runs of consecutive tied pairs
        first = j[starts]
        t = np.diff(starts, append=len(j)) + 1  # elements per run
        row = first // m
        ties = np.bincount(row, weights=np.where(keys.ravel()[first] == 0, 0, t**3 - t), minlength=b)
        # a run holds its a negatives, then its t - a positives: W+ falls by a (t - a)/2
        sign_change = j[x[pair] == 1]
        if len(sign_change):
            run = np.searchsorted(first, sign_change, side="right") - 1
            a = sign_change + 1 - first[run]
            twice_r_plus -= np.bincount(row[run], weights=a * (t[run] - a), minlength=b).astype(np.int64)
        untied &= np.bincount(row, minlength=b) == 0
    return twice_r_plus / 2, (m - n_zero).astype(float), ties, untied


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


def _signed_rank_test(keys: np.ndarray) -> np.ndarray:
    """Row-wise one-sided signed-rank p from sorted :func:`signed_codes` as documented above:
    scipy's exact p for <= 50 pairs without ties or zeros (looked up by W+), the normal
    approximation otherwise. (scipy's own method='auto' now turns a small sample with ties into a
    permutation test, which made 2,000 replicates take minutes.)"""
    r_plus, n, ties, untied = signed_rank_sums(keys)
    p = _normal_p(r_plus, n, ties)
    if 0 < keys.shape[1] <= 50 and untied.any():
        p[untied] = _exact_greater_p(keys.shape[1])[r_plus[untied].astype(np.int64)]
    return p


def _wilcoxon_greater(diff) -> np.ndarray:
    """Row-wise one-sided signed-rank p of paired differences (:func:`_signed_rank_test`)."""
    return _signed_rank_test(np.sort(signed_codes(np.asarray(diff, dtype=float)), axis=1))


@dataclass(frozen=True)
class PSig:
    p_sig: float
    replicates: int
    seed: int
    n_images: int  # images used (model |z| defined and at least one human LOO |z| defined)
    n_excluded_images: int
    test: str = TEST
    alpha: float = 0.05


def p_sig(
    model_abs_z,
    human_loo_abs_z,
    replicates: int = 2000,
    seed: int = SEED,
    alpha: float = 0.05,
    chunk: int = 250,
    cells: int = 1 << 22,
    weights=None,
) -> PSig:
    """Share of bootstrap replicates in which the model deviates from the human mean
    significantly more than an individual human does.

    Parameters
    ----------
    model_abs_z : array_like, shape (images,)
        The model's |z| per image (NaN where undefined).
    human_loo_abs_z : array_like, shape (images, max_raters)
        Each image's humans' leave-one-out |z|, NaN-padded (:func:`ragged_to_padded`); with
        ``weights``, one column per distinct value instead.
    replicates : int, default 2000
    seed : int, default 42
    alpha : float, default 0.05
        Significance level of each replicate's test.
    chunk, cells : int
        Replicates per block, fewer when chunk x images would pass ``cells`` (memory bound; the
        block size is part of the random stream: below cells / chunk images, 16,777 by default,
        the draws are those of every earlier version).
    weights : array_like of int, shape like human_loo_abs_z, optional
        How many humans share each entry (per-(image, value) counts, 0 in the padding): the
        same draws as the matrix with entry j repeated weights[j] times, without building it.

    Returns
    -------
    PSig
        p_sig, replicates, seed, n_images used, n_excluded_images (model |z| undefined or no
        human LOO |z|), the test's description and alpha.

    Notes
    -----
    Replicate b: resample the images with replacement; for each drawn image draw one of its
    humans uniformly; one-sided paired Wilcoxon signed-rank test of model |z| > that human's LOO
    |z| (exact for <= 50 pairs without ties, normal approximation otherwise); significant at
    p < alpha. p_sig = significant replicates / replicates: a model that behaves like one more
    human gets about alpha or less, one far outside the human spread about 1. Every difference a
    replicate can contain is one of the (image, human) cells, so their |d| are ranked once
    (:func:`signed_codes`); the p-values equal ranking each replicate afresh to the last bit.
    :func:`p_sig_many` for one model.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, Discussion 5.1
    and section 3.4.3; Efron & Tibshirani (1993), *An Introduction to the Bootstrap*;
    docs/stats.md, "Bootstrap p_sig".

    Examples
    --------
    20 images where the model is 2.5 |z| further out than every human: each replicate's 20
    differences are positive and tied (W+ = 210, z = 105 / sqrt(717.5 - 166.25) = 4.47), so every
    replicate is significant; a model that is exactly like its humans never is (all differences
    0, no test):

    >>> import numpy as np
    >>> float(p_sig(np.full(20, 3.0), np.full((20, 5), 0.5), replicates=10).p_sig)
    1.0
    >>> float(p_sig(np.full(20, 0.5), np.full((20, 5), 0.5), replicates=10).p_sig)
    0.0
    """
    return p_sig_many(
        np.asarray(model_abs_z, dtype=float)[None, :], human_loo_abs_z, replicates, seed, alpha, chunk, cells, weights
    )[0]


def p_sig_many(
    model_abs_z,
    human_loo_abs_z,
    replicates: int = 2000,
    seed: int = SEED,
    alpha: float = 0.05,
    chunk: int = 250,
    cells: int = 1 << 22,
    weights=None,
) -> list[PSig]:
    """:func:`p_sig` of several models against the same humans, sharing the draws.

    Parameters
    ----------
    model_abs_z : array_like, shape (models, images)
        Each model's |z| per image (e.g. the conditions of one dimension and scope).
    human_loo_abs_z : array_like, shape (images, max_raters)
        The humans' leave-one-out |z|, NaN-padded.
    replicates, seed, alpha, chunk, cells, weights
        As for :func:`p_sig`.

    Returns
    -------
    list of PSig
        One per row, each what :func:`p_sig` gives for that model alone.

    Notes
    -----
    The draws depend only on the number of usable images, so models with the same usable images
    share them: one stream of image and human draws per such group instead of one per model, and
    each replicate's drawn cells sorted once so that every model's gather reads them in order.
    Each model's |d| are ranked once (:func:`signed_codes`); the p-values are the same to the
    last bit as ranking each replicate's |d| afresh. Memory is at most ``cells`` drawn cells
    (blocks of ``chunk`` replicates, fewer when chunk x images would pass ``cells``, the block
    size being part of the random stream; small blocks are pooled up to ``cells`` for the test,
    which runs in steps of :data:`KERNEL` codes), plus the codes of the models of a group (groups
    are split to keep these near 4 x ``cells``). With ``weights`` the differences are ranked per
    (image, value) entry, not per human (an image's LOO |z| takes one value per rating value), and
    each drawn position maps to its entry through the image's cumulative counts.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, Discussion 5.1;
    docs/stats.md, "Bootstrap p_sig".

    Examples
    --------
    :func:`p_sig`'s two examples at once: each row gets what it gets alone:

    >>> import numpy as np
    >>> rows = p_sig_many(np.vstack([np.full(20, 3.0), np.full(20, 0.5)]), np.full((20, 5), 0.5), replicates=10)
    >>> [float(r.p_sig) for r in rows]
    [1.0, 0.0]
    """
    mz = np.abs(np.atleast_2d(np.asarray(model_abs_z, dtype=float)))
    hz = np.abs(np.asarray(human_loo_abs_z, dtype=float))
    if hz.ndim != 2 or hz.shape[0] != mz.shape[1]:
        raise ValueError(f"human_loo_abs_z must be (images, raters) with {mz.shape[1]} rows, got {hz.shape}")
    if weights is None:
        weight = None
        defined = ~np.isnan(hz)
    else:
        weight = np.asarray(weights)
        if weight.shape != hz.shape or (weight < 0).any() or (weight % 1 != 0).any():
            raise ValueError(f"weights must be non-negative whole counts shaped like human_loo_abs_z {hz.shape}")
        weight = np.where(np.isnan(hz), 0, weight).astype(np.int64)
        defined = weight > 0
    keep = ~np.isnan(mz) & (defined.sum(axis=1) > 0)
    groups: dict[bytes, list[int]] = {}
    for row in range(len(mz)):
        groups.setdefault(np.packbits(keep[row]).tobytes(), []).append(row)
    results: list[PSig] = [None] * len(mz)  # type: ignore[list-item]
    for rows in groups.values():
        kept = keep[rows[0]]
        n, excluded = int(kept.sum()), int((~kept).sum())
        per_part = max(1, (4 * cells) // max(1, n * hz.shape[1]))
        for first in range(0, len(rows), per_part):
            part = rows[first : first + per_part]
            counts = _significant_counts(
                mz[part][:, kept],
                hz[kept],
                defined[kept],
                replicates,
                seed,
                alpha,
                chunk,
                cells,
                None if weight is None else weight[kept],
            )
            for row, count in zip(part, counts):
                p = float("nan") if n == 0 else count / replicates
                results[row] = PSig(p, replicates, seed, n, excluded, alpha=alpha)
    return results


def _significant_counts(
    mz: np.ndarray,
    hz: np.ndarray,
    defined: np.ndarray,
    replicates: int,
    seed: int,
    alpha: float,
    chunk: int,
    cells: int,
    weight: np.ndarray | None = None,
) -> np.ndarray:
    """Significant replicates of each row of mz (models x images, every image usable) with the
    draws of the seed policy (module docstring), shared by the rows; `weight`: humans per entry."""
    k, n = mz.shape
    significant = np.zeros(k, dtype=np.int64)
    if n == 0:
        return significant
    # Pack each image's defined human values to the left so a uniform draw indexes them directly.
    order = np.argsort(~defined, axis=1, kind="stable")
    hz = np.take_along_axis(hz, order, axis=1)
    if weight is None:
        n_h = defined.sum(axis=1)
        entry = None
    else:
        weight = np.take_along_axis(weight, order, axis=1)
        n_h = weight.sum(axis=1)
        # position p of image i (0 <= p < n_h[i]) belongs to entry entry[i * width_h + p]
        entry = np.zeros((n, int(n_h.max())), dtype=np.int64)
        slot = np.repeat(np.tile(np.arange(hz.shape[1]), n), weight.ravel())
        row = np.repeat(np.arange(n), n_h)
        entry[row, np.arange(len(row)) - np.repeat(np.cumsum(n_h) - n_h, n_h)] = slot
    width, same_pool = hz.shape[1], bool((n_h == n_h[0]).all())
    # every (image, human) cell's difference, ranked once into integer codes; model j's cell c is
    # codes[j * cells_per_model + c]; with weights the (image, value) entries are ranked, then
    # spread to the humans' positions (the drawing below is the same either way)
    if entry is None:
        codes = np.concatenate([signed_codes(row[:, None] - hz).ravel() for row in mz])
    else:
        codes = np.concatenate(
            [np.take_along_axis(signed_codes(row[:, None] - hz), entry, axis=1).ravel() for row in mz]
        )
        width = entry.shape[1]
    rng = np.random.default_rng(seed)
    block = max(1, min(chunk, cells // n))
    pending: list[np.ndarray] = []
    for start in range(0, replicates, block):
        b = min(block, replicates - start)
        img = rng.integers(0, n, size=(b, n))
        who = (rng.random((b, n)) * (n_h[0] if same_pool else n_h[img])).astype(np.int64)
        pending.append(img * width + who)  # flat (image, human) cell: one 1-D take instead of a 2-D index
        # blocks are pooled up to `cells` draws, so a small study is a handful of array calls
        if start + b == replicates or (sum(map(len, pending)) + block) * n > cells:
            significant += _significant_in(codes, np.concatenate(pending), k, n * width, alpha)
            pending = []
    return significant


def _significant_in(codes: np.ndarray, cell: np.ndarray, k: int, per_model: int, alpha: float) -> np.ndarray:
    """Significant replicates of each of the k models among the drawn cells (replicates x pairs),
    model j's cell c being codes[j * per_model + c]."""
    rows, n = cell.shape
    if k > 1 and n > 50:
        cell.sort(axis=1)  # a replicate's order does not matter to its test; sorted, the takes read in order
    significant = np.zeros(k, dtype=np.int64)
    step = max(1, KERNEL // n)  # replicates per step
    models = max(1, step // rows)  # a small study's models together
    for first in range(0, k, models):
        offsets = np.arange(first, min(k, first + models)) * per_model
        for start in range(0, rows, step):
            drawn = cell[start : start + step]
            if len(offsets) == 1:  # one model per step (large cells): no offset pass over the draws
                keys = np.take(codes[offsets[0] : offsets[0] + per_model], drawn)
            else:
                keys = np.take(codes, drawn[None] + offsets[:, None, None]).reshape(-1, n)
            keys.sort(axis=1)
            hits = (_signed_rank_test(keys) < alpha).reshape(len(offsets), -1).sum(axis=1)
            significant[first : first + len(offsets)] += hits
    return significant


@dataclass(frozen=True)
class DiversityComparison:
    model_sd: float  # mean over images of the SD of the k model predictions (Table 6 "VLM SD")
    model_variance: float  # mean over images of their variance (3.4.3 sigma^2_LLM,e)
    human_sd: float  # mean over replicates of the same SD statistic for k random humans
    human_variance: float
    human_sd_ci_low: float  # 2.5 % and 97.5 % quantiles of the human SD statistic over replicates
    human_sd_ci_high: float
    share_human_sd_at_or_below_model: float  # replicates whose k-human SD <= the model SD
    k: int
    replicates: int
    seed: int
    n_images: int  # images with >= k humans and all k model predictions
    n_excluded_images: int


def k_human_variance(model_predictions, human_ratings, replicates: int = 1000, seed: int = SEED) -> DiversityComparison:
    """Spread of k models' predictions per image against the spread of k humans drawn from the
    same image's raters.

    Parameters
    ----------
    model_predictions : array_like, shape (images, k)
        Predictions of the k >= 2 conditions compared.
    human_ratings : array_like, shape (images, max_raters)
        NaN-padded human ratings of the same images.
    replicates : int, default 1000
    seed : int, default 42

    Returns
    -------
    DiversityComparison
        model_sd and model_variance (means over images), human_sd and human_variance (means over
        replicates of the same statistic for k humans), the 2.5 / 97.5 % quantiles of the human
        SD statistic, share_human_sd_at_or_below_model, k, replicates, seed, n_images,
        n_excluded_images (a missing prediction or fewer than k humans).

    Notes
    -----
    Model: mean over images of var(x_i1..x_ik) (ddof = 1) and of its square root. Humans: per
    replicate, k of each image's ratings drawn without replacement, the same two means; Table 6
    prints the SD version, the paper's 3.4.3 formula is the variance version.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3 and Table 6; docs/stats.md.

    Examples
    --------
    With exactly k = 2 humans per image every draw is the whole pool, so the human statistic is
    exact: models (1, 3) and (2, 2), humans (4, 6) and (5, 5) both have variances 2 and 0, mean 1,
    and SDs sqrt 2 and 0, mean .707107:

    >>> r = k_human_variance([[1, 3], [2, 2]], [[4, 6], [5, 5]], replicates=10)
    >>> r.model_variance, round(r.human_variance, 6), round(r.model_sd, 6), round(r.human_sd, 6)
    (1.0, 1.0, 0.707107, 0.707107)
    """
    x = np.asarray(model_predictions, dtype=float)
    h = np.asarray(human_ratings, dtype=float)
    if x.ndim != 2 or h.ndim != 2 or x.shape[0] != h.shape[0]:
        raise ValueError(f"need (images, k) and (images, raters) with equal rows, got {x.shape} and {h.shape}")
    k = x.shape[1]
    if k < 2:
        raise ValueError("inter-model variance needs at least two model conditions (k >= 2)")
    keep = ~np.isnan(x).any(axis=1) & ((~np.isnan(h)).sum(axis=1) >= k)
    x, h = x[keep], h[keep]
    n = len(x)
    if n == 0:
        nan = float("nan")
        return DiversityComparison(nan, nan, nan, nan, nan, nan, nan, k, replicates, seed, 0, int((~keep).sum()))
    model_var_img = x.var(axis=1, ddof=1)
    model_sd, model_var = float(np.sqrt(model_var_img).mean()), float(model_var_img.mean())
    sd_stat, var_stat = np.empty(replicates), np.empty(replicates)
    for start, v in _k_human_variances(h, k, replicates, seed):
        sd_stat[start : start + len(v)] = np.sqrt(v).mean(axis=1)
        var_stat[start : start + len(v)] = v.mean(axis=1)
    lo, hi = np.quantile(sd_stat, [0.025, 0.975])
    return DiversityComparison(
        model_sd,
        model_var,
        float(sd_stat.mean()),
        float(var_stat.mean()),
        float(lo),
        float(hi),
        float((sd_stat <= model_sd).mean()),
        k,
        replicates,
        seed,
        n,
        int((~keep).sum()),
    )


def _k_human_variances(h: np.ndarray, k: int, replicates: int, seed: int):
    """Yield (first replicate, variances (replicates in block, images)) of k humans drawn without
    replacement from each image's defined ratings (small_pools.subset_sums on the ratings centred
    on the image mean, so the sums stay small and the variance precise)."""
    rng = np.random.default_rng(seed)
    order = np.argsort(np.isnan(h), axis=1, kind="stable")
    h = np.take_along_axis(h, order, axis=1)
    pool = small_pools.Pool.of(h - np.nanmean(h, axis=1, keepdims=True))
    n = len(h)
    block = max(1, small_pools.CELLS // (n * max(min(k, h.shape[1] - k), 1)))
    for start in range(0, replicates, block):
        b = min(block, replicates - start)
        s1, s2 = small_pools.subset_sums(pool, np.broadcast_to(np.arange(n), (b, n)), k, rng)
        yield start, np.maximum(s2 - s1**2 / k, 0.0) / (k - 1)


@dataclass(frozen=True)
class ImageSpread:
    model_sd: np.ndarray  # per input row: SD of its k model predictions; NaN where not kept
    human_sd: np.ndarray  # per input row: mean SD of k of its humans; NaN where not kept
    kept: np.ndarray  # bool per input row: a prediction from every model and at least k humans


def k_human_image_sd(model_predictions, human_ratings, replicates: int = 1000, seed: int = SEED) -> ImageSpread:
    """Per image: the SD of its k model predictions and the mean SD of k of its humans.

    Parameters
    ----------
    model_predictions : array_like, shape (images, k)
    human_ratings : array_like, shape (images, max_raters)
        As in :func:`k_human_variance`.
    replicates : int, default 1000
    seed : int, default 42

    Returns
    -------
    ImageSpread
        model_sd, human_sd and kept, arrays aligned with the input rows; excluded rows (a missing
        prediction, fewer than k humans) are NaN and kept is False.

    Notes
    -----
    human_sd_i = mean over replicates of SD(k of image i's humans, without replacement), with the
    draws of :func:`k_human_variance` (same seed), so the mean over images of the human column is
    that function's human_sd.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, Figure 6 and Table 6.

    Examples
    --------
    The data of :func:`k_human_variance`'s example, image by image:

    >>> r = k_human_image_sd([[1, 3], [2, 2]], [[4, 6], [5, 5]], replicates=10)
    >>> r.model_sd.round(6).tolist(), r.human_sd.round(6).tolist(), r.kept.tolist()
    ([1.414214, 0.0], [1.414214, 0.0], [True, True])
    """
    x = np.asarray(model_predictions, dtype=float)
    h = np.asarray(human_ratings, dtype=float)
    k = x.shape[1]
    if k < 2:
        raise ValueError("inter-model SD needs at least two model conditions (k >= 2)")
    keep = ~np.isnan(x).any(axis=1) & ((~np.isnan(h)).sum(axis=1) >= k)
    model_sd = np.full(len(x), np.nan)
    human_sd = np.full(len(x), np.nan)
    if keep.any():
        model_sd[keep] = x[keep].std(axis=1, ddof=1)
        total = np.zeros(int(keep.sum()))
        for _, v in _k_human_variances(h[keep], k, replicates, seed):
            total += np.sqrt(v).sum(axis=0)
        human_sd[keep] = total / replicates
    return ImageSpread(model_sd=model_sd, human_sd=human_sd, kept=keep)
