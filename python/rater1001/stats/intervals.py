"""Bootstrap confidence intervals for the headline numbers: interval alpha, delta alpha, W1SD and
Cohen's kappa (docs/ablations.md). Images are the resampling unit (drawn with replacement, same
count, one generator seeded with 42); each replicate recomputes the statistic with its one home
(stats.alpha, stats.zscores, stats.classification), and the interval is the percentile interval
of the replicates. The point estimate is the full-sample value, not the replicate mean.

Resampling images treats the image set as the sample of interest; rater-level uncertainty (which
humans rated) is the small-pool question (stats.small_pools).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from .alpha import alpha_interval_from_sufficient, delta_alpha
from .classification import summary as classification_summary
from .zscores import summarise

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


@lru_cache(maxsize=32)
def _draws(n: int, replicates: int, seed: int) -> np.ndarray:
    """Replicate x n image indices; cached because every condition and emotion of a study with
    the same image count reuses the same draws (same seed), read-only."""
    out = np.random.default_rng(seed).integers(0, n, size=(replicates, n))
    out.flags.writeable = False
    return out


def alpha_intervals(m, total, total_sq, extra=None, replicates: int = REPLICATES, seed: int = SEED,
                    level: float = LEVEL) -> dict[str, Interval]:
    """Per-image sufficient statistics (m, total, total_sq) of the human ratings and optionally one
    extra rater's value per image (NaN = not rated). Returns 'alpha' and, with extra,
    'alpha_with_model' and 'delta_alpha' (same replicate images for both, so the delta's interval
    is paired)."""
    m, total, total_sq = (np.asarray(a, dtype=float) for a in (m, total, total_sq))
    n = len(m)
    has = extra is not None
    x = np.asarray(extra, dtype=float) if has else np.full(n, np.nan)

    def three(idx):
        base, plus, delta = delta_alpha(m[idx], total[idx], total_sq[idx], x[idx])
        return base.alpha, plus.alpha, delta

    est = three(slice(None))
    reps = (np.array([three(idx) for idx in _draws(n, replicates, seed)]) if n
            else np.full((replicates, 3), np.nan))
    out = {"alpha": _percentile(est[0], reps[:, 0], n, seed, level)}
    if has:
        out["alpha_with_model"] = _percentile(est[1], reps[:, 1], n, seed, level)
        out["delta_alpha"] = _percentile(est[2], reps[:, 2], n, seed, level)
    return out


def w1sd_interval(z, replicates: int = REPLICATES, seed: int = SEED, level: float = LEVEL,
                  threshold: float = 1.0, missing=None) -> Interval:
    """W1SD (share of |z| <= threshold) with images resampled. `missing` (aligned with z) marks
    images the model left unanswered: they stay in the resample and count as outside 1 SD, as in
    stats.zscores.summarise(n_missing=...). Other undefined z (human SD 0) are dropped before
    resampling."""
    z = np.asarray(z, dtype=float)
    miss = np.zeros(len(z), bool) if missing is None else np.asarray(missing, dtype=bool)
    keep = ~np.isnan(z) | miss
    z, miss = z[keep], miss[keep]

    def w1sd(idx):
        return summarise(z[idx][~miss[idx]], threshold, n_missing=int(miss[idx].sum())).w1sd

    est = w1sd(slice(None))
    reps = np.array([w1sd(idx) for idx in _draws(len(z), replicates, seed)]) if len(z) \
        else np.full(replicates, np.nan)
    return _percentile(est, reps, len(z), seed, level)


def kappa_interval(truth, predicted, labels, replicates: int = REPLICATES, seed: int = SEED,
                   level: float = LEVEL) -> Interval:
    """Unweighted Cohen's kappa of predicted vs intended label with images resampled. The point
    estimate is stats.classification.summary's kappa (missing predictions count as wrong). Each
    replicate builds its confusion table with one bincount over integer-coded labels (the study's
    labels plus one code per label outside the set, '__missing__' included) and hands it to
    statsmodels' cohens_kappa: the same kappa as scikit-learn's, ~70x faster than calling it per
    replicate (tests/python/test_stats_ablations.py checks replicate by replicate)."""
    from statsmodels.stats.inter_rater import cohens_kappa

    t = pd.Series(truth, dtype="object").to_numpy()
    p = pd.Series(predicted, dtype="object").to_numpy()
    if len(t) == 0:
        return Interval(float("nan"), float("nan"), float("nan"), replicates, 0, seed, level)
    est = classification_summary(t, p, labels).kappa
    p_filled = np.where(pd.isna(p), "__missing__", p).astype(object)
    codes = {lab: i for i, lab in enumerate(list(labels) + sorted(set(p_filled) - set(labels), key=str))}
    k = len(codes)
    cell = np.array([codes[v] for v in t]) * k + np.array([codes[v] for v in p_filled])
    with np.errstate(divide="ignore", invalid="ignore"):
        reps = np.array([cohens_kappa(np.bincount(cell[idx], minlength=k * k).reshape(k, k), return_results=False)
                         for idx in _draws(len(t), replicates, seed)], dtype=float)
    return _percentile(est, reps, len(t), seed, level)
