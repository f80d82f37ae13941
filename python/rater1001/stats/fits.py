"""Iterative fits record whether they converged instead of warning.

An optimiser's warning (scipy's LineSearchWarning, statsmodels' ConvergenceWarning) reaches the
user's terminal with no row or table to tie it to, and says nothing about whether the estimate is
usable. Each fit in rater1001.stats therefore silences them while it runs and decides convergence
itself (optimiser status plus the gradient at the estimate), returning NULL with a reason when the
fit did not converge.
"""
from __future__ import annotations

import warnings
from contextlib import contextmanager

import numpy as np

# A likelihood's gradient at an accepted optimum: BFGS often stops with "precision loss" where the
# finite-difference gradient is ~1e-6, i.e. at the optimum; a fit that truly stalled is far above.
GRADIENT_TOLERANCE = 1e-4


@contextmanager
def optimiser_warnings_recorded_by_the_caller():
    # scipy does not export LineSearchWarning publicly; BFGS's line search raises it.
    from scipy.optimize._linesearch import LineSearchWarning
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LineSearchWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def central_gradient(f, x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    """Central-difference gradient for convergence checks. A forward difference with step h
    is off by about curvature * h / 2, which on paper-scale data (curvature ~ n p (1 - p) ~ 10^2)
    exceeds the 1e-4 tolerance at the optimum; the central difference's error is O(h^2)."""
    x = np.asarray(x, dtype=float)
    grad = np.empty_like(x)
    for i in range(len(x)):
        step = np.zeros_like(x)
        step[i] = h
        grad[i] = (f(x + step) - f(x - step)) / (2 * h)
    return grad
