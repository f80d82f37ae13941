"""Emotion classification against the intended label (paper section 3.4.1, Tables 2, 3, 3a):
accuracy, unweighted Cohen's kappa, per-category precision / recall / F1 / support, macro-F1,
the confusion matrix and the Landis & Koch (1977) band. scikit-learn does the arithmetic; this
module fixes the label set (from the study, so a category nobody predicted still gets a row) and
the zero-division convention (0, with the count of undefined cells reported by the caller).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn import metrics

from .kappa import count_table, kappa_from_tables, kappa_within, landis_koch_band


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


def summary(truth, predicted, labels, weight=None) -> ClassificationSummary:
    """Accuracy, macro-F1, Cohen kappa and its band of predicted labels against the true ones.

    Parameters
    ----------
    truth, predicted : array_like
        The intended label and the model's label per image; a missing prediction (None / NaN)
        counts as wrong, a label outside ``labels`` is kept as its own category (wrong).
    labels : sequence
        The study's label set (every true label must be in it).
    weight : array_like, optional
        How many identical (truth, predicted) answers each row stands for, so a caller can pass
        per-image label counts instead of one row per answer (the same statistics).

    Returns
    -------
    ClassificationSummary
        n, n_missing, accuracy, f1_macro (over ``labels``, 0 for an undefined F1), kappa (NaN when
        only one label occurs), band (:func:`landis_koch_band`), accuracy_answered_only.

    Notes
    -----
    accuracy = sum_i 1[t_i = p_i] / n; macro-F1 = mean over labels of 2 P R / (P + R);
    kappa = (p_o - p_e) / (1 - p_e) with p_e from the truth and prediction margins
    (:func:`kappa_from_tables`), all from one :func:`count_table` (scikit-learn's
    ``accuracy_score``, ``f1_score(average="macro", zero_division=0)`` and ``cohen_kappa_score``
    to the last bits, tests/python/test_stats_classification.py).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.1
    (Tables 2, 3, 3a); Cohen (1960); Landis & Koch (1977); docs/stats.md, "Classification".


    Examples
    --------
    Truth (a, a, b, b), predicted (a, a, b, a): accuracy 3/4; F1 of a = 2 (2/3)(1) / (5/3) = .8,
    of b = 2 (1)(1/2) / (3/2) = 2/3, macro .7333; kappa = (3/4 - 1/2) / (1/2) = .5, moderate:

    >>> s = summary(["a", "a", "b", "b"], ["a", "a", "b", "a"], ["a", "b"])
    >>> s.accuracy, round(s.f1_macro, 4), s.kappa, s.band
    (0.75, 0.7333, 0.5, 'moderate')
    """
    t, p, n_missing = _clean(truth, predicted, labels)
    if not len(t):
        raise ValueError("no images to score: the summary of an empty set is not defined")
    w = None if weight is None else np.asarray(weight, dtype=float)
    if w is not None:
        n_missing = int(w[p == "__missing__"].sum())
    n = len(t) if w is None else int(w.sum())
    all_labels = list(labels) + _outside(p, labels)
    table = count_table(t, p, all_labels, w)
    used = (table.sum(axis=0) + table.sum(axis=1)) > 0
    kappa = float(kappa_from_tables(table)) if used.sum() >= 2 else float("nan")
    n_right = float(np.trace(table))
    k = len(labels)
    true_sum, pred_sum, tp = table[:k].sum(axis=1), table[:, :k].sum(axis=0), np.diag(table)[:k]
    denominator = true_sum + pred_sum
    # F1 = 2 tp / (2 tp + fp + fn), 0 for a label neither true nor predicted (scikit-learn's zero_division=0)
    f1 = np.divide(2.0 * tp, denominator, out=np.zeros(k), where=denominator > 0)
    return ClassificationSummary(
        n=n,
        n_missing=n_missing,
        accuracy=n_right / float(table.sum()),
        f1_macro=float(f1.mean()),
        kappa=kappa,
        band=landis_koch_band(kappa),
        accuracy_answered_only=n_right / (n - n_missing) if n > n_missing else float("nan"),
    )


def by_label(truth, predicted, labels) -> pd.DataFrame:
    """Per label: precision, recall, F1, support and the one-vs-rest Cohen kappa.

    Parameters
    ----------
    truth, predicted : array_like
        As in :func:`summary` (a missing prediction counts as wrong).
    labels : sequence
        The study's label set; every label gets a row, predicted or not.

    Returns
    -------
    pandas.DataFrame
        category, precision (NaN, not 0, when the model never predicted the label, so "never says
        sad" is visible), recall, f1 (0 when undefined), support (true count), n_predicted, kappa
        (the label against everything else) and kappa_within (:func:`kappa_within`, the
        per-category kappa the verdict rule reads by default).

    Notes
    -----
    For label c: P = TP / (TP + FP), R = TP / (TP + FN), F1 = 2 P R / (P + R); kappa is Cohen's
    kappa of the 2 x 2 table [t = c] x [p = c].

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.1
    (Tables 2, 3, 3a); Table 8 note 1 (per-category kappa); docs/stats.md, "Classification".


    Examples
    --------
    Truth (a, a, b, b), predicted (a, a, b, a): a has P = 2/3, R = 1; b has P = 1, R = 1/2; with
    two labels each one-vs-rest kappa is the overall kappa, .5:

    >>> print(by_label(["a", "a", "b", "b"], ["a", "a", "b", "a"], ["a", "b"]).round(3).to_string(index=False))
    category  precision  recall    f1  support  n_predicted  kappa  kappa_within
          a      0.667     1.0 0.800        2            3    0.5           1.0
          b      1.000     0.5 0.667        2            1    0.5           0.0
    """
    t, p, _ = _clean(truth, predicted, labels)
    prec, rec, f1, sup = metrics.precision_recall_fscore_support(t, p, labels=list(labels), zero_division=np.nan)
    n_pred = pd.Series(p).value_counts().reindex(list(labels), fill_value=0).to_numpy()
    kappa = [float(kappa_from_tables(count_table(t == lab, p == lab, [False, True]))) for lab in labels]
    return pd.DataFrame(
        {
            "category": list(labels),
            "precision": prec,
            "recall": rec,
            "f1": np.nan_to_num(f1, nan=0.0),
            "support": sup,
            "n_predicted": n_pred,
            "kappa": kappa,
            "kappa_within": kappa_within(rec, len(labels)),
        }
    )


def confusion(truth, predicted, labels) -> pd.DataFrame:
    """The confusion matrix in long form.

    Parameters
    ----------
    truth, predicted : array_like
        As in :func:`summary`.
    labels : sequence
        The study's label set.

    Returns
    -------
    pandas.DataFrame
        true_category, predicted_category, n over labels x labels, plus a ``missing`` predicted
        column when some predictions are missing and a column for each predicted value outside
        the label set.

    Notes
    -----
    n(c, d) = sum_i 1[t_i = c, p_i = d]; the rows of each true label add up to its support, the
    missing predictions included (they are counted, never dropped).

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.1
    (Tables 2, 3, 3a); docs/stats.md, "Classification".


    Examples
    --------
    The second b was not answered: it lands in the ``missing`` column of row b:

    >>> m = confusion(["a", "a", "b", "b"], ["a", "a", "b", None], ["a", "b"])
    >>> m.pivot(index="true_category", columns="predicted_category", values="n")[["a", "b", "missing"]].to_numpy()
    array([[2, 0, 0],
           [0, 1, 1]])
    """
    t, p, n_missing = _clean(truth, predicted, labels)
    cols = list(labels) + _outside(p, labels)
    cm = metrics.confusion_matrix(t, p, labels=cols)[: len(labels)]
    out = pd.DataFrame(cm, index=list(labels), columns=[c if c != "__missing__" else "missing" for c in cols])
    return (
        out.rename_axis("true_category")
        .reset_index()
        .melt(id_vars="true_category", var_name="predicted_category", value_name="n")
    )
