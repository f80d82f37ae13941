"""The Alternative Annotator Test at rating-study scale: the decision step of stats.alt_test from
per-annotator outcome counts (docs/ablations.md).

stats.alt_test.alt_test takes raw labels and a Python scoring callback; at paper scale (1,000
raters x 72 images, 8 conditions x 2 dimensions x 2 scorings x 7 category groups) its per-instance
loop takes ~25 s per (condition, dimension) on this machine. The per-instance comparison
W^h_i = [s_h >= s_f], W^f_i = [s_f >= s_h] is a scan of individual ratings, so it runs in SQL
(models/marts/alt_test/alt_test_rater_outcomes.sql); what is left per annotator is the count of
instances where the human won outright (W^h - W^f = +1), tied (0) or lost (-1). Those counts fix
the vector W^h - W^f up to order, so this module rebuilds it and runs the very same scipy
one-sample t-test (H1: mean < epsilon), the same Benjamini-Yekutieli step
and omega / rho / pass rule (stats.alt_test.decide), vectorised over
annotators with equal instance counts. tests/python/test_marts_ablations.py checks the result
against stats.alt_test.alt_test itself on a small study.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .alt_test import decide


def annotator_p_values(n_human_better, n_tie, n_model_better, epsilon: float) -> np.ndarray:
    """One-sided t-test p-value of each annotator from its win / tie / loss counts.

    Parameters
    ----------
    n_human_better, n_tie, n_model_better : array_like of int
        Per annotator, the instances where the human scored better than the model
        (W^h - W^f = +1), tied (0) and worse (-1).
    epsilon : float
        The test's cost-benefit allowance (0.2 expert, 0.15 skilled, 0.1 crowd annotators).

    Returns
    -------
    numpy.ndarray
        p of H1: mean(W^h - W^f) < epsilon per annotator; NaN below two instances. A constant
        difference gives p = 0 below epsilon, 1 above it and NaN at it, as scipy does.

    Notes
    -----
    With n = n_+ + n_0 + n_- differences d in {+1, 0, -1}: mean d = (n_+ - n_-) / n,
    s^2 = (n_+ + n_- - n (mean d)^2) / (n - 1), t = (mean d - epsilon) / (s / sqrt(n)) on n - 1
    degrees of freedom, p = F_t(t). The counts fix the vector up to order, so the vector is rebuilt
    and passed to ``scipy.stats.ttest_1samp`` exactly as :func:`rater1001.stats.alt_test.alt_test`
    does with the per-instance indicators.

    References
    ----------
    Calderon, Reichart & Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge", ACL
    (the test's step 2); docs/ablations.md, the Alt-Test on ratings.

    Examples
    --------
    Differences (+1, +1, 0) against epsilon 0: mean 2/3, s = 1/sqrt(3), t = 2 on 2 df, whose CDF
    is 1/2 + t / (2 sqrt(2 + t^2)) = 1/2 + 1/sqrt(6); the mirror image (-1, -1, 0) gives
    1/2 - 1/sqrt(6):

    >>> annotator_p_values([2, 0], [1, 1], [0, 2], epsilon=0.0).round(6)
    array([0.908248, 0.091752])
    """
    plus, zero, minus = (np.asarray(a, dtype=int) for a in (n_human_better, n_tie, n_model_better))
    n = plus + zero + minus
    p = np.full(len(n), np.nan)
    for size in np.unique(n[n >= 2]):
        rows = np.flatnonzero(n == size)
        pos = np.arange(size)
        # row i: -1 for its first minus[i] entries, then 0s, then +1s (order does not matter to a t-test)
        diff = np.where(pos < minus[rows, None], -1.0, np.where(pos < (minus + zero)[rows, None], 0.0, 1.0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # constant rows: -inf/+inf/NaN as in alt_test
            p[rows] = stats.ttest_1samp(diff, epsilon, axis=1, alternative="less").pvalue
    return p


@dataclass(frozen=True)
class AltTestFromCounts:
    winning_rate: float  # omega: share of tested annotators rejected; NaN when none was tested
    advantage_probability: float  # rho
    passed: bool  # omega >= 0.5
    n_annotators_tested: int
    n_annotators_skipped: int  # fewer instances than min_instances_per_human
    per_annotator: pd.DataFrame | None  # the input with n_instances, p_value, mean_w_model, rejected
    note: str | None = None  # why nothing was tested


def alt_test_from_counts(
    per_annotator: pd.DataFrame,
    *,
    epsilon: float,
    q: float = 0.05,
    min_instances_per_human: int = 30,
    p_values: np.ndarray | None = None,
    weight: str | None = None,
    per_annotator_frame: bool = True,
) -> AltTestFromCounts:
    """The Alt-Test's decision (winning rate, advantage probability, pass) from outcome counts.

    Parameters
    ----------
    per_annotator : pandas.DataFrame
        One row per annotator with ``n_human_better``, ``n_tie``, ``n_model_better`` (with
        ``per_annotator_frame=False``, any mapping of those names to arrays).
    epsilon : float
        The cost-benefit allowance of the t-test (:func:`annotator_p_values`).
    q : float, default 0.05
        Benjamini-Yekutieli level over the tested annotators.
    min_instances_per_human : int, default 30
        Annotators with fewer instances are skipped (counted in ``n_annotators_skipped``).
    p_values : array_like, optional
        The rows' p-values when already computed for this epsilon.
    weight : str, optional
        A column of how many annotators have the row's counts: annotators with equal counts have
        equal p-values and decisions, so a study of 100,000 raters passes a few hundred rows.
    per_annotator_frame : bool, default True
        False leaves the per-annotator frame out (None): a mart looping over a thousand groups
        needs only the totals.

    Returns
    -------
    AltTestFromCounts
        ``winning_rate`` (omega), ``advantage_probability`` (rho), ``passed`` (omega >= 0.5),
        ``n_annotators_tested``, ``n_annotators_skipped``, ``per_annotator`` (the input with
        n_instances, p_value, mean_w_model, rejected) and ``note`` (why nothing was tested).

    Notes
    -----
    Per tested annotator h: mean W^f_h = (n_0 + n_-) / n (the model at least as good), p_h from
    :func:`annotator_p_values`; H0_h rejected by Benjamini-Yekutieli at q over the tested
    annotators; omega = share of tested annotators rejected; rho = mean over them of mean W^f_h.
    The decision step is :func:`rater1001.stats.alt_test.decide`, shared with the raw-label test.

    References
    ----------
    Calderon, Reichart & Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge", ACL
    (the winning rate and the advantage probability); reference procedure
    github.com/nitaytech/AltTest; docs/ablations.md.

    Examples
    --------
    Annotator a loses all 3 instances to the model (differences -1, a constant below epsilon:
    p = 0, rejected), b wins all 3 (p = 1), c has 2 instances and is skipped: omega = 1/2 passes,
    rho = (1 + 0) / 2:

    >>> import pandas as pd
    >>> per = pd.DataFrame({"annotator_id": ["a", "b", "c"], "n_human_better": [0, 3, 1],
    ...                     "n_tie": [0, 0, 0], "n_model_better": [3, 0, 1]})
    >>> r = alt_test_from_counts(per, epsilon=0.2, min_instances_per_human=3)
    >>> r.winning_rate, r.advantage_probability, r.passed, r.n_annotators_skipped
    (0.5, 0.5, True, 1)
    """
    plus = np.asarray(per_annotator["n_human_better"], dtype=int)
    zero = np.asarray(per_annotator["n_tie"], dtype=int)
    minus = np.asarray(per_annotator["n_model_better"], dtype=int)
    n = plus + zero + minus
    tested = n >= min_instances_per_human
    p = np.full(len(n), np.nan)
    if p_values is not None:
        p[tested] = np.asarray(p_values, dtype=float)[tested]
    else:
        p[tested] = annotator_p_values(plus[tested], zero[tested], minus[tested], epsilon)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_w_model = (zero + minus) / n
    w = None if weight is None else np.asarray(per_annotator[weight], dtype=np.int64)
    rejected, omega, rho = decide(p, mean_w_model, tested, q, weight=w)
    per = (
        per_annotator.assign(n_instances=n, p_value=p, mean_w_model=mean_w_model, rejected=rejected)
        if per_annotator_frame
        else None
    )
    count = np.ones(len(n), dtype=np.int64) if w is None else w
    n_tested, n_skipped = int(count[tested].sum()), int(count[~tested].sum())
    if n_tested == 0:
        return AltTestFromCounts(
            winning_rate=np.nan,
            advantage_probability=np.nan,
            passed=False,
            n_annotators_tested=0,
            n_annotators_skipped=n_skipped,
            per_annotator=per,
            note=f"no annotator has at least {min_instances_per_human} instances",
        )
    return AltTestFromCounts(
        winning_rate=omega,
        advantage_probability=rho,
        passed=omega >= 0.5,
        n_annotators_tested=n_tested,
        n_annotators_skipped=n_skipped,
        per_annotator=per,
    )
