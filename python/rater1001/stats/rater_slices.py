"""Whose labels a model agrees with: agreement of a condition's label with the forced-choice labels
of the human raters in each level of a rater attribute (docs/marts_demographics.md, "By rater
attribute"). A perspectivist reading of the audit: the paper's audit slices by the stimulus; a
study whose raters carry demographics can also ask whether a model sides with one group of raters.

Input (`pairs`): one row per (condition_id, rater attribute, level, rater, stimulus) with the
rater's label `chosen` and the condition's label `predicted` (NULL when the model gave none: a
disagreement, as an unparsed answer is a wrong one elsewhere in the audit).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

KEYS = ["condition_id", "attribute"]


def level_agreement(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per (condition_id, attribute, level): n_raters, n_items, n_labels (rater-stimulus pairs),
    n_agree (the condition's label equals the rater's) and agreement = n_agree / n_labels."""
    agree = pairs["predicted"].notna() & (pairs["predicted"] == pairs["chosen"])
    g = pairs.assign(agree=agree.astype(int)).groupby([*KEYS, "level"], sort=True)
    out = g.agg(n_raters=("rater_id", "nunique"), n_items=("image_id", "nunique"),
                n_labels=("agree", "size"), n_agree=("agree", "sum")).reset_index()
    out["agreement"] = out["n_agree"] / out["n_labels"]
    return out


def homogeneity(levels: pd.DataFrame) -> pd.DataFrame:
    """Per (condition_id, attribute): the largest agreement gap across levels in percentage points
    with the levels at either end, and Pearson's chi-square test that agreement is the same in
    every level (levels x {agree, disagree}, no continuity correction). The test counts labels
    as independent; a rater's labels are not, so p is a screening number, not a verdict."""
    rows = []
    for (condition, attribute), part in levels.groupby(KEYS, sort=True):
        row = dict(condition_id=condition, attribute=attribute, n_levels=len(part), gap_pp=None,
                   max_level=None, min_level=None, chi2=None, df=None, p_value=None, reason=None)
        if len(part) < 2:
            row["reason"] = "fewer than two levels: nothing to compare"
            rows.append(row)
            continue
        by = part.set_index("level")["agreement"]
        row.update(gap_pp=100.0 * float(by.max() - by.min()), max_level=by.idxmax(), min_level=by.idxmin())
        table = np.column_stack([part["n_agree"], part["n_labels"] - part["n_agree"]])
        if (table.sum(axis=0) == 0).any():
            row["reason"] = ("every label agrees" if table[:, 1].sum() == 0 else "no label agrees") + \
                ": agreement does not vary"
        else:
            chi2, p, df, _ = stats.chi2_contingency(table, correction=False)
            row.update(chi2=float(chi2), df=int(df), p_value=float(p))
        rows.append(row)
    return pd.DataFrame(rows, columns=[*KEYS, "n_levels", "gap_pp", "max_level", "min_level",
                                       "chi2", "df", "p_value", "reason"])
