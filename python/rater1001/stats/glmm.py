"""Maximum-likelihood binomial-logit GLMM with one scalar random intercept per group, and the
likelihood-ratio test of a categorical fixed factor (paper 3.4.4: correct ~ audit_1 + (1 | gt_category)
against correct ~ 1 + (1 | gt_category)).

Model: y_i ~ Binomial(n_i, logistic(x_i' beta + sigma * b_g(i))), b_g ~ N(0, 1) independently.
Because the random effect of group g is one scalar, the marginal likelihood is a product of 1-D
integrals. By default each is integrated by Gauss-Legendre quadrature on the two sides of the
integrand's mode, out to where it has fallen by e^-40 (:func:`split_gauss_legendre_log_integrals`),
accurate also where Gauss-Hermite is not: a group always answered right with a large
random-intercept SD makes a skewed integrand, on which 25-node AGHQ was off by up to ~1e-3.
An explicit n_agq selects adaptive Gauss-Hermite quadrature (AGHQ) around the mode (lme4's
nAGQ); one node (n_agq=1) is exactly the Laplace approximation. The log-likelihood returned is
the true binomial log-likelihood including log C(n, k) (zero for 0/1 rows), i.e. what lme4's
logLik() prints for nAGQ=1; lme4's nAGQ > 1 logLik is the same minus the saturated model's
log-likelihood (see docs/demographics.md).

statsmodels' BinomialBayesMixedGLM is variational Bayes with no likelihood, so it cannot give a
likelihood-ratio test; this module exists for that reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import optimize, special

from .fits import central_gradient as _central_gradient
from .fits import optimiser_warnings_recorded_by_the_caller
from .glmm_quadrature import DEFAULT_N_AGQ, SPLIT_GL_NODES, marginal_loglik


@dataclass(frozen=True)
class BinomialData:
    """Aggregated binomial rows: successes k of trials n with design row x in group g."""

    X: np.ndarray  # (rows, p) fixed-effect design
    successes: np.ndarray  # (rows,)
    trials: np.ndarray  # (rows,)
    group: np.ndarray  # (rows,) integer codes 0..G-1
    n_groups: int
    log_binom_const: float  # sum of log C(n, k) over the observations as originally recorded

    @staticmethod
    def build(X, successes, trials, group, from_binary_rows: bool = False) -> BinomialData:
        """from_binary_rows: the counts aggregate 0/1 observations, whose likelihood has no
        binomial coefficient (log C(1, k) = 0), so none is added."""
        X = np.asarray(X, dtype=float)
        if X.ndim == 1:
            X = X[:, None]
        # copies: writable arrays whatever the input, one compiled signature of the likelihood's loops
        k = np.array(successes, dtype=float)
        n = np.array(trials, dtype=float)
        codes, _ = pd.factorize(np.asarray(group), sort=True)
        if not (len(X) == len(k) == len(n) == len(codes)):
            raise ValueError("X, successes, trials and group must have the same number of rows")
        if np.any(codes < 0):
            raise ValueError("group has missing values")
        bad = np.flatnonzero((k < 0) | (k > n) | (n < 0) | ~np.isfinite(k) | ~np.isfinite(n))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"row {i}: successes={k[i]} trials={n[i]} is not a valid binomial count")
        const = (
            0.0
            if from_binary_rows
            else float(np.sum(special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)))
        )
        return BinomialData(X, k, n, codes, int(codes.max()) + 1 if len(codes) else 0, const)


@dataclass(frozen=True)
class GlmmFit:
    beta: np.ndarray
    sigma: float  # random-intercept SD on the logit scale
    loglik: float
    n_agq: int | None  # None: mode-split Gauss-Legendre
    converged: bool
    message: str
    n_obs: float  # total trials
    n_groups: int
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def method(self) -> str:
        return estimation_method(self.n_agq)


def estimation_method(n_agq: int | None) -> str:
    """The estimation method's name, as the marts print it.

    Parameters
    ----------
    n_agq : int or None
        Gauss-Hermite nodes per group; None for the mode-split Gauss-Legendre integrator.

    Returns
    -------
    str

    Notes
    -----
    One node of adaptive Gauss-Hermite quadrature is exactly the Laplace approximation.

    References
    ----------
    Bates, Maechler, Bolker & Walker (2015), "Fitting linear mixed-effects models using lme4",
    Journal of Statistical Software 67(1) (nAGQ).

    Examples
    --------
    >>> estimation_method(1), estimation_method(25)
    ('ML, Laplace approximation (nAGQ=1)', 'ML, adaptive Gauss-Hermite quadrature (nAGQ=25)')
    >>> estimation_method(None)
    'ML, Gauss-Legendre quadrature split at the mode (2x48 nodes)'
    """
    if n_agq is None:
        return f"ML, Gauss-Legendre quadrature split at the mode (2x{SPLIT_GL_NODES} nodes)"
    if n_agq == 1:
        return "ML, Laplace approximation (nAGQ=1)"
    return f"ML, adaptive Gauss-Hermite quadrature (nAGQ={n_agq})"


def _start_values(data: BinomialData) -> np.ndarray:
    """Fixed effects from a ridge-damped logistic fit ignoring groups; sigma starts at 1."""
    X, k, n = data.X, data.successes, data.trials
    beta = np.zeros(X.shape[1])
    for _ in range(50):
        p = special.expit(X @ beta)
        W = n * p * (1 - p)
        H = X.T @ (X * W[:, None]) + 1e-6 * np.eye(X.shape[1])
        step = np.linalg.solve(H, X.T @ (k - n * p))
        beta = np.clip(beta + step, -20, 20)
        if np.max(np.abs(step)) < 1e-10:
            break
    return np.concatenate([beta, [1.0]])


def fit_glmm_binomial(data: BinomialData, n_agq: int | None = DEFAULT_N_AGQ, start=None) -> GlmmFit:
    """Maximum-likelihood fit of the binomial-logit GLMM with a random intercept per group.

    Parameters
    ----------
    data : BinomialData
    n_agq : int or None, default None
        None: mode-split Gauss-Legendre; an integer: Gauss-Hermite nodes per group (1: Laplace).
    start : array_like, optional
        Starting (beta, sigma).

    Returns
    -------
    GlmmFit
        beta, sigma (|sigma|), loglik, n_agq, converged (largest central-difference gradient
        below the tolerance), message, n_obs, n_groups, warnings.

    Raises
    ------
    ValueError
        n_agq < 1.

    Notes
    -----
    Maximises :func:`marginal_loglik` over (beta, sigma) by BFGS (Nelder-Mead rescue). sigma is
    optimised unconstrained because the likelihood is even in sigma, which keeps the boundary
    sigma = 0 (a singular fit) a smooth interior point.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4; Bates, Maechler, Bolker & Walker (2015), "Fitting linear mixed-effects models using lme4",
    Journal of Statistical Software 67(1) (nAGQ); docs/stats.md, "Iterative fits record convergence".

    Examples
    --------
    Two groups with the same 3 of 4: no group variance (sigma = 0) and beta = logit(3/4) = log 3:

    >>> import numpy as np
    >>> fit = fit_glmm_binomial(BinomialData.build(np.ones((2, 1)), [3, 3], [4, 4], ["g1", "g2"]))
    >>> round(float(fit.beta[0]), 6), round(float(np.log(3)), 6), round(fit.sigma, 6), fit.converged
    (1.098612, 1.098612, 0.0, True)
    """
    if n_agq is not None and n_agq < 1:
        raise ValueError("n_agq must be None or >= 1")
    theta0 = np.asarray(start, dtype=float) if start is not None else _start_values(data)

    cache: dict = {}

    def objective(theta):
        return -marginal_loglik(data, theta[:-1], theta[-1], n_agq, mode_cache=cache)

    # BFGS on finite-difference gradients reaches the optimum to ~1e-12 in log-likelihood on
    # these small smooth problems; Nelder-Mead rescues the rare start where it stalls.
    # Central ("3-point") differences: forward differences stalled with "precision loss" at a
    # gradient ~2e-4 on paper-scale data (categories that are always correct make a flat ridge in
    # (intercept, sigma)), and the Nelder-Mead rescue then took ~100 s per fit.
    with optimiser_warnings_recorded_by_the_caller():  # convergence is judged by the gradient below
        best = optimize.minimize(
            objective, theta0, method="BFGS", jac="3-point", options={"gtol": 1e-8, "maxiter": 2000}
        )
        grad = _central_gradient(objective, best.x)
        # The rescue runs Nelder-Mead 4,000 evaluations at a time, each followed by BFGS, until the
        # gradient is within tolerance (at most the 40,000 of one long run): on a flat ridge
        # (sigma ~ 5 at 10x the paper's study) the xatol of one long run was never met, so it used
        # all 40,000 (70 s) for a log-likelihood 4,000 and a BFGS pass also reached (to 5e-13).
        # A round that no longer moves the log-likelihood (by 1e-12 relative) ends the rescue: at
        # 100x the finite-difference gradient of a log-likelihood ~10^5 cannot reach 1e-4 at all.
        x = best.x
        for _ in range(10):
            if np.max(np.abs(grad)) <= 1e-4:
                break
            nm = optimize.minimize(
                objective, x, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12, "maxfev": 4000}
            )
            res = optimize.minimize(objective, nm.x, method="BFGS", jac="3-point", options={"gtol": 1e-8})
            stuck = res.fun > best.fun - 1e-12 * max(1.0, abs(best.fun))
            if res.fun <= best.fun:
                best = res
            grad = _central_gradient(objective, best.x)
            if stuck:
                break
            x = nm.x
    theta = best.x
    warnings = []
    if np.max(np.abs(theta[:-1])) > 15:
        warnings.append(
            "quasi-separation: a fixed-effect estimate diverges (some level is (almost) "
            "always or never correct); the log-likelihood is its supremum"
        )
    converged = bool(np.max(np.abs(grad)) < 1e-3 or warnings)
    return GlmmFit(
        beta=theta[:-1],
        sigma=abs(float(theta[-1])),
        loglik=-float(best.fun),
        n_agq=n_agq,
        converged=converged,
        message=str(best.message),
        n_obs=float(data.trials.sum()),
        n_groups=data.n_groups,
        warnings=tuple(warnings),
    )
