"""k-human diversity (paper section 3.4.3, Table 6; docs/stats.md).

The mean over images of a category of the spread (SD and variance, ddof=1) of the k model
predictions of each image, against the same statistic for k humans drawn without replacement from
each image's raters, repeated (1,000 replicates, seed 42; the draws are small_pools.subset_sums',
a block of replicates at a time). Table 6 prints the SD version ("mean of the per-image SD"); the
paper's 3.4.3 formula is the variance version; both are returned.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import small_pools
from .bootstrap import SEED


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
