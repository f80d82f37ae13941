"""models/marts/classification: accuracy, macro-F1, Cohen's kappa per condition (Table 2), per
category (Table 3) and the confusion matrix (Table 3a). Every number is a call into
rater1001.stats.classification."""

from __future__ import annotations

import pandas as pd

from ..stats import classification
from ._shared import as_frame, category_labels, declared, typed, with_origin


def summary_table(predictions: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """One row per condition. Macro-F1 is over the declared labels that occur as truth, as in the
    audit slices (stats.demographics.slice_metrics): a label the study declares but no stimulus
    shows would score 0 for every condition, the raters' own majority vote included, and say
    nothing about any of them; predicting it still costs the true label's recall."""
    rows = []
    for cond, g in predictions.groupby("condition_id", sort=True):
        present = set(g["true_category"].dropna())
        shown = [label for label in labels if label in present]
        s = classification.summary(g["true_category"], g["predicted_category"], shown)
        rows.append(
            {
                "condition_id": cond,
                "n": s.n,
                "n_missing": s.n_missing,
                "accuracy": s.accuracy,
                "accuracy_answered_only": s.accuracy_answered_only,
                "f1_macro": s.f1_macro,
                "kappa": s.kappa,
                "landis_koch_band": s.band,
            }
        )
    return typed(rows, declared("classification_summary"))


def by_category_table(predictions: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    rows = []
    for cond, g in predictions.groupby("condition_id", sort=True):
        t = classification.by_label(g["true_category"], g["predicted_category"], labels)
        for r in t.itertuples(index=False):
            rows.append(
                {
                    "condition_id": cond,
                    "category": r.category,
                    "precision": r.precision,
                    "recall": r.recall,
                    "f1": r.f1,
                    "support": r.support,
                    "n_predicted": r.n_predicted,
                    "kappa_one_vs_rest": r.kappa,
                    "kappa_within": r.kappa_within,
                }
            )
    return typed(rows, declared("classification_by_category"))


def confusion_table(predictions: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    parts = []
    for cond, g in predictions.groupby("condition_id", sort=True):
        c = classification.confusion(g["true_category"], g["predicted_category"], labels)
        total = c.groupby("true_category")["n"].transform("sum")
        parts.append(c.assign(condition_id=cond, row_share=c["n"] / total.where(total > 0)))
    rows = pd.concat(parts).to_dict("records") if parts else []
    return typed(rows, declared("confusion_matrix"))


# --- the dbt Python models (models/marts/classification/*.py) ---------------------------------------

# What the three tables read of classification_predictions: its stimulus ids and vote columns
# would reach pandas as a Python object per value (1.9 M rows at 100x) for nothing.
_READ = ("condition_id", "true_category", "predicted_category")


def classification_summary(predictions, factor_labels, study_factors, provenance) -> pd.DataFrame:
    labels = category_labels(factor_labels, study_factors)
    return with_origin(summary_table(as_frame(predictions, _READ), labels), provenance)


def classification_by_category(predictions, factor_labels, study_factors, provenance) -> pd.DataFrame:
    labels = category_labels(factor_labels, study_factors)
    return with_origin(by_category_table(as_frame(predictions, _READ), labels), provenance)


def confusion_matrix(predictions, factor_labels, study_factors, provenance) -> pd.DataFrame:
    labels = category_labels(factor_labels, study_factors)
    return with_origin(confusion_table(as_frame(predictions, _READ), labels), provenance)
