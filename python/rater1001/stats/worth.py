"""What a model is worth in human raters: k*, the number of human raters whose pooled answer is as
close to a held-out human consensus as the model's answer is (docs/stats.md, "What the model is
worth"). Ratings use the per-stimulus sample variance; labels use one-hot (or probability) vectors
with the variance summed over categories, which makes k* a Brier-type figure on the same scale."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .intervals import LEVEL, REPLICATES, SEED, replicate_sums


@dataclass(frozen=True)
class KStar:
    k_star: float  # inf when the model is closer than the panel's own mean can tell; nan if undefined
    lo: float  # bootstrap percentile interval over stimuli (nan without replicates)
    hi: float
    panel_variance: float  # mean_i s_i^2
    excess_distance: float  # mean_i (m_i - h_i)^2 - mean_i s_i^2 / n_i (the denominator)
    n_stimuli: int
    replicates: int
    seed: int
    level: float


def stimulus_terms_ratings(n, mean, ss, model) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-stimulus terms of k* for ratings.

    Parameters
    ----------
    n : array_like
        Human ratings of each stimulus (the panel size n_i).
    mean : array_like
        Human mean h_i.
    ss : array_like
        Sum of squared deviations of the human ratings from their mean.
    model : array_like
        The model's answer m_i.

    Returns
    -------
    tuple of numpy.ndarray
        (s_i^2 with the n_i - 1 divisor, n_i, (m_i - h_i)^2).

    Notes
    -----
    s_i^2 = ss_i / (n_i - 1). A stimulus needs n_i >= 2 (the caller keeps only those).

    References
    ----------
    docs/stats.md, "What the model is worth".

    Examples
    --------
    Ratings 1, 3 (mean 2, ss 2) and a model answer of 4:

    >>> [v.tolist() for v in stimulus_terms_ratings([2], [2.0], [2.0], [4.0])]
    [[2.0], [2.0], [4.0]]
    """
    n = np.asarray(n, dtype=float)
    return (
        np.asarray(ss, dtype=float) / (n - 1),
        n,
        (np.asarray(model, dtype=float) - np.asarray(mean, dtype=float)) ** 2,
    )


