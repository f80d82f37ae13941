"""Logistic regression slope of a binary outcome on one covariate (with optional adjustment), with
its Wald interval: the judge's length and style bias checks."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .fits import optimiser_warnings_recorded_by_the_caller


@dataclass(frozen=True)
class LogisticSlope:
    intercept: float
    slope: float
    slope_se: float
    p_value: float  # Wald test of the slope
    ci_low: float  # Wald 95% interval of the slope
    ci_high: float
    n: int
    converged: bool
    note: str | None  # why the estimates are NaN, else None


def logistic_slope(y: np.ndarray, x: np.ndarray, covariates: np.ndarray | None = None) -> LogisticSlope:
    """Slope of a logistic regression y ~ 1 + x (+ covariates), by maximum likelihood.

    Parameters
    ----------
    y : array_like
        Binary outcome (0 / 1).
    x : array_like
        The predictor whose slope is reported (the verbosity check: a length difference).
    covariates : array_like, optional
        Further columns of the design (one per column).

    Returns
    -------
    LogisticSlope
        intercept, slope, slope_se, p_value (Wald), ci_low, ci_high (95%), n, converged, note.
        NaN with the reason in ``note`` when y does not vary, x is constant, the design is
        singular, or Newton's method did not converge (typically (quasi-)separation).

    Notes
    -----
    logit P(y = 1) = b0 + b1 x (+ c' covariates); statsmodels ``Logit`` (Newton, 200 iterations).
    For a binary x alone the slope is the log odds ratio of the 2 x 2 table, with
    se = sqrt(1/a + 1/b + 1/c + 1/d).

    References
    ----------
    The lab log's pairwise judge study, "Bias 2" (verbosity); Agresti (2013), *Categorical Data
    Analysis*, 3rd ed., section 5.1; docs/judge.md.

    Examples
    --------
    x = 0: one success in three (odds 1/2); x = 1: two in three (odds 2): slope log 4, intercept
    log 1/2, se sqrt(1 + 1/2 + 1/2 + 1) = sqrt 3:

    >>> import numpy as np
    >>> r = logistic_slope(np.array([1, 0, 0, 1, 1, 0]), np.array([0, 0, 0, 1, 1, 1]))
    >>> round(r.slope, 6), round(r.intercept, 6), round(r.slope_se ** 2, 6)
    (1.386294, -0.693147, 3.0)
    """
    # Not statsmodels.api: it also imports the time-series, graphics and other model packages (~0.3 s
    # of CPU per process that fits nothing else from them).
    from statsmodels.discrete.discrete_model import Logit

    y = np.asarray(y, float)
    x = np.asarray(x, float)

    def nan(reason: str, converged: bool = False) -> LogisticSlope:
        return LogisticSlope(
            intercept=np.nan,
            slope=np.nan,
            slope_se=np.nan,
            p_value=np.nan,
            ci_low=np.nan,
            ci_high=np.nan,
            n=int(y.size),
            converged=converged,
            note=reason,
        )

    if y.size < 3 or np.unique(y).size < 2 or np.unique(x).size < 2:
        return nan("not estimated: fewer than 3 rows, or the outcome or the predictor does not vary")
    cols = [np.ones_like(x), x] + ([] if covariates is None else list(np.atleast_2d(np.asarray(covariates, float).T)))
    X = np.column_stack(cols)
    try:
        with optimiser_warnings_recorded_by_the_caller(), np.errstate(all="ignore"):
            fit = Logit(y, X).fit(disp=0, maxiter=200)
    except Exception as exc:  # noqa: BLE001 - perfect separation or a singular design: no estimate
        return nan(f"not estimated: {type(exc).__name__}: {exc}")
    if not fit.mle_retvals.get("converged", False):
        return nan(
            f"not estimated: the logistic fit did not converge in {fit.mle_retvals.get('iterations')} "
            "Newton iterations (the outcome is (almost) separated by the predictors)"
        )
    lo, hi = fit.conf_int()[1]
    return LogisticSlope(
        intercept=float(fit.params[0]),
        slope=float(fit.params[1]),
        slope_se=float(fit.bse[1]),
        p_value=float(fit.pvalues[1]),
        ci_low=float(lo),
        ci_high=float(hi),
        n=int(y.size),
        converged=True,
        note=None,
    )
