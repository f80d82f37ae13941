"""The stratified ANOVA of the demographic audit (paper 3.4.4, 4.5; Supplement S5): the bias's
two-way ANOVA by the audit factors within every category stratum, Benjamini-Hochberg over each
(condition, dimension) family, from the rows or from per-cell sums (:func:`bias_cells`)."""

from __future__ import annotations

import itertools
from dataclasses import asdict

import numpy as np
import pandas as pd

from ._checks import bias_column, require, require_complete
from .anova import nested_f_test, stratum_factorial_tests_cells
from .design import dummy_columns, interaction_columns
from .multiple_testing import ALPHA, benjamini_hochberg

CELL_KEYS = ["condition_id", "dimension", "category", "audit_1", "audit_2"]


def bias_cells(predictions: pd.DataFrame, dimensions=("valence", "arousal")) -> pd.DataFrame:
    """Per-image bias values aggregated to audit_1 x audit_2 cells (the tests' recomputation).

    Parameters
    ----------
    predictions : pandas.DataFrame
        One row per image with condition_id, category, audit_1, audit_2 and d_<dimension>.
    dimensions : tuple of str, default ("valence", "arousal")

    Returns
    -------
    pandas.DataFrame
        Per (condition_id, dimension, category, audit_1, audit_2): n_rows, n_bias (rows with a bias
        value), bias_mean, bias_ss (sum of squared deviations about the cell's own mean).

    Notes
    -----
    bias_ss_c = sum_i (d_i - mean_c)^2 over the cell's rows with a value.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4; docs/marts_demographics.md.

    Examples
    --------
    Cell A:F holds 1 and 3: mean 2, squared deviations 1 + 1:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": [f"i{i}" for i in range(8)], "category": "fear",
    ...                   "audit_1": list("AAAABBBB"), "audit_2": list("FFMMFFMM"),
    ...                   "d_valence": [1.0, 3, 2, 4, 5, 7, 6, 8]})
    >>> bias_cells(p, ("valence",))[["audit_1", "audit_2", "n_bias", "bias_mean", "bias_ss"]].to_numpy().tolist()[0]
    ['A', 'F', 2, 2.0, 2.0]
    """
    parts = []
    for dimension in dimensions:
        d = predictions.assign(dimension=dimension, _b=predictions[bias_column(dimension)].astype(float))
        g = d.groupby(CELL_KEYS, sort=True, dropna=False)["_b"]
        out = g.agg(n_rows="size", n_bias="count", bias_mean="mean")
        out["bias_ss"] = g.var(ddof=0) * out["n_bias"]  # NaN without values, as SQL's var_pop
        parts.append(out.reset_index())
    if not parts:
        return pd.DataFrame(columns=[*CELL_KEYS, "n_rows", "n_bias", "bias_mean", "bias_ss"])
    return pd.concat(parts, ignore_index=True)


def _usable(part: pd.DataFrame, bias: str) -> tuple[pd.DataFrame, int]:
    """Rows with a bias value, and how many lacked one (reported as n_missing, never hidden)."""
    keep = part[bias].notna()
    return part[keep], int((~keep).sum())


def stratified_anova(
    predictions: pd.DataFrame, dimensions=("valence", "arousal"), alpha: float = ALPHA
) -> pd.DataFrame:
    """Two-way ANOVA of the bias by audit_1 and audit_2 within every category stratum, with BH.

    Parameters
    ----------
    predictions : pandas.DataFrame
        condition_id, category, audit_1, audit_2 and d_<dimension> per image.
    dimensions : tuple of str, default ("valence", "arousal")
    alpha : float, default 0.05

    Returns
    -------
    pandas.DataFrame
        Per (condition_id, dimension, category, term): df_num, df_den, f_value, eta_sq, p_raw,
        q_bh, significant, family_size, ss_term, ss_total, n (images used), n_missing (rows
        without a bias value), reason.

    Notes
    -----
    :func:`stratum_factorial_tests` per stratum; :func:`benjamini_hochberg` within each
    (condition_id, dimension) family (categories x three terms), computed on the strata's audit_1 x
    audit_2 cells (:func:`stratified_anova_cells`).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.4 and 4.5, Tables 7b, 7c.

    Examples
    --------
    :func:`stratum_factorial_tests`' stratum as one category: audit_1 F = 20 on (1, 5) df,
    p = .0066, q = 3 x .0066:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": [f"i{i}" for i in range(8)], "category": "fear",
    ...                   "audit_1": list("AAAABBBB"), "audit_2": list("FFMMFFMM"),
    ...                   "d_valence": [1.0, 3, 2, 4, 5, 7, 6, 8]})
    >>> a = stratified_anova(p, dimensions=("valence",))
    >>> a[["term", "f_value", "q_bh"]].round(4).to_numpy().tolist(), a["significant"].tolist()
    ([['audit_1', 20.0, 0.0197], ['audit_2', 1.25, 0.4716], ['audit_1:audit_2', 0.0, 1.0]], [True, False, False])
    """
    bias_cols = [bias_column(d) for d in dimensions]
    require(predictions, ["condition_id", "category", "audit_1", "audit_2", *bias_cols], "stratified_anova")
    require_complete(predictions, ["condition_id", "category", "audit_1", "audit_2"], "stratified_anova")
    return stratified_anova_cells(bias_cells(predictions, dimensions), alpha)


