"""z-scores against the human distribution and the human leave-one-out baseline (paper section
3.4.3, Tables 4d/4e/5d/5e; DESIGN.md section 4).

    z_ij = (x_ij - M_j) / S_j                 S_j the sample SD (ddof=1) of image j's ratings
    W1SD = share of images with |z| <= 1      (1.0 inclusive, as the paper's 1[|z| <= 1.0])

Human LOO: rating y_h of an image with n ratings, mean M and SS = sum (y - M)^2 is scored against
the other n - 1 ratings with the closed forms (the SQL twins are macros/leave_one_out.sql)

    M^(-h)  = (n M - y_h) / (n - 1)
    SS^(-h) = SS - (y_h - M)^2 n / (n - 1)
    S^(-h)  = sqrt(SS^(-h) / (n - 2))          (needs n >= 3)

A zero SD gives z = NaN: such images are counted (n_zero_sd) and left out of mean |z| and W1SD,
never silently dropped and never given an infinite z.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def zscore(x, mean, sd) -> np.ndarray:
    """(x - mean) / sd elementwise; NaN where sd is 0 or NaN."""
    x, mean, sd = (np.asarray(a, dtype=float) for a in (x, mean, sd))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, (x - mean) / np.where(sd > 0, sd, 1.0), np.nan)


def loo_mean(n, mean, y) -> np.ndarray:
    n, mean, y = (np.asarray(a, dtype=float) for a in (n, mean, y))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n >= 2, (n * mean - y) / (n - 1), np.nan)


def loo_sd(n, ss, mean, y) -> np.ndarray:
    n, ss, mean, y = (np.asarray(a, dtype=float) for a in (n, ss, mean, y))
    with np.errstate(divide="ignore", invalid="ignore"):
        ss_loo = np.maximum(ss - (y - mean) ** 2 * n / (n - 1), 0.0)
        return np.where(n >= 3, np.sqrt(ss_loo / (n - 2)), np.nan)


def loo_z(n, mean, ss, y) -> np.ndarray:
    """z of each human rating against the other ratings of its image (closed form)."""
    return zscore(y, loo_mean(n, mean, y), loo_sd(n, ss, mean, y))


@dataclass(frozen=True)
class ZSummary:
    mean_abs_z: float  # NaN when no image has a defined z
    w1sd: float
    n_images: int  # rows with a defined z (images for a model; ratings for human LOO)
    n_zero_sd: int  # rows whose reference SD was 0 (or undefined), excluded from the two shares


def summarise(z, threshold: float = 1.0) -> ZSummary:
    z = np.asarray(z, dtype=float)
    ok = ~np.isnan(z)
    if not ok.any():
        return ZSummary(float("nan"), float("nan"), 0, int((~ok).sum()))
    a = np.abs(z[ok])
    return ZSummary(float(a.mean()), float((a <= threshold).mean()), int(ok.sum()), int((~ok).sum()))
