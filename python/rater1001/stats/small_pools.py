"""Small rater pools (paper Limitation 12: does adding a model help or hurt a small pool?;
docs/ablations.md).

Each image keeps only k of its human ratings, drawn without replacement; then human interval alpha
and alpha with each model condition added as one more rater are computed from the per-image
sufficient statistics (stats.alpha.delta_alpha, the one home of the formula).
Repeated `replicates` times from one seeded generator. In every replicate the images are also
resampled with replacement (resample_images=True, the default), so the reported percentile
interval covers both which raters a study of that size would have had and which images; with
resample_images=False it covers the rater draw only.

Input is the per-image value counts (image, value, count): the multiset of an image's ratings is
all a without-replacement draw needs, so no rater identities enter. Images with fewer than k
ratings are left out at that k and counted.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .alpha import alpha_interval_from_sufficient, delta_alpha

SEED = 42
DEFAULT_KS = (2, 3, 5, 10, 20, 50)


def padded_ratings(value_counts: pd.DataFrame, unit: str = "image_id", value: str = "value",
                   count: str = "n") -> tuple[np.ndarray, np.ndarray]:
    """(units, U x max_m matrix of each unit's ratings, NaN-padded) from a long value-count frame."""
    vc = value_counts[[unit, value, count]].dropna()
    if (vc[count] < 0).any() or (vc[count] % 1 != 0).any():
        bad = vc[(vc[count] < 0) | (vc[count] % 1 != 0)].iloc[0]
        raise ValueError(f"value count must be a non-negative integer; {unit}={bad[unit]!r} has {bad[count]!r}")
    vc = vc[vc[count] > 0].sort_values([unit, value])
    rep = vc.loc[vc.index.repeat(vc[count].astype(int)), [unit, value]]
    units, inverse = np.unique(rep[unit].to_numpy(), return_inverse=True)
    m = np.bincount(inverse, minlength=len(units))
    pos = np.arange(len(rep)) - np.repeat(np.cumsum(m) - m, m)
    out = np.full((len(units), int(m.max()) if len(m) else 0), np.nan)
    out[inverse, pos] = rep[value].to_numpy(dtype=float)
    return units, out


def subsample(ratings: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """U x k matrix: for each row, k of its non-NaN entries drawn without replacement (rows must
    have at least k). Random keys with NaN positions pushed last, then the k smallest."""
    keys = rng.random(ratings.shape)
    keys[np.isnan(ratings)] = np.inf
    idx = np.argpartition(keys, k - 1, axis=1)[:, :k] if k < ratings.shape[1] else np.argsort(keys, axis=1)[:, :k]
    return np.take_along_axis(ratings, idx, axis=1)


def _interval(values: np.ndarray, level: float) -> tuple[float, float, float]:
    v = values[~np.isnan(values)]
    if len(v) == 0:
        return float("nan"), float("nan"), float("nan")
    lo, hi = np.quantile(v, [(1 - level) / 2, (1 + level) / 2])
    return float(v.mean()), float(lo), float(hi)


def small_pool_alpha(ratings: np.ndarray, model: pd.DataFrame | None = None, ks=DEFAULT_KS,
                     replicates: int = 200, seed: int = SEED, resample_images: bool = True,
                     level: float = 0.95) -> pd.DataFrame:
    """`ratings`: U x max_m padded human ratings (padded_ratings). `model`: U x C frame of model
    answers aligned with the rows (columns = condition ids; NaN = no answer for that image).
    One row per (k, condition) with human alpha, alpha with the model, delta alpha: replicate mean
    and percentile interval, share of replicates with delta > 0, images used / excluded."""
    model = pd.DataFrame(index=range(len(ratings))) if model is None else model
    x_all = model.to_numpy(dtype=float)
    m_all = (~np.isnan(ratings)).sum(axis=1)
    rng = np.random.default_rng(seed)
    rows = []
    for k in ks:
        eligible = np.flatnonzero(m_all >= k)
        base = np.full(replicates, np.nan)
        plus, delta = np.full((replicates, x_all.shape[1]), np.nan), np.full((replicates, x_all.shape[1]), np.nan)
        for r in range(replicates):
            units = rng.choice(eligible, len(eligible), replace=True) if resample_images else eligible
            drawn = subsample(ratings[units], k, rng) if len(units) else np.zeros((0, k))
            total, total_sq, m = drawn.sum(axis=1), (drawn**2).sum(axis=1), np.full(len(units), float(k))
            base[r] = alpha_interval_from_sufficient(m, total, total_sq).alpha
            for c in range(x_all.shape[1]):
                _, with_model, delta[r, c] = delta_alpha(m, total, total_sq, x_all[units, c])
                plus[r, c] = with_model.alpha
        h_mean, h_lo, h_hi = _interval(base, level)
        common = {"k": k, "n_images": len(eligible), "n_images_excluded": int(len(m_all) - len(eligible)),
                  "replicates": replicates, "seed": seed, "resample_images": resample_images,
                  "human_alpha": h_mean, "human_alpha_lo": h_lo, "human_alpha_hi": h_hi}
        if x_all.shape[1] == 0:
            rows.append({**common, "condition_id": None})
        for c, cond in enumerate(model.columns):
            a_mean, a_lo, a_hi = _interval(plus[:, c], level)
            d_mean, d_lo, d_hi = _interval(delta[:, c], level)
            ok = ~np.isnan(delta[:, c])
            rows.append({**common, "condition_id": cond, "alpha_with_model": a_mean, "alpha_with_model_lo": a_lo,
                         "alpha_with_model_hi": a_hi, "delta_alpha": d_mean, "delta_alpha_lo": d_lo,
                         "delta_alpha_hi": d_hi,
                         "share_delta_positive": float((delta[ok, c] > 0).mean()) if ok.any() else float("nan")})
    return pd.DataFrame(rows)
