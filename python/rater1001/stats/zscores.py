"""z-scores against the human distribution and the human leave-one-out baseline (paper section
3.4.3, Tables 4d/4e/5d/5e; DESIGN.md section 4).

    z_ij = (x_ij - M_j) / S_j                 S_j the sample SD (ddof=1) of image j's ratings
    W1SD = share of images with |z| <= 1      (1.0 inclusive, as the paper's 1[|z| <= 1.0])

Human LOO: rating y_h of an image with n ratings, sum T and sum of squares Q is scored against the
other n' = n - 1 ratings (T' = T - y_h, Q' = Q - y_h^2) with the closed forms (the SQL twins are
macros/leave_one_out.sql)

    M^(-h)  = T' / n'
    SS^(-h) = (n' Q' - T'^2) / n'              exact on an integer scale; zero below a tolerance
                                               relative to n' Q' (the scale of the ratings)
    S^(-h)  = sqrt(SS^(-h) / (n' - 1))         (needs n >= 3)

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


# Relative size below which n' Q' - T'^2 counts as 0: far above double rounding (~1e-16 per
# operation), far below the smallest real spread of any rating scale with at most 1e6 steps.
LOO_REL_TOL = 1e-12


def loo_mean(n, total, y) -> np.ndarray:
    n, total, y = (np.asarray(a, dtype=float) for a in (n, total, y))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n >= 2, (total - y) / (n - 1), np.nan)


def loo_ss(n, total, total_sq, y) -> np.ndarray:
    """Sum of squared deviations of the other n - 1 ratings, exact where the ratings are integers."""
    n, total, total_sq, y = (np.asarray(a, dtype=float) for a in (n, total, total_sq, y))
    k, rest, rest_sq = n - 1, total - y, total_sq - y * y
    scaled = k * rest_sq - rest * rest
    with np.errstate(divide="ignore", invalid="ignore"):
        ss = np.where(scaled <= LOO_REL_TOL * k * rest_sq, 0.0, scaled / k)
        return np.where(n >= 2, ss, np.nan)


def loo_sd(n, total, total_sq, y) -> np.ndarray:
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n >= 3, np.sqrt(loo_ss(n, total, total_sq, y) / (n - 2)), np.nan)


def loo_z(n, total, total_sq, y) -> np.ndarray:
    """z of each human rating against the other ratings of its image (closed form)."""
    return zscore(y, loo_mean(n, total, y), loo_sd(n, total, total_sq, y))


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
