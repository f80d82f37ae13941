"""Demographic bias audit (paper 3.4.4 and 4.5, Supplement S5; docs/stats.md).

Expected input (`predictions`): one row per (condition_id, image_id) with

    condition_id       model condition
    image_id           stimulus
    audit_1, audit_2       stimulus factors (any declared label sets)
    category            ground-truth (intended) category label
    predicted_category  the model's label (NULL when parsing failed: counts as wrong)
    correct            bool, predicted_category == category
    d_valence, d_arousal, ...
                       Bland-Altman difference per dimension, d = human_mean - model_value
                       (docs/demographics.md). The paper's 3.4.4 writes model - human; F, eta^2 and p are
                       sign-free, Tukey mean differences carry the sign of the input column.

Every function is pure (frames in, frames out). Rows where a test is undefined carry NULL
statistics and a `reason`; nothing is dropped silently.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import pandas as pd

from . import classification
from ._checks import require, require_complete
from .glmm_lrt import likelihood_ratio_test
from .glmm_quadrature import DEFAULT_N_AGQ

SLICE_TYPES = ("audit_1", "audit_2", "audit_1_audit_2")
STRATIFIED_TERMS = ("audit_1", "audit_2", "audit_1:audit_2")


# --------------------------------------------------------------------------- classification slices


def _slice_keys(frame: pd.DataFrame, factors) -> dict[str, tuple[tuple[str, ...], pd.Series]]:
    """slice_type -> (its factors, each row's slice): each factor, then each pair 'a_b' ('x:y')."""
    keys = {f: ((f,), frame[f].astype(str)) for f in factors}
    for a, b in itertools.combinations(factors, 2):
        keys[f"{a}_{b}"] = ((a, b), frame[a].astype(str) + ":" + frame[b].astype(str))
    return keys


def slice_metrics(predictions: pd.DataFrame, weight: str | None = None, factors=("audit_1", "audit_2")) -> pd.DataFrame:
    """Accuracy and macro-F1 per (condition_id, slice_type, slice): by each factor and by each
    pair's cells (the paper: by audit_1, by audit_2 and by audit_1 x audit_2 cell).

    Parameters
    ----------
    predictions : pandas.DataFrame
        condition_id, audit_1, audit_2, category (truth), predicted_category (NULL: wrong) per image.
    weight : str, optional
        A column of how many identical answers a row stands for (pooled human labels come as
        per-image counts, not one row per rating).
    factors : sequence of str, default ("audit_1", "audit_2")
        The factor columns: slice types are each factor and each pair ``a_b`` (slice ``x:y``).

    Returns
    -------
    pandas.DataFrame
        condition_id, slice_type, slice, audit_1, audit_2 (the slice's level of a factor column
        named audit_1 or audit_2, else NULL), n, n_unparsed, accuracy, f1_macro, n_labels (labels
        averaged in F1).

    Raises
    ------
    KeyError, ValueError
        A missing column, or a design column with a gap (naming the row and image).

    Notes
    -----
    :func:`rater1001.stats.classification.summary` within each slice, macro-F1 over the true
    labels present in the slice: a label that never occurs as truth there would score 0 or
    undefined only because of how the slice was cut; predicting it still costs the true label's
    recall.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, sections 3.4.4 and 4.5, Tables 7, 7a, Figure 7b; docs/marts_demographics.md.

    Examples
    --------
    Race B: happy predicted for both images, one of them sad: accuracy 1/2; F1 of happy
    2 (1/2)(1) / (3/2) = 2/3, of sad 0, macro 1/3:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": ["i1", "i2", "i3", "i4"], "audit_1": ["A", "A", "B", "B"],
    ...                   "audit_2": ["F", "M", "F", "M"], "category": ["happy", "sad", "happy", "sad"],
    ...                   "predicted_category": ["happy", "sad", "happy", "happy"]})
    >>> s = slice_metrics(p)
    >>> s[s["slice_type"] == "audit_1"][["slice", "accuracy", "f1_macro"]].round(4).to_numpy().tolist()
    [['A', 1.0, 1.0], ['B', 0.5, 0.3333]]
    """
    factors = list(factors)
    require(predictions, ["condition_id", *factors, "category", "predicted_category"], "slice_metrics")
    require_complete(predictions, ["condition_id", *factors, "category"], "slice_metrics")
    d = predictions
    rows = []
    for slice_type, (of, key) in _slice_keys(d, factors).items():
        for (condition, value), part in d.groupby([d["condition_id"], key], sort=True):
            labels = sorted(part["category"].dropna().astype(str).unique())
            s = classification.summary(
                part["category"].astype(str),
                part["predicted_category"].astype(object),
                labels,
                weight=None if weight is None else part[weight],
            )
            audit_1 = part["audit_1"].iloc[0] if "audit_1" in of else None
            audit_2 = part["audit_2"].iloc[0] if "audit_2" in of else None
            rows.append(
                dict(
                    condition_id=condition,
                    slice_type=slice_type,
                    slice=value,
                    audit_1=audit_1,
                    audit_2=audit_2,
                    n=s.n,
                    n_unparsed=s.n_missing,
                    accuracy=s.accuracy,
                    f1_macro=s.f1_macro,
                    n_labels=len(labels),
                )
            )
    return pd.DataFrame(rows)


def slice_gaps(slices: pd.DataFrame) -> pd.DataFrame:
    """Largest gap across the slices of each (condition_id, slice_type), on F1 and on accuracy.

    Parameters
    ----------
    slices : pandas.DataFrame
        The output of :func:`slice_metrics`.

    Returns
    -------
    pandas.DataFrame
        condition_id, slice_type, n_slices, f1_gap_pp, f1_max_slice, f1_min_slice,
        accuracy_gap_pp, accuracy_max_slice, accuracy_min_slice, reason (fewer than two slices).

    Notes
    -----
    gap = 100 (max - min) over the slices, from unrounded values: Table 7's "최대 delta", Table
    7a's |Woman - Man|, Figure 7b's six-cell delta.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 4.5, Tables 7, 7a, Figure 7b.

    Examples
    --------
    The slices of :func:`slice_metrics`' example: by audit_1, F1 1 against 1/3 and accuracy 1 against
    1/2:

    >>> import pandas as pd
    >>> p = pd.DataFrame({"condition_id": "m", "image_id": ["i1", "i2", "i3", "i4"], "audit_1": ["A", "A", "B", "B"],
    ...                   "audit_2": ["F", "M", "F", "M"], "category": ["happy", "sad", "happy", "sad"],
    ...                   "predicted_category": ["happy", "sad", "happy", "happy"]})
    >>> g = slice_gaps(slice_metrics(p)).set_index("slice_type")
    >>> r = g.loc["audit_1"]
    >>> round(float(r["f1_gap_pp"]), 4), float(r["accuracy_gap_pp"]), r["accuracy_min_slice"]
    (66.6667, 50.0, 'B')
    """
    rows = []
    for (condition, slice_type), part in slices.groupby(["condition_id", "slice_type"], sort=True):
        row = dict(condition_id=condition, slice_type=slice_type, n_slices=len(part))
        for metric, name in (("f1_macro", "f1"), ("accuracy", "accuracy")):
            vals = part.set_index("slice")[metric].dropna()
            if len(vals) < 2:
                row.update({f"{name}_gap_pp": None, f"{name}_max_slice": None, f"{name}_min_slice": None})
                row["reason"] = "fewer than two slices: no gap"
                continue
            row.update(
                {
                    f"{name}_gap_pp": 100.0 * float(vals.max() - vals.min()),
                    f"{name}_max_slice": vals.idxmax(),
                    f"{name}_min_slice": vals.idxmin(),
                }
            )
        rows.append(row)
    out = pd.DataFrame(rows)
    if "reason" not in out:
        out["reason"] = None
    return out


# --------------------------------------------------------------------------- GLMM LR tests


def glmm_lrt_table(
    predictions: pd.DataFrame,
    factors=("audit_1", "audit_2"),
    n_agq: int | None = DEFAULT_N_AGQ,
    weight: str | None = None,
) -> pd.DataFrame:
    """Likelihood-ratio tests of correct ~ factor + (1 | category) against correct ~ 1 + (1 | category),
    per condition and factor.

    Parameters
    ----------
    predictions : pandas.DataFrame
        condition_id, correct (0/1), category and the factor columns, one row per image.
    factors : tuple of str, default ("audit_1", "audit_2")
    n_agq : int or None, default None
        None: split Gauss-Legendre; an integer: Gauss-Hermite nodes (1: Laplace).
    weight : str, optional
        A column of how many images a row stands for (per-cell counts).

    Returns
    -------
    pandas.DataFrame
        One row per (condition_id, factor): chi2, df, p_value, random-intercept SDs,
        log-likelihoods, method, counts, reason, fixed_effects_json.

    Notes
    -----
    chi2 = 2 (l_full - l_null) by maximum likelihood
    (:func:`rater1001.stats.glmm_lrt.likelihood_ratio_test`).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4; docs/demographics.md.

    Examples
    --------
    The G-test example of :func:`rater1001.stats.glmm_lrt.likelihood_ratio_test`, for one condition:

    >>> import pandas as pd
    >>> rows = [("m", e, audit_1, int(i < k)) for e in ("e1", "e2") for audit_1, k in (("A", 3), ("B", 1)) for i in range(4)]
    >>> t = glmm_lrt_table(pd.DataFrame(rows, columns=["condition_id", "category", "audit_1", "correct"]), factors=("audit_1",))
    >>> t[["factor", "df"]].to_numpy().tolist(), round(float(t["chi2"].iloc[0]), 4)
    ([['audit_1', 1]], 4.186)
    """
    factors = list(factors)
    require(predictions, ["condition_id", "correct", "category", *factors], "glmm_lrt_table")
    require_complete(predictions, ["condition_id", "correct", "category", *factors], "glmm_lrt_table")
    keep = ["condition_id", "correct", "category", *([weight] if weight else [])]
    long = predictions.melt(id_vars=keep, value_vars=factors, var_name="factor", value_name="level")
    return glmm_lrt_factors(long, factors, n_agq=n_agq, weight=weight)


def glmm_lrt_factors(
    rows: pd.DataFrame, factors, n_agq: int | None = DEFAULT_N_AGQ, weight: str | None = None
) -> pd.DataFrame:
    """:func:`glmm_lrt_table` for any number of audit factors, from the long form.

    Parameters
    ----------
    rows : pandas.DataFrame
        condition_id, factor (its name), level, category, correct: one row per (condition,
        image, factor).
    factors : sequence of str
        Every factor to test, in declared order; a factor without rows gets a NULL row with its
        reason.
    n_agq : int or None, default None
        As in :func:`glmm_lrt_table`.
    weight : str, optional
        A column of how many images a row stands for.

    Returns
    -------
    pandas.DataFrame
        As :func:`glmm_lrt_table`, one row per (condition_id, factor).

    Notes
    -----
    Each factor alone: correct ~ factor + (1 | category) against correct ~ 1 + (1 | category)
    (:func:`rater1001.stats.glmm_lrt.likelihood_ratio_test`), the fixed effects named
    ``factor[level]``.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4;
    docs/marts_demographics.md, "Any study's audit factors".

    Examples
    --------
    :func:`glmm_lrt_table`'s example in long form, with a second factor of one level:

    >>> import pandas as pd
    >>> rows = [("m", e, audit_1, int(i < k)) for e in ("e1", "e2") for audit_1, k in (("A", 3), ("B", 1)) for i in range(4)]
    >>> wide = pd.DataFrame(rows, columns=["condition_id", "category", "level", "correct"])
    >>> long = pd.concat([wide.assign(factor="audit_1"), wide.assign(factor="era", level="old")])
    >>> t = glmm_lrt_factors(long, ["audit_1", "era"])
    >>> round(float(t["chi2"].iloc[0]), 4), t["reason"].iloc[1]
    (4.186, 'era has a single level: nothing to test')
    """
    require(rows, ["condition_id", "factor", "level", "correct", "category"], "glmm_lrt_factors")
    require_complete(rows, ["condition_id", "factor", "level", "correct", "category"], "glmm_lrt_factors")
    out = []
    by_factor = dict(tuple(rows.groupby(["condition_id", "factor"], sort=False)))
    for condition in sorted(rows["condition_id"].unique()):
        for factor in factors:
            part = by_factor.get((condition, factor), rows.iloc[0:0])
            test = likelihood_ratio_test(
                part, "level", response="correct", group="category", n_agq=n_agq, weight=weight, name=factor
            )
            if part.empty:
                test = replace(test, reason=f"no stimulus has a level of {factor}")
            out.append(dict(condition_id=condition, factor=factor, **test.as_row()))
    return pd.DataFrame(out)


# --------------------------------------------------------------------------- nested linear models
