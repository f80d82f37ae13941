"""Whose labels a model agrees with: agreement of a condition's label with the forced-choice labels
of the human raters in each level of a rater attribute (docs/marts_demographics.md, "By rater
attribute"). A perspectivist reading of the audit: the paper's audit slices by the stimulus; a
study whose raters carry demographics can also ask whether a model sides with one group of raters.

Input (`pairs`): one row per (condition_id, rater attribute, level, rater, stimulus) with the
rater's label `chosen` and the condition's label `predicted` (NULL when the model gave none: a
disagreement, as an unparsed answer is a wrong one elsewhere in the audit); or, counted, one row
per (condition_id, attribute, level, stimulus, chosen) with its number of labels `n` and the
level's `n_raters`; or one row per (condition_id, attribute, level, stimulus) with its labels `n`,
the agreeing ones `n_agree` and `n_raters`; or those summed over the stimuli, one row per
(condition_id, attribute, level) with `n`, `n_agree`, `n_raters` and the stimuli `n_items`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

KEYS = ["condition_id", "attribute"]


def level_agreement(pairs: pd.DataFrame) -> pd.DataFrame:
    """Agreement of a condition's labels with the labels of the raters in each level of an attribute.

    Parameters
    ----------
    pairs : pandas.DataFrame
        One row per (condition_id, attribute, level, rater_id, image_id) with the rater's label
        ``chosen`` and the condition's label ``predicted`` (NULL when the model gave none). Or
        counted: one row per (condition_id, attribute, level, image_id, chosen) with ``n`` labels
        and the level's ``n_raters`` (constant within a level), the same table without one row
        per label. Or one row per (condition_id, attribute, level, image_id) with ``n`` labels,
        ``n_agree`` of them equal to the prediction and ``n_raters``; or those already summed
        over the stimuli, with their number ``n_items`` instead of ``image_id``.

    Returns
    -------
    pandas.DataFrame
        Per (condition_id, attribute, level): n_raters, n_items, n_labels (rater-stimulus
        pairs), n_agree, agreement.

    Notes
    -----
    agreement = n_agree / n_labels with n_agree = sum 1[predicted = chosen]; a missing prediction
    is a disagreement, as an unparsed answer is a wrong one elsewhere in the audit.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4
    (the demographic audit, here by rater instead of by stimulus); Cabitza, Campagner & Basile
    (2023), "Toward a perspectivist turn in ground truthing for predictive computing", AAAI;
    docs/marts_demographics.md, "By rater attribute".

    Examples
    --------
    The model says a for both images; the young rater chose a, a and the old rater a, b:

    >>> import pandas as pd
    >>> pairs = pd.DataFrame({"condition_id": "m", "attribute": "age",
    ...                       "level": ["young", "young", "old", "old"], "rater_id": ["r1", "r1", "r2", "r2"],
    ...                       "image_id": ["i1", "i2", "i1", "i2"], "chosen": ["a", "a", "a", "b"],
    ...                       "predicted": "a"})
    >>> level_agreement(pairs)[["level", "n_labels", "n_agree", "agreement"]].to_numpy().tolist()
    [['old', 2, 1, 0.5], ['young', 2, 2, 1.0]]
    """
    counted = "n" in pairs.columns
    labels = pairs["n"].astype("int64") if counted else pd.Series(1, index=pairs.index)
    if "n_agree" in pairs.columns:
        agreeing = pairs["n_agree"].astype("int64")
    else:
        agreeing = (pairs["predicted"].notna() & (pairs["predicted"] == pairs["chosen"])).astype("int64") * labels
    g = pairs.assign(agree=agreeing, labels=labels).groupby([*KEYS, "level"], sort=True)
    out = g.agg(
        n_raters=("n_raters", "first") if counted else ("rater_id", "nunique"),
        n_items=("n_items", "sum") if "n_items" in pairs.columns else ("image_id", "nunique"),
        n_labels=("labels", "sum"),
        n_agree=("agree", "sum"),
    ).reset_index()
    out["agreement"] = out["n_agree"] / out["n_labels"]
    return out


def homogeneity(levels: pd.DataFrame) -> pd.DataFrame:
    """Largest agreement gap across an attribute's levels and the chi-square test of equal agreement.

    Parameters
    ----------
    levels : pandas.DataFrame
        The output of :func:`level_agreement`.

    Returns
    -------
    pandas.DataFrame
        Per (condition_id, attribute): n_levels, gap_pp (largest minus smallest agreement, in
        percentage points), max_level, min_level, chi2, df, p_value, and a reason when there is
        nothing to test (one level; every or no label agrees).

    Notes
    -----
    Pearson's X^2 = sum (O - E)^2 / E over the levels x {agree, disagree} table, E = row total x
    column total / N, on (levels - 1) df, no continuity correction (scipy's
    ``chi2_contingency``). The test counts labels as independent; a rater's labels are not, so p
    is a screening number, not a verdict.

    References
    ----------
    Pearson (1900), "On the criterion that a given system of deviations ...", Philosophical
    Magazine 50, 157-175; docs/marts_demographics.md, "By rater attribute".

    Examples
    --------
    Agree / disagree 1 / 1 (old) and 2 / 0 (young): E = (1.5, .5) in each row, X^2 = 2 (.25 / 1.5 +
    .25 / .5) = 4/3 on 1 df, p = 2 (1 - Phi(sqrt(4/3))) = .2482; the gap is 50 points:

    >>> import pandas as pd
    >>> levels = pd.DataFrame({"condition_id": "m", "attribute": "age", "level": ["old", "young"],
    ...                        "n_labels": [2, 2], "n_agree": [1, 2], "agreement": [0.5, 1.0]})
    >>> r = homogeneity(levels).to_dict("records")[0]
    >>> r["gap_pp"], r["min_level"], round(r["chi2"], 6), r["df"], round(r["p_value"], 4)
    (50.0, 'old', 1.333333, 1, 0.2482)
    """
    rows = []
    for (condition, attribute), part in levels.groupby(KEYS, sort=True):
        row = dict(
            condition_id=condition,
            attribute=attribute,
            n_levels=len(part),
            gap_pp=None,
            max_level=None,
            min_level=None,
            chi2=None,
            df=None,
            p_value=None,
            reason=None,
        )
        if len(part) < 2:
            row["reason"] = "fewer than two levels: nothing to compare"
            rows.append(row)
            continue
        by = part.set_index("level")["agreement"]
        row.update(gap_pp=100.0 * float(by.max() - by.min()), max_level=by.idxmax(), min_level=by.idxmin())
        table = np.column_stack([part["n_agree"], part["n_labels"] - part["n_agree"]])
        if (table.sum(axis=0) == 0).any():
            row["reason"] = (
                "every label agrees" if table[:, 1].sum() == 0 else "no label agrees"
            ) + ": agreement does not vary"
        else:
            chi2, p, df, _ = stats.chi2_contingency(table, correction=False)
            row.update(chi2=float(chi2), df=int(df), p_value=float(p))
        rows.append(row)
    return pd.DataFrame(
        rows, columns=[*KEYS, "n_levels", "gap_pp", "max_level", "min_level", "chi2", "df", "p_value", "reason"]
    )