def stratified_anova_cells(cells: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """:func:`stratified_anova` from the audit_1 x audit_2 cells.

    Parameters
    ----------
    cells : pandas.DataFrame
        :func:`bias_cells` (int_audit_pair_cells' cells of two factors, their levels as audit_1 and
        audit_2): per condition, dimension, category, audit_1, audit_2:
        n_rows, n_bias, bias_mean, bias_ss.
    alpha : float, default 0.05

    Returns
    -------
    pandas.DataFrame
        As :func:`stratified_anova`.

    Notes
    -----
    :func:`stratum_factorial_tests_cells` per stratum, BH within each (condition_id, dimension)
    family.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.4 and 4.5, Tables 7b, 7c.

    Examples
    --------
    :func:`stratified_anova`'s example through its cells gives the same F and q:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": [f"i{i}" for i in range(8)], "category": "fear",
    ...                   "audit_1": list("AAAABBBB"), "audit_2": list("FFMMFFMM"),
    ...                   "d_valence": [1.0, 3, 2, 4, 5, 7, 6, 8]})
    >>> a = stratified_anova_cells(bias_cells(p, ("valence",)))
    >>> a[["term", "f_value", "q_bh"]].round(4).to_numpy().tolist()
    [['audit_1', 20.0, 0.0197], ['audit_2', 1.25, 0.4716], ['audit_1:audit_2', 0.0, 1.0]]
    """
    require(cells, [*CELL_KEYS, "n_rows", "n_bias", "bias_mean", "bias_ss"], "stratified_anova_cells")
    require_complete(cells, ["condition_id", "dimension", "category", "audit_1", "audit_2"], "stratified_anova_cells")
    rows = []
    for (condition, dimension, category), stratum in cells.groupby(CELL_KEYS[:3], sort=True):
        n = int(stratum["n_bias"].sum())
        n_missing = int(stratum["n_rows"].sum()) - n
        for test in stratum_factorial_tests_cells(stratum):
            rows.append(
                dict(condition_id=condition, dimension=dimension, category=category, n=n, n_missing=n_missing, **test)
            )
    return _with_bh(pd.DataFrame(rows), alpha)


def _with_bh(out: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """The F tests with BH q-values within each (condition_id, dimension), in the marts' columns."""
    if out.empty:
        return out
    out["q_bh"], out["significant"] = np.nan, pd.Series(pd.NA, index=out.index, dtype="boolean")
    for _, idx in out.groupby(["condition_id", "dimension"]).groups.items():
        q, sig = benjamini_hochberg(out.loc[idx, "p_raw"], alpha)
        out.loc[idx, "q_bh"], out.loc[idx, "significant"] = q, sig
    out["family_size"] = out.groupby(["condition_id", "dimension"])["p_raw"].transform("count")
    cols = [
        "condition_id",
        "dimension",
        "category",
        "term",
        "df_num",
        "df_den",
        "f_value",
        "eta_sq",
        "p_raw",
        "q_bh",
        "significant",
        "family_size",
        "ss_term",
        "ss_total",
        "n",
        "n_missing",
        "reason",
    ]
    return out[cols]


def stratified_anova_factors(rows: pd.DataFrame, factors, alpha: float = ALPHA) -> pd.DataFrame:
    """The stratified ANOVA of the bias by any number of audit factors, with BH.

    Parameters
    ----------
    rows : pandas.DataFrame
        One row per (condition, dimension, image): condition_id, dimension, category (the
        stratum), d (the bias, NULL where the model or the humans gave no value) and one column
        per factor.
    factors : sequence of str
        The factor columns, in declared order.
    alpha : float, default 0.05

    Returns
    -------
    pandas.DataFrame
        As :func:`stratified_anova`: a term per factor, then one per pair ``a:b``.

    Notes
    -----
    Within each stratum, a factor's term compares the main-effects model without it to the one
    with every factor (type II); a pair's term compares the main-effects model to it plus the
    pair's interaction. With two factors these are :func:`stratum_factorial_tests`' three tests.
    BH within each (condition_id, dimension) family, as :func:`stratified_anova_cells`.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.4
    and 4.5, Tables 7b, 7c; docs/marts_demographics.md, "Any study's audit factors".

    Examples
    --------
    :func:`stratified_anova`'s example, per image, gives the same F and q:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "dimension": "valence", "category": "fear",
    ...                   "audit_1": list("AAAABBBB"), "audit_2": list("FFMMFFMM"),
    ...                   "d": [1.0, 3, 2, 4, 5, 7, 6, 8]})
    >>> a = stratified_anova_factors(p, ("audit_1", "audit_2"))
    >>> a[["term", "f_value", "q_bh"]].round(4).to_numpy().tolist()
    [['audit_1', 20.0, 0.0197], ['audit_2', 1.25, 0.4716], ['audit_1:audit_2', 0.0, 1.0]]
    """
    factors = list(factors)
    require(rows, ["condition_id", "dimension", "category", "d", *factors], "stratified_anova_factors")
    out = []
    for (condition, dimension, category), stratum in rows.groupby(["condition_id", "dimension", "category"], sort=True):
        used, n_missing = _usable(stratum, "d")
        if used.empty:
            continue
        y = used["d"].to_numpy(dtype=float)
        dummies = {f: dummy_columns(used[f].astype(str)) for f in factors}
        one = np.ones((len(used), 1))

        def main(fs, one=one, dummies=dummies):
            return np.hstack([one, *[dummies[f] for f in fs]])

        everything = main(factors)
        tests = [(f, main([g for g in factors if g != f]), everything) for f in factors]
        tests += [
            (f"{a}:{b}", everything, np.hstack([everything, interaction_columns(dummies[a], dummies[b])]))
            for a, b in itertools.combinations(factors, 2)
        ]
        for term, small, large in tests:
            out.append(
                dict(
                    condition_id=condition,
                    dimension=dimension,
                    category=category,
                    n=len(used),
                    n_missing=n_missing,
                    term=term,
                    **asdict(nested_f_test(y, small, large)),
                )
            )
    return _with_bh(pd.DataFrame(out), alpha)


def significance_counts(anova: pd.DataFrame) -> pd.DataFrame:
    """In how many category strata each term is significant after BH.

    Parameters
    ----------
    anova : pandas.DataFrame
        The output of :func:`stratified_anova`.

    Returns
    -------
    pandas.DataFrame
        Per (condition_id, dimension, term): n_significant, n_tested (strata where it could be
        tested), n_strata, label ("k/n").

    Notes
    -----
    n_significant = sum over strata of 1[q_bh <= alpha]; the paper's "valence - audit_1
    significant in k/6".

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 4.5.

    Examples
    --------
    >>> import pandas as pd
    >>> anova = pd.DataFrame({"condition_id": "m", "dimension": "valence", "term": "audit_1",
    ...                       "category": ["fear", "happy", "sad"], "p_raw": [0.001, 0.2, None],
    ...                       "significant": pd.array([True, False, pd.NA], dtype="boolean")})
    >>> significance_counts(anova)[["term", "n_significant", "n_tested", "label"]].to_numpy().tolist()
    [['audit_1', 1, 2, '1/2']]
    """
    g = anova.groupby(["condition_id", "dimension", "term"], sort=True)
    out = g.agg(
        n_significant=("significant", lambda s: int(s.fillna(False).sum())),
        n_tested=("p_raw", "count"),
        n_strata=("category", "nunique"),
    ).reset_index()
    out["label"] = out["n_significant"].astype(str) + "/" + out["n_tested"].astype(str)
    return out
