"""Interval alpha as sums of per-unit terms (stats.alpha's formula split so that a resampled set of
units is a weighted sum: the bootstrap intervals and the small-pool draws), and the per-unit
sufficient statistics after one more rater (delta alpha's addition)."""

from __future__ import annotations

import numpy as np


def unit_terms(m, total, total_sq, centre: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per unit, the four additive terms of interval alpha.

    Parameters
    ----------
    m, total, total_sq : array_like
        Per unit count, sum and sum of squares; arrays of any shape (e.g. replicates x units).
    centre : float
        Any constant near the grand mean, subtracted for precision.

    Returns
    -------
    tuple of numpy.ndarray
        (m, m s_u^2, sum of (v - centre), sum of (v - centre)^2); units with m < 2 are not
        pairable and contribute zeros.

    Notes
    -----
    m s_u^2 = m (S2 - S1^2 / m) / (m - 1) with S1, S2 the centred sum and sum of squares. The
    terms add up: alpha of any weighted set of units (a bootstrap replicate, weights = how often
    each unit was drawn) is :func:`alpha_from_sums` of the weighted sums of the terms.

    References
    ----------
    Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg School for
    Communication, University of Pennsylvania; docs/stats.md, "Resampling at scale".

    Examples
    --------
    Units (1, 2) and (3, 4) centred on 2.5: sums -2 and 2, sums of squares 2.25 + 0.25 each:

    >>> [t.tolist() for t in unit_terms([2, 2], [3, 7], [5, 25], centre=2.5)]
    [[2.0, 2.0], [1.0, 1.0], [-2.0, 2.0], [2.5, 2.5]]
    """
    m, total, total_sq = (np.asarray(a, dtype=float) for a in (m, total, total_sq))
    centred_sum = total - m * centre
    centred_sq = total_sq - 2 * centre * total + m * centre**2
    with np.errstate(divide="ignore", invalid="ignore"):
        within = m * (np.maximum(centred_sq - centred_sum**2 / m, 0.0) / (m - 1))
    terms = (m, within, centred_sum, centred_sq)
    pairable = m >= 2
    return terms if pairable.all() else tuple(np.where(pairable, t, 0.0) for t in terms)


def alpha_from_sums(n, within, centred_sum, centred_sq):
    """Interval alpha from the summed :func:`unit_terms`.

    Parameters
    ----------
    n, within, centred_sum, centred_sq : array_like
        Sums over units of m, m s_u^2, the centred sum and the centred sum of squares (arrays
        broadcast: one alpha per replicate).

    Returns
    -------
    numpy.ndarray
        alpha; NaN with fewer than two pairable values or none varying (a total sum of squares
        within rounding of 0).

    Notes
    -----
    alpha = 1 - within / (n s_tot^2), s_tot^2 = (centred_sq - centred_sum^2 / n) / (n - 1).

    References
    ----------
    Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg School for
    Communication, University of Pennsylvania; docs/stats.md, "Krippendorff's alpha".

    Examples
    --------
    The sums of the two units of :func:`unit_terms`' example: 1 - 2 / (4 x 5/3):

    >>> float(alpha_from_sums(4, 2.0, 0.0, 5.0))
    0.7
    """
    n, within, centred_sum, centred_sq = (np.asarray(a, dtype=float) for a in (n, within, centred_sum, centred_sq))
    with np.errstate(divide="ignore", invalid="ignore"):
        ss_total = np.maximum(centred_sq - centred_sum**2 / n, 0.0)
        alpha = 1.0 - within / (n * (ss_total / (n - 1)))
    # The difference above cancels: values that are all equal but not equal to `centre` leave a
    # rounding residue of a few ulps of centred_sq instead of 0, and alpha of that residue is
    # noise (-0.5 was seen) where the exact answer is undefined. A total sum of squares within
    # _CANCELLATION ulps of centred_sq is read as no variation.
    varies = ss_total > _CANCELLATION * np.finfo(float).eps * centred_sq
    return np.where((n >= 2) & varies, alpha, np.nan)


# Rounding of centred_sq - centred_sum**2 / n is at most a few ulps of centred_sq; a genuine
# spread of rating-scale values is many orders of magnitude above this bound.
_CANCELLATION = 64


def with_extra_rater(m, total, total_sq, extra) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-unit sufficient statistics after one more rater.

    Parameters
    ----------
    m, total, total_sq : array_like
        Per-unit sufficient statistics of the pool (aligned arrays).
    extra : array_like
        The extra rater's value per unit; NaN where it did not rate the unit.

    Returns
    -------
    tuple of numpy.ndarray
        (m, total, total_sq) with the extra rater's values added.

    Notes
    -----
    Each rated unit gains (1, x_u, x_u^2), so "human + model" alpha never rebuilds the rater x
    image matrix; a missing answer adds nothing (the model skipped that unit).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3
    (Tables 4c/5c); docs/stats.md, "Krippendorff's alpha" ("Human + model").

    Examples
    --------
    >>> import numpy as np
    >>> [a.tolist() for a in with_extra_rater([2, 2], [3, 7], [5, 25], [2, np.nan])]
    [[3.0, 2.0], [5.0, 7.0], [9.0, 25.0]]
    """
    x = np.asarray(extra, dtype=float)
    has = ~np.isnan(x)
    xv = np.where(has, x, 0.0)
    return np.asarray(m, float) + has, np.asarray(total, float) + xv, np.asarray(total_sq, float) + xv**2
