"""Tukey HSD pairwise comparisons of the bias between audit-factor levels, within the strata the
stratified ANOVA found significant (paper 3.4.4, Supplement S5)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import studentized_range
from ._checks import require
from .multiple_testing import ALPHA
from .stratified_anova import bias_cells

TUKEY_COLUMNS = [
    "condition_id",
    "dimension",
    "category",
    "term",
    "group1",
    "group2",
    "meandiff",
    "p_adj",
    "lower",
    "upper",
    "reject",
]


def tukey_cells(predictions: pd.DataFrame, anova: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Tukey HSD over the audit_1 x audit_2 cells where the interaction is significant.

    Parameters
    ----------
    predictions : pandas.DataFrame
        As for :func:`stratified_anova`.
    anova : pandas.DataFrame
        Its output (which strata have a significant audit_1:audit_2 term after BH).
    alpha : float, default 0.05

    Returns
    -------
    pandas.DataFrame
        condition_id, dimension, category, group1, group2, meandiff, p_adj, lower, upper, reject.

    Notes
    -----
    meandiff = mean(group2) - mean(group1) of the bias column as given; intervals
    meandiff +- q_(alpha; k, df) sqrt(MSE / 2 (1/n_1 + 1/n_2)) (statsmodels'
    ``pairwise_tukeyhsd``).

    References
    ----------
    Tukey (1949), "Comparing individual means in the analysis of variance", Biometrics 5(2),
    99-114; Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 4.5.

    Examples
    --------
    Only the B:M cell is shifted (by 5): interaction F = (2 x 5^2 / 4) / (0.08 / 4) = 625; Tukey
    separates B:M from each other cell:

    >>> import pandas as pd
    >>> from rater1001.stats.stratified_anova import stratified_anova
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": [f"i{i}" for i in range(8)], "category": "fear",
    ...                   "audit_1": list("AAAABBBB"), "audit_2": list("FFMMFFMM"),
    ...                   "d_valence": [0, 0.2, 0, 0.2, 0, 0.2, 5, 5.2]})
    >>> t = tukey_cells(p, stratified_anova(p, dimensions=("valence",)))
    >>> t[t["reject"]][["group1", "group2", "meandiff"]].round(6).to_numpy().tolist()
    [['A:F', 'B:M', 5.0], ['A:M', 'B:M', 5.0], ['B:F', 'B:M', 5.0]]
    """
    dims = sorted(set(anova["dimension"])) if len(anova) else []
    return tukey_from_cells(bias_cells(predictions, dims), anova, alpha)


