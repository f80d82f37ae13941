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
never silently dropped and never given an infinite z. A missing model answer is different: it
counts against the model, as outside 1 SD in W1SD (w1sd_answered_only and n_missing beside).
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


@dataclass(frozen=True)
class ZSummary:
    mean_abs_z: float  # over rows with a defined z; NaN when there is none
    w1sd: float  # share within 1 SD; a missing model answer counts as outside (see w1sd_counting_missing)
    n_images: int  # rows with a defined z (images for a model; ratings for human LOO)
    n_zero_sd: int  # rows whose reference SD was 0 (or undefined), excluded from the two shares
    n_missing: int = 0  # model answers that are missing, counted against the model in w1sd
    w1sd_answered_only: float = float("nan")  # the share over answered images only, shown beside


def w1sd_counting_missing(w1sd_answered, n_scored, n_missing):
    """W1SD with every missing model answer counted as outside 1 SD (the tool's missing-answer
    policy): within / (scored + missing). 0 when every answer is missing; NaN when there is
    nothing at all. SQL twin: macro w1sd_counting_missing (macros/zscore_summary.sql)."""
    w, n, k = (np.asarray(a, dtype=float) for a in (w1sd_answered, n_scored, n_missing))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n + k > 0, np.where(n > 0, w, 0.0) * n / (n + k), np.nan)


def summarise(z, threshold: float = 1.0, n_missing: int = 0) -> ZSummary:
    """z of the answered rows (NaN = reference SD 0) and how many answers were missing."""
    z = np.asarray(z, dtype=float)
    ok = ~np.isnan(z)
    a = np.abs(z[ok])
    answered = float((a <= threshold).mean()) if ok.any() else float("nan")
    return ZSummary(float(a.mean()) if ok.any() else float("nan"),
                    float(w1sd_counting_missing(answered, ok.sum(), n_missing)),
                    int(ok.sum()), int((~ok).sum()), int(n_missing), answered)
