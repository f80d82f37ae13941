"""Emotion classification against the intended label (paper section 3.4.1, Tables 2, 3, 3a):
accuracy, unweighted Cohen's kappa, per-emotion precision / recall / F1 / support, macro-F1,
the confusion matrix and the Landis & Koch (1977) band. scikit-learn does the arithmetic; this
module fixes the label set (from the study, so an emotion nobody predicted still gets a row) and
the zero-division convention (0, with the count of undefined cells reported by the caller).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn import metrics

# Landis & Koch (1977) as quoted in the paper's 3.4.1: < .00 poor, .00-.20 slight, .21-.40 fair,
# .41-.60 moderate, .61-.80 substantial, .81-1.00 almost perfect. Upper bounds are inclusive at two
# decimals, so .205 is "slight" only if it rounds to .20; we compare the unrounded kappa against
# the band's upper edge (.20, .40, ...) inclusively, the usual reading.
LANDIS_KOCH = ((0.0, "poor"), (0.20, "slight"), (0.40, "fair"), (0.60, "moderate"), (0.80, "substantial"), (1.0, "almost perfect"))


def landis_koch_band(kappa: float) -> str | None:
    if kappa is None or np.isnan(kappa):
        return None
    if kappa < 0:
        return "poor"
    for upper, name in LANDIS_KOCH[1:]:
        if kappa <= upper:
            return name
    return "almost perfect"


@dataclass(frozen=True)
class ClassificationSummary:
    n: int
    n_missing: int  # predictions that were NaN / failed to parse, counted as wrong
    accuracy: float
    f1_macro: float
    kappa: float
    band: str | None
    accuracy_answered_only: float = float("nan")  # over the answered images only, shown beside accuracy


def _clean(truth, predicted, labels):
    t = pd.Series(truth, dtype=object).reset_index(drop=True)
    p = pd.Series(predicted, dtype=object).reset_index(drop=True)
    if len(t) != len(p):
        raise ValueError(f"truth has {len(t)} rows but predicted has {len(p)}")
    unknown = set(t.dropna()) - set(labels)
    if unknown:
        raise ValueError(f"truth labels {sorted(unknown)} are not in the label set {list(labels)}")
    missing = p.isna()
    # A missing prediction is a miss, not a dropped image: give it a label outside the set.
    return t.to_numpy(), p.where(~missing, "__missing__").to_numpy(), int(missing.sum())


def _outside(p, labels) -> list:
    """Predicted values outside the label set (e.g. '__missing__', or a model's 'surprised'):
    kept as their own categories so they count as wrong instead of being dropped."""
    return sorted(set(p) - set(labels), key=str)


def _kappa(t, p, labels) -> float:
    """Cohen's kappa; NaN when truth and prediction together use a single label (chance agreement
    is then 1 and kappa 0/0), decided here rather than left to a warning from scikit-learn."""
    if len((set(t) | set(p)) & set(labels)) < 2:
        return float("nan")
    return float(metrics.cohen_kappa_score(t, p, labels=labels))


def kappa_from_tables(tables) -> np.ndarray:
    """Unweighted Cohen's kappa of each (truth x prediction) count table in a (..., k, k) stack:
    statsmodels' cohens_kappa formula (observed agreement and chance agreement from the margins),
    vectorised over the stack; NaN where chance agreement is 1."""
    t = np.asarray(tables, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        nobs = t.sum(axis=(-2, -1))
        agree = np.trace(t, axis1=-2, axis2=-1) / nobs
        expected = (t.sum(axis=-1) * t.sum(axis=-2)).sum(axis=-1) / nobs**2
        return (agree - expected) / (1 - expected)


def summary(truth, predicted, labels) -> ClassificationSummary:
    t, p, n_missing = _clean(truth, predicted, labels)
    all_labels = list(labels) + _outside(p, labels)
    kappa = _kappa(t, p, all_labels)
    return ClassificationSummary(
        n=len(t), n_missing=n_missing,
        accuracy=float(metrics.accuracy_score(t, p)),
        f1_macro=float(metrics.f1_score(t, p, labels=list(labels), average="macro", zero_division=0)),
        kappa=kappa, band=landis_koch_band(kappa),
        accuracy_answered_only=float((t == p).sum() / (len(t) - n_missing)) if len(t) > n_missing else float("nan"),
    )


def by_label(truth, predicted, labels) -> pd.DataFrame:
    """Per emotion: precision, recall, f1, support (true count), n_predicted, and the one-vs-rest
    Cohen kappa (emotion vs everything else; the per-emotion kappa the verdict rule uses).
    Precision is NaN (not 0) when the model never predicted the label, so "never says sad" is
    visible."""
    t, p, _ = _clean(truth, predicted, labels)
    prec, rec, f1, sup = metrics.precision_recall_fscore_support(t, p, labels=list(labels), zero_division=np.nan)
    n_pred = pd.Series(p).value_counts().reindex(list(labels), fill_value=0).to_numpy()
    kappa = [_kappa(t == lab, p == lab, [False, True]) for lab in labels]
    return pd.DataFrame({"emotion": list(labels), "precision": prec, "recall": rec,
                         "f1": np.nan_to_num(f1, nan=0.0), "support": sup, "n_predicted": n_pred,
                         "kappa": kappa})


def confusion(truth, predicted, labels) -> pd.DataFrame:
    """Long confusion matrix (true_emotion, predicted_emotion, n) over labels x labels, plus a
    'missing' predicted column when some predictions are missing and a column for each predicted
    value outside the label set."""
    t, p, n_missing = _clean(truth, predicted, labels)
    cols = list(labels) + _outside(p, labels)
    cm = metrics.confusion_matrix(t, p, labels=cols)[: len(labels)]
    out = pd.DataFrame(cm, index=list(labels), columns=[c if c != "__missing__" else "missing" for c in cols])
    return out.rename_axis("true_emotion").reset_index().melt(
        id_vars="true_emotion", var_name="predicted_emotion", value_name="n")