def tukey_from_cells(cells: pd.DataFrame, anova: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """:func:`tukey_cells` from the audit_1 x audit_2 cells.

    Parameters
    ----------
    cells : pandas.DataFrame
        :func:`bias_cells`.
    anova : pandas.DataFrame
        :func:`stratified_anova_cells`' output.
    alpha : float, default 0.05

    Returns
    -------
    pandas.DataFrame
        As :func:`tukey_cells`.

    Notes
    -----
    HSD needs only each group's count and mean and the pooled within-group variance
    MSE = sum bias_ss / (N - k).

    References
    ----------
    Tukey (1949); Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 4.5.

    Examples
    --------
    :func:`tukey_cells`' example (only B:M shifted by 5) through its cells:

    >>> import pandas as pd
    >>> from rater1001.stats.stratified_anova import bias_cells, stratified_anova_cells
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": [f"i{i}" for i in range(8)], "category": "fear",
    ...                   "audit_1": list("AAAABBBB"), "audit_2": list("FFMMFFMM"),
    ...                   "d_valence": [0, 0.2, 0, 0.2, 0, 0.2, 5, 5.2]})
    >>> cells = bias_cells(p, ("valence",))
    >>> t = tukey_from_cells(cells, stratified_anova_cells(cells))
    >>> t[t["reject"]][["group1", "group2", "meandiff"]].round(6).to_numpy().tolist()
    [['A:F', 'B:M', 5.0], ['A:M', 'B:M', 5.0], ['B:F', 'B:M', 5.0]]
    """
    keep = cells.assign(term="audit_1:audit_2", group=cells["audit_1"].astype(str) + ":" + cells["audit_2"].astype(str))
    return tukey_pair_cells(keep, anova, alpha)


def tukey_pair_cells(cells: pd.DataFrame, anova: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Tukey HSD over the cells of each pair of audit factors whose interaction is significant.

    Parameters
    ----------
    cells : pandas.DataFrame
        Per (condition_id, dimension, category, term, group): n_bias, bias_mean, bias_ss, where
        term names a pair of factors ``a:b`` and group is a cell ``x:y`` of it
        (int_audit_pair_cells).
    anova : pandas.DataFrame
        The stratified ANOVA (term, significant per (condition_id, dimension, category)).
    alpha : float, default 0.05

    Returns
    -------
    pandas.DataFrame
        condition_id, dimension, category, term, group1, group2, meandiff, p_adj, lower, upper,
        reject: one row per pair of cells of a stratum whose ``a:b`` term has q_BH < alpha.

    Notes
    -----
    HSD needs only each cell's count and mean and the pooled within-cell variance
    MSE = sum bias_ss / (N - k) (:func:`hsd`, statsmodels' ``tukeyhsd`` arithmetic, which
    ``pairwise_tukeyhsd`` calls); meandiff = mean(group2) - mean(group1); any other audit factor
    is pooled within a cell.

    References
    ----------
    Tukey (1949), "Comparing individual means in the analysis of variance", Biometrics 5(2),
    99-114; Tae, Park & Choi, *Can vision-language models replace human emotion raters?*,
    section 4.5; docs/marts_demographics.md, "Any study's audit factors".

    Examples
    --------
    :func:`tukey_cells`' example (only B:M shifted by 5) as the cells of the pair audit_1:audit_2:

    >>> import pandas as pd
    >>> cells = pd.DataFrame({"condition_id": "m", "dimension": "valence", "category": "fear", "term": "audit_1:audit_2",
    ...                       "group": ["A:F", "A:M", "B:F", "B:M"], "n_bias": 2, "bias_mean": [0.1, 0.1, 0.1, 5.1],
    ...                       "bias_ss": 0.02})
    >>> anova = pd.DataFrame({"condition_id": "m", "dimension": "valence", "category": "fear", "term": ["audit_1:audit_2"],
    ...                       "significant": [True]})
    >>> t = tukey_pair_cells(cells, anova)
    >>> t[t["reject"]][["group1", "group2", "meandiff"]].round(6).to_numpy().tolist()
    [['A:F', 'B:M', 5.0], ['A:M', 'B:M', 5.0], ['B:F', 'B:M', 5.0]]
    """
    keys = ["condition_id", "dimension", "category", "term"]
    require(cells, [*keys, "group", "n_bias", "bias_mean", "bias_ss"], "tukey_pair_cells")
    hits = anova[anova["significant"].astype("boolean").fillna(False)]
    by_stratum = {key: part for key, part in cells[cells["n_bias"] > 0].groupby(keys, sort=False)}
    rows = []
    for hit in hits.itertuples(index=False):
        used = by_stratum.get((hit.condition_id, hit.dimension, hit.category, hit.term))
        if used is None:  # not a pair's term (a main effect)
            continue
        groups = used["group"].astype(str).to_numpy()
        order = np.argsort(groups, kind="stable")  # pairwise_tukeyhsd's groups: np.unique, sorted
        groups, used = groups[order], used.iloc[order]
        nobs = used["n_bias"].to_numpy(dtype=float)
        var = float(used["bias_ss"].sum()) / (nobs.sum() - len(nobs))
        (first, second), reject, diffs, confint, pvalues = hsd(
            used["bias_mean"].to_numpy(dtype=float), nobs, var, alpha
        )
        for i, j, diff, p, (lo, hi), rej in zip(first, second, diffs, pvalues, confint, reject):
            rows.append(
                dict(
                    condition_id=hit.condition_id,
                    dimension=hit.dimension,
                    category=hit.category,
                    term=hit.term,
                    group1=groups[i],
                    group2=groups[j],
                    meandiff=float(diff),
                    p_adj=float(p),
                    lower=float(lo),
                    upper=float(hi),
                    reject=bool(rej),
                )
            )
    return pd.DataFrame(rows, columns=TUKEY_COLUMNS)


def hsd(means, nobs, var: float, alpha: float = ALPHA):
    """Tukey-Kramer HSD of every pair of groups from their means and counts and the pooled variance.

    Parameters
    ----------
    means, nobs : array_like
        Each group's mean and count.
    var : float
        The pooled within-group variance (MSE on sum(nobs) - len(nobs) df).
    alpha : float, default 0.05

    Returns
    -------
    tuple
        ((first, second) group indices of each pair, i < j), reject, meandiff (mean_j - mean_i),
        confint (pairs x 2), p-values.

    Notes
    -----
    statsmodels' ``tukeyhsd`` (which ``pairwise_tukeyhsd`` calls) in the same arithmetic, so
    meandiff and the standard errors are bit-identical: se_ij = sqrt(MSE (1/n_i + 1/n_j) / 2),
    q_ij = |meandiff| / se_ij, p = P(Q_(k, df) >= q_ij), interval meandiff +- q_crit se_ij and
    reject q_ij > q_crit, with q_crit the 1 - alpha quantile. The studentized range comes from
    :mod:`rater1001.stats.studentized_range` (one vectorised call per stratum instead of scipy's
    per-value integration); p and q_crit agree with statsmodels' to scipy's integration error.

    References
    ----------
    Tukey (1949), "Comparing individual means in the analysis of variance", Biometrics 5(2),
    99-114; Kramer (1956), "Extension of multiple range tests to group means with unequal numbers
    of replications", Biometrics 12(3), 307-310.

    Examples
    --------
    Three groups of 5 with means 0, 1, 3 and MSE 1 on 12 df: se = sqrt(1 / 5) for every pair, so
    q = 2.236, 6.708, 4.472 against q_crit(3, 12) = 3.773 (statsmodels: p .2908, .0013, .0207):

    >>> (first, second), reject, diff, ci, p = hsd([0.0, 1.0, 3.0], [5, 5, 5], 1.0)
    >>> diff.tolist(), reject.tolist(), p.round(4).tolist()
    ([1.0, 3.0, 2.0], [False, True, True], [0.2908, 0.0013, 0.0207])
    """
    means, nobs = np.asarray(means, dtype=float), np.asarray(nobs, dtype=float)
    k = len(means)
    n1, n2 = np.meshgrid(nobs, nobs)
    var_pairs = var * ((1.0 / n1 + 1.0 / n2) / 2.0)  # statsmodels' varcorrection_pairs_unbalanced
    first, second = np.triu_indices(k, 1)
    diffs = (means - means[:, None])[first, second]
    std_pairs = np.sqrt(var_pairs)[first, second]
    df = float(np.sum(nobs - 1))
    with np.errstate(divide="ignore", invalid="ignore"):  # a zero MSE: q is inf (or NaN at 0 / 0)
        q = np.abs(diffs) / std_pairs
    q_crit = studentized_range.isf(alpha, k, df)
    crit = std_pairs * q_crit
    return (
        (first, second),
        q > q_crit,
        diffs,
        np.column_stack((diffs - crit, diffs + crit)),
        studentized_range.sf(q, k, df),
    )
