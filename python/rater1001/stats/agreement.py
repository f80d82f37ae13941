"""Dimensional agreement between a model and the per-image human mean (paper section 3.4.2,
Tables 4, 4a, 4b, 5, 5a, 5b; Supplement S4, Table S8; DESIGN.md section 4).

Every function takes aligned per-image arrays: human mean M_j (and, for the baselines, the
image's n, mean, SS or value counts) and model prediction x_j. Images where either side is missing
are dropped and counted (n_missing) so a condition that predicted only some images is visible.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps


def _pairs(human_mean, model):
    h = np.asarray(human_mean, dtype=float)
    x = np.asarray(model, dtype=float)
    if h.shape != x.shape:
        raise ValueError(f"human_mean has shape {h.shape} but model has {x.shape}; align by image first")
    ok = ~(np.isnan(h) | np.isnan(x))
    return h[ok], x[ok], int((~ok).sum())


@dataclass(frozen=True)
class Correlation:
    r: float  # NaN when undefined
    n: int
    reason: str | None  # why r is NaN
    p_value: float = float("nan")  # two-sided, scipy.stats.pearsonr


def pearson(human_mean, model) -> Correlation:
    """Pearson r and its p-value over the pairs where both sides are present; NaN with a reason
    when fewer than 3 pairs or a side has zero variance (e.g. a model that gives every happy face
    valence 9, Table 4b's dashes). The one Pearson of the package (the judge marts use it too)."""
    h, x, _ = _pairs(human_mean, model)
    if len(h) < 3:
        return Correlation(float("nan"), len(h), "fewer than 3 images with both values")
    if np.ptp(x) == 0:
        return Correlation(float("nan"), len(h), "model gives one constant value (SD 0)")
    if np.ptp(h) == 0:
        return Correlation(float("nan"), len(h), "human means are constant (SD 0)")
    res = sps.pearsonr(h, x)
    return Correlation(float(res.statistic), len(h), None, float(res.pvalue))


@dataclass(frozen=True)
class BlandAltman:
    n: int
    n_missing: int
    bias: float  # mean of d_j = M_j - x_j (positive: model rates lower than humans)
    sd_d: float  # sample SD (ddof=1) of d_j
    loa_lower: float
    loa_upper: float
    systematicity: float  # |bias| / sd_d; inf when sd_d is 0 and bias is not, NaN when both 0
    mae: float
    mae_folded_normal: float


def systematicity(bias, sd_d) -> np.ndarray:
    """|bias| / SD_d elementwise: +inf when SD_d is 0 and the bias is not (a pure offset, the most
    correctable bias there is), NaN when both are 0 or either is missing. The SQL twin is the
    systematicity column of macros/bland_altman.sql; stats.verdicts reads it from here."""
    bias, sd_d = np.asarray(bias, dtype=float), np.asarray(sd_d, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd_d > 0, np.abs(bias) / np.where(sd_d > 0, sd_d, 1.0),
                        np.where((sd_d == 0) & (bias != 0), np.inf, np.nan))


def mae_approximation(bias: float, sd: float) -> float:
    """The paper's Supplement S4 approximation MAE ~ sqrt(bias^2 + (2/pi) SD_d^2) (DESIGN.md 4)."""
    return math.sqrt(bias**2 + (2 / math.pi) * sd**2)


def bland_altman(human_mean, model, z: float = 1.96) -> BlandAltman:
    h, x, n_missing = _pairs(human_mean, model)
    n = len(h)
    nan = float("nan")
    if n == 0:
        return BlandAltman(0, n_missing, nan, nan, nan, nan, nan, nan, nan)
    d = h - x
    bias = float(d.mean())
    sd = float(d.std(ddof=1)) if n >= 2 else nan
    return BlandAltman(
        n=n, n_missing=n_missing, bias=bias, sd_d=sd,
        loa_lower=bias - z * sd, loa_upper=bias + z * sd, systematicity=float(systematicity(bias, sd)),
        mae=float(np.abs(d).mean()),
        mae_folded_normal=mae_approximation(bias, sd) if n >= 2 else nan,
    )


def human_loo_mae(n, mean, values_by_count) -> float:
    """Mean over all human ratings of |y_h - M^(-h)| (Table S8 "human LOO MAE").

    Closed form per rating: |y_h - M^(-h)| = n/(n-1) |y_h - M|, so per image it is
    n/(n-1) * sum_v c_v |v - M| with c_v the count of value v. `values_by_count` is an
    (images x values) count matrix whose columns are the scale values 1..K in order; `n` and `mean`
    per image. Images with n < 2 have no LOO mean and are skipped.
    """
    counts = np.asarray(values_by_count, dtype=float)
    n = np.asarray(n, dtype=float)
    mean = np.asarray(mean, dtype=float)
    values = np.arange(1, counts.shape[1] + 1, dtype=float)
    ok = n >= 2
    per_image = (counts[ok] * np.abs(values[None, :] - mean[ok, None])).sum(axis=1) * n[ok] / (n[ok] - 1)
    return float(per_image.sum() / n[ok].sum())


def human_pairwise_mae(values_by_count, scale_values=None) -> float:
    """Mean |y_a - y_b| over all unordered pairs of ratings of the same image, pooled over images
    (Table S8 "human pairwise MAE"). From value counts c_v: sum_{v<w} c_v c_w |v - w| per image."""
    counts = np.asarray(values_by_count, dtype=float)
    v = np.arange(1, counts.shape[1] + 1, dtype=float) if scale_values is None else np.asarray(scale_values, float)
    dist = np.abs(v[:, None] - v[None, :])
    abs_sum = 0.5 * np.einsum("iv,vw,iw->", counts, dist, counts)
    m = counts.sum(axis=1)
    n_pairs = (m * (m - 1) / 2).sum()
    return float(abs_sum / n_pairs) if n_pairs > 0 else float("nan")
