"""Prediction-powered inference (PPI++, power-tuned) from the model's answers on every stimulus and
human answers on a random subset, with the `ppi-python` package (docs/stats.md, "What the model is
worth"); the human budget curve: stats.ppi_budget."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

# ppi_py's import calls warnings.simplefilter("ignore") for the whole process; the filters are
# restored after it, so no other warning is silenced (the dbt build reports warnings it sees)
with warnings.catch_warnings():
    from ppi_py import classical_mean_ci, ppi_mean_ci

LEVEL = 0.90


@dataclass(frozen=True)
class MeanInterval:
    estimate: np.ndarray  # one value per coordinate of the estimand (a vector for label shares)
    lo: np.ndarray
    hi: np.ndarray
    n_labelled: int
    n_unlabelled: int


def ppi_mean(y, yhat, yhat_unlabelled, level: float = LEVEL) -> MeanInterval:
    """PPI++ estimate and interval of a (vector) mean.

    Parameters
    ----------
    y : array_like, shape (n,) or (n, d)
        Human answers on the human-rated stimuli.
    yhat : array_like
        The model's answers on the same stimuli.
    yhat_unlabelled : array_like
        The model's answers on the stimuli without human answers.
    level : float

    Returns
    -------
    MeanInterval

    Notes
    -----
    theta = lambda mean(yhat_unlabelled) + mean(y - lambda yhat), lambda = Cov(y, yhat) /
    ((1 + n / N) Var(yhat)) clipped to [0, 1], per coordinate (`ppi_py`, lam=None,
    lam_optim_mode 'element'); the interval is normal with the rectifier's and the imputed mean's
    variances added. A model constant on a coordinate gets lambda = 0 (the classical interval of
    the human-rated stimuli), the limit ppi_py's tuning reaches only by rounding.

    References
    ----------
    Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023), *Science* 382, 669-674;
    Angelopoulos, Duchi & Zrnic (2023), PPI++, arXiv:2311.01453.

    Examples
    --------
    Cov(y, yhat) = 2/3 (n divisor), Var of all seven model answers 14/3, so lambda =
    (2/3) / ((1 + 3/4) 14/3) = 4/49 and the estimate is (1 - 4/49) 2 + (4/49) 5.5 = 2.285714:

    >>> r = ppi_mean([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0])
    >>> round(float(r.estimate[0]), 6)
    2.285714
    """
    y, yhat, yhat_u = (np.asarray(v, dtype=float) for v in (y, yhat, yhat_unlabelled))
    both = np.concatenate([yhat.reshape(len(yhat), -1), yhat_u.reshape(len(yhat_u), -1)])
    if np.all(both.max(axis=0) > both.min(axis=0)):
        lo, hi = _ppi_ci(y, yhat, yhat_u, level, None)
    else:
        # ppi_py's tuning divides 0 by 0 for a model constant on a coordinate (a label it never
        # gives): there lambda = 0, the classical interval of the rated subset (the limit)
        y2, h2, u2 = (v.reshape(len(v), -1) for v in (y, yhat, yhat_u))
        bounds = [
            _ppi_ci(y2[:, c], h2[:, c], u2[:, c], level, None if both[:, c].max() > both[:, c].min() else 0.0)
            for c in range(y2.shape[1])
        ]
        lo, hi = (np.concatenate(b) for b in zip(*bounds, strict=True))
    # ppi_mean_ci centres its normal interval on ppi_mean_pointestimate at the same tuned lambda, so
    # the midpoint is that estimate (to rounding; tested against the closed form) at half the cost
    return MeanInterval((lo + hi) / 2, lo, hi, len(y), len(yhat_u))


def _ppi_ci(y, yhat, yhat_u, level: float, lam) -> tuple[np.ndarray, np.ndarray]:
    bounds = ppi_mean_ci(y, yhat, yhat_u, alpha=1 - level, lam=lam, lam_optim_mode="element")
    return tuple(np.atleast_1d(b).astype(float) for b in bounds)


def classical_mean(y, level: float = LEVEL) -> MeanInterval:
    """The all-human (classical, central limit) interval of a (vector) mean.

    Parameters
    ----------
    y : array_like, shape (n,) or (n, d)
    level : float

    Returns
    -------
    MeanInterval

    Notes
    -----
    mean +- z_{1 - (1 - level) / 2} sd / sqrt(n), sd with the n divisor (`ppi_py.classical_mean_ci`).

    References
    ----------
    Angelopoulos et al. (2023), *Science* 382, 669-674 (the classical baseline).

    Examples
    --------
    >>> r = classical_mean([1.0, 3.0])
    >>> round(float(r.hi[0] - r.lo[0]), 4)  # 2 * 1.6449 * 1 / sqrt(2)
    2.3262
    """
    y = np.asarray(y, dtype=float)
    columns = y.reshape(len(y), -1).T  # ppi_py's classical interval pools a matrix: one column at a time
    lo, hi = np.array([classical_mean_ci(c, alpha=1 - level) for c in columns], dtype=float).reshape(-1, 2).T
    return MeanInterval(np.atleast_1d(y.mean(axis=0)), lo, hi, len(y), 0)


def difference(a: MeanInterval, b: MeanInterval, level: float = LEVEL) -> MeanInterval:
    """The interval of a - b for two intervals of disjoint stimuli (a group gap).

    Parameters
    ----------
    a, b : MeanInterval
        Normal intervals of independent estimates (disjoint stimuli, at the same level).
    level : float

    Returns
    -------
    MeanInterval

    Notes
    -----
    se = (hi - lo) / (2 z); the difference's se is sqrt(se_a^2 + se_b^2).

    References
    ----------
    Angelopoulos et al. (2023), *Science* 382, 669-674 (normal PPI intervals).

    Examples
    --------
    >>> z = norm.ppf(0.95)
    >>> a = MeanInterval(np.array([1.0]), np.array([1 - 3 * z]), np.array([1 + 3 * z]), 10, 0)
    >>> b = MeanInterval(np.array([0.0]), np.array([-4 * z]), np.array([4 * z]), 10, 0)
    >>> r = difference(a, b)
    >>> round(float((r.hi[0] - r.lo[0]) / (2 * z)), 6)
    5.0
    """
    z = norm.ppf(1 - (1 - level) / 2)
    se = np.sqrt(((a.hi - a.lo) / (2 * z)) ** 2 + ((b.hi - b.lo) / (2 * z)) ** 2)
    est = a.estimate - b.estimate
    return MeanInterval(est, est - z * se, est + z * se, a.n_labelled + b.n_labelled, a.n_unlabelled + b.n_unlabelled)


def human_subset(n: int, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """A random human-rated subset: a boolean mask with ceil(fraction n) stimuli set.

    Parameters
    ----------
    n : int
    fraction : float
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of bool

    Notes
    -----
    Simple random sampling without replacement.

    References
    ----------
    Angelopoulos et al. (2023) (labelled data drawn at random).

    Examples
    --------
    >>> int(human_subset(20, 0.25, np.random.default_rng(0)).sum())
    5
    """
    mask = np.zeros(n, dtype=bool)
    mask[rng.permutation(n)[: int(np.ceil(fraction * n - 1e-9))]] = True
    return mask


def width_ratio(y, yhat, labelled, groups=None, level: float = LEVEL) -> float:
    """The PPI++ interval width relative to the all-human one, averaged over estimands.

    Parameters
    ----------
    y, yhat : array_like, shape (M,) or (M, d)
        Human and model answers on every stimulus.
    labelled : array_like of bool
        Which stimuli humans rated in this draw.
    groups : array_like, optional
        Each stimulus's estimand (e.g. its category level); one estimand when None.
    level : float

    Returns
    -------
    float
        Mean over estimands and coordinates of width(PPI++ on the subset) / width(classical on
        every stimulus); NaN when no estimand has two human-rated stimuli.

    Notes
    -----
    An estimand whose stimuli are all human-rated has the classical interval (ratio 1).

    References
    ----------
    Angelopoulos et al. (2023); docs/stats.md, "What the model is worth".

    Examples
    --------
    Every stimulus human-rated:

    >>> width_ratio([1.0, 2.0, 4.0], [1.0, 2.0, 3.0], [True, True, True])
    1.0
    """
    y, yhat = np.asarray(y, dtype=float), np.asarray(yhat, dtype=float)
    labelled = np.asarray(labelled, dtype=bool)
    groups = np.zeros(len(y), dtype=int) if groups is None else np.asarray(groups)
    ratios = []
    for g in np.unique(groups):
        part = groups == g
        lab, unl = part & labelled, part & ~labelled
        full = classical_mean(y[part], level)
        spread = full.hi > full.lo  # a coordinate every human answered alike has no width to compare
        if lab.sum() < 2 or not spread.any():
            continue
        if not unl.any():
            ratios.append(np.ones(int(spread.sum())))
            continue
        r = ppi_mean(y[lab], yhat[lab], yhat[unl], level)
        ratios.append(((r.hi - r.lo) / (full.hi - full.lo))[spread])
    return float(np.mean(np.concatenate(ratios))) if ratios else float("nan")
