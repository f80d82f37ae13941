"""Krippendorff's alpha (paper section 3.4.3, Tables 4c/5c; docs/stats.md).

Two routes, one definition:

* interval alpha from per-unit sufficient statistics (count m_u, sum, sum of squares). With
  s_u^2 the sample variance inside unit u, n the number of pairable values and s_tot^2 the sample
  variance of all pairable values,

      alpha_interval = 1 - (sum_u m_u * s_u^2) / (n * s_tot^2)

  which is D_o / D_e of Krippendorff (2011) rewritten with sum_{i != j} (v_i - v_j)^2 = 2 m SS.
  Adding a rater who rated every unit only adds (1, x_u, x_u^2) to each unit, so delta alpha never
  rebuilds the rater x image matrix. macros/alpha_sufficient_statistics.sql is the SQL twin.

* any metric (nominal, ordinal, interval, ratio) from the unit x value count table, the input of
  the coincidence matrix; this delegates to the `krippendorff` package, which takes exactly that
  table (`value_counts`). The SQL twin is macros/alpha_coincidence.sql.

Units with fewer than two values are not pairable and are excluded from every count (as in
Krippendorff 2011); callers report how many units that dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

import krippendorff
import numpy as np
import pandas as pd

LEVELS = ("nominal", "ordinal", "interval", "ratio")


@dataclass(frozen=True)
class AlphaResult:
    alpha: float  # NaN when undefined (fewer than two pairable values, or no variation at all)
    n_units: int  # pairable units (m_u >= 2)
    n_values: int  # pairable values (sum of m_u over pairable units)
    reason: str | None = None  # why alpha is NaN, else None


def alpha_interval_from_sufficient(m, total, total_sq) -> AlphaResult:
    """Interval alpha from per-unit (count, sum, sum of squares) arrays of equal length.

    Parameters
    ----------
    m, total, total_sq : array_like
        Per unit, the number of values m_u, their sum and their sum of squares.

    Returns
    -------
    AlphaResult
        alpha (NaN with a reason when fewer than two pairable values or none varying), n_units
        and n_values of the pairable units (m_u >= 2).

    Notes
    -----
    alpha = 1 - sum_u m_u s_u^2 / (n s_tot^2) over pairable units, s_u^2 the unit's sample
    variance, n = sum m_u, s_tot^2 the sample variance of all pairable values: Krippendorff's
    1 - D_o / D_e for the interval metric with sum_{i != j} (v_i - v_j)^2 = 2 m SS. Shifted
    moments (values minus the grand mean) keep ~1e-12 precision even on a 1-9 scale with
    millions of values.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3
    (Tables 4c/5c); Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg School for
    Communication, University of Pennsylvania; docs/stats.md, "Krippendorff's alpha".

    Examples
    --------
    Units (1, 2) and (3, 4) and a unit with one value: sum m_u s_u^2 = 2 x 2 x 0.5 = 2,
    s_tot^2 = var(1, 2, 3, 4) = 5/3, so alpha = 1 - 2 / (4 x 5/3) = .7; the single value is not
    pairable:

    >>> alpha_interval_from_sufficient([2, 2, 1], [3, 7, 9], [5, 25, 81])
    AlphaResult(alpha=0.7, n_units=2, n_values=4, reason=None)
    """
    m = np.asarray(m, dtype=float)
    total = np.asarray(total, dtype=float)
    total_sq = np.asarray(total_sq, dtype=float)
    keep = m >= 2
    m, total, total_sq = m[keep], total[keep], total_sq[keep]
    n = m.sum()
    n_units = int(keep.sum())
    if n < 2:
        return AlphaResult(float("nan"), n_units, int(n), "fewer than two pairable values")
    within, centred_sum, centred_sq = unit_terms(m, total, total_sq, total.sum() / n)[1:]
    alpha = float(alpha_from_sums(n, within.sum(), centred_sum.sum(), centred_sq.sum()))
    if np.isnan(alpha):
        return AlphaResult(float("nan"), n_units, int(n), "no variation among pairable values")
    return AlphaResult(alpha, n_units, int(n))


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


def sufficient_statistics(ratings: pd.DataFrame, unit: str = "image_id", value: str = "rating") -> pd.DataFrame:
    """Per-unit sufficient statistics of interval alpha from a long frame.

    Parameters
    ----------
    ratings : pandas.DataFrame
        One row per rating.
    unit, value : str
        The unit column (default image_id) and the value column (default rating).

    Returns
    -------
    pandas.DataFrame
        Indexed by unit: m (non-missing values), total, total_sq. Missing values are ignored.

    Notes
    -----
    m_u = sum_i 1, total_u = sum_i v_i, total_sq_u = sum_i v_i^2 over the unit's non-missing
    values; macros/alpha_sufficient_statistics.sql (``alpha_unit_stats``) is the SQL twin.

    References
    ----------
    Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg School for
    Communication, University of Pennsylvania; docs/stats.md, "How the marts call the macros".

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"image_id": ["i1", "i1", "i2", "i2", "i2"], "rating": [1, 2, 3, 4, None]})
    >>> sufficient_statistics(r).to_dict("list")
    {'m': [2, 2], 'total': [3.0, 7.0], 'total_sq': [5.0, 25.0]}
    """
    r = ratings[[unit, value]].dropna()
    v = r[value].astype(float)
    g = r.assign(_sq=v * v, _v=v).groupby(unit, sort=True)
    return pd.DataFrame({"m": g["_v"].count(), "total": g["_v"].sum(), "total_sq": g["_sq"].sum()})


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


def extra_rater_term_sums(k: int, terms, sums, extra, centre: float):
    """The summed :func:`unit_terms` of pools of k values per unit after one more rater, from the
    pools' own terms: ``unit_terms(*with_extra_rater(...), centre)`` summed over the last axis,
    without rebuilding every unit's terms.

    Parameters
    ----------
    k : int
        Values per unit of the pool (the same for every unit, at least 2: every unit pairable).
    terms : tuple of numpy.ndarray
        The pool's per-unit :func:`unit_terms` with the same ``centre``, each shape (..., units).
    sums : tuple of numpy.ndarray
        The same terms summed over the last axis (computed once for several extra raters).
    extra : numpy.ndarray
        The extra rater's value per unit, same shape; NaN where it did not rate the unit.
    centre : float
        The centre of the terms.

    Returns
    -------
    tuple of numpy.ndarray
        Sums over the last axis of (m, m s_u^2, centred sum, centred sum of squares), ready for
        :func:`alpha_from_sums`.

    Notes
    -----
    A rated unit's centred sum gains d = x - centre and its centred square sum d^2, so both sums
    gain the sums of d and d^2 over the rated units; its m s_u^2 becomes
    (k + 1) max(S2 + d^2 - (S1 + d)^2 / (k + 1), 0) / k, which replaces the pool's term. About a
    third of the array passes of adding the rater and recomputing every unit's terms; equal to
    them up to rounding (tested).

    References
    ----------
    Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg School for
    Communication, University of Pennsylvania; docs/stats.md, "Resampling at scale".

    Examples
    --------
    Units (1, 2) and (3, 4) centred on 2.5, a rater answering 2 on the first only: the first unit
    becomes (1, 2, 2): m s^2 = 3 x (1/3) = 1, so the sums are m 5, within 1 + 1, centred sum
    -2 + (-0.5) + 2, centred squares 2.5 + 0.25 + 2.5:

    >>> import numpy as np
    >>> terms = unit_terms([2, 2], [3, 7], [5, 25], centre=2.5)
    >>> sums = [t.sum() for t in terms]
    >>> [round(float(t), 12) for t in extra_rater_term_sums(2, terms, sums, np.array([2.0, np.nan]), 2.5)]
    [5.0, 2.0, -0.5, 5.25]
    """
    if k < 2:
        raise ValueError(f"extra_rater_term_sums needs pools of at least 2 values per unit, got {k}")
    _, within, centred_sum, centred_sq = terms
    d = np.asarray(extra, dtype=float) - centre
    rated = ~np.isnan(d)
    every = bool(rated.all())
    if not every:
        d = np.where(rated, d, 0.0)
    d_sq = d * d
    new = centred_sum + d
    new *= new
    new /= -(k + 1)
    new += centred_sq
    new += d_sq
    np.maximum(new, 0.0, out=new)
    new *= (k + 1) / k
    new -= within
    if not every:
        new[~rated] = 0.0
    return (
        sums[0] + (rated.sum(axis=-1) if not every else d.shape[-1]),
        sums[1] + new.sum(axis=-1),
        sums[2] + d.sum(axis=-1),
        sums[3] + d_sq.sum(axis=-1),
    )


@dataclass(frozen=True)
class DeltaAlpha:
    without_extra: AlphaResult  # alpha of the pool
    with_extra: AlphaResult  # alpha of the pool plus the extra rater
    delta: float  # with_extra.alpha - without_extra.alpha


def delta_alpha(m, total, total_sq, extra) -> DeltaAlpha:
    """Delta alpha of one more rater: alpha of the pool with it minus alpha without it.

    Parameters
    ----------
    m, total, total_sq : array_like
        Per-unit sufficient statistics of the pool.
    extra : array_like
        The extra rater's (the model's) value per unit; NaN where it gave none.

    Returns
    -------
    DeltaAlpha
        without_extra (alpha of the pool), with_extra (alpha of the pool + the extra rater) and
        delta = with_extra.alpha - without_extra.alpha.

    Notes
    -----
    Delta alpha = alpha(humans + model) - alpha(humans), both interval alpha
    (:func:`alpha_interval_from_sufficient`, the extra rater added by :func:`with_extra_rater`).
    The one home of delta alpha: intervals, small pools and calibration call it.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3
    (Tables 4c/5c); docs/stats.md, "Krippendorff's alpha".

    Examples
    --------
    Units (1, 2) and (3, 4) (alpha .7) and a rater who answers each unit's mean, 1.5 and 3.5:
    sum m_u s_u^2 = 2 x 3 x 0.25 = 1.5, s_tot^2 of (1, 1.5, 2, 3, 3.5, 4) = 7 / 5, so alpha =
    1 - 1.5 / (6 x 1.4) = .821429:

    >>> r = delta_alpha([2, 2], [3, 7], [5, 25], [1.5, 3.5])
    >>> r.without_extra.alpha, round(r.with_extra.alpha, 6), round(r.delta, 6)
    (0.7, 0.821429, 0.121429)
    """
    base = alpha_interval_from_sufficient(m, total, total_sq)
    plus = alpha_interval_from_sufficient(*with_extra_rater(m, total, total_sq, extra))
    return DeltaAlpha(without_extra=base, with_extra=plus, delta=plus.alpha - base.alpha)


def value_count_matrix(
    ratings: pd.DataFrame, unit: str = "image_id", value: str = "rating", value_domain=None
) -> tuple[np.ndarray, np.ndarray]:
    """Unit x value count table, the input of the coincidence matrix.

    Parameters
    ----------
    ratings : pandas.DataFrame
        One row per rating.
    unit, value : str
        The unit and value columns.
    value_domain : sequence, optional
        The values in their order (the declared level order for labels); default the sorted
        values that occur.

    Returns
    -------
    tuple of (numpy.ndarray, numpy.ndarray)
        (counts, domain): rows are units (sorted), columns the domain in its order.

    Raises
    ------
    ValueError
        A value outside a given domain, naming the column and the value.

    Notes
    -----
    counts[u, c] = number of values c in unit u (the GROUP BY (unit, value) output);
    macros/alpha_coincidence.sql builds the same table in SQL.

    References
    ----------
    Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg School for
    Communication, University of Pennsylvania, section C (the values-by-units matrix).

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"image_id": ["i1", "i1", "i2", "i2"], "rating": ["low", "high", "mid", "mid"]})
    >>> counts, domain = value_count_matrix(r, value_domain=["low", "mid", "high"])
    >>> counts.tolist(), domain.tolist()
    ([[1.0, 0.0, 1.0], [0.0, 2.0, 0.0]], ['low', 'mid', 'high'])
    """
    r = ratings[[unit, value]].dropna()
    counts = r.groupby([unit, value]).size().unstack(fill_value=0)
    domain = np.sort(r[value].unique()) if value_domain is None else np.asarray(value_domain)
    unknown = sorted(set(counts.columns) - set(domain.tolist()), key=str)
    if unknown:
        raise ValueError(f"column {value!r}: value(s) {unknown} are not in the declared level order {domain.tolist()}")
    counts = counts.reindex(columns=domain, fill_value=0)
    return counts.to_numpy(dtype=float), domain


def _is_numeric(values) -> bool:
    return pd.api.types.is_numeric_dtype(pd.Series(values).infer_objects())


def alpha_from_value_counts(counts, value_domain, level: str = "interval") -> AlphaResult:
    """Alpha for any metric from a unit x value count table (the GROUP BY (unit, value) output).

    Parameters
    ----------
    counts : array_like, shape (units, values)
        Counts of each value in each unit.
    value_domain : array_like
        The values of the columns, in order.
    level : {"nominal", "ordinal", "interval", "ratio"}
        The metric.

    Returns
    -------
    AlphaResult
        alpha (NaN with a reason when fewer than two pairable values or one value only),
        n_units, n_values (pairable ones).

    Notes
    -----
    alpha = 1 - (n - 1) sum_{c,k} o_ck delta^2_ck / sum_{c,k} n_c n_k delta^2_ck, with the
    coincidences o_ck = sum_u (number of c-k pairs in u) / (m_u - 1) and the metric delta^2
    (nominal 0/1, ordinal from the marginal counts n_g between c and k, interval (c - k)^2, ratio
    ((c - k) / (c + k))^2). Ordinal ranks come from the domain's order, but values nobody used
    enter only through their (zero) marginals, exactly as Krippendorff (2011) does. The
    ``krippendorff`` package does the arithmetic.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3
    (Tables 4c/5c); Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg School for
    Communication, University of Pennsylvania; Castro, S. (2017), Fast Krippendorff (the ``krippendorff`` package).

    Examples
    --------
    Units (1, 2) and (3, 4) as counts over the domain 1-4 give the interval alpha .7 of
    :func:`alpha_interval_from_sufficient`'s example:

    >>> alpha_from_value_counts([[1, 1, 0, 0], [0, 0, 1, 1]], [1, 2, 3, 4], "interval").alpha
    0.7
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    counts = np.asarray(counts, dtype=float)
    m = counts.sum(axis=1)
    pairable = m >= 2
    n_units, n_values = int(pairable.sum()), int(m[pairable].sum())
    if n_values < 2:
        return AlphaResult(float("nan"), n_units, n_values, "fewer than two pairable values")
    marginals = counts[pairable].sum(axis=0)
    if (marginals > 0).sum() < 2:
        return AlphaResult(float("nan"), n_units, n_values, "no variation among pairable values")
    a = krippendorff.alpha(
        value_counts=counts[pairable], value_domain=np.asarray(value_domain), level_of_measurement=level
    )
    return AlphaResult(float(a), n_units, n_values)


