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

from .alpha_sums import alpha_from_sums, unit_terms, with_extra_rater

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
