"""Compiled loops of the GLMM's marginal likelihood (stats.glmm_quadrature): h_g(b) = sum_i [k_i
eta_i - n_i log(1 + e^eta_i)] - b^2/2 at each group's point or grid of nodes, and the Newton
iterations of the conditional modes and of the quadrature's ends.

Each loop does numpy's floating-point operations in numpy's order, so its results are numpy's to
the last bit (the optimiser's path, and so the fit, depends on every bit): np.logaddexp(0, x) and
scipy's expit call the C library's exp and log1p, as these loops do; np.bincount adds each bin in
row order from 0; numba fuses no multiply-add without fastmath. tests/python/test_stats_glmm.py
checks each against the numpy expressions it replaces. What the loops save is numpy's cost per
call on arrays of a few dozen rows, thousands of calls per fit (docs/demographics.md).
"""

from __future__ import annotations

import math

import numpy as np
from numba.extending import register_jitable

from .signed_rank import _compiled

LOG_2 = 0.693147180559945309417232121458176568  # numpy's NPY_LOGE2: logaddexp(x, x) = x + log 2


@register_jitable  # compiled into its callers: no cache file of its own to load
def log1p_exp(x):  # pragma: no cover - compiled
    """log(1 + e^x) without overflow, by numpy's branches of np.logaddexp(0.0, x).

    Parameters
    ----------
    x : float

    Returns
    -------
    float
        np.logaddexp(0.0, x) to the last bit (NaN for NaN).

    Notes
    -----
    Compiled into the loops that call it (numba's register_jitable); callable from Python too.

    References
    ----------
    numpy's npy_logaddexp; docs/demographics.md.

    Examples
    --------
    >>> bool(log1p_exp(0.0) == np.logaddexp(0.0, 0.0)), log1p_exp(800.0)
    (True, 800.0)
    """
    if x == 0.0:
        return 0.0 + LOG_2
    tmp = 0.0 - x
    if tmp > 0:
        return 0.0 + math.log1p(math.exp(-tmp))
    if tmp <= 0:
        return x + math.log1p(math.exp(tmp))
    return tmp  # NaN


@register_jitable  # compiled into its callers: no cache file of its own to load
def expit(x):  # pragma: no cover - compiled
    """The logistic function by scipy.special.expit's formula, 1 / (1 + e^-x).

    Parameters
    ----------
    x : float

    Returns
    -------
    float

    Notes
    -----
    Compiled into the loops that call it (numba's register_jitable).

    References
    ----------
    scipy.special.expit; docs/demographics.md.

    Examples
    --------
    >>> expit(0.0)
    0.5
    """
    return 1.0 / (1.0 + math.exp(-x))


@register_jitable  # compiled into its callers: no cache file of its own to load
def _row_loglik(k, n, e):  # pragma: no cover - compiled
    """A row's term of h, k eta - n log(1 + e^eta): group_h's and nodes_h'."""
    return k * e - n * log1p_exp(e)


@register_jitable  # compiled into its callers: no cache file of its own to load
def group_h(offset, sigma, group, k, n, b, h, eta):  # pragma: no cover - compiled
    """h_g(b_g) of every group into h, and each row's eta = offset + sigma b_g into eta.

    Parameters
    ----------
    offset : numpy.ndarray of float, shape (rows,)
        X beta per row.
    sigma : float
        The random intercept's SD.
    group : numpy.ndarray of int, shape (rows,)
    k, n : numpy.ndarray of float, shape (rows,)
        Successes and trials per row.
    b : numpy.ndarray of float, shape (groups,)
        Each group's standardised random effect.
    h, eta : numpy.ndarray of float, shapes (groups,) and (rows,)
        Written in place.

    Returns
    -------
    None

    Notes
    -----
    h_g(b) = sum over g's rows of [k eta - n log(1 + e^eta)] - b^2 / 2, summed in row order as
    np.bincount does. Compiled into the loops that call it (numba's register_jitable).

    References
    ----------
    docs/demographics.md.

    Examples
    --------
    One group, one row with 1 success of 2 trials at eta 0: h = 0 - 2 log 2:

    >>> h, eta = np.zeros(1), np.zeros(1)
    >>> group_h(np.zeros(1), 1.0, np.zeros(1, dtype=np.int64), np.ones(1), np.full(1, 2.0), np.zeros(1), h, eta)
    >>> bool(h[0] == -2 * np.log(2))
    True
    """
    h[:] = 0.0
    for i in range(offset.size):
        e = offset[i] + sigma * b[group[i]]
        eta[i] = e
        h[group[i]] += _row_loglik(k[i], n[i], e)
    for g in range(h.size):
        h[g] = h[g] - 0.5 * (b[g] * b[g])


