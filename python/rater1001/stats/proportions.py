"""Proportions: Wilson score intervals (one or a table at once, statsmodels' ``proportion_confint``)
and the exact binomial test of a share against 1/2 (scipy's ``binomtest``), as the judge's win
rates and position-bias check use them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class ProportionInterval:
    lo: float  # NaN without trials
    hi: float


def wilson_interval(successes: float, n: float, alpha: float = 0.05) -> ProportionInterval:
    """Wilson score interval of a proportion.

    Parameters
    ----------
    successes : float
        Successes; may be fractional (ties as half wins).
    n : float
        Trials.
    alpha : float, default 0.05
        1 - confidence level.

    Returns
    -------
    ProportionInterval
        lo and hi; both NaN when n is 0.

    Notes
    -----
    With p = successes / n and z = Phi^-1(1 - alpha / 2):
    (p + z^2 / 2n +- z sqrt(p (1 - p) / n + z^2 / 4n^2)) / (1 + z^2 / n). statsmodels'
    ``proportion_confint(method="wilson")`` does the arithmetic.

    References
    ----------
    Wilson (1927), "Probable inference, the law of succession, and statistical inference", JASA
    22(158), 209-212; the lab log's pairwise judge study (docs/judge.md).

    Examples
    --------
    8 of 10: centre (0.8 + 0.19208) / 1.38416 = 0.71673, half-width
    1.96 x sqrt(0.016 + 0.00960) / 1.38416 = 0.22658:

    >>> r = wilson_interval(8, 10)
    >>> round(r.lo, 4), round(r.hi, 4)
    (0.4902, 0.9433)
    """
    lo, hi = wilson_intervals(np.array([successes], float), np.array([n], float), alpha)
    return ProportionInterval(float(lo[0]), float(hi[0]))


def wilson_intervals(successes: np.ndarray, n: np.ndarray, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """:func:`wilson_interval` of many proportions at once.

    Parameters
    ----------
    successes : numpy.ndarray
        Successes per proportion; may be fractional (ties as half wins).
    n : numpy.ndarray
        Trials per proportion, same shape.
    alpha : float, default 0.05
        1 - confidence level.

    Returns
    -------
    tuple of numpy.ndarray
        (lo, hi), elementwise; NaN where n is 0.

    Notes
    -----
    The arithmetic of :func:`wilson_interval`, in one statsmodels ``proportion_confint(method=
    "wilson")`` call for a whole table instead of one call per group.

    References
    ----------
    Wilson (1927), "Probable inference, the law of succession, and statistical inference", JASA
    22(158), 209-212; the lab log's pairwise judge study (docs/judge.md).

    Examples
    --------
    8 of 10 as in :func:`wilson_interval`, and a group without trials:

    >>> import numpy as np
    >>> lo, hi = wilson_intervals(np.array([8.0, 0.0]), np.array([10.0, 0.0]))
    >>> np.round(lo, 4).tolist(), np.round(hi, 4).tolist()
    ([0.4902, nan], [0.9433, nan])
    """
    from statsmodels.stats.proportion import proportion_confint

    successes, n = np.asarray(successes, float), np.asarray(n, float)
    some = n > 0
    lo, hi = np.full(n.shape, np.nan), np.full(n.shape, np.nan)
    if some.any():
        lo[some], hi[some] = proportion_confint(successes[some], n[some], alpha=alpha, method="wilson")
    return lo, hi


@dataclass(frozen=True)
class PositionBiasTest:
    share_first: float  # share of decisive verdicts choosing the response shown first
    n_decisive: int
    p_value: float  # exact two-sided binomial test of 0.5
    ci_low: float  # Wilson 95% interval of share_first
    ci_high: float


def position_bias_test(first_wins: int, second_wins: int) -> PositionBiasTest:
    """Share of decisive verdicts that chose the response shown first, with the exact binomial test.

    Parameters
    ----------
    first_wins, second_wins : int
        Decisive single-order verdicts for the response shown first / second (ties left out).

    Returns
    -------
    PositionBiasTest
        share_first, n_decisive, p_value (exact two-sided binomial test of 1/2, no position bias),
        ci_low, ci_high (Wilson 95%); NaN without decisive verdicts.

    Notes
    -----
    p = sum of Binom(n, 1/2) probabilities no larger than that of the observed count (scipy's
    ``binomtest``); for a symmetric null that is 2 P(X >= max(k, n - k)).

    References
    ----------
    The lab log's pairwise judge study, "Bias 1"; Zheng et al. (2023), "Judging LLM-as-a-Judge
    with MT-Bench and Chatbot Arena", section 3.3; docs/judge.md.

    Examples
    --------
    9 of 10 for the first shown: p = 2 (C(10, 9) + C(10, 10)) / 2^10 = 22 / 1024:

    >>> r = position_bias_test(9, 1)
    >>> r.share_first, r.p_value, 22 / 1024
    (0.9, 0.021484375, 0.021484375)
    """
    n = int(first_wins) + int(second_wins)
    if n == 0:
        return PositionBiasTest(
            share_first=float("nan"), n_decisive=0, p_value=float("nan"), ci_low=float("nan"), ci_high=float("nan")
        )
    res = stats.binomtest(int(first_wins), n, 0.5, alternative="two-sided")
    ci = res.proportion_ci(confidence_level=0.95, method="wilson")
    return PositionBiasTest(
        share_first=first_wins / n,
        n_decisive=n,
        p_value=float(res.pvalue),
        ci_low=float(ci.low),
        ci_high=float(ci.high),
    )
