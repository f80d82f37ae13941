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

import functools
import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.polynomial.hermite import hermgauss
from numpy.polynomial.legendre import leggauss
from scipy import optimize, special, stats

from .fits import central_gradient as _central_gradient
from .fits import optimiser_warnings_recorded_by_the_caller

# None: the mode-split Gauss-Legendre integrator (accurate); an integer: lme4's nAGQ.
DEFAULT_N_AGQ = None
SPLIT_GL_NODES = 48  # Gauss-Legendre nodes on each side of the mode
SPLIT_GL_DROP = 40.0  # each side ends where the log-integrand is this far below its maximum


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
        k = np.asarray(successes, dtype=float)
        n = np.asarray(trials, dtype=float)
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


def _row_loglik(eta: np.ndarray, k: np.ndarray, n: np.ndarray) -> np.ndarray:
    # k*eta - n*log(1+e^eta), stable for large |eta|
    return k * eta - n * np.logaddexp(0.0, eta)


def _group_sum(values: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Sum rows of a (rows,) or (rows, K) array within groups."""
    if values.ndim == 1:
        return np.bincount(group, weights=values, minlength=n_groups)
    out = np.zeros((n_groups, values.shape[1]))
    np.add.at(out, group, values)
    return out


def conditional_modes(
    data: BinomialData,
    beta: np.ndarray,
    sigma: float,
    tol: float = 1e-12,
    max_iter: int = 100,
    start: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Mode b_hat of each group's log-integrand h_g(b) and the curvature -h_g''(b_hat).

    Parameters
    ----------
    data : BinomialData
    beta : numpy.ndarray
        Fixed effects.
    sigma : float
        Random-intercept SD.
    tol : float, default 1e-12
        Newton step size at which to stop.
    max_iter : int, default 100
    start : numpy.ndarray, optional
        Starting modes (the previous ones: saves most iterations inside an optimiser).

    Returns
    -------
    tuple of numpy.ndarray
        (b_hat, -h''(b_hat)) per group.

    Notes
    -----
    h_g(b) = sum_i [k_i eta_i - n_i log(1 + e^eta_i)] - b^2/2 with eta_i = x_i' beta + sigma b
    is strictly concave (h'' = -1 - sigma^2 sum_i n_i p_i (1 - p_i) <= -1), so a damped Newton
    iteration converges from 0.

    References
    ----------
    Liu & Pierce (1994), "A note on Gauss-Hermite quadrature", Biometrika 81(3), 624-629; Bates, Maechler, Bolker & Walker (2015), "Fitting linear mixed-effects models using lme4",
    Journal of Statistical Software 67(1) (nAGQ).

    Examples
    --------
    One group, 2 of 4 at beta = 0: h'(0) = sigma (k - n/2) = 0, so the mode is 0, and the
    curvature is 1 + sigma^2 n / 4 = 2 at sigma = 1:

    >>> import numpy as np
    >>> data = BinomialData.build(np.ones((1, 1)), [2], [4], ["g"])
    >>> conditional_modes(data, np.array([0.0]), 1.0)
    (array([0.]), array([2.]))
    """
    offset = data.X @ beta
    G = data.n_groups
    b = np.zeros(G) if start is None else np.array(start, dtype=float)

    def h(bv):
        return (
            _group_sum(_row_loglik(offset + sigma * bv[data.group], data.successes, data.trials), data.group, G)
            - 0.5 * bv**2
        )

    hb = h(b)
    for _ in range(max_iter):
        p = special.expit(offset + sigma * b[data.group])
        grad = sigma * _group_sum(data.successes - data.trials * p, data.group, G) - b
        curv = sigma**2 * _group_sum(data.trials * p * (1 - p), data.group, G) + 1.0
        step = grad / curv
        new_b = b + step
        new_h = h(new_b)
        # Step-halving until h rises by a share of what the step promised (Armijo): with "not
        # lower" alone, a full step across a far mode can land as high on the other side, and
        # the iteration cycled between two points either side of the mode (a group 0 of 48 at
        # offset 6, sigma 0.5: mode -12, the cycle around -1.35 and -22.8).
        for _ in range(30):
            worse = new_h < hb + 1e-4 * step * grad - 1e-14 * (1 + np.abs(hb))
            if not worse.any():
                break
            step = np.where(worse, step / 2, step)
            new_b = b + step
            new_h = h(new_b)
        b, hb = new_b, new_h
        if np.max(np.abs(step), initial=0.0) < tol:
            break
    p = special.expit(offset + sigma * b[data.group])
    curv = sigma**2 * _group_sum(data.trials * p * (1 - p), data.group, G) + 1.0
    return b, curv


@functools.lru_cache(maxsize=8)
def _gauss_hermite(n_agq: int) -> tuple[np.ndarray, np.ndarray]:
    # nodes and weights are an eigenproblem; computed once per n_agq, not on every likelihood call
    return hermgauss(n_agq)


def logsumexp_rows(a: np.ndarray) -> np.ndarray:
    """Row-wise log(sum(exp(a))) of a 2-D float array, bit for bit scipy's.

    Parameters
    ----------
    a : numpy.ndarray
        2-D float array (quadrature nodes' log terms, one row per group).

    Returns
    -------
    numpy.ndarray
        One value per row: what ``scipy.special.logsumexp(a, axis=1)`` returns.

    Notes
    -----
    scipy 1.15+'s algorithm: with m the row maximum, log1p(sum over the non-maximal entries of
    exp(a - m) / count of maxima) + log(count of maxima) + m; the naive log-sum where that is not
    finite. Written out without scipy's array-API dispatch, which was half the cost of a
    likelihood evaluation on small studies; a hypothesis test checks bit equality with scipy.

    References
    ----------
    Blanchard, Higham & Higham (2021), "Accurately computing the log-sum-exp and softmax
    functions", IMA Journal of Numerical Analysis 41(4), 2311-2330; docs/demographics.md.

    Examples
    --------
    log(1 + 1) and log(e + e^2) = 2 + log(1 + 1/e):

    >>> import numpy as np
    >>> np.round(logsumexp_rows(np.array([[0.0, 0.0], [1.0, 2.0]])), 4).tolist()
    [0.6931, 2.3133]
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a_max = np.max(a, axis=1, keepdims=True)
        is_max = a == a_max
        s = np.sum(np.exp(np.where(is_max, -np.inf, a) - a_max), axis=1, keepdims=True)
        if np.count_nonzero(is_max) == len(a):
            # The likelihood's usual case, one maximum per row: m = 1, s / m = s, log(m) = 0 and
            # s >= 0, so the general expression below is log1p(s) + a_max, the same bits. (As many
            # maxima as rows with every result finite means one per row: a row without one has a
            # NaN maximum and a NaN result, and goes the general way, as do infinities.)
            out = np.log1p(s) + a_max
            if np.isfinite(out).all():
                return out[:, 0]
        m = np.sum(is_max.astype(a.dtype), axis=1, keepdims=True, dtype=a.dtype)
        s = np.where(s == 0, s, s / m)
        sign = np.sign(s + 1) * np.sign(m)
        s = np.where(s < -1, -s - 2, s)
        out = np.log1p(s) + np.log(np.abs(m)) + a_max
        out[sign < 0] = np.nan
        finite = np.isfinite(out)
        if not finite.all():
            out = np.where(finite, out, np.log(np.sum(np.exp(a), axis=1, keepdims=True)))
    return out[:, 0]


def _log_integrand(data: BinomialData, beta: np.ndarray, sigma: float, nodes: np.ndarray) -> np.ndarray:
    """h_g(b) = sum_i [k_i eta_i - n_i log(1 + e^eta_i)] - b^2/2 at nodes (G, K), one row per group."""
    eta = (data.X @ beta)[:, None] + sigma * nodes[data.group]
    return (
        _group_sum(_row_loglik(eta, data.successes[:, None], data.trials[:, None]), data.group, data.n_groups)
        - 0.5 * nodes**2
    )


@functools.lru_cache(maxsize=4)
def _gauss_legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    return leggauss(n)


def _side_ends(data: BinomialData, beta, sigma: float, b_hat: np.ndarray, h_max: np.ndarray, side: float, start=None):
    """Where each group's h falls to h_max - SPLIT_GL_DROP on one side of its mode.

    To within 0.5 in h. h'' <= -1 puts the point within sqrt(2 drop) of the mode; Newton's method from there moves
    monotonically inwards onto the root (a concave function lies below its tangents). A start
    (the previous call's ends, inside an optimiser) on the right side of the mode also converges:
    from inside the first step lands outside, and from there the iteration is monotone."""
    offset = data.X @ beta
    G = data.n_groups
    far = b_hat + side * np.sqrt(2.0 * SPLIT_GL_DROP)
    b = far if start is None else np.where(side * (start - b_hat) > 0, start, far)
    target = h_max - SPLIT_GL_DROP
    for _ in range(100):
        eta = offset + sigma * b[data.group]
        h = _group_sum(_row_loglik(eta, data.successes, data.trials), data.group, G) - 0.5 * b**2
        # The end need not be exact: beyond a fall of 39.5 the tail is below e^-39 of the peak.
        if np.all(np.abs(h - target) <= 0.5):
            break
        slope = sigma * _group_sum(data.successes - data.trials * special.expit(eta), data.group, G) - b
        b = b - (h - target) / slope
    return b


def split_gauss_legendre_log_integrals(
    data: BinomialData, beta, sigma: float, b_hat: np.ndarray, ends_cache: dict | None = None
) -> np.ndarray:
    """log int exp(h_g(b)) db per group, by Gauss-Legendre on each side of the mode.

    Parameters
    ----------
    data : BinomialData
    beta : numpy.ndarray
        The fixed effects.
    sigma : float
        The random-intercept SD, >= 0.
    b_hat : numpy.ndarray
        Each group's mode of h (:func:`conditional_modes`).
    ends_cache : dict, optional
        Mutable; carries each side's end between calls as Newton's starts.

    Returns
    -------
    numpy.ndarray
        One log-integral per group (without the 1/sqrt(2 pi) of the normal density).

    Notes
    -----
    Each side [lo, b_hat] and [b_hat, hi] of the mode gets SPLIT_GL_NODES Gauss-Legendre nodes,
    lo and hi being where h has fallen by SPLIT_GL_DROP (the tails beyond are below e^-40 of the
    peak). The two sides have their own widths, so a skewed integrand (a group always right with
    a large SD: a steep logistic cliff on one side, the N(0, 1) tail on the other) is resolved
    where Gauss-Hermite's single Gaussian scale is not. Against scipy.integrate.quad at rtol
    1e-13 the log-integral agrees within 1e-11 on groups always right at SDs 3.5-4.8 and within
    1e-10 on random groups at SDs up to 6 (tests/python/test_stats_glmm.py).

    References
    ----------
    Davis & Rabinowitz (1984), *Methods of Numerical Integration*, 2nd ed., Academic Press
    (Gauss-Legendre; composite rules); docs/stats.md.

    Examples
    --------
    At sigma = 0 the integrand is e^{-b^2/2} times the binomial likelihood at p = 1/2 (2 of 4):
    log(sqrt(2 pi) / 16):

    >>> import numpy as np
    >>> data = BinomialData.build(np.ones((1, 1)), [2], [4], ["g"], from_binary_rows=True)
    >>> v = split_gauss_legendre_log_integrals(data, np.array([0.0]), 0.0, np.array([0.0]))
    >>> bool(abs(v[0] - np.log(np.sqrt(2 * np.pi) / 16)) < 1e-13)
    True
    """
    beta = np.asarray(beta, dtype=float)
    h_max = _log_integrand(data, beta, sigma, b_hat[:, None])[:, 0]
    # (clipped at the mode: rounding must not turn a side of near-zero width inside out)
    cache = {} if ends_cache is None else ends_cache
    lo = np.minimum(_side_ends(data, beta, sigma, b_hat, h_max, -1.0, cache.get("lo")), b_hat)
    hi = np.maximum(_side_ends(data, beta, sigma, b_hat, h_max, 1.0, cache.get("hi")), b_hat)
    cache.update(lo=lo, hi=hi)
    x, w = _gauss_legendre(SPLIT_GL_NODES)
    left, right = (b_hat - lo)[:, None] / 2, (hi - b_hat)[:, None] / 2
    nodes = np.concatenate([b_hat[:, None] - left * (1 - x), b_hat[:, None] + right * (1 + x)], axis=1)
    with np.errstate(divide="ignore"):  # a side of zero width (sigma = 0 with no data) adds nothing
        log_w = np.concatenate([np.log(left) + np.log(w), np.log(right) + np.log(w)], axis=1)
    return logsumexp_rows(_log_integrand(data, beta, sigma, nodes) + log_w)


def marginal_loglik(
    data: BinomialData, beta, sigma: float, n_agq: int | None = DEFAULT_N_AGQ, mode_cache: dict | None = None
) -> float:
    """Log marginal likelihood by quadrature around each group's mode.

    Parameters
    ----------
    data : BinomialData
    beta : array_like
        Fixed effects.
    sigma : float
        Random-intercept SD (the likelihood is even in sigma).
    n_agq : int or None, default None
        None: Gauss-Legendre on each side of the mode
        (:func:`split_gauss_legendre_log_integrals`); an integer: that many adaptive
        Gauss-Hermite nodes per group (1: Laplace).
    mode_cache : dict, optional
        Mutable; carries the conditional modes (and the Gauss-Legendre ends) between calls as
        warm starts.

    Returns
    -------
    float
        The binomial log-likelihood including log C(n, k) of the rows as recorded.

    Notes
    -----
    L = prod_g int prod_i Binom(k_i | n_i, logistic(x_i' beta + sigma b)) phi(b) db. With
    n_agq = K each 1-D integral is K-node Gauss-Hermite around the mode b_hat_g
    (:func:`conditional_modes`) with scale sqrt(2 / -h''(b_hat_g)).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4; Liu & Pierce (1994), "A note on Gauss-Hermite quadrature", Biometrika 81(3), 624-629; Bates, Maechler, Bolker & Walker (2015), "Fitting linear mixed-effects models using lme4",
    Journal of Statistical Software 67(1) (nAGQ); docs/demographics.md.

    Examples
    --------
    At sigma = 0 the integral is the plain binomial likelihood: 2 of 4 at p = 1/2 is
    log(C(4, 2) / 2^4) = log(6 / 16):

    >>> import numpy as np
    >>> data = BinomialData.build(np.ones((1, 1)), [2], [4], ["g"])
    >>> round(marginal_loglik(data, [0.0], 0.0), 6), round(float(np.log(6 / 16)), 6)
    (-0.980829, -0.980829)
    """
    beta = np.asarray(beta, dtype=float)
    sigma = abs(float(sigma))  # b ~ N(0,1) is symmetric: the likelihood is even in sigma
    start = None if mode_cache is None else mode_cache.get("b")
    b_hat, curv = conditional_modes(data, beta, sigma, start=start)
    if mode_cache is not None:
        mode_cache["b"] = b_hat
    if n_agq is None:
        per_group = split_gauss_legendre_log_integrals(data, beta, sigma, b_hat, mode_cache) - 0.5 * np.log(2 * np.pi)
        return float(per_group.sum() + data.log_binom_const)
    z, w = _gauss_hermite(n_agq)
    scale = np.sqrt(2.0 / curv)  # b = b_hat + sqrt(2) * z / sqrt(-h'')
    nodes = b_hat[:, None] + scale[:, None] * z[None, :]  # (G, K)
    log_terms = _log_integrand(data, beta, sigma, nodes) + z[None, :] ** 2 + np.log(w)[None, :]
    per_group = logsumexp_rows(log_terms) + np.log(scale) - 0.5 * np.log(2 * np.pi)
    return float(per_group.sum() + data.log_binom_const)


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


def treatment_design(levels: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Intercept and treatment (dummy) coding of a categorical column.

    Parameters
    ----------
    levels : pandas.Series
        The factor (its name names the columns).

    Returns
    -------
    tuple of (numpy.ndarray, list of str)
        The design matrix and its column names; the first sorted level is the reference.

    Notes
    -----
    Column j > 0 is 1[level = l_j] for the sorted levels l_1 < l_2 < ... (R's contr.treatment).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4 (audit_1 and audit_2 against their first level).

    Examples
    --------
    >>> import pandas as pd
    >>> X, names = treatment_design(pd.Series(["b", "a", "b"], name="audit_1"))
    >>> X.tolist(), names
    ([[1.0, 1.0], [1.0, 0.0], [1.0, 1.0]], ['(Intercept)', 'audit_1[b]'])
    """
    cat = pd.Categorical(levels)
    cols = [np.ones(len(cat))]
    names = ["(Intercept)"]
    for lev in cat.categories[1:]:
        cols.append((cat == lev).astype(float))
        names.append(f"{levels.name}[{lev}]")
    return np.column_stack(cols), names


@dataclass(frozen=True)
class LikelihoodRatioTest:
    chi2: float | None
    df: int | None
    p_value: float | None
    random_intercept_sd: float | None  # of the model with the factor
    random_intercept_sd_null: float | None
    loglik_full: float | None
    loglik_null: float | None
    method: str
    n_obs: int
    n_groups: int
    n_levels: int
    coefficients: dict[str, float] | None
    reason: str | None  # why a statistic is NULL, or a caveat on a defined one

    def as_row(self) -> dict:
        """Flat record for a table; fixed effects (logit scale, treatment coding against the
        first sorted level) as JSON so the direction of a gap is visible next to its test."""
        row = {
            k: getattr(self, k)
            for k in (
                "chi2",
                "df",
                "p_value",
                "random_intercept_sd",
                "random_intercept_sd_null",
                "loglik_full",
                "loglik_null",
                "method",
                "n_obs",
                "n_groups",
                "n_levels",
                "reason",
            )
        }
        row["fixed_effects_json"] = (
            json.dumps(self.coefficients, sort_keys=True) if self.coefficients is not None else None
        )
        return row


def likelihood_ratio_test(
    frame: pd.DataFrame,
    factor: str,
    response: str = "correct",
    group: str = "category",
    n_agq: int | None = DEFAULT_N_AGQ,
    weight: str | None = None,
    name: str | None = None,
) -> LikelihoodRatioTest:
    """Likelihood-ratio test of `response ~ factor + (1 | group)` against
    `response ~ 1 + (1 | group)`.

    Parameters
    ----------
    frame : pandas.DataFrame
        One 0/1 (or bool) row per trial.
    factor : str
        The categorical fixed factor tested (audit_1, audit_2).
    response : str, default "correct"
    group : str, default "category"
        The random-intercept grouping.
    n_agq : int or None, default None
        None: mode-split Gauss-Legendre; an integer: Gauss-Hermite nodes (1: Laplace).
    weight : str, optional
        A column of how many trials a row stands for: one row per distinct (response, factor,
        group) instead of one per trial.
    name : str, optional
        The factor's name in the fixed effects' names (``name[level]``); default the column's.

    Returns
    -------
    LikelihoodRatioTest
        chi2, df, p_value, both random-intercept SDs and log-likelihoods, method, counts, the
        fixed effects, and a reason when a statistic is NULL (degenerate inputs) or has a caveat.

    Raises
    ------
    KeyError
        A column is missing.
    ValueError
        A response that is not 0/1, naming the row and the value.

    Notes
    -----
    chi2 = 2 (l_full - l_null) on df = rank(X_full) - rank(X_null), p = P(chi2_df > chi2); both
    fits by :func:`fit_glmm_binomial`. Rows are aggregated to binomial counts per (group, level)
    first, which changes nothing in the likelihood of 0/1 data.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4
    (correct ~ audit_1 + (1 | gt_category)); Bates, Maechler, Bolker & Walker (2015), "Fitting linear
    mixed-effects models using lme4", Journal of Statistical Software 67(1) (nAGQ);
    docs/demographics.md.

    Examples
    --------
    Two categories alike (no group variance), audit_1 A right 3 of 4 and B 1 of 4 in each: the test is
    the G-test of [[6, 2], [2, 6]], 2 (12 log 1.5 + 4 log 0.5) = 4.186 on 1 df:

    >>> import pandas as pd
    >>> rows = [(e, audit_1, int(i < k)) for e in ("e1", "e2") for audit_1, k in (("A", 3), ("B", 1)) for i in range(4)]
    >>> t = likelihood_ratio_test(pd.DataFrame(rows, columns=["category", "audit_1", "correct"]), "audit_1")
    >>> round(t.chi2, 4), t.df, round(t.p_value, 4)
    (4.186, 1, 0.0408)
    """
    method = estimation_method(n_agq)
    cols = [response, factor, group]
    missing_cols = [c for c in cols + ([weight] if weight else []) if c not in frame.columns]
    if missing_cols:
        raise KeyError(f"likelihood_ratio_test: input has no column(s) {missing_cols}")
    w_all = (pd.Series(1, index=frame.index) if weight is None else frame[weight]).astype(int)
    d = frame[cols]
    incomplete = d.isna().any(axis=1)
    n_missing = int(w_all[incomplete].sum())
    d, w = d[~incomplete], w_all[~incomplete]
    y = d[response].astype(float)
    if not y.isin([0.0, 1.0]).all():
        bad = d.index[~y.isin([0.0, 1.0])][0]
        raise ValueError(f"row {bad}: column {response!r} = {d.loc[bad, response]!r} is not 0/1")
    n_levels = int(d[factor].nunique())
    n_groups = int(d[group].nunique())
    base = dict(method=method, n_obs=int(w.sum()), n_groups=n_groups, n_levels=n_levels, coefficients=None)
    notes = [f"{n_missing} rows with a missing value left out"] if n_missing else []

    def null_result(reason):
        return LikelihoodRatioTest(None, None, None, None, None, None, None, reason="; ".join([reason] + notes), **base)

    if len(d) == 0:
        return null_result("no rows")
    if y.nunique() < 2:
        return null_result(
            f"{response} has no variance (all {'correct' if y.iloc[0] else 'wrong'}):"
            " the logit model has no finite maximum"
        )
    if n_levels < 2:
        return null_result(f"{name or factor} has a single level: nothing to test")

    agg = (
        d.assign(successes=y * w, trials=w)
        .groupby([group, factor], observed=True)[["successes", "trials"]]
        .sum()
        .reset_index()
    )
    X_full, names = treatment_design(agg[factor].rename(name or factor))
    X_null = X_full[:, :1]
    full = BinomialData.build(X_full, agg["successes"], agg["trials"], agg[group], from_binary_rows=True)
    null = BinomialData.build(X_null, agg["successes"], agg["trials"], agg[group], from_binary_rows=True)
    fit_null = fit_glmm_binomial(null, n_agq)
    fit_full = fit_glmm_binomial(full, n_agq)
    chi2 = max(0.0, 2.0 * (fit_full.loglik - fit_null.loglik))
    df = int(np.linalg.matrix_rank(X_full) - np.linalg.matrix_rank(X_null))
    notes += list(dict.fromkeys(fit_full.warnings + fit_null.warnings))
    if n_groups == 1:
        notes.append(
            "single group: the random intercept is not identifiable and its SD is 0, so "
            "this is the ordinary logistic-regression LR test"
        )
    if not (fit_full.converged and fit_null.converged):
        notes.append("optimizer did not reach a zero gradient")
    return LikelihoodRatioTest(
        chi2=chi2,
        df=df,
        p_value=float(stats.chi2.sf(chi2, df)),
        random_intercept_sd=fit_full.sigma,
        random_intercept_sd_null=fit_null.sigma,
        loglik_full=fit_full.loglik,
        loglik_null=fit_null.loglik,
        reason="; ".join(notes) or None,
        **{**base, "coefficients": dict(zip(names, map(float, fit_full.beta)))},
    )
