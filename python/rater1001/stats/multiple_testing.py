"""Multiple-testing corrections, on statsmodels' ``multipletests``: Benjamini-Hochberg q-values for
the stratified ANOVA (3.4.4) and Benjamini-Yekutieli rejections for the Alternative Annotator Test."""

from __future__ import annotations

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

ALPHA = 0.05


def benjamini_hochberg(p_values: pd.Series, alpha: float = ALPHA) -> tuple[pd.Series, pd.Series]:
    """Benjamini-Hochberg q-values and reject flags over the non-NULL p-values.

    Parameters
    ----------
    p_values : pandas.Series
    alpha : float, default 0.05

    Returns
    -------
    tuple of pandas.Series
        (q-values, reject flags); NULL stays NULL and is not counted in the family.

    Notes
    -----
    q_(i) = min_{j >= i} m p_(j) / j over the m non-NULL p-values sorted ascending; reject where
    q <= alpha (statsmodels' ``fdr_bh``).

    References
    ----------
    Benjamini & Hochberg (1995), "Controlling the false discovery rate", JRSS B 57(1), 289-300;
    Tae, Park & Choi, *Can vision-language models replace human emotion raters?*, section 3.4.4.

    Examples
    --------
    m = 3 (the NULL is not counted): q = (3 x .01, min(.04, 3 x .03 / 2), .04):

    >>> import numpy as np, pandas as pd
    >>> q, sig = benjamini_hochberg(pd.Series([0.01, 0.04, np.nan, 0.03]))
    >>> q.round(4).tolist(), sig.tolist()
    ([0.03, 0.04, nan, 0.04], [True, True, <NA>, True])
    """
    q = pd.Series(np.nan, index=p_values.index, dtype=float)
    sig = pd.Series(pd.NA, index=p_values.index, dtype="boolean")
    ok = p_values.notna()
    if ok.any():
        reject, q_vals, _, _ = multipletests(p_values[ok].astype(float), alpha=alpha, method="fdr_bh")
        q[ok], sig[ok] = q_vals, reject
    return q, sig


def benjamini_yekutieli(p_values: np.ndarray, q: float = 0.05, weight=None) -> np.ndarray:
    """Rejections of the Benjamini-Yekutieli step-up procedure.

    Parameters
    ----------
    p_values : numpy.ndarray
        One p-value per annotator (NaN: never rejected, but counted in m, as in the reference
        procedure, which enters it as p = 1).
    q : float, default 0.05
        False discovery rate.
    weight : array_like of int, optional
        How many annotators share each row's p-value; the procedure runs on the repeated
        p-values, where tied p-values always get the same decision.

    Returns
    -------
    numpy.ndarray of bool

    Notes
    -----
    With c(m) = sum_{i=1..m} 1/i and p_(1) <= ... <= p_(m): reject the k smallest, k the largest
    with p_(k) <= k q / (m c(m)) (statsmodels' ``fdr_by``). Valid under any dependence between
    the tests.

    References
    ----------
    Benjamini & Yekutieli (2001), "The control of the false discovery rate in multiple testing
    under dependency", Annals of Statistics 29(4), 1165-1188; Calderon, Reichart & Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge: How to
    Statistically Justify Replacing Human Annotators with LLMs", ACL (arXiv 2501.10970).

    Examples
    --------
    m = 3, c(3) = 11/6, thresholds k x 0.05 / 5.5 = .0091, .0182, .0273: only .001 passes; a NaN
    still counts in m (m = 2, threshold .0167 for the first):

    >>> import numpy as np
    >>> benjamini_yekutieli(np.array([0.001, 0.02, 0.04])), benjamini_yekutieli(np.array([0.001, np.nan]))
    (array([ True, False, False]), array([ True, False]))
    """
    p = np.asarray(p_values, float)
    if p.size == 0:
        return np.zeros(0, bool)
    filled = np.where(np.isnan(p), 1.0, p)
    if weight is not None:
        w = np.asarray(weight, dtype=np.int64)
        reject, *_ = multipletests(np.repeat(filled, w), alpha=q, method="fdr_by")
        return reject[np.cumsum(w) - w] & ~np.isnan(p)
    reject, *_ = multipletests(filled, alpha=q, method="fdr_by")
    return reject & ~np.isnan(p)
