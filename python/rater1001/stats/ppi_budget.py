"""The human budget curve of prediction-powered inference: how the PPI++ interval narrows as the
human-rated fraction of the stimuli grows, and the smallest fraction as precise as all of them
(docs/stats.md, "What the model is worth"). The intervals themselves: stats.prediction_powered."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from .prediction_powered import LEVEL

SEED = 42


REPEATS = 10


TOLERANCE = 0.10  # "as precisely as all of them": width within 10 % of the all-human width


FRACTIONS = tuple(round(0.05 * k, 2) for k in range(1, 21))


@dataclass(frozen=True)
class BudgetCurve:
    fractions: np.ndarray
    width_ratio: np.ndarray  # median over repeats
    repeats: int
    seed: int


def _sums(mask: np.ndarray, features: np.ndarray) -> np.ndarray:
    return mask.astype(float) @ features  # (draws, features)


def budget_curve(
    y, yhat, groups=None, fractions=FRACTIONS, repeats: int = REPEATS, seed: int = SEED, level: float = LEVEL
) -> BudgetCurve:
    """Interval width relative to the all-human one, per human-rated fraction.

    Parameters
    ----------
    y, yhat : array_like, shape (M,) or (M, d)
        Human and model answers on every stimulus.
    groups : array_like, optional
        Each stimulus's estimand (see :func:`width_ratio`).
    fractions : sequence of float
        Human-rated fractions (1.0 is the all-human interval itself, ratio 1).
    repeats : int
        Random subsets per fraction (the curve is their median).
    seed : int
    level : float

    Returns
    -------
    BudgetCurve

    Notes
    -----
    Repeat r draws one permutation of the stimuli (numpy default_rng(seed)) for every fraction
    and rates its first ceil(fraction M) stimuli.
    Each draw's ratio is :func:`width_ratio` (`ppi_py`'s PPI++ interval) computed for every draw
    at once from sums over the human-rated stimuli: lambda = clip(Cov_n(y, yhat) / ((1 + n/N)
    Var_{n-1}(yhat over the estimand)), 0, 1) and the width 2 z sqrt(lambda^2 Var_N(yhat_u) / N +
    Var_n(y - lambda yhat) / n); equal to :func:`width_ratio` to 1e-10 (tested).

    References
    ----------
    Angelopoulos, Duchi & Zrnic (2023), PPI++, arXiv:2311.01453; docs/stats.md.

    Examples
    --------
    >>> c = budget_curve([1.0, 2.0, 4.0, 3.0], [1.0, 2.0, 3.0, 3.0], fractions=(1.0,))
    >>> c.width_ratio.tolist()
    [1.0]
    """
    y, yhat = np.asarray(y, dtype=float), np.asarray(yhat, dtype=float)
    y, yhat = y.reshape(len(y), -1), yhat.reshape(len(yhat), -1)
    m, d = y.shape
    groups = np.zeros(m, dtype=int) if groups is None else np.asarray(groups)
    _, codes = np.unique(groups, return_inverse=True)
    n_groups = codes.max(initial=-1) + 1
    # a small unsigned code: NumPy's stable sort of it is a radix sort, linear in the stimuli
    codes = codes.astype(np.min_scalar_type(max(n_groups - 1, 0)))
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n_groups))])
    features = _features(y, yhat)
    answers = np.hstack([y, yhat])  # what a prefix sum gathers at random: 2d of the 1 + 5d features
    grouped = features[np.argsort(codes, kind="stable")]
    totals = [grouped[bounds[g] : bounds[g + 1]].sum(axis=0) for g in range(n_groups)]
    rng = np.random.default_rng(seed)
    takes = np.array([int(np.ceil(f * m - 1e-9)) for f in fractions])
    # draw r rates the first `take` stimuli of its permutation at every fraction: an estimand's sums
    # over its rated stimuli at every fraction are prefix sums over its stimuli in the permutation's
    # order (no product per fraction, no sort of positions)
    sums = [np.empty((len(fractions), repeats, features.shape[1])) for _ in range(n_groups)]
    for r in range(repeats):
        order = rng.permutation(m)  # the stimulus at each position
        # positions grouped by estimand, in position order within each
        positions = np.argsort(codes[order], kind="stable") if n_groups > 1 else np.arange(m)
        for g in range(n_groups):
            mine = positions[bounds[g] : bounds[g + 1]]
            sums[g][:, r, :] = _prefix_sums(answers, d, order[mine], np.searchsorted(mine, takes, side="left"))
    z = norm.ppf(1 - (1 - level) / 2)
    curve = []
    for j, take in enumerate(takes):
        if take >= m or not repeats:
            curve.append(1.0 if repeats else np.nan)
            continue
        ratios = [_ratios_from_sums(sums[g][j], totals[g], bounds[g + 1] - bounds[g], d, z) for g in range(n_groups)]
        curve.append(_nanmedian_of_means(np.concatenate(ratios, axis=1)))
    return BudgetCurve(np.asarray(fractions, dtype=float), np.asarray(curve, dtype=float), repeats, seed)


STEP_VALUES = 2**15  # features per step of a prefix sum (256 KB): a step stays in the CPU's cache


def _prefix_sums(answers: np.ndarray, d: int, order: np.ndarray, stops: np.ndarray, block: int = 0) -> np.ndarray:
    """Row j: the sum of :func:`_features` over answers[order[:stops[j]]] (stops ascending; answers
    y then yhat, d columns each), added one row at a time in `order` as np.cumsum adds them.
    In steps of `block` stimuli (default STEP_VALUES features), each step's features computed from
    its gathered answers: a large study's features (1 + 5d columns) gathered at random and summed
    whole leave the cache."""
    out = np.zeros((len(stops), 1 + 5 * d))
    block = block or max(1, STEP_VALUES // out.shape[1])
    running = None
    for start in range(0, int(stops.max(initial=0)), block):
        gathered = answers[order[start : start + block]]
        step = _features(gathered[:, :d], gathered[:, d:])
        if running is not None:
            step[0] += running
        np.cumsum(step, axis=0, out=step)
        inside = (stops > start) & (stops <= start + len(step))
        out[inside] = step[stops[inside] - start - 1]
        running = step[-1]
    return out


def _nanmedian_of_means(ratios: np.ndarray) -> float:
    """Median over draws of each draw's mean over estimands, NaN-aware and silent: a draw with no
    defined estimand is NaN (numpy warns about all-NaN slices; the NaN is the answer here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(np.nanmedian(np.nanmean(ratios, axis=1)))


def _features(y: np.ndarray, yhat: np.ndarray) -> np.ndarray:
    """Per stimulus: 1, y, y^2, yhat, yhat^2, y yhat (each d columns but the first)."""
    return np.hstack([np.ones((len(y), 1)), y, y * y, yhat, yhat * yhat, y * yhat])


def _draw_ratios(y: np.ndarray, yhat: np.ndarray, labelled: np.ndarray, z: float) -> np.ndarray:
    """(draws, coordinates) width ratios of one estimand; NaN where undefined (see width_ratio)."""
    features = _features(y, yhat)
    return _ratios_from_sums(_sums(labelled, features), features.sum(axis=0), len(y), y.shape[1], z)


def _ratios_from_sums(lab: np.ndarray, total: np.ndarray, m: int, d: int, z: float) -> np.ndarray:
    """Width ratios from the human-rated stimuli's sums of :func:`_features` (one row per draw)
    and the estimand's totals over its m stimuli."""
    n = lab[:, :1]
    big_n = m - n
    sy, syy, sh, shh, syh = (lab[:, 1 + k * d : 1 + (k + 1) * d] for k in range(5))
    ty, tyy, th, thh = (total[1 + k * d : 1 + (k + 1) * d] for k in range(4))
    uh, uhh = th - sh, thh - shh
    with np.errstate(all="ignore"):
        my, mh = sy / n, sh / n
        var_y, var_h, cov = syy / n - my**2, shh / n - mh**2, syh / n - my * mh
        var_all = (thh - th**2 / m) / (m - 1)
        # a constant model (no variance) gets lambda 0, the classical interval of the rated subset,
        # as ppi_py's tuning gives it
        lam = np.where(var_all > 0, np.clip(cov / ((1 + n / big_n) * var_all), 0, 1), 0.0)
        var_u = uhh / big_n - (uh / big_n) ** 2
        width = 2 * z * np.sqrt(lam**2 * var_u / big_n + (var_y + lam**2 * var_h - 2 * lam * cov) / n)
        full = 2 * z * np.sqrt((tyy / m - (ty / m) ** 2) / m)
        ratio = np.where(full > 0, width / full, np.nan)
    ratio[(n < 2).ravel()] = np.nan
    ratio[:, ~(full > 0)] = np.nan
    ratio[(big_n == 0).ravel()] = np.where(full > 0, 1.0, np.nan)
    return ratio


def budget_fraction(fractions, ratios, tolerance: float = TOLERANCE) -> float:
    """The smallest human-rated fraction whose width is within `tolerance` of the all-human width.

    Parameters
    ----------
    fractions, ratios : array_like
        A :class:`BudgetCurve`'s fractions and width ratios.
    tolerance : float

    Returns
    -------
    float
        NaN when no fraction qualifies.

    Notes
    -----
    ratio <= 1 + tolerance.

    References
    ----------
    docs/stats.md, "What the model is worth".

    Examples
    --------
    >>> budget_fraction([0.1, 0.5, 1.0], [1.8, 1.05, 1.0])
    0.5
    """
    fractions, ratios = np.asarray(fractions, dtype=float), np.asarray(ratios, dtype=float)
    ok = fractions[ratios <= 1 + tolerance]
    return float(ok.min()) if len(ok) else float("nan")