def stimulus_terms_labels(counts, model) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-stimulus terms of k* for labels (one-hot vectors).

    Parameters
    ----------
    counts : array_like, shape (stimuli, categories)
        How many of each stimulus's raters chose each category.
    model : array_like, shape (stimuli, categories)
        The model's answer as a one-hot row, or its probability vector.

    Returns
    -------
    tuple of numpy.ndarray
        (s_i^2 summed over categories, n_i, squared distance between the model's vector and the
        human label shares).

    Notes
    -----
    With shares p_ic = c_ic / n_i, the one-hot sample variance summed over categories is
    s_i^2 = n_i / (n_i - 1) * (1 - sum_c p_ic^2), and the distance is sum_c (m_ic - p_ic)^2 (the
    Brier score of the model against the shares).

    References
    ----------
    Brier (1950), *Monthly Weather Review* 78(1); docs/stats.md, "What the model is worth".

    Examples
    --------
    Two raters split between two labels, the model picks the first:

    >>> [v.tolist() for v in stimulus_terms_labels([[1, 1]], [[1, 0]])]
    [[1.0], [2.0], [0.5]]
    """
    counts = np.asarray(counts, dtype=float)
    n = counts.sum(axis=1)
    shares = counts / n[:, None]
    s2 = n / (n - 1) * (1 - (shares**2).sum(axis=1))
    return s2, n, ((np.asarray(model, dtype=float) - shares) ** 2).sum(axis=1)


def k_star_from_means(panel_variance: float, distance: float, variance_over_n: float) -> float:
    """k* from the three stimulus means.

    Parameters
    ----------
    panel_variance : float
        mean_i s_i^2.
    distance : float
        mean_i (m_i - h_i)^2.
    variance_over_n : float
        mean_i s_i^2 / n_i.

    Returns
    -------
    float
        panel_variance / (distance - variance_over_n); inf when that denominator is not positive
        (the model is closer than the panel's own mean can tell); 0 for unanimous panels the
        model misses.

    Notes
    -----
    From E (mean_A - mean_B)^2 = s^2 (1/k + 1/h) for disjoint random subsets A, B of sizes k, h
    and E (m - mean_B)^2 = (m - h)^2 + s^2 (1/h - 1/n), averaged over stimuli and set equal.

    References
    ----------
    docs/stats.md, "What the model is worth" (the derivation).

    Examples
    --------
    >>> k_star_from_means(2.0, 1.0, 0.2)
    2.5
    >>> k_star_from_means(2.0, 0.1, 0.2)
    inf
    """
    denominator = distance - variance_over_n
    if denominator <= 0:
        return float("inf")
    return float(panel_variance / denominator)


def k_star(
    s2,
    n,
    distance,
    replicates: int = REPLICATES,
    seed: int = SEED,
    level: float = LEVEL,
) -> KStar:
    """k*, the model's worth in human raters, with a bootstrap interval over stimuli.

    Parameters
    ----------
    s2 : array_like
        Per-stimulus panel variance s_i^2 (n_i - 1 divisor; summed over categories for labels).
    n : array_like
        Panel sizes n_i (>= 2).
    distance : array_like
        Per-stimulus squared distance of the model's answer from the human mean (or shares).
    replicates : int
        Bootstrap replicates (stimuli drawn with replacement; 0 for none).
    seed : int
    level : float

    Returns
    -------
    KStar

    Notes
    -----
    k* = mean_i s_i^2 / (mean_i (m_i - h_i)^2 - mean_i s_i^2 / n_i). The percentile interval is
    taken on 1/k* = denominator / numerator, which is finite and decreasing in k*, so an infinite
    k* in some replicates gives an infinite upper bound rather than a NaN.

    References
    ----------
    docs/stats.md, "What the model is worth"; Efron & Tibshirani (1993), ch. 13.

    Examples
    --------
    >>> r = k_star([2.0, 2.0], [2, 2], [1.5, 1.5], replicates=0)
    >>> r.k_star, r.n_stimuli
    (4.0, 2)
    """
    return k_stars([(s2, n, distance)], replicates, seed, level)[0]


def k_stars(panels, replicates: int = REPLICATES, seed: int = SEED, level: float = LEVEL) -> list[KStar]:
    """:func:`k_star` of many (s2, n, distance) triples, one bootstrap product per stimulus count.

    Parameters
    ----------
    panels : sequence of (array_like, array_like, array_like)
        (s2, n, distance) per k* wanted.
    replicates, seed, level
        As :func:`k_star`; triples with the same stimulus count share the draws (same seed).

    Returns
    -------
    list of KStar
        In the order of `panels`.

    Notes
    -----
    The replicate sums of every triple with the same count are one matrix product
    (:func:`rater1001.stats.intervals.replicate_sums`), the same numbers as one call each.

    References
    ----------
    Efron & Tibshirani (1993), ch. 13.

    Examples
    --------
    >>> [r.k_star for r in k_stars([([2.0], [2], [1.5]), ([2.0], [2], [0.5])], replicates=0)]
    [4.0, inf]
    """
    terms = [
        np.vstack([np.asarray(s2, float), np.asarray(d, float), np.asarray(s2, float) / np.asarray(n, float)])
        for s2, n, d in panels
    ]
    reciprocal: dict[int, np.ndarray] = {}
    if replicates:
        by_count: dict[int, list[int]] = {}
        for i, t in enumerate(terms):
            if t.shape[1]:
                by_count.setdefault(t.shape[1], []).append(i)
        for members in by_count.values():
            sums = replicate_sums(np.vstack([terms[i] for i in members]), replicates, seed)
            for j, i in enumerate(members):
                s = sums[:, 3 * j : 3 * j + 3]
                excess = s[:, 1] - s[:, 2]
                with np.errstate(divide="ignore", invalid="ignore"):
                    # 1 / k* (the counts cancel); unanimous panels: 0 raters (+inf) or beyond the panel
                    reciprocal[i] = np.where(s[:, 0] > 0, excess / s[:, 0], np.where(excess > 0, np.inf, -np.inf))
    out = []
    for i, t in enumerate(terms):
        count = t.shape[1]
        means = t.mean(axis=1) if count else np.full(3, np.nan)
        estimate = k_star_from_means(*means) if count else float("nan")
        lo = hi = float("nan")
        if i in reciprocal:
            # an order statistic, not an interpolation: infinite replicates stay infinite
            r_lo, r_hi = np.quantile(reciprocal[i], [(1 - level) / 2, (1 + level) / 2], method="inverted_cdf")
            lo = float("inf") if r_hi <= 0 else float(1 / r_hi)  # 1 / inf = 0 raters
            hi = float("inf") if r_lo <= 0 else float(1 / r_lo)
        out.append(
            KStar(estimate, lo, hi, float(means[0]), float(means[1] - means[2]), count, int(replicates), seed, level)
        )
    return out