@_compiled
def nodes_h(offset, sigma, group, k, n, nodes):  # pragma: no cover - compiled
    """h_g at each of group g's nodes (a row of nodes, shape (groups, K))."""
    out = np.zeros(nodes.shape)
    for i in range(offset.size):
        g = group[i]
        for j in range(nodes.shape[1]):
            e = offset[i] + sigma * nodes[g, j]
            out[g, j] += _row_loglik(k[i], n[i], e)
    for g in range(nodes.shape[0]):
        for j in range(nodes.shape[1]):
            out[g, j] = out[g, j] - 0.5 * (nodes[g, j] * nodes[g, j])
    return out


@_compiled
def modes(offset, sigma, group, k, n, b, tol, max_iter):  # pragma: no cover - compiled
    """Damped Newton iterations from b (overwritten) to each group's mode of h; returns (b, h(b),
    eta at b). The step-halving and the stop are glmm_quadrature.conditional_modes' (its Notes)."""
    G, rows = b.size, offset.size
    hb, eta = np.empty(G), np.empty(rows)
    new_b, new_h, new_eta = np.empty(G), np.empty(G), np.empty(rows)
    grad, curv, step = np.empty(G), np.empty(G), np.empty(G)
    group_h(offset, sigma, group, k, n, b, hb, eta)
    sigma2 = sigma**2
    for _ in range(max_iter):
        grad[:] = 0.0
        curv[:] = 0.0
        for i in range(rows):
            p = expit(eta[i])
            grad[group[i]] += k[i] - n[i] * p
            curv[group[i]] += n[i] * p * (1 - p)
        for g in range(G):
            grad[g] = sigma * grad[g] - b[g]
            curv[g] = sigma2 * curv[g] + 1.0
            step[g] = grad[g] / curv[g]
            new_b[g] = b[g] + step[g]
        group_h(offset, sigma, group, k, n, new_b, new_h, new_eta)
        # Step-halving until h rises by a share of what the step promised (Armijo): with "not
        # lower" alone, a full step across a far mode can land as high on the other side, and
        # the iteration cycled between two points either side of the mode (a group 0 of 48 at
        # offset 6, sigma 0.5: mode -12, the cycle around -1.35 and -22.8).
        for _ in range(30):
            worse = False
            for g in range(G):
                if new_h[g] < hb[g] + 1e-4 * step[g] * grad[g] - 1e-14 * (1 + abs(hb[g])):
                    worse = True
                    step[g] = step[g] / 2
                    new_b[g] = b[g] + step[g]
            if not worse:
                break
            group_h(offset, sigma, group, k, n, new_b, new_h, new_eta)
        b[:] = new_b
        hb[:] = new_h
        eta[:] = new_eta
        largest = 0.0  # np.abs(step).max(initial=0.0), NaN included
        for g in range(G):
            a = abs(step[g])
            if a != a or a > largest:
                largest = a
                if a != a:
                    break
        if largest < tol:
            break
    return b, hb, eta


@_compiled
def side_ends(offset, sigma, group, k, n, b_hat, h_max, side, start, has_start, drop):  # pragma: no cover
    """glmm_quadrature._side_ends' Newton iterations (its docstring); start is read when has_start."""
    G = b_hat.size
    reach = side * np.sqrt(2.0 * drop)
    b, h, slope, eta = np.empty(G), np.empty(G), np.empty(G), np.empty(offset.size)
    for g in range(G):
        far = b_hat[g] + reach
        b[g] = start[g] if has_start and side * (start[g] - b_hat[g]) > 0 else far
    for _ in range(100):
        group_h(offset, sigma, group, k, n, b, h, eta)
        # The end need not be exact: beyond a fall of drop - 0.5 the tail is below e^-(drop - 1) of the peak.
        done = True
        for g in range(G):
            if not abs(h[g] - (h_max[g] - drop)) <= 0.5:
                done = False
        if done:
            break
        slope[:] = 0.0
        for i in range(offset.size):
            slope[group[i]] += k[i] - n[i] * expit(eta[i])
        for g in range(G):
            b[g] = b[g] - (h[g] - (h_max[g] - drop)) / (sigma * slope[g] - b[g])
    return b
