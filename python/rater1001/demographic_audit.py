"""Glue between the warehouse and the demographic bias audit (issue 4; docs/marts_demographics.md).

The dbt Python models in models/marts/demographics/ are one line each: they hand their refs to the
functions here. This module only reshapes and types frames; every statistic is a call into
rater1001.stats.demographics (slices, gaps, GLMM LR tests, nested F tests, BH, Tukey, omnibus,
counts), the one home of those formulas.

Why typed frames: a mart must build EMPTY (not fail, not get untyped NULL columns) when there are
no predictions, so every output goes through `typed(frame, schema)` with an explicit pandas dtype
per column, which DuckDB maps to VARCHAR / DOUBLE / BIGINT / BOOLEAN.
"""
from __future__ import annotations

import functools
from contextlib import contextmanager

import numpy as np
import pandas as pd

from .stats import demographics

HUMAN_CONDITION = "human"  # condition_id of the pooled human forced-choice labels (Table 7's Human row)

S, F, I, B = "string", "Float64", "Int64", "boolean"

SLICES = {
    "condition_id": S, "rater_kind": S, "slice_type": S, "slice": S, "race": S, "gender": S,
    "n": I, "n_unparsed": I, "accuracy": F, "f1_macro": F, "n_labels": I,
    "n_slices": I, "f1_gap_pp": F, "f1_max_slice": S, "f1_min_slice": S,
    "accuracy_gap_pp": F, "accuracy_max_slice": S, "accuracy_min_slice": S, "gap_reason": S,
}
GLMM_LRT = {
    "condition_id": S, "factor": S, "chi2": F, "df": I, "p_value": F, "random_intercept_sd": F,
    "random_intercept_sd_null": F, "loglik_full": F, "loglik_null": F, "method": S, "n_obs": I,
    "n_groups": I, "n_levels": I, "fixed_effects_json": S, "reason": S,
}
STRATIFIED_ANOVA = {
    "condition_id": S, "dimension": S, "emotion": S, "term": S, "df_num": I, "df_den": I,
    "f_value": F, "eta_sq": F, "p_raw": F, "q_bh": F, "significant": B, "family_size": I,
    "ss_term": F, "ss_total": F, "n": I, "n_missing": I, "reason": S,
}
TUKEY = {
    "condition_id": S, "dimension": S, "emotion": S, "group1": S, "group2": S, "meandiff": F,
    "p_adj": F, "lower": F, "upper": F, "reject": B,
}
OMNIBUS = {
    "condition_id": S, "dimension": S, "factor": S, "term": S, "df_num": I, "df_den": I,
    "f_value": F, "eta_sq": F, "p_raw": F, "ss_term": F, "ss_total": F, "n": I, "n_missing": I,
    "reason": S,
}
SIGNIFICANCE_COUNTS = {
    "condition_id": S, "dimension": S, "term": S, "n_significant": I, "n_tested": I,
    "n_strata": I, "label": S,
}


def typed(frame: pd.DataFrame, schema: dict[str, str]) -> pd.DataFrame:
    """The schema's columns, in order and with its dtypes (missing columns become all-NULL).
    NaN in a float column is a NULL statistic, so it is stored as SQL NULL."""
    out = pd.DataFrame(index=frame.index)
    for col, dtype in schema.items():
        values = frame[col] if col in frame.columns else pd.Series(pd.NA, index=frame.index)
        if dtype in (F, I):
            values = pd.to_numeric(values.astype(object).where(values.notna(), None), errors="raise")
        out[col] = values.astype(dtype)
    return out.reset_index(drop=True)


def with_origin(frame: pd.DataFrame, provenance: pd.DataFrame) -> pd.DataFrame:
    """Cross join of int_study_provenance (one row): every mart row says SIMULATED or observed."""
    origin = provenance["data_origin"].iloc[0] if len(provenance) else None
    return frame.assign(data_origin=pd.Series(origin, index=frame.index, dtype="string"))


def model_dimensions(model_vs_human: pd.DataFrame) -> list[str]:
    """The dimensions int_model_vs_human carries a Bland-Altman difference for (d_<dim>), i.e. the
    study's var model_dimensions, read from the data rather than repeated in code."""
    return [c[2:] for c in model_vs_human.columns if c.startswith("d_")]


