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

    Uses shifted moments (values minus the grand mean of pairable values) so the closed form keeps
    ~1e-12 precision even on a 1-9 scale with millions of values.
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
    """Per unit, the four additive terms of interval alpha: pairable count m, m * s_u^2 (m times
    the unit's sample variance), and the sum and sum of squares of its values centred on `centre`
    (any constant near the grand mean, for precision). Units with m < 2 are not pairable and
    contribute zeros. Alpha of any weighted set of units (a bootstrap replicate: weights = how
    often each unit was drawn) is alpha_from_sums of the weighted sums of the terms. Arrays of
    any shape (e.g. replicates x units)."""
    m, total, total_sq = (np.asarray(a, dtype=float) for a in (m, total, total_sq))
    centred_sum = total - m * centre
    centred_sq = total_sq - 2 * centre * total + m * centre**2
    with np.errstate(divide="ignore", invalid="ignore"):
        within = m * (np.maximum(centred_sq - centred_sum**2 / m, 0.0) / (m - 1))
    terms = (m, within, centred_sum, centred_sq)
    pairable = m >= 2
    return terms if pairable.all() else tuple(np.where(pairable, t, 0.0) for t in terms)


def alpha_from_sums(n, within, centred_sum, centred_sq):
    """Interval alpha = 1 - sum_u m_u s_u^2 / (n s_tot^2) from the summed unit_terms (arrays
    broadcast: one alpha per replicate). NaN with fewer than two pairable values or none varying."""
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
    """Per unit: m (non-missing values), total, total_sq. Missing values are ignored."""
    r = ratings[[unit, value]].dropna()
    v = r[value].astype(float)
    g = r.assign(_sq=v * v, _v=v).groupby(unit, sort=True)
    return pd.DataFrame({"m": g["_v"].count(), "total": g["_v"].sum(), "total_sq": g["_sq"].sum()})


def with_extra_rater(m, total, total_sq, extra) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-unit sufficient statistics (aligned arrays) after one more rater whose value for unit u
    is extra[u] (NaN = did not rate u): each rated unit gains (1, x, x^2)."""
    x = np.asarray(extra, dtype=float)
    has = ~np.isnan(x)
    xv = np.where(has, x, 0.0)
    return np.asarray(m, float) + has, np.asarray(total, float) + xv, np.asarray(total_sq, float) + xv**2


def delta_alpha(m, total, total_sq, extra) -> tuple[AlphaResult, AlphaResult, float]:
    """The one home of delta alpha: (alpha of the pool, alpha of the pool + one extra rater,
    delta = with - without) from aligned per-unit arrays and the extra rater's value per unit."""
    base = alpha_interval_from_sufficient(m, total, total_sq)
    plus = alpha_interval_from_sufficient(*with_extra_rater(m, total, total_sq, extra))
    return base, plus, plus.alpha - base.alpha


def value_count_matrix(ratings: pd.DataFrame, unit: str = "image_id", value: str = "rating",
                       value_domain=None) -> tuple[np.ndarray, np.ndarray]:
    """Unit x value count table (rows: units, columns: the value domain in its given order, or the
    sorted values that occur). A value outside a given domain is an error naming it."""
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

    Ordinal alpha uses the ranks implied by the value domain *including values nobody used*
    only through their marginal counts, exactly as Krippendorff (2011) does, so pass the domain of
    values that occur (or the full scale; unused values have zero marginals and change nothing).
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
    a = krippendorff.alpha(value_counts=counts[pairable], value_domain=np.asarray(value_domain),
                           level_of_measurement=level)
    return AlphaResult(float(a), n_units, n_values)


def alpha(ratings: pd.DataFrame, level: str = "interval", unit: str = "image_id",
          value: str = "rating", order=None) -> AlphaResult:
    """Alpha of a long (unit, value) frame, one row per rating; rater identity is not needed.

    Labels (text values) have no order of their own: ordinal alpha on them needs `order`, the
    declared level order (Study.levels(factor), i.e. seeds/factor_labels.csv display_order), and
    is computed on the labels' ranks in it; without it, or on a label outside it, this raises.
    Sorting the labels alphabetically would silently give another statistic (.702 instead of
    Krippendorff's .815 on his 2011 example with the values spelt as words)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    present = ratings[value].dropna()
    if level != "nominal" and not _is_numeric(present):
        if level != "ordinal":
            raise ValueError(f"{level} alpha needs numeric values; column {value!r} holds labels such as "
                             f"{present.iloc[0]!r}")
        if order is None:
            raise ValueError(f"ordinal alpha on the labels of column {value!r} needs their declared level order "
                             "(display_order in seeds/factor_labels.csv); alphabetical order is not an order")
        counts, _ = value_count_matrix(ratings, unit, value, value_domain=list(order))
        return alpha_from_value_counts(counts, np.arange(len(order)), level)
    if level == "interval":
        s = sufficient_statistics(ratings, unit, value)
        return alpha_interval_from_sufficient(s["m"], s["total"], s["total_sq"])
    counts, domain = value_count_matrix(ratings, unit, value, value_domain=order)
    return alpha_from_value_counts(counts, domain, level)
