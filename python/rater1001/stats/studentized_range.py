"""The studentized range distribution's upper tail and upper quantile (Tukey HSD's p-values and
critical value), vectorised over the statistic.

scipy's ``studentized_range`` integrates the same double integral with adaptive ``nquad`` once
per value (~10 ms each, 15 per stratum of six cells, ~0.5 s per quantile by root search); here
the inner integral, the tail of the range of k standard normals, is tabulated once per k as
piecewise Chebyshev polynomials, and the outer one over the chi density is a fixed Gauss-Legendre
rule, so a stratum's 15 p-values cost one vectorised evaluation. Agreement with scipy is checked
in tests/python/test_stats_studentized_range.py: the difference is scipy's own integration error
(against the closed form of two means, 2e-14 at 234 df, 1e-12 at 2,394, 4e-11 at 50,000; this
module's below 1e-15).
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import optimize, special
from scipy import stats as sps

# P(range of k normals >= w) < 1e-18 beyond W_MAX for any k below ~10,000 (union bound over the
# pairs: k^2 Phi(-W_MAX / sqrt 2)); the s-integral stops where q s passes it.
W_MAX = 15.0
ASYMPTOTIC_DF = 100_000  # scipy's switch to the infinite-df form (Lund & Lund 1983)
_TAIL = 1e-18  # chi-density mass left out at each end of the s-range
_Z_EDGE = 9.5  # the normal density is below 1e-19 beyond it
_Z_PANELS, _S_NODES, _W_PANEL, _CHEB_DEGREE = 19, 12, 0.5, 20
_S_PANELS, _W_STEP = 16, 0.5  # s-panels: at least 16 over the chi density, at most 0.5 in w each


@functools.lru_cache(maxsize=4)
def _legendre_rule(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(nodes)


def _gauss_legendre(lo: float, hi: float, panels: int, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    x, w = _legendre_rule(nodes)
    edges = np.linspace(lo, hi, panels + 1)
    mid, half = (edges[1:] + edges[:-1]) / 2, (edges[1:] - edges[:-1]) / 2
    return (mid[:, None] + half[:, None] * x).ravel(), (half[:, None] * w).ravel()


def _range_tail_direct(w: np.ndarray, k: int) -> np.ndarray:
    """P(range >= w) = k int phi(z) [Phi(-z)^(k-1) - (Phi(z+w) - Phi(z))^(k-1)] dz, the difference
    of powers taken as a^m (1 - (1 - c/a)^m) with c = Phi(-z-w), so a small tail keeps its digits."""
    z, wz = _gauss_legendre(-_Z_EDGE, _Z_EDGE, _Z_PANELS, _S_NODES)
    m = k - 1
    a = special.ndtr(-z)
    c = special.ndtr(-(z + np.asarray(w, dtype=float)[..., None]))
    with np.errstate(divide="ignore"):  # c = a at w = 0: log1p(-1) = -inf, expm1 -> -1, exact
        f = -(a**m) * np.expm1(m * np.log1p(-c / a))
    return k * (f @ (wz * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)))


@functools.lru_cache(maxsize=16)
def _range_tail_table(k: int) -> np.ndarray:
    """Chebyshev coefficients (degree + 1, panels) of P(range >= w) on panels of [0, W_MAX]."""
    panels = int(round(W_MAX / _W_PANEL))
    t = np.cos(np.pi * (np.arange(_CHEB_DEGREE + 1) + 0.5) / (_CHEB_DEGREE + 1))  # first-kind nodes
    left = np.arange(panels) * _W_PANEL
    values = _range_tail_direct(left[:, None] + (t + 1) * _W_PANEL / 2, k)
    return np.polynomial.chebyshev.chebfit(t, values.T, _CHEB_DEGREE)


def range_tail(w, k: int) -> np.ndarray:
    """Upper tail of the range of k independent standard normals.

    Parameters
    ----------
    w : array_like
        Values of the range (at least 0).
    k : int
        How many normals (at least 2).

    Returns
    -------
    numpy.ndarray
        P(max - min >= w), 0 beyond W_MAX (where it is below 1e-18).

    Notes
    -----
    P(R >= w) = k int phi(z) [Phi(-z)^(k-1) - (Phi(z + w) - Phi(z))^(k-1)] dz, by Gauss-Legendre
    over z in [-9.5, 9.5], tabulated once per k as Chebyshev polynomials of degree 20 on panels of
    width 0.5; it is the studentized range's tail at infinite df.

    References
    ----------
    Lund & Lund (1983), "Algorithm AS 190: probabilities and upper quantiles for the studentized
    range", Applied Statistics 32(2), 204-210.

    Examples
    --------
    Two normals: the range is |Z1 - Z2|, so P(R >= w) = 2 Phi(-w / sqrt 2):

    >>> from scipy.stats import norm
    >>> round(float(range_tail([1.0], 2)[0]), 12), round(float(2 * norm.sf(1 / 2 ** 0.5)), 12)
    (0.479500122187, 0.479500122187)
    """
    w = np.asarray(w, dtype=float)
    coef = _range_tail_table(int(k))
    inside = (w >= 0) & (w < W_MAX)
    panel = np.clip(np.nan_to_num(w / _W_PANEL), 0, coef.shape[1] - 1).astype(int)
    t = 2 * (w - panel * _W_PANEL) / _W_PANEL - 1
    out = np.polynomial.chebyshev.chebval(t, coef[:, panel], tensor=False)
    return np.where(inside, np.clip(out, 0.0, 1.0), np.where(w < 0, 1.0, 0.0))


def sf(q, k: int, df: float) -> np.ndarray:
    """Upper tail of the studentized range distribution, P(Q >= q), for an array of q.

    Parameters
    ----------
    q : array_like
        Values of the statistic.
    k : int
        Number of means compared (at least 2).
    df : float
        Degrees of freedom of the variance estimate (above 0).

    Returns
    -------
    numpy.ndarray
        P(Q >= q): 1 at q <= 0, 0 at q = inf, NaN for a NaN q or invalid k or df.

    Notes
    -----
    P(Q >= q) = int g(s) P(R >= q s) ds with g the density of sqrt(chi^2_df / df) and R the
    range of k standard normals (:func:`range_tail`); by Gauss-Legendre over the s-range holding
    all but 1e-18 of g at each end, in panels at most 0.5 wide in q s, g normalised by the same
    rule's integral of it. From ``ASYMPTOTIC_DF`` on,
    P(R >= q), as scipy does. Agrees with ``scipy.stats.studentized_range.sf`` to scipy's own
    integration error (tests/python/test_stats_studentized_range.py).

    References
    ----------
    Lund & Lund (1983), "Algorithm AS 190", Applied Statistics 32(2), 204-210; Tukey (1949),
    Biometrics 5(2), 99-114.

    Examples
    --------
    >>> from scipy.stats import studentized_range
    >>> mine = sf([2.0, 4.0], 6, 30)
    >>> ref = studentized_range.sf([2.0, 4.0], 6, 30)
    >>> bool(abs(mine - ref).max() < 1e-12), round(float(mine[1]), 6)
    (True, 0.080057)
    """
    q = np.asarray(q, dtype=float)
    flat = q.ravel()
    out = np.full(flat.shape, np.nan)
    if not (k >= 2 and df > 0):
        return out.reshape(q.shape)
    out[flat <= 0] = 1.0
    out[flat == np.inf] = 0.0
    todo = np.flatnonzero((flat > 0) & np.isfinite(flat))
    if df >= ASYMPTOTIC_DF:
        out[todo] = range_tail(flat[todo], k)
        return out.reshape(q.shape)
    lo, hi = np.sqrt(sps.chi2.ppf(_TAIL, df) / df), np.sqrt(sps.chi2.isf(_TAIL, df) / df)
    s, ws = _gauss_legendre(lo, hi, _S_PANELS, _S_NODES)
    norm = float(ws @ _chi_kernel(s, df))
    for i in todo:
        up = hi if flat[i] * hi <= W_MAX else W_MAX / flat[i]
        if up <= lo:  # q s beyond W_MAX over the whole s-range
            out[i] = 0.0
            continue
        panels = int(np.ceil(max(_S_PANELS * (up - lo) / (hi - lo), flat[i] * (up - lo) / _W_STEP, 1.0)))
        s, ws = _gauss_legendre(lo, up, panels, _S_NODES)
        out[i] = min(max(float((_chi_kernel(s, df) * ws) @ range_tail(flat[i] * s, k)) / norm, 0.0), 1.0)
    return out.reshape(q.shape)


def _chi_kernel(s: np.ndarray, df: float) -> np.ndarray:
    """The density of sqrt(chi^2_df / df) up to its constant, s^(df-1) exp(-df s^2 / 2), divided by
    its value at the mode s0 and written around it, (df-1) log1p((s-s0)/s0) - df (s-s0)(s+s0) / 2:
    the two large terms of the log no longer cancel (at 785 df their 2e-13 error was the result's),
    and the constant is the rule's own integral of the kernel (``sf``)."""
    if df <= 1:
        return np.exp((df - 1) * np.log(s) - df * s * s / 2)
    mode = np.sqrt((df - 1) / df)
    return np.exp((df - 1) * np.log1p((s - mode) / mode) - df * (s - mode) * (s + mode) / 2)


@functools.lru_cache(maxsize=64)
def isf(alpha: float, k: int, df: float) -> float:
    """Upper quantile of the studentized range: q with P(Q >= q) = alpha (Tukey's critical value).

    Parameters
    ----------
    alpha : float
        Upper-tail probability, in (0, 1).
    k : int
        Number of means compared (at least 2).
    df : float
        Degrees of freedom (above 0).

    Returns
    -------
    float
        The quantile; NaN for invalid arguments.

    Notes
    -----
    Brent's root of :func:`sf` (q) - alpha to 1e-14 in q, as scipy's ``ppf`` roots its cdf;
    memoised, since a balanced design asks for the same (alpha, k, df) in every stratum.

    References
    ----------
    Lund & Lund (1983), "Algorithm AS 190", Applied Statistics 32(2), 204-210.

    Examples
    --------
    Tukey's 5 % critical value for six means on 30 df (tables: 4.30):

    >>> round(isf(0.05, 6, 30), 4)
    4.3015
    """
    if not (0 < alpha < 1 and k >= 2 and df > 0):
        return float("nan")
    upper = 8.0
    while sf(upper, k, df) > alpha:
        upper *= 2
    return float(optimize.brentq(lambda x: float(sf(x, k, df)) - alpha, 0.0, upper, xtol=1e-14))
