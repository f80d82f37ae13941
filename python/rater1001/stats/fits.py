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
    """Silence the optimisers' warnings while a fit that records its own convergence runs.

    Yields
    ------
    None
        Inside the block scipy's ``LineSearchWarning`` and statsmodels' ``ConvergenceWarning``
        are ignored; every other warning still shows.

    Notes
    -----
    The caller must decide convergence itself (optimiser status, :func:`central_gradient` below
    ``GRADIENT_TOLERANCE``) and report NULL with a reason when the fit did not converge.

    References
    ----------
    docs/stats.md, "Iterative fits record convergence".

    Examples
    --------
    >>> import warnings
    >>> from statsmodels.tools.sm_exceptions import ConvergenceWarning
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     with optimiser_warnings_recorded_by_the_caller():
    ...         warnings.warn("did not converge", ConvergenceWarning)
    ...         warnings.warn("anything else", UserWarning)
    >>> [str(w.message) for w in seen]
    ['anything else']
    """
    # scipy does not export LineSearchWarning publicly; BFGS's line search raises it.
    from scipy.optimize._linesearch import LineSearchWarning
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LineSearchWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def central_gradient(f, x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    """Central-difference gradient of a scalar function, for convergence checks.

    Parameters
    ----------
    f : callable
        Scalar function of a vector.
    x : array_like
        Point at which to differentiate.
    h : float, default 1e-5
        Step.

    Returns
    -------
    numpy.ndarray
        ``g_i = (f(x + h e_i) - f(x - h e_i)) / (2 h)``.

    Notes
    -----
    A forward difference is off by about curvature x h / 2, which on paper-scale data (curvature
    ~ n p (1 - p) ~ 10^2) exceeds the 1e-4 tolerance at the optimum; the central difference's
    error is O(h^2) (exact for a quadratic, up to rounding).

    References
    ----------
    Nocedal & Wright (2006), *Numerical Optimization*, 2nd ed., section 8.1; docs/stats.md,
    "Iterative fits record convergence".

    Examples
    --------
    The gradient of x1^2 + 3 x2 at (1, -2) is (2, 3):

    >>> np.round(central_gradient(lambda v: v[0] ** 2 + 3 * v[1], [1.0, -2.0]), 6)
    array([2., 3.])
    """
    x = np.asarray(x, dtype=float)
    grad = np.empty_like(x)
    for i in range(len(x)):
        step = np.zeros_like(x)
        step[i] = h
        grad[i] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


class FitDidNotConverge(RuntimeError):
    """An iterative fit stopped before its convergence criterion: no estimate is reported."""


def mixedlm_converged(fit, which: str):
    """mixedlm's own verdict on a fit, read here because warnings are silenced around the fits.

    Parameters
    ----------
    fit : mixedlm fit
        Anything with ``converged`` and ``message`` (attributes or methods).
    which : str
        The fit's name in the error ("REML", "full ML").

    Returns
    -------
    The fit, unchanged, when it converged.

    Raises
    ------
    FitDidNotConverge
        With the optimiser's message, when it did not.

    Notes
    -----
    Used by the rater / image variance components (`variance_components.py`).

    References
    ----------
    docs/stats.md, "Iterative fits record convergence".

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> mixedlm_converged(SimpleNamespace(converged=True, message=""), "REML").converged
    True
    >>> mixedlm_converged(SimpleNamespace(converged=False, message="ABNORMAL"), "REML")
    Traceback (most recent call last):
    ...
    rater1001.stats.fits.FitDidNotConverge: the REML fit did not converge (ABNORMAL)
    """
    ok = fit.converged() if callable(fit.converged) else fit.converged
    if not ok:
        message = fit.message() if callable(fit.message) else fit.message
        raise FitDidNotConverge(f"the {which} fit did not converge ({message})")
    return fit
