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

# Landis & Koch (1977) as quoted in the paper's 3.4.1: < .00 poor, .00-.20 slight, .21-.40 fair,
# .41-.60 moderate, .61-.80 substantial, .81-1.00 almost perfect. Upper bounds are inclusive at two
# decimals, so .205 is "slight" only if it rounds to .20; we compare the unrounded kappa against
# the band's upper edge (.20, .40, ...) inclusively, the usual reading.
LANDIS_KOCH = (
    (0.0, "poor"),
    (0.20, "slight"),
    (0.40, "fair"),
    (0.60, "moderate"),
    (0.80, "substantial"),
    (1.0, "almost perfect"),
)


def landis_koch_band(kappa: float) -> str | None:
    """The Landis & Koch (1977) agreement band of a kappa.

    Parameters
    ----------
    kappa : float
        A Cohen kappa (NaN or None when undefined).

    Returns
    -------
    str or None
        "poor", "slight", "fair", "moderate", "substantial" or "almost perfect"; None for an
        undefined kappa.

    Notes
    -----
    kappa < 0 poor; 0 <= kappa <= .20 slight; <= .40 fair; <= .60 moderate; <= .80 substantial;
    above almost perfect. The paper's ".00-.20 slight, .21-.40 fair ..." leaves gaps such as .205;
    upper edges inclusive on the unrounded kappa close them (docs/stats.md, "Classification").

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.1
    (Tables 2, 3, 3a); Landis & Koch (1977), "The measurement of observer agreement for
    categorical data", Biometrics 33(1), 159-174.


    Examples
    --------
    >>> landis_koch_band(0.20), landis_koch_band(0.205), landis_koch_band(0.81), landis_koch_band(-0.1)
    ('slight', 'fair', 'almost perfect', 'poor')
    """
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


def _kappa(t, p, labels, weight=None) -> float:
    """Cohen's kappa; NaN when truth and prediction together use a single label (chance agreement
    is then 1 and kappa 0/0), decided here rather than left to a warning from scikit-learn."""
    if len((set(t) | set(p)) & set(labels)) < 2:
        return float("nan")
    return float(metrics.cohen_kappa_score(t, p, labels=labels, sample_weight=weight))


def kappa_from_tables(tables) -> np.ndarray:
    """Unweighted Cohen's kappa of each (truth x prediction) count table in a stack.

    Parameters
    ----------
    tables : array_like, shape (..., k, k)
        Count tables, truth in rows and prediction in columns.

    Returns
    -------
    numpy.ndarray, shape (...)
        kappa per table; NaN where chance agreement is 1 (or a table is empty).

    Notes
    -----
    With N the table's total, p_o = trace / N and p_e = sum_c (row_c x col_c) / N^2,
    kappa = (p_o - p_e) / (1 - p_e) = 1 - sum_{i != j} n_ij / sum_{i != j} E_ij with
    E = col row' / N: scikit-learn's ``cohen_kappa_score`` arithmetic, bit for bit, vectorised.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.1
    (Tables 2, 3, 3a); Cohen (1960), "A coefficient of agreement for nominal scales",
    Educational and Psychological Measurement 20(1), 37-46.


    Examples
    --------
    Two of two "a" right, one of two "b": p_o = 3/4, p_e = (2 x 3 + 2 x 1) / 16 = 1/2, so kappa =
    (3/4 - 1/2) / (1/2); a table with agreement at chance level gives 0:

    >>> kappa_from_tables([[[2, 0], [1, 1]], [[1, 1], [1, 1]]])
    array([0.5, 0. ])
    """
    t = np.asarray(tables, dtype=float)
    k = t.shape[-1]
    # scikit-learn's arithmetic (1 - disagreement / its chance level), so a kappa of exactly 0
    # stays 0 and the Landis & Koch band does not turn on the last bit
    column, row = t.sum(axis=-2), t.sum(axis=-1)
    total = column.sum(axis=-1)
    off_diagonal = 1.0 - np.eye(k)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = column[..., :, None] * row[..., None, :] / total[..., None, None]
        observed_off = (off_diagonal * t).sum(axis=(-2, -1))
        expected_off = (off_diagonal * expected).sum(axis=(-2, -1))
        return np.where(expected_off == 0, np.nan, 1 - observed_off / expected_off)


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


