"""Cohen's kappa, its one home: the count table, the vectorised kappa of a stack of tables
(scikit-learn's ``cohen_kappa_score`` arithmetic), Cohen's kappa of two label sequences, the
free-marginal within-category kappa and the Landis & Koch (1977) band (paper 3.4.1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

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


@dataclass(frozen=True)
class CohenKappa:
    kappa: float
    agreement: float  # raw share of equal labels
    n: int  # items both labelled


def cohen_kappa(labels_1, labels_2) -> CohenKappa:
    """Unweighted Cohen's kappa of two label sequences, with the raw agreement.

    Parameters
    ----------
    labels_1, labels_2 : sequence
        Labels of the same items by two judges (pairs with a missing label are left out).

    Returns
    -------
    CohenKappa
        kappa (NaN with fewer than two items or when both used one and the same label only),
        agreement (share of equal labels), n.

    Notes
    -----
    kappa = (p_o - p_e) / (1 - p_e), p_e = sum_c p_1(c) p_2(c) from each judge's label shares
    (:func:`rater1001.stats.kappa.kappa_from_tables` of the two judges' count table).

    References
    ----------
    Cohen (1960), "A coefficient of agreement for nominal scales", Educational and Psychological
    Measurement 20(1), 37-46; the lab log's pairwise judge study (docs/judge.md).

    Examples
    --------
    Agreement 3/4; label shares (1/2, 1/2) and (3/4, 1/4) give p_e = 1/2, so kappa = 1/2:

    >>> cohen_kappa(["x", "x", "y", "y"], ["x", "x", "y", "x"])
    CohenKappa(kappa=0.5, agreement=0.75, n=4)
    """
    a = np.array(list(labels_1), dtype=object)
    b = np.array(list(labels_2), dtype=object)
    if len(a) != len(b):
        raise ValueError(f"label sequences differ in length ({len(a)} vs {len(b)})")
    keep = ~(pd.isna(a) | pd.isna(b))
    a, b = a[keep].astype(str), b[keep].astype(str)
    n = int(len(a))
    agreement = float((a == b).mean()) if n else float("nan")
    labels = np.unique(np.concatenate([a, b]))
    if n < 2 or len(labels) == 1:
        return CohenKappa(kappa=float("nan"), agreement=agreement, n=n)
    return CohenKappa(kappa=float(kappa_from_tables(count_table(a, b, labels))), agreement=agreement, n=n)
