"""Answers on a bounded answer grid drawn from a rounded, clipped latent value.

Raters and models answer whole numbers on [lo, hi]; rounding and clipping move the mean away from
the latent location (a latent 9.0 +- 0.3 clips to a mean below 9). To plant a *mean answer* (an
emotion centroid, a Bland-Altman bias) exactly, we solve for the latent location whose expected
discretised answer equals the target. The expectation is exact: a sum of normal bin probabilities.

The latent value is loc + shift + sd * Z, Z ~ N(0, 1), with `shift` drawn with equal weight from
`shifts` (default: 0). models.py uses the shifts for the two points of a stereotyped answerer and
for race/gender cell effects.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy import optimize
from scipy.special import ndtr


def discretise(latent: np.ndarray, lo: float, hi: float, step: float = 1.0) -> np.ndarray:
    """Round latent values to the answer grid and clip to the scale."""
    return np.clip(np.round((np.asarray(latent) - lo) / step) * step + lo, lo, hi)


def discretised_moments(
    loc: float, sd: float, lo: float, hi: float, step: float = 1.0, shifts=None
) -> tuple[float, float]:
    """E[A] and E[A^2] for A = discretise(loc + shift + sd * Z), shift uniform over `shifts`."""
    centres = loc + (np.zeros(1) if shifts is None else np.ravel(np.asarray(shifts, dtype=float)))
    if sd <= 1e-12:
        a = discretise(centres, lo, hi, step)
        return float(a.mean()), float((a**2).mean())
    values = np.arange(lo, hi + step / 2, step)
    cdf = ndtr((((values[:-1] + values[1:]) / 2)[None, :] - centres[:, None]) / sd)
    probs = np.diff(np.concatenate([np.zeros((len(centres), 1)), cdf, np.ones((len(centres), 1))], axis=1), axis=1)
    return float((probs @ values).mean()), float((probs @ values**2).mean())


def discretised_mean(loc: float, sd: float, lo: float, hi: float, step: float = 1.0, shifts=None) -> float:
    """E[discretise(loc + shift + sd * Z)], shift uniform over `shifts`."""
    return discretised_moments(loc, sd, lo, hi, step, shifts)[0]


def solve_location(target: float, sd: float, lo: float, hi: float, step: float = 1.0, shifts=None) -> float:
    """Latent location whose expected discretised answer is `target` (clamped into the reachable
    range; with sd = 0 the mean is a step function and the nearest reachable value is hit)."""
    # Every study simulated from the same profiles solves the same few hundred roots: each is
    # kept (a pure function of its arguments; the shifts only count as a flat sequence).
    flat = None if shifts is None else tuple(np.ravel(np.asarray(shifts, dtype=float)).tolist())
    return _solve_location(target, sd, lo, hi, step, flat)


@lru_cache(maxsize=65536, typed=True)
def _solve_location(target: float, sd: float, lo: float, hi: float, step: float, flat: tuple | None) -> float:
    shifts = None if flat is None else np.array(flat)
    reach = 0.0 if shifts is None else float(np.max(np.abs(shifts)))
    span = 12 * sd + reach + (hi - lo) + 1
    a, b = lo - span, hi + span
    f = lambda loc: discretised_mean(loc, sd, lo, hi, step, shifts) - target  # noqa: E731
    if f(a) >= 0:
        return a
    if f(b) <= 0:
        return b
    return float(optimize.brentq(f, a, b, xtol=1e-10))