def count_table(truth, predicted, labels, weight=None) -> np.ndarray:
    """Truth x predicted table of counts (or summed weights) over `labels`, in their order.

    Parameters
    ----------
    truth, predicted : array_like
        One label per rated item; every value must be one of `labels`.
    labels : sequence
        The study's label set; its order is the rows' and the columns' order.
    weight : array_like, optional
        One weight per item (the count an aggregated row stands for); 1 each when omitted.

    Returns
    -------
    numpy.ndarray
        k x k float array, truth in rows, predicted in columns.

    Raises
    ------
    ValueError
        When a truth or predicted value is not among `labels` (a missing truth, for example).

    Notes
    -----
    One ``numpy.bincount`` over row x k + column: the table every statistic of :func:`summary`
    and :func:`kappa_from_tables` is read from, so each is one pass over the data.

    References
    ----------
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.1
    (the confusion matrix of Table 3).

    Examples
    --------
    One right 'a', one 'a' called 'b', one 'b' called 'a':

    >>> count_table(["a", "a", "b"], ["a", "b", "a"], ["a", "b"]).tolist()
    [[1.0, 1.0], [1.0, 0.0]]
    """
    at = pd.Index(list(labels))
    rows, cols = at.get_indexer(truth), at.get_indexer(predicted)
    if (rows < 0).any() or (cols < 0).any():
        raise ValueError(f"labels outside {list(labels)} (missing truth?) cannot be counted")
    k = len(at)
    return np.bincount(rows * k + cols, weights=weight, minlength=k * k).reshape(k, k).astype(float)


def kappa_within(recall, n_labels: int):
    """Free-marginal kappa of one label on its own items: (recall - 1/K) / (1 - 1/K).

    Parameters
    ----------
    recall : float or array_like
        Share of the label's items given the label (a missing answer counts as wrong).
    n_labels : int
        K, the number of labels a rater chooses from (>= 2).

    Returns
    -------
    float or numpy.ndarray
        1 when every item is recognised, 0 at the chance rate 1/K, negative below it.

    Raises
    ------
    ValueError
        When K < 2.

    Notes
    -----
    Cohen's kappa restricted to the items of one label is undefined (the truth never varies), so
    chance is taken as a uniform choice among the K labels: Bennett, Alpert & Goldstein's S,
    Brennan & Prediger's and Randolph's free-marginal kappa with two raters (the intended label
    and the model) on those items. It depends on recall alone: a model that absorbs other
    categories into this one is not penalised here (precision is reported beside it; the
    one-vs-rest kappa of :func:`by_label` is). Why the verdict rule reads it: docs/stats.md,
    "Replaceability verdicts (Table 8)".

    References
    ----------
    Bennett, Alpert & Goldstein (1954), Communications through limited response questioning,
    *Public Opin. Q.* 18(3), 303-308. Randolph (2005), Free-marginal multirater kappa, JOLLI
    conference. Tae, Park & Choi, *Can vision-language models replace human emotion raters?*,
    Table 3, Table 8 note 1, section 5.1.

    Examples
    --------
    Table 3's LLaMA fear recall .654 with six categories:

    >>> round(float(kappa_within(0.654, 6)), 4)
    0.5848
    """
    if n_labels < 2:
        raise ValueError(f"kappa_within needs at least 2 labels, got {n_labels}")
    chance = 1.0 / n_labels
    return (np.asarray(recall, dtype=float) - chance) / (1.0 - chance)


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
    kappa = [_kappa(t == lab, p == lab, [False, True]) for lab in labels]
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