def _audited(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows that have both audit factors. A study that does not declare them (study.yml) has none,
    so its audit marts are empty, and the report says the audit does not apply."""
    return rows[rows["race"].notna() & rows["gender"].notna()]


def audit_rows(model_vs_human: pd.DataFrame) -> pd.DataFrame:
    """int_model_vs_human -> the input shape of stats.demographics (one row per (condition, image)).

    `emotion` is the ground truth. An unparsed answer (predicted_emotion NULL, correct NULL in the
    warehouse) is a wrong answer here, as in the slices' accuracy, so the GLMM sees it as 0."""
    rows = _audited(model_vs_human.rename(columns={"true_emotion": "emotion"}))
    correct = rows["correct"].astype("boolean").fillna(False).astype(bool)
    keep = ["condition_id", "image_id", "race", "gender", "emotion", "predicted_emotion",
            *[f"d_{d}" for d in model_dimensions(model_vs_human)]]
    out = rows[keep].assign(correct=correct.to_numpy())
    for col in ["condition_id", "image_id", "race", "gender", "emotion", "predicted_emotion"]:
        out[col] = out[col].astype(object).where(out[col].notna(), None)
    return out.reset_index(drop=True)


def human_label_rows(label_counts: pd.DataFrame) -> pd.DataFrame:
    """int_human_label_counts (one row per (image, chosen label) with a count) -> the input shape
    of slice_metrics under condition_id 'human', one row per (image, label) weighted by its count
    (column n_labels), so the human row of Tables 7/7a goes through the same slice_metrics as a
    model without one row per rating (7.2 million at 100x the paper's study)."""
    rows = _audited(label_counts)[["image_id", "race", "gender", "true_emotion", "chosen_emotion", "n_labels"]]
    return (rows.rename(columns={"true_emotion": "emotion", "chosen_emotion": "predicted_emotion"})
                .assign(condition_id=HUMAN_CONDITION).reset_index(drop=True))


def slices_table(model_vs_human: pd.DataFrame, label_counts: pd.DataFrame) -> pd.DataFrame:
    """demographic_slices: accuracy and macro-F1 per (condition, slice_type, slice) for every
    model condition and, where human forced-choice labels exist, the pooled human raters; each
    row carries its (condition, slice_type)'s largest gap in percentage points."""
    parts = []
    models = audit_rows(model_vs_human)
    if len(models):
        parts.append(demographics.slice_metrics(models).assign(rater_kind="model"))
    humans = human_label_rows(label_counts)
    if len(humans):
        parts.append(demographics.slice_metrics(humans, weight="n_labels").assign(rater_kind="human"))
    if not parts:
        return typed(pd.DataFrame(), SLICES)
    slices = pd.concat(parts, ignore_index=True)
    gaps = demographics.slice_gaps(slices).rename(columns={"reason": "gap_reason"})
    return typed(slices.merge(gaps, on=["condition_id", "slice_type"], how="left"), SLICES)


def glmm_lrt_table(model_vs_human: pd.DataFrame, n_agq: int = demographics.DEFAULT_N_AGQ) -> pd.DataFrame:
    rows = audit_rows(model_vs_human)
    if rows.empty:
        return typed(pd.DataFrame(), GLMM_LRT)
    return typed(demographics.glmm_lrt_table(rows, factors=("race", "gender"), n_agq=n_agq), GLMM_LRT)


def stratified_anova_table(model_vs_human: pd.DataFrame) -> pd.DataFrame:
    rows = audit_rows(model_vs_human)
    if rows.empty:
        return typed(pd.DataFrame(), STRATIFIED_ANOVA)
    return typed(demographics.stratified_anova(rows, dimensions=model_dimensions(model_vs_human)),
                 STRATIFIED_ANOVA)


@contextmanager
def _tukey_critical_value_cached():
    """pairwise_tukeyhsd recomputes the studentized-range critical value q(1 - alpha; k, df) on
    every call: a root search over scipy's numerically integrated distribution, ~0.4 s each, the
    same value for every stratum of a balanced design. Memoise statsmodels' own function while the
    Tukey mart is computed (the values are bit-identical), and restore it afterwards."""
    from statsmodels.sandbox.stats import multicomp

    original = multicomp.get_tukeyQcrit2
    multicomp.get_tukeyQcrit2 = functools.lru_cache(maxsize=64)(original)
    try:
        yield
    finally:
        multicomp.get_tukeyQcrit2 = original


def tukey_table(model_vs_human: pd.DataFrame, anova: pd.DataFrame) -> pd.DataFrame:
    rows = audit_rows(model_vs_human)
    if rows.empty or anova.empty:
        return typed(pd.DataFrame(), TUKEY)
    anova = anova.assign(significant=anova["significant"].astype("boolean"))
    with _tukey_critical_value_cached():
        cells = demographics.tukey_cells(rows, anova)
    return typed(cells, TUKEY)


def omnibus_table(model_vs_human: pd.DataFrame) -> pd.DataFrame:
    rows = audit_rows(model_vs_human)
    if rows.empty:
        return typed(pd.DataFrame(), OMNIBUS)
    return typed(demographics.omnibus_tests(rows, dimensions=model_dimensions(model_vs_human),
                                            factors=("race", "gender")), OMNIBUS)


def significance_counts_table(anova: pd.DataFrame) -> pd.DataFrame:
    if anova.empty:
        return typed(pd.DataFrame(), SIGNIFICANCE_COUNTS)
    anova = anova.assign(significant=anova["significant"].astype("boolean"))
    return typed(demographics.significance_counts(anova), SIGNIFICANCE_COUNTS)
