"""Bootstrap confidence intervals for the headline numbers: interval alpha, delta alpha, W1SD and
Cohen's kappa (docs/ablations.md). Images are the resampling unit (drawn with replacement, same
count, one generator seeded with 42); each replicate recomputes the statistic with its one home
(stats.alpha, stats.zscores, stats.classification), and the interval is the percentile interval
of the replicates. The point estimate is the full-sample value, not the replicate mean.

Every statistic here is a function of sums over the drawn images, so a block of replicates is one
weights matrix (how often each image was drawn) times the per-image terms: no loop over
replicates, and the work space bounded by the block (about CELLS numbers). The draws are the same
as drawing the replicates x images index matrix in one call; their counts are kept (one byte per
replicate x image, up to CACHED_CELLS) for the other statistics with the same image count.

Resampling images treats the image set as the sample of interest; rater-level uncertainty (which
humans rated) is the small-pool question (stats.small_pools).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from .alpha import delta_alpha
from .alpha_sums import alpha_from_sums, unit_terms, with_extra_rater
from .classification import summary as classification_summary
from .kappa import kappa_from_tables
from .zscores import summarise, w1sd_counting_missing

SEED = 42
REPLICATES = 1000
LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    estimate: float
    lo: float
    hi: float
    replicates: int
    n_units: int
    seed: int = SEED
    level: float = LEVEL


def _percentile(estimate: float, reps: np.ndarray, n_units: int, seed: int, level: float) -> Interval:
    v = reps[~np.isnan(reps)]
    if len(v) == 0 or np.isnan(estimate):
        return Interval(estimate, float("nan"), float("nan"), len(reps), n_units, seed, level)
    lo, hi = np.quantile(v, [(1 - level) / 2, (1 + level) / 2])
    return Interval(float(estimate), float(lo), float(hi), len(reps), n_units, seed, level)


@dataclass(frozen=True)
class AlphaIntervals:
    alpha: Interval  # the human pool's interval alpha
    alpha_with_model: Interval | None = None  # None without an extra rater
    delta_alpha: Interval | None = None  # paired with alpha_with_model: same replicate images


CELLS = 1 << 22  # replicates x images per block of draws


def index_blocks(n: int, replicates: int, seed: int):
    """The bootstrap's image draws, a block of replicates at a time.

    Parameters
    ----------
    n : int
        Images (drawn with replacement, n per replicate).
    replicates : int
    seed : int

    Yields
    ------
    tuple of (int, numpy.ndarray)
        (first replicate of the block, block x n image indices).

    Notes
    -----
    The rows are those of ``default_rng(seed).integers(0, n, size=(replicates, n))``: numpy draws
    the same stream in blocks as in one call, so the block size (about CELLS numbers) changes
    memory, not results.

    References
    ----------
    Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 13 (percentile
    intervals); docs/ablations.md, "Resampling at scale" in docs/stats.md.

    Examples
    --------
    >>> import numpy as np
    >>> blocks = np.vstack([b for _, b in index_blocks(5, 4, 42)])
    >>> np.array_equal(blocks, np.random.default_rng(42).integers(0, 5, size=(4, 5)))
    True
    """
    rng = np.random.default_rng(seed)
    block = max(1, CELLS // max(n, 1))
    for start in range(0, replicates, block):
        yield start, rng.integers(0, n, size=(min(block, replicates - start), n))


CACHED_CELLS = 1 << 27  # replicates x images up to which the draw counts are kept for reuse


def weight_blocks(n: int, replicates: int, seed: int):
    """How often each image was drawn in each replicate, a block of replicates at a time.

    Parameters
    ----------
    n : int
        Images.
    replicates : int
    seed : int

    Yields
    ------
    tuple of (int, numpy.ndarray)
        (first replicate of the block, block x n draw counts).

    Notes
    -----
    w[b, i] = sum_j 1[idx[b, j] = i] for the draws of :func:`index_blocks`; every row sums to n.
    Every condition, dimension and category with the same image count reuses the same draws (same
    seed), so the counts are kept (one byte each) up to CACHED_CELLS.

    References
    ----------
    Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 13 (percentile
    intervals); docs/ablations.md.

    Examples
    --------
    The first replicate of seed 42 over 5 images draws images 0, 3, 3, 2, 2:

    >>> import numpy as np
    >>> np.random.default_rng(42).integers(0, 5, size=(4, 5))[0].tolist()
    [0, 3, 3, 2, 2]
    >>> next(weight_blocks(5, 4, 42))[1][0].tolist()
    [1, 0, 2, 2, 0]
    """
    if replicates * n <= CACHED_CELLS:
        yield from _cached_weights(n, replicates, seed, CELLS)
    else:
        for start, idx in index_blocks(n, replicates, seed):
            yield start, _counts(idx, n)


def _counts(idx: np.ndarray, n: int) -> np.ndarray:
    b = len(idx)
    return np.bincount((idx + n * np.arange(b)[:, None]).ravel(), minlength=b * n).reshape(b, n)


@lru_cache(maxsize=8)
def _cached_weights(n: int, replicates: int, seed: int, cells: int) -> tuple:  # cells: part of the key
    blocks = []
    for start, idx in index_blocks(n, replicates, seed):
        w = _counts(idx, n)
        w = w.astype(np.uint8) if w.max(initial=0) < 256 else w
        w.flags.writeable = False
        blocks.append((start, w))
    return tuple(blocks)


def replicate_sums(terms: np.ndarray, replicates: int, seed: int) -> np.ndarray:
    """For every replicate, the sum of each per-image term over its drawn images.

    Parameters
    ----------
    terms : numpy.ndarray, shape (p, n)
        Per-image terms (e.g. :func:`rater1001.stats.alpha_sums.unit_terms`).
    replicates : int
    seed : int

    Returns
    -------
    numpy.ndarray, shape (replicates, p)
        Sums; an image drawn twice counts twice.

    Notes
    -----
    S[b, k] = sum_i w[b, i] terms[k, i] with w the draw counts of :func:`weight_blocks`: one
    matrix product per block, no loop over replicates.

    References
    ----------
    Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 13 (percentile
    intervals); docs/ablations.md.

    Examples
    --------
    An indicator of image 0 counts how often it was drawn (1 in the first replicate of
    :func:`weight_blocks`' example); a term of ones sums to n = 5 in every replicate:

    >>> import numpy as np
    >>> replicate_sums(np.array([[1.0, 0, 0, 0, 0], [1, 1, 1, 1, 1]]), 4, 42).tolist()
    [[1.0, 5.0], [2.0, 5.0], [0.0, 5.0], [1.0, 5.0]]
    """
    p, n = terms.shape
    out = np.empty((replicates, p))
    for start, weights in weight_blocks(n, replicates, seed):
        out[start : start + len(weights)] = weights.astype(float) @ terms.T
    return out


def alpha_intervals(
    m, total, total_sq, extra=None, replicates: int = REPLICATES, seed: int = SEED, level: float = LEVEL
) -> AlphaIntervals:
    """Percentile bootstrap intervals of interval alpha and, with a model, of alpha with it and
    delta alpha.

    Parameters
    ----------
    m, total, total_sq : array_like
        Per-image sufficient statistics of the human ratings.
    extra : array_like, optional
        One extra rater's (the model's) value per image; NaN = not rated.
    replicates : int, default 1000
    seed : int, default 42
    level : float, default 0.95

    Returns
    -------
    AlphaIntervals
        ``alpha`` and, with ``extra``, ``alpha_with_model`` and ``delta_alpha`` (None without it;
        same replicate images for both, so the delta's interval is paired). Each is an
        :class:`Interval` whose estimate is the full-sample value.

    Notes
    -----
    Replicate b draws n images with replacement; its alpha is
    :func:`rater1001.stats.alpha_sums.alpha_from_sums` of the draw-weighted sums of the per-image
    :func:`rater1001.stats.alpha_sums.unit_terms` (equal to recomputing alpha on the drawn images).
    The interval is the (1 - level)/2 and (1 + level)/2 quantiles of the defined replicates.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3 (Tables 4c/5c); Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 13 (percentile
    intervals); docs/ablations.md.

    Examples
    --------
    Every image's two humans agree and the model gives their value too: every replicate has
    alpha 1 with and without the model, so the intervals collapse on the point:

    >>> r = alpha_intervals([2, 2, 2, 2], [2, 4, 6, 8], [2, 8, 18, 32], extra=[1, 2, 3, 4], replicates=200)
    >>> [(i.estimate, i.lo, i.hi) for i in (r.alpha, r.alpha_with_model, r.delta_alpha)]
    [(1.0, 1.0, 1.0), (1.0, 1.0, 1.0), (0.0, 0.0, 0.0)]
    """
    m, total, total_sq = (np.asarray(a, dtype=float) for a in (m, total, total_sq))
    n = len(m)
    has = extra is not None
    x = np.asarray(extra, dtype=float) if has else np.full(n, np.nan)
    d = delta_alpha(m, total, total_sq, x)
    est = (d.without_extra.alpha, d.with_extra.alpha, d.delta)
    if n:
        pooled = with_extra_rater(m, total, total_sq, x)
        pairable = pooled[0] >= 2
        centre = pooled[1][pairable].sum() / pooled[0][pairable].sum() if pairable.any() else 0.0
        sums = replicate_sums(
            np.vstack([*unit_terms(m, total, total_sq, centre), *unit_terms(*pooled, centre)]), replicates, seed
        )
        a_base, a_plus = alpha_from_sums(*sums[:, :4].T), alpha_from_sums(*sums[:, 4:].T)
        reps = np.column_stack([a_base, a_plus, a_plus - a_base])
    else:
        reps = np.full((replicates, 3), np.nan)
    alpha = _percentile(est[0], reps[:, 0], n, seed, level)
    if not has:
        return AlphaIntervals(alpha)
    return AlphaIntervals(
        alpha,
        alpha_with_model=_percentile(est[1], reps[:, 1], n, seed, level),
        delta_alpha=_percentile(est[2], reps[:, 2], n, seed, level),
    )


def w1sd_interval(
    z, replicates: int = REPLICATES, seed: int = SEED, level: float = LEVEL, threshold: float = 1.0, missing=None
) -> Interval:
    """Percentile bootstrap interval of W1SD with images resampled.

    Parameters
    ----------
    z : array_like
        The model's z per image.
    replicates : int, default 1000
    seed : int, default 42
    level : float, default 0.95
    threshold : float, default 1.0
        |z| <= threshold counts as within.
    missing : array_like of bool, optional
        Images the model left unanswered (aligned with z): they stay in the resample and count
        as outside 1 SD, as in :func:`rater1001.stats.zscores.summarise` (``n_missing``). Other
        undefined z (human SD 0) are dropped before resampling.

    Returns
    -------
    Interval
        estimate (the full-sample W1SD), lo, hi, replicates, n_units.

    Notes
    -----
    W1SD_b = (sum_i w_bi 1[|z_i| <= threshold]) / (sum_i w_bi) over the drawn images (missing
    ones in the denominator); percentile interval over the replicates.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3 (Tables 4e/5e); Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 13 (percentile
    intervals); docs/ablations.md.

    Examples
    --------
    Six of ten images within 1 SD: the estimate is .6; all ten within gives 1 in every replicate:

    >>> w1sd_interval([0.5] * 6 + [2.0] * 4, replicates=200).estimate
    0.6
    >>> i = w1sd_interval([0.5] * 10, replicates=50)
    >>> i.estimate, i.lo, i.hi
    (1.0, 1.0, 1.0)
    """
    z = np.asarray(z, dtype=float)
    miss = np.zeros(len(z), bool) if missing is None else np.asarray(missing, dtype=bool)
    keep = ~np.isnan(z) | miss
    z, miss = z[keep], miss[keep]
    n = len(z)
    est = summarise(z[~miss], threshold, n_missing=int(miss.sum())).w1sd
    if n == 0:
        return _percentile(est, np.full(replicates, np.nan), n, seed, level)
    inside = ~miss & (np.abs(z) <= threshold)  # a NaN z compares False
    within, scored = replicate_sums(np.vstack([inside, ~miss]).astype(float), replicates, seed).T
    with np.errstate(divide="ignore", invalid="ignore"):
        answered = within / scored
    reps = w1sd_counting_missing(answered, scored, n - scored)
    return _percentile(est, reps, n, seed, level)


def kappa_interval(
    truth, predicted, labels, replicates: int = REPLICATES, seed: int = SEED, level: float = LEVEL
) -> Interval:
    """Percentile bootstrap interval of Cohen's kappa of predicted vs intended label.

    Parameters
    ----------
    truth, predicted : array_like
        Intended and predicted label per image (a missing prediction counts as wrong).
    labels : sequence
        The study's label set.
    replicates : int, default 1000
    seed : int, default 42
    level : float, default 0.95

    Returns
    -------
    Interval
        estimate (:func:`rater1001.stats.classification.summary`'s kappa), lo, hi.

    Notes
    -----
    Each replicate's confusion table is the draw-weighted count of each (truth, prediction)
    cell, the study's labels plus one code per label outside the set ('__missing__' included);
    kappa of every table at once by :func:`rater1001.stats.kappa.kappa_from_tables`
    (tests/python/test_stats_ablations.py checks replicate by replicate against ``summary``).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.1 (Table 2); Cohen (1960); Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 13 (percentile
    intervals); docs/ablations.md.

    Examples
    --------
    Every prediction right: kappa 1 in every replicate that draws both labels:

    >>> i = kappa_interval(list("aabbab"), list("aabbab"), ["a", "b"], replicates=100)
    >>> i.estimate, i.lo, i.hi
    (1.0, 1.0, 1.0)
    """
    t = pd.Series(truth, dtype="object").to_numpy()
    p = pd.Series(predicted, dtype="object").to_numpy()
    if len(t) == 0:
        return Interval(float("nan"), float("nan"), float("nan"), replicates, 0, seed, level)
    est = classification_summary(t, p, labels).kappa
    p_filled = np.where(pd.isna(p), "__missing__", p).astype(object)
    codes = {lab: i for i, lab in enumerate(list(labels) + sorted(set(p_filled) - set(labels), key=str))}
    k = len(codes)
    cell = np.array([codes[v] for v in t]) * k + np.array([codes[v] for v in p_filled])
    # confusion tables of a block: the draw counts summed over the images of each cell
    order = np.argsort(cell, kind="stable")
    used, starts = np.unique(cell[order], return_index=True)
    reps = np.empty(replicates)
    for start, weights in weight_blocks(len(t), replicates, seed):
        tables = np.zeros((len(weights), k * k))
        tables[:, used] = np.add.reduceat(weights[:, order].astype(float), starts, axis=1)
        reps[start : start + len(weights)] = kappa_from_tables(tables.reshape(-1, k, k))
    return _percentile(est, reps, len(t), seed, level)