def alpha(
    ratings: pd.DataFrame, level: str = "interval", unit: str = "image_id", value: str = "rating", order=None
) -> AlphaResult:
    """Krippendorff's alpha of a long (unit, value) frame, one row per rating.

    Parameters
    ----------
    ratings : pandas.DataFrame
        One row per rating; rater identity is not needed.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "interval"
        The metric.
    unit, value : str
        The unit column (default image_id) and the value column (default rating).
    order : sequence, optional
        The declared level order of text labels (``Study.levels(factor)``, i.e.
        seeds/factor_labels.csv display_order); needed for ordinal alpha on labels.

    Returns
    -------
    AlphaResult
        alpha, n_units, n_values (pairable ones) and the reason when alpha is undefined.

    Raises
    ------
    ValueError
        Ordinal alpha on labels without ``order``, a label outside it, or interval / ratio
        alpha on labels. Sorting labels alphabetically would silently give another statistic
        (.702 instead of .815 on Krippendorff's 2011 example with the values spelt as words).

    Notes
    -----
    Interval alpha goes through the sufficient statistics (:func:`alpha_interval_from_sufficient`),
    the other metrics through the count table (:func:`alpha_from_value_counts`); both are
    1 - D_o / D_e. Units with fewer than two values are not pairable and left out of every count.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.3
    (Tables 4c/5c); Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg School for
    Communication, University of Pennsylvania; docs/stats.md, "Krippendorff's alpha".

    Examples
    --------
    Krippendorff's (2011) worked example (4 observers x 12 units, missing values; unit 12 has
    one value and is not pairable), published as .849 interval, .743 nominal, .815 ordinal:

    >>> import pandas as pd
    >>> units = {1: [1, 1, 1], 2: [2, 2, 3, 2], 3: [3, 3, 3, 3], 4: [3, 3, 3, 3], 5: [2, 2, 2, 2],
    ...          6: [1, 2, 3, 4], 7: [4, 4, 4, 4], 8: [1, 1, 2, 1], 9: [2, 2, 2, 2], 10: [5, 5, 5],
    ...          11: [1, 1], 12: [3]}
    >>> ratings = pd.DataFrame([(u, v) for u, vs in units.items() for v in vs], columns=["image_id", "rating"])
    >>> [round(alpha(ratings, level).alpha, 3) for level in ("interval", "nominal", "ordinal")]
    [0.849, 0.743, 0.815]
    >>> alpha(ratings).n_units, alpha(ratings).n_values
    (11, 40)
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    present = ratings[value].dropna()
    if level != "nominal" and not _is_numeric(present):
        if level != "ordinal":
            raise ValueError(
                f"{level} alpha needs numeric values; column {value!r} holds labels such as {present.iloc[0]!r}"
            )
        if order is None:
            raise ValueError(
                f"ordinal alpha on the labels of column {value!r} needs their declared level order "
                "(display_order in seeds/factor_labels.csv); alphabetical order is not an order"
            )
        counts, _ = value_count_matrix(ratings, unit, value, value_domain=list(order))
        return alpha_from_value_counts(counts, np.arange(len(order)), level)
    if level == "interval":
        s = sufficient_statistics(ratings, unit, value)
        return alpha_interval_from_sufficient(s["m"], s["total"], s["total_sq"])
    counts, domain = value_count_matrix(ratings, unit, value, value_domain=order)
    return alpha_from_value_counts(counts, domain, level)
