"""Bootstrap p_sig (paper Discussion 5.1; docs/stats.md).

p_sig: the share of bootstrap replicates in which the model deviates from the human mean
significantly more than an individual human does. Replicate b (generator seeded with 42):
  1. resample the images with replacement (same count as the input);
  2. for each drawn image, draw one of its human raters uniformly at random
     (replicates are drawn in blocks of 250, fewer above 16,777 images: per block first the
     image indices, then one uniform per drawn image for the rater); with per-(image, value)
     counts the raters are taken in value order, so a uniform picks value v with probability
     n_iv / n_i (a categorical draw from the counts, no per-rating rows);
  3. one-sided paired Wilcoxon signed-rank test (stats.signed_rank: scipy's zero_method='wilcox',
     alternative 'greater'; exact for <= 50 pairs without ties, normal approximation otherwise)
     of model |z| against that human's LOO |z|;
  4. the replicate is significant when p < 0.05.
p_sig = significant replicates / replicates. A model that behaves like one more human gets
p_sig near 0.05 (the test's size) or lower; a model far outside the human spread gets ~1.
Images whose model |z| is undefined (human SD 0) and humans whose LOO |z| is undefined are
removed before resampling and counted.
The k-human diversity bootstrap of Table 6 is stats.k_human_diversity.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from .psig_draws import drawn_codes, drawn_draws, drawn_entries
from .signed_rank import signed_codes, signed_rank_test

SEED = 42
# draws (replicates x pairs) of a step: a step's arrays stay in the CPU's cache, and a pool's
# replicates make enough steps for every thread; where the draws are sorted by image (above
# SORTED_ENTRIES) the per-image tables are read once per step, for several replicates of a large
# study (docs/stats.md, "Resampling at scale")
KERNEL = 1 << 17
SORTED_KERNEL = 1 << 20
# entries (images x values) above which a step sorts its draws by image
SORTED_ENTRIES = 1 << 18
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
    share them: one stream of image and human draws per such group instead of one per model,
    mapped to their entries once per step for all the models (stats.psig_draws).
    Each model's |d| are ranked once (:func:`signed_codes`); the p-values are the same to the
    last bit as ranking each replicate's |d| afresh. Memory: two pools of at most ``cells``
    draws, one tested while the next is drawn (blocks of ``chunk`` replicates, fewer when chunk x
    images would pass ``cells``, the block size being part of the random stream; small blocks are
    pooled up to ``cells`` for the test), plus the codes of the models of a group (groups are
    split to keep these near 4 x ``cells``). The test runs in steps of about :data:`KERNEL`
    draws on one thread per core; a step's counts do not depend on the threads. With
    ``weights`` the differences are ranked per (image, value) entry, not per human (an image's
    LOO |z| takes one value per rating value), and each drawn position maps to its entry through
    the image's cumulative counts (its humans in value order).

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
    # Pack each image's defined entries to the left so a drawn position indexes them in order.
    order = np.argsort(~defined, axis=1, kind="stable")
    hz = np.take_along_axis(hz, order, axis=1)
    width = hz.shape[1]
    if weight is None:
        n_h, cum = defined.sum(axis=1), None  # position p of an image is its entry p
    else:
        # position p of image i (0 <= p < n_h[i]) is its first entry whose cumulative count
        # exceeds p: the codes stay one per (image, value), shared by its humans
        cum = np.cumsum(np.take_along_axis(weight, order, axis=1), axis=1)
        n_h = cum[:, -1]
        cum = cum.astype(np.int32) if n_h.max() < np.iinfo(np.int32).max else cum
    # draws in image order only where the per-image tables pass the CPU's cache: there the order
    # makes their reads sequential; below it the sort costs more than it saves
    draws = _Draws(n_h.astype(np.int64), cum, width, sort=n * width > SORTED_ENTRIES)
    # every entry's difference, ranked once into integer codes: model j's code of entry c is table[j, c]
    table = np.stack([signed_codes(row[:, None] - hz).ravel() for row in mz])
    rng = np.random.default_rng(seed)
    block = max(1, min(chunk, cells // n))
    # blocks are pooled up to `cells` draws for the test, so a small study is a handful of array calls
    per_pool = block * max(1, cells // (block * n))
    running: list[Future] = []
    tested, spare = None, []  # the uniforms' buffers are reused: a fresh one costs page faults
    scratch = _Scratch()
    with ThreadPoolExecutor(max_workers=_threads()) as workers:
        for first in range(0, replicates, per_pool):
            rows = min(per_pool, replicates - first)
            u = spare.pop() if spare and len(spare[-1]) == rows else np.empty((rows, n))
            blocks = []
            for start in range(0, rows, block):  # per block the image indices, then the uniforms
                blocks.append(rng.integers(0, n, size=(min(block, rows - start), n)))
                rng.random(out=u[start : start + len(blocks[-1])])
            img = blocks[0] if len(blocks) == 1 else np.concatenate(blocks)
            for done in running:  # at most two pools alive: one tested while the next is drawn
                significant += done.result()
            if tested is not None:
                spare.append(tested)
            running, tested = _significant_in(workers, scratch, draws, img, u, table, alpha), u
        for done in running:
            significant += done.result()
    return significant


def _threads() -> int:
    """Threads testing the replicates: one per core this process may run on (the kernel's sorts,
    takes and compiled sums release the GIL; the counts do not depend on the threads)."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


