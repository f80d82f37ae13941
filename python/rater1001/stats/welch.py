"""Difference of two groups' means with Welch's unequal-variance t-test and interval (the judge's
score differences between groups of pairs)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class ScoreDifference:
    difference: float  # mean score of group 1 minus group 2
    ci_low: float
    ci_high: float
    p_value: float  # Welch's t-test
    note: str | None = None  # a degenerate case, said in words


def score_difference(scores_1, scores_2, alpha: float = 0.05) -> ScoreDifference:
    """Difference of two groups' mean pair scores with Welch's t-test and its interval.

    Parameters
    ----------
    scores_1, scores_2 : array_like
        Pair scores (1 win / 0.5 tie / 0 loss), so each mean is a win rate.
    alpha : float, default 0.05
        1 - confidence level.

    Returns
    -------
    ScoreDifference
        difference (mean 1 - mean 2), ci_low, ci_high, p_value (two-sided); NaN with fewer than
        two scores in a group, and no interval or p when neither group varies.

    Notes
    -----
    t = (m_1 - m_2) / sqrt(s_1^2 / n_1 + s_2^2 / n_2) on Welch-Satterthwaite df. The scores are
    three-valued, so a proportion test would treat a tie as a coin; scipy's ``ttest_ind``
    (``equal_var=False``) does the arithmetic.

    References
    ----------
    Welch (1947), "The generalization of 'Student's' problem when several different population
    variances are involved", Biometrika 34, 28-35; the lab log's pairwise judge study (docs/judge.md).

    Examples
    --------
    Means .625 and .375, both variances .6875 / 3, so t = .25 / sqrt(.6875 / 6) = .7385 on 6 df:

    >>> r = score_difference([1, 1, 0.5, 0], [0, 0, 0.5, 1])
    >>> r.difference, round(r.p_value, 4)
    (0.25, 0.4881)
    """
    a, b = np.asarray(scores_1, float), np.asarray(scores_2, float)
    out = ScoreDifference(difference=float("nan"), ci_low=float("nan"), ci_high=float("nan"), p_value=float("nan"))
    if len(a) < 2 or len(b) < 2:
        return out
    out = replace(out, difference=float(a.mean() - b.mean()))
    if a.var(ddof=1) + b.var(ddof=1) == 0:
        return replace(out, note="no spread in either group (every score equal): no interval, no test")
    constant = [k for k, g in ((1, a), (2, b)) if np.ptp(g) == 0]
    with warnings.catch_warnings():
        # scipy warns of precision loss for a group whose values are all equal; its variance is
        # exactly 0 then and the test stands on the other group's variance, as Welch's formula says
        warnings.filterwarnings("ignore", "Precision loss occurred in moment calculation", RuntimeWarning)
        res = stats.ttest_ind(a, b, equal_var=False)
    ci = res.confidence_interval(1 - alpha)
    note = (
        f"group {constant[0]}'s scores are all equal ({(a if constant[0] == 1 else b)[0]:g}): its variance is 0 and "
        "the interval rests on the other group's variance"
        if constant
        else None
    )
    return replace(out, ci_low=float(ci.low), ci_high=float(ci.high), p_value=float(res.pvalue), note=note)