@dataclass(frozen=True)
class _Draws:
    """What maps drawn (image, uniform) pairs to their entries' codes (stats.psig_draws:
    position floor(u x humans) of the image's humans in value order)."""

    humans: np.ndarray  # per image
    cum: np.ndarray | None  # per image, the cumulative humans over its entries (None: one human each)
    width: int
    sort: bool  # the draws in image order, so that the per-image tables are read in memory order


class _Scratch(threading.local):
    """Each thread's buffers, reused from step to step: a fresh array of a few MB costs its pages'
    faults and zeroing, about as much as the step's work on it."""

    def get(self, name: str, size: int, dtype=np.int64) -> np.ndarray:
        buffer = self.__dict__.get(name)
        if buffer is None or len(buffer) < size:
            buffer = self.__dict__[name] = np.empty(size, dtype=dtype)
        return buffer[:size]


def _significant_in(
    workers: ThreadPoolExecutor,
    scratch: _Scratch,
    draws: _Draws,
    img: np.ndarray,
    u: np.ndarray,
    table: np.ndarray,
    alpha: float,
) -> list[Future]:
    """Futures of the significant replicates of each model among the drawn (image, uniform)
    pairs (replicates x pairs), model j's code of entry c being table[j, c]: steps of about
    :data:`KERNEL` pairs, each finding its draws' entries once in image order and reading every
    model's codes in that order (stats.psig_draws), then sorting and testing each model's; each
    step a count per model."""
    rows, n = img.shape
    k = table.shape[0]
    step = max(1, (SORTED_KERNEL if draws.sort else KERNEL) // n)  # replicates per step

    def test(start: int) -> np.ndarray:
        b = min(step, rows - start)
        drawn = drawn_draws(
            img[start : start + b], u[start : start + b], draws.humans, draws.sort, scratch.get("drawn", b * n)
        )
        entry, slot = drawn_entries(
            drawn, b, draws.humans, draws.cum, draws.width, (scratch.get("entry", b * n), scratch.get("slot", b * n))
        )
        hits = np.zeros(k, dtype=np.int64)
        for j in range(k):
            keys = drawn_codes(table[j], entry, slot, b, scratch.get("keys", b * n, np.int32))
            keys.sort(axis=1)
            hits[j] = (signed_rank_test(keys) < alpha).sum()
        return hits

    return [workers.submit(test, start) for start in range(0, rows, step)]
