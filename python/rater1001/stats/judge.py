"""Statistics of the pairwise judge (the lab log's protocol). Pure functions on frames.

Conventions. A pair is (candidate_a, candidate_b); `order` AB shows candidate_a as 응답 1, BA shows
candidate_b as 응답 1. A judge writes a *position* verdict ("1", "2", "tie"); `winner_of` turns it
into a *pair* verdict "a", "b" or "tie". The consistency rule of the log (Bias 1): when both orders
were judged, equal pair verdicts stand and unequal ones become a tie (and count as inconsistent).
A win rate counts a tie as half a win. Bradley-Terry handles ties with Davidson's (1970) model, not
half-wins: a tie is its own outcome with probability nu*sqrt(pi_i pi_j)/(pi_i + pi_j + nu*sqrt(pi_i pi_j)).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import optimize, stats

from .classification import count_table, kappa_from_tables
from .fits import GRADIENT_TOLERANCE, central_gradient, optimiser_warnings_recorded_by_the_caller

PAIR_VERDICTS = ("a", "b", "tie")
SCORE = {"a": 1.0, "tie": 0.5, "b": 0.0}


# --- the consistency rule -------------------------------------------------------------------------


def winner_of(position_verdict: str | None, order: str) -> str | None:
    """The pair verdict ("a" / "b" / "tie") of a position verdict in its presentation order.

    Parameters
    ----------
    position_verdict : str or None
        "1", "2" or "tie" as the judge wrote it; None / NaN when it did not parse.
    order : str
        "AB" (candidate_a shown as response 1) or "BA".

    Returns
    -------
    str or None
        "a", "b" or "tie"; None for a missing verdict.

    Notes
    -----
    Response 1 is candidate_a in order AB and candidate_b in order BA; a tie stays a tie.

    References
    ----------
    The lab log's pairwise judge study, "Bias 1" (position); docs/judge.md.

    Examples
    --------
    >>> winner_of("1", "AB"), winner_of("1", "BA"), winner_of("tie", "BA"), winner_of(None, "AB")
    ('a', 'b', 'tie', None)
    """
    if position_verdict is None or pd.isna(position_verdict):
        return None
    if position_verdict == "tie":
        return "tie"
    if order not in ("AB", "BA"):
        raise ValueError(f"order must be AB or BA, got {order!r}")
    first, second = ("a", "b") if order == "AB" else ("b", "a")
    if position_verdict == "1":
        return first
    if position_verdict == "2":
        return second
    raise ValueError(f"position verdict must be '1', '2' or 'tie', got {position_verdict!r}")


@dataclass(frozen=True)
class PairVerdict:
    verdict: str | None  # "a" / "b" / "tie"; None when the pair is incomplete
    consistent: bool | None  # did the two orders agree; None unless both are present


def consistent_verdict(winner_ab: str | None, winner_ba: str | None, *, single_order_ok: bool = False) -> PairVerdict:
    """The final pair verdict from the two orders' pair verdicts, and whether they agreed.

    Parameters
    ----------
    winner_ab, winner_ba : str or None
        Pair verdicts ("a" / "b" / "tie") of the two presentation orders; None when missing.
    single_order_ok : bool, default False
        True for a judge shown one order by design (a human): one verdict then stands alone.

    Returns
    -------
    PairVerdict
        verdict and consistent. Both present: equal -> that verdict (True), else "tie" (False).
        One present: the pair is incomplete -> (None, None), unless ``single_order_ok`` -> (that
        verdict, None). None present -> (None, None).

    Notes
    -----
    The log's consistency rule against position bias: a verdict that flips with the order is no
    preference, so it counts as a tie and as inconsistent.

    References
    ----------
    The lab log's pairwise judge study, "Bias 1"; Zheng et al. (2023), "Judging LLM-as-a-Judge
    with MT-Bench and Chatbot Arena", NeurIPS, section 3.3 (swap positions, inconsistent = tie);
    docs/judge.md.

    Examples
    --------
    >>> consistent_verdict("a", "a"), consistent_verdict("a", "b")
    (PairVerdict(verdict='a', consistent=True), PairVerdict(verdict='tie', consistent=False))
    >>> consistent_verdict("a", None), consistent_verdict(None, "b", single_order_ok=True)
    (PairVerdict(verdict=None, consistent=None), PairVerdict(verdict='b', consistent=None))
    """
    if winner_ab is not None and winner_ba is not None:
        return PairVerdict(winner_ab, True) if winner_ab == winner_ba else PairVerdict("tie", False)
    single = winner_ab if winner_ab is not None else winner_ba
    if single is not None and single_order_ok:
        return PairVerdict(single, None)
    return PairVerdict(None, None)


def consolidate_orders(verdicts: pd.DataFrame) -> pd.DataFrame:
    """One row per (judge, sample, variant, pair, axis) from the raw verdicts of both orders.

    Parameters
    ----------
    verdicts : pandas.DataFrame
        Long raw verdicts: judge_id, judge_kind, sample_id, variant, candidate_a, candidate_b,
        axis, presentation_order, position_verdict (at most one row per key and order), and
        optionally single_order_ok (True where one order's verdict stands alone; without the
        column, a human's does and an LLM's does not).

    Returns
    -------
    pandas.DataFrame
        The keys plus winner_ab, winner_ba (:func:`winner_of`), n_orders_parsed, is_consistent,
        final_verdict ("a" / "b" / "tie", None when incomplete; :func:`consistent_verdict`, a
        single order standing alone where single_order_ok) and score_a (1 / 0.5 / 0).

    Notes
    -----
    score_a = 1[final = a] + 1/2 1[final = tie], so the mean of score_a over pairs is candidate
    a's win rate with ties as half wins.

    References
    ----------
    The lab log's pairwise judge study, "Bias 1"; docs/judge.md.

    Examples
    --------
    Sample s1: "1" in order AB and "2" in order BA both pick candidate a; s2: "1" in both orders
    picks the first shown, a then b, which is a position preference, so a tie:

    >>> import pandas as pd
    >>> v = pd.DataFrame({"judge_id": "j", "judge_kind": "llm", "sample_id": ["s1", "s1", "s2", "s2"],
    ...                   "variant": "v", "candidate_a": "P", "candidate_b": "K", "axis": "overall",
    ...                   "presentation_order": ["AB", "BA", "AB", "BA"], "position_verdict": ["1", "2", "1", "1"]})
    >>> out = consolidate_orders(v)
    >>> out["final_verdict"].tolist(), out["is_consistent"].tolist(), out["score_a"].tolist()
    (['a', 'tie'], [True, False], [1.0, 0.5])
    """
    keys = ["judge_id", "judge_kind", "sample_id", "variant", "candidate_a", "candidate_b", "axis"]
    out_cols = keys + ["winner_ab", "winner_ba", "n_orders_parsed", "is_consistent", "final_verdict", "score_a"]
    if verdicts.empty:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in out_cols}).astype(
            {"n_orders_parsed": "int64", "score_a": "float64"}
        )
    v = verdicts.copy()
    v["winner"] = [winner_of(p, o) for p, o in zip(v["position_verdict"], v["presentation_order"])]
    dup = v.duplicated(keys + ["presentation_order"])
    if dup.any():
        r = v[dup].iloc[0]
        raise ValueError(f"verdicts: more than one row for {dict(r[keys + ['presentation_order']])}")
    wide = v.set_index(keys + ["presentation_order"])["winner"].unstack("presentation_order")
    wide = wide.reindex(columns=["AB", "BA"]).reset_index()
    wide = wide.rename(columns={"AB": "winner_ab", "BA": "winner_ba"})
    for col in ("winner_ab", "winner_ba"):
        wide[col] = pd.Series([None if pd.isna(w) else w for w in wide[col]], index=wide.index, dtype="object")
    # a human's single order stands; so does any judge's where the study declares one order per pair
    if "single_order_ok" in v:
        alone = v.groupby(keys, sort=False)["single_order_ok"].any()
        single_ok = alone.reindex(pd.MultiIndex.from_frame(wide[keys])).fillna(False).to_numpy(bool)
    else:
        single_ok = (wide["judge_kind"] == "human").to_numpy(bool)
    finals = [
        consistent_verdict(ab, ba, single_order_ok=bool(ok))
        for ab, ba, ok in zip(wide["winner_ab"], wide["winner_ba"], single_ok)
    ]
    wide["n_orders_parsed"] = wide[["winner_ab", "winner_ba"]].notna().sum(axis=1).astype("int64")
    wide["final_verdict"] = [f.verdict for f in finals]
    wide["is_consistent"] = pd.array([f.consistent for f in finals], dtype="boolean")
    wide["score_a"] = wide["final_verdict"].map(SCORE).astype("float64")
    wide.columns.name = None
    return wide[out_cols].reset_index(drop=True)


# --- win rates ------------------------------------------------------------------------------------


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
class WinRateSummary:
    wins: int
    ties: int
    losses: int
    n_pairs: int  # judged pairs and pairs without a verdict
    win_rate: float  # (wins + ties / 2) / n_pairs; NaN without pairs
    win_rate_ci_low: float
    win_rate_ci_high: float
    n_incomplete: int  # pairs without a verdict, counted against the candidate
    win_rate_answered_only: float


def win_rate_summary(outcomes: pd.Series, alpha: float = 0.05) -> WinRateSummary:
    """Win / tie / loss counts of one candidate, its win rate with ties as half wins, and its
    Wilson interval.

    Parameters
    ----------
    outcomes : pandas.Series
        "win", "tie" or "loss" per pair; None / NaN where no verdict came back (a call failed or
        did not parse).
    alpha : float, default 0.05
        1 - confidence level of the interval.

    Returns
    -------
    WinRateSummary
        wins, ties, losses, n_pairs (missing included), win_rate, win_rate_ci_low,
        win_rate_ci_high (:func:`wilson_interval`), n_incomplete, win_rate_answered_only.

    Notes
    -----
    win_rate = (wins + ties / 2) / n_pairs. A missing verdict counts against the candidate (the
    tool's missing-answer policy, docs/stats.md): it is in n_pairs and adds no win;
    win_rate_answered_only divides by the judged pairs only.

    References
    ----------
    The lab log's pairwise judge study (docs/judge.md); Wilson (1927).

    Examples
    --------
    Two wins, a tie, a loss and a missing verdict: 2.5 / 5 = .5, and 2.5 / 4 over the answered:

    >>> import pandas as pd
    >>> r = win_rate_summary(pd.Series(["win", "win", "tie", "loss", None]))
    >>> r.n_pairs, r.win_rate, r.win_rate_answered_only, r.n_incomplete
    (5, 0.5, 0.625, 1)
    """
    counts = outcome_counts(pd.DataFrame({"outcome": outcomes, "_": 0}), ["_"]).reindex([0], fill_value=0)
    table = win_rate_summaries(counts, alpha)
    return WinRateSummary(**{f: table[f].iloc[0].item() for f in WIN_RATE_FIELDS})


WIN_RATE_FIELDS = tuple(WinRateSummary.__dataclass_fields__)
OUTCOME_COUNTS = {"wins": "win", "ties": "tie", "losses": "loss"}


def outcome_counts(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Wins, ties, losses and pairs without a verdict per group.

    Parameters
    ----------
    rows : pandas.DataFrame
        One row per candidate pair: "outcome" ('win', 'tie', 'loss' or missing) and the `keys`.
    keys : list of str
        The grouping columns (candidate, scope, ...).

    Returns
    -------
    pandas.DataFrame
        Indexed by `keys` (sorted; a missing key is its own group): wins, ties, losses and
        n_incomplete, the input of :func:`win_rate_summaries`.

    Notes
    -----
    One groupby sum of indicator columns instead of a count per group and outcome; a pair without
    a verdict is counted, not dropped, because :func:`win_rate_summary` counts it against the
    candidate.

    References
    ----------
    The lab log's pairwise judge study (win rates with ties as half wins; docs/judge.md).

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"outcome": ["win", "tie", None, "loss"], "candidate": ["a", "a", "a", "b"]})
    >>> outcome_counts(rows, ["candidate"]).reset_index().values.tolist()
    [['a', 1, 1, 0, 1], ['b', 0, 0, 1, 0]]
    """
    outcome = rows["outcome"].astype(object)
    flags = pd.DataFrame({c: outcome.eq(v).to_numpy(int) for c, v in OUTCOME_COUNTS.items()}, index=rows.index)
    flags["n_incomplete"] = outcome.isna().to_numpy(int)
    return flags.groupby([rows[k] for k in keys], dropna=False, sort=True).sum()


def win_rate_summaries(counts: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """:func:`win_rate_summary` of every row of a table of outcome counts.

    Parameters
    ----------
    counts : pandas.DataFrame
        wins, ties, losses and n_incomplete per candidate and scope, as :func:`outcome_counts`
        gives them.
    alpha : float, default 0.05
        1 - confidence level of the Wilson interval.

    Returns
    -------
    pandas.DataFrame
        The WinRateSummary fields as columns, with `counts`' index.

    Notes
    -----
    win_rate = (wins + ties / 2) / n_pairs with n_pairs = wins + ties + losses + n_incomplete;
    win_rate_answered_only leaves the pairs without a verdict out; the interval is Wilson's on the
    half-win count (:func:`wilson_intervals`, one call for the table).

    References
    ----------
    Wilson (1927), "Probable inference, the law of succession, and statistical inference", JASA
    22(158), 209-212; the lab log's pairwise judge study (docs/judge.md).

    Examples
    --------
    Two wins, a tie, a loss and a missing verdict, as in :func:`win_rate_summary`:

    >>> import pandas as pd
    >>> counts = pd.DataFrame({"wins": [2], "ties": [1], "losses": [1], "n_incomplete": [1]})
    >>> r = win_rate_summaries(counts).iloc[0]
    >>> int(r.n_pairs), float(r.win_rate), float(r.win_rate_answered_only)
    (5, 0.5, 0.625)
    """
    wins, ties, losses, missing = (counts[c].to_numpy(int) for c in ("wins", "ties", "losses", "n_incomplete"))
    judged = wins + ties + losses
    n = judged + missing
    half_wins = wins + 0.5 * ties
    lo, hi = wilson_intervals(half_wins, n, alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        return pd.DataFrame(
            {
                "wins": wins,
                "ties": ties,
                "losses": losses,
                "n_pairs": n,
                "win_rate": np.where(n > 0, half_wins / np.where(n > 0, n, 1), np.nan),
                "win_rate_ci_low": lo,
                "win_rate_ci_high": hi,
                "n_incomplete": missing,
                "win_rate_answered_only": np.where(judged > 0, half_wins / np.where(judged > 0, judged, 1), np.nan),
            },
            index=counts.index,
        )


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


# --- Bradley-Terry with Davidson ties -------------------------------------------------------------


@dataclass(frozen=True)
class BradleyTerryFit:
    strengths: pd.DataFrame  # item, log_strength, se, ci_low, ci_high, n_comparisons, note
    tie_parameter: float  # Davidson's nu (0 when the data hold no ties)
    log_likelihood: float
    reference: str
    converged: bool = True  # False: every estimate but the reference's is NULL with the reason as note


def _davidson_negloglik(params, i_idx, j_idx, w_i, w_j, t, free_mask, with_ties):
    n_items = free_mask.size
    theta = np.zeros(n_items)
    theta[free_mask] = params[: free_mask.sum()]
    log_nu = params[-1] if with_ties else -np.inf
    ti, tj = theta[i_idx], theta[j_idx]
    tie_term = log_nu + 0.5 * (ti + tj)
    log_denom = np.logaddexp(np.logaddexp(ti, tj), tie_term) if with_ties else np.logaddexp(ti, tj)
    ll = w_i * (ti - log_denom) + w_j * (tj - log_denom)
    if with_ties:
        ll = ll + t * (tie_term - log_denom)
    return -ll.sum()


def _wins_losses_ties(comparisons: pd.DataFrame, items) -> dict[str, tuple[int, int, int]]:
    """(wins, losses, ties) of each of `items` over the comparisons, in one pass over the rows."""
    score = {it: [0, 0, 0] for it in items}
    for a, b, outcome in zip(comparisons["item_i"], comparisons["item_j"], comparisons["outcome"]):
        if outcome == "i":
            winner, loser = a, b
        elif outcome == "j":
            winner, loser = b, a
        elif outcome == "tie":
            for it in (a, b):  # a self-comparison's tie counts on both sides, as it does in the fit
                if it in score:
                    score[it][2] += 1
            continue
        else:
            continue
        if winner in score:
            score[winner][0] += 1
        if loser in score:
            score[loser][1] += 1
    return {it: tuple(v) for it, v in score.items()}


def bradley_terry_davidson(comparisons: pd.DataFrame, reference: str, alpha: float = 0.05) -> BradleyTerryFit:
    """Maximum-likelihood Bradley-Terry strengths with Davidson ties.

    Parameters
    ----------
    comparisons : pandas.DataFrame
        One row per comparison: item_i, item_j, outcome in {"i", "j", "tie"}.
    reference : str
        The item whose log strength is fixed at 0.
    alpha : float, default 0.05
        1 - confidence level of the Wald intervals.

    Returns
    -------
    BradleyTerryFit
        strengths (item, log_strength relative to the reference, se, ci_low, ci_high,
        n_comparisons, note), tie_parameter (nu; 0 without ties), log_likelihood, reference,
        converged. Items whose strength is not finite (no wins and no ties, or no losses and no
        ties: perfect separation) or that are not connected to the reference are left out of the
        fit with a note and NULL strength; a fit that does not converge has NULL estimates.

    Notes
    -----
    P(i beats j) = pi_i / D, P(tie) = nu sqrt(pi_i pi_j) / D, D = pi_i + pi_j + nu sqrt(pi_i pi_j),
    maximised over log pi (BFGS); se from the inverse observed information. With two items the
    model is saturated: log(pi_i / pi_j) = log(W / L), nu = T / sqrt(W L) and
    se = sqrt(1 / W + 1 / L).

    References
    ----------
    Bradley & Terry (1952), "Rank analysis of incomplete block designs", Biometrika 39, 324-345;
    Davidson (1970), "On extending the Bradley-Terry model to accommodate ties in paired comparison
    experiments", JASA 65(329), 317-328; the lab log's pairwise judge study (docs/judge.md).

    Examples
    --------
    A beats B 4 times, loses once, ties twice: log strength log 4 = 1.386294, se sqrt(1/4 + 1) =
    1.118034, nu = 2 / sqrt(4) = 1:

    >>> import pandas as pd
    >>> c = pd.DataFrame({"item_i": "A", "item_j": "B", "outcome": ["i"] * 4 + ["j"] + ["tie"] * 2})
    >>> fit = bradley_terry_davidson(c, reference="B")
    >>> a = fit.strengths.set_index("item").loc["A"]
    >>> round(float(a["log_strength"]), 5), round(float(a["se"]), 5), round(fit.tie_parameter, 5)
    (1.38629, 1.11803, 1.0)
    """
    items_all = sorted(set(comparisons["item_i"]) | set(comparisons["item_j"]) | {reference})
    notes: dict[str, str] = {}
    data = comparisons[["item_i", "item_j", "outcome"]].astype(object)  # plain objects: looped over below
    data["outcome"] = data["outcome"].where(data["outcome"].notna(), None)  # no pd.NA in comparisons
    while True:
        score = _wins_losses_ties(data, (it for it in items_all if it not in notes))
        bad = [
            it
            for it, (w, l, t) in score.items()
            if it != reference and (w + l + t == 0 or (t == 0 and (w == 0 or l == 0)))
        ]
        if not bad:
            break
        for it in bad:
            w, l, t = score[it]
            notes[it] = (
                "no comparisons"
                if w + l + t == 0
                else "not finite: no wins and no ties"
                if w == 0
                else "not finite: no losses and no ties"
            )
        data = data[~data["item_i"].isin(bad) & ~data["item_j"].isin(bad)]
    # Connectivity to the reference (otherwise the strengths are not identified).
    neighbours: dict[str, set] = {}
    for a, b in zip(data["item_i"], data["item_j"]):
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    reach, frontier = {reference}, [reference]
    while frontier:
        for y in neighbours.get(frontier.pop(), ()):
            if y not in reach:
                reach.add(y)
                frontier.append(y)
    for it in items_all:
        if it not in reach and it not in notes:
            notes[it] = "not connected to the reference"
    data = data[data["item_i"].isin(reach) & data["item_j"].isin(reach)]
    items = [it for it in items_all if it in reach]

    index = {it: k for k, it in enumerate(items)}
    # outcomes per ordered pair (item_i, item_j), pairs in sorted order: the sum in the likelihood
    # runs in this order
    per_pair: dict[tuple, list[int]] = {}
    for a, b, outcome in zip(data["item_i"], data["item_j"], data["outcome"]):
        if pd.isna(a) or pd.isna(b):
            continue
        counts = per_pair.setdefault((a, b), [0, 0, 0])
        for k, kind in enumerate(("i", "j", "tie")):
            counts[k] += outcome == kind
    pairs = sorted(per_pair)
    i_idx = np.array([index[a] for a, _ in pairs], dtype=int)
    j_idx = np.array([index[b] for _, b in pairs], dtype=int)
    w_i, w_j, t = np.array([per_pair[p] for p in pairs], dtype=float).reshape(-1, 3).T
    free_mask = np.array([it != reference for it in items])
    with_ties = bool(t.sum() > 0)
    n_params = int(free_mask.sum()) + (1 if with_ties else 0)
    n_by_item = dict.fromkeys(items_all, 0)
    for a, b in zip(data["item_i"], data["item_j"]):
        n_by_item[a] += 1
        n_by_item[b] += a != b

    theta = np.zeros(len(items))
    cov = np.zeros((0, 0))
    nu, loglik = 0.0, float("nan")
    converged = True
    if n_params > 0 and len(data):
        args = (i_idx, j_idx, w_i, w_j, t, free_mask, with_ties)
        with optimiser_warnings_recorded_by_the_caller():
            res = optimize.minimize(
                _davidson_negloglik,
                np.zeros(n_params),
                args=args,
                method="BFGS",
                options={"gtol": 1e-10, "maxiter": 10_000},
            )
        # gtol 1e-10 is rarely met exactly ("precision loss" at the optimum); the gradient decides.
        gradient = np.max(np.abs(central_gradient(lambda p: _davidson_negloglik(p, *args), res.x)))
        if not (res.success or gradient < GRADIENT_TOLERANCE):
            for it in items:
                if it != reference:
                    notes[it] = (
                        f"not estimated: the fit did not converge ({res.message}; largest gradient {gradient:.2g})"
                    )
            converged = False
        import statsmodels.tools.numdiff as nd

        hess = nd.approx_hess3(res.x, lambda p: _davidson_negloglik(p, *args))
        cov = np.linalg.pinv(hess)
        theta[free_mask] = res.x[: free_mask.sum()]
        nu = float(np.exp(res.x[-1])) if with_ties else 0.0
        loglik = -float(res.fun)
    z = stats.norm.ppf(1 - alpha / 2)
    free_pos = {it: k for k, it in enumerate(it for it in items if it != reference)}
    rows = []
    for it in items_all:
        if it in notes:
            rows.append((it, np.nan, np.nan, np.nan, np.nan, n_by_item[it], notes[it]))
            continue
        est = float(theta[index[it]])
        if it == reference:
            rows.append((it, 0.0, 0.0, 0.0, 0.0, n_by_item[it], "reference (fixed at 0)"))
            continue
        se = float(np.sqrt(max(cov[free_pos[it], free_pos[it]], 0.0))) if cov.size else np.nan
        rows.append((it, est, se, est - z * se, est + z * se, n_by_item[it], None))
    table = pd.DataFrame(rows, columns=["item", "log_strength", "se", "ci_low", "ci_high", "n_comparisons", "note"])
    if not converged:
        nu, loglik = float("nan"), float("nan")
    return BradleyTerryFit(table, nu, loglik, reference, converged)


def comparison_components(comparisons: pd.DataFrame) -> list[list[str]]:
    """The connected components of a comparison graph, largest first.

    Parameters
    ----------
    comparisons : pandas.DataFrame
        One row per comparison: item_i, item_j (the outcome is not read).

    Returns
    -------
    list of list of str
        Each component's items, sorted; components ordered by size (descending), then by their
        first item.

    Notes
    -----
    Bradley-Terry strengths are identified up to one constant per component: items of two
    components were never compared, directly or through others, so their strengths cannot be put
    on one scale. scipy's ``connected_components`` on the undirected adjacency matrix.

    References
    ----------
    Ford (1957), "Solution of a ranking problem from binary comparisons", American Mathematical
    Monthly 64(8), 28-33 (the connectivity condition for a unique maximum).

    Examples
    --------
    >>> import pandas as pd
    >>> c = pd.DataFrame({"item_i": ["A", "B", "X"], "item_j": ["B", "C", "Y"]})
    >>> comparison_components(c)
    [['A', 'B', 'C'], ['X', 'Y']]
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    items = sorted(set(comparisons["item_i"]) | set(comparisons["item_j"]))
    if not items:
        return []
    index = {it: k for k, it in enumerate(items)}
    i = np.array([index[a] for a in comparisons["item_i"]], dtype=int)
    j = np.array([index[b] for b in comparisons["item_j"]], dtype=int)
    graph = coo_matrix((np.ones(len(i)), (i, j)), shape=(len(items), len(items)))
    _, label = connected_components(graph, directed=False)
    groups: dict[int, list[str]] = {}
    for it, lab in zip(items, label):
        groups.setdefault(int(lab), []).append(it)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0]))


# --- bias checks ----------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class LogisticSlope:
    intercept: float
    slope: float
    slope_se: float
    p_value: float  # Wald test of the slope
    ci_low: float  # Wald 95% interval of the slope
    ci_high: float
    n: int
    converged: bool
    note: str | None  # why the estimates are NaN, else None


def logistic_slope(y: np.ndarray, x: np.ndarray, covariates: np.ndarray | None = None) -> LogisticSlope:
    """Slope of a logistic regression y ~ 1 + x (+ covariates), by maximum likelihood.

    Parameters
    ----------
    y : array_like
        Binary outcome (0 / 1).
    x : array_like
        The predictor whose slope is reported (the verbosity check: a length difference).
    covariates : array_like, optional
        Further columns of the design (one per column).

    Returns
    -------
    LogisticSlope
        intercept, slope, slope_se, p_value (Wald), ci_low, ci_high (95%), n, converged, note.
        NaN with the reason in ``note`` when y does not vary, x is constant, the design is
        singular, or Newton's method did not converge (typically (quasi-)separation).

    Notes
    -----
    logit P(y = 1) = b0 + b1 x (+ c' covariates); statsmodels ``Logit`` (Newton, 200 iterations).
    For a binary x alone the slope is the log odds ratio of the 2 x 2 table, with
    se = sqrt(1/a + 1/b + 1/c + 1/d).

    References
    ----------
    The lab log's pairwise judge study, "Bias 2" (verbosity); Agresti (2013), *Categorical Data
    Analysis*, 3rd ed., section 5.1; docs/judge.md.

    Examples
    --------
    x = 0: one success in three (odds 1/2); x = 1: two in three (odds 2): slope log 4, intercept
    log 1/2, se sqrt(1 + 1/2 + 1/2 + 1) = sqrt 3:

    >>> import numpy as np
    >>> r = logistic_slope(np.array([1, 0, 0, 1, 1, 0]), np.array([0, 0, 0, 1, 1, 1]))
    >>> round(r.slope, 6), round(r.intercept, 6), round(r.slope_se ** 2, 6)
    (1.386294, -0.693147, 3.0)
    """
    # Not statsmodels.api: it also imports the time-series, graphics and other model packages (~0.3 s
    # of CPU per process that fits nothing else from them).
    from statsmodels.discrete.discrete_model import Logit

    y = np.asarray(y, float)
    x = np.asarray(x, float)

    def nan(reason: str, converged: bool = False) -> LogisticSlope:
        return LogisticSlope(
            intercept=np.nan,
            slope=np.nan,
            slope_se=np.nan,
            p_value=np.nan,
            ci_low=np.nan,
            ci_high=np.nan,
            n=int(y.size),
            converged=converged,
            note=reason,
        )

    if y.size < 3 or np.unique(y).size < 2 or np.unique(x).size < 2:
        return nan("not estimated: fewer than 3 rows, or the outcome or the predictor does not vary")
    cols = [np.ones_like(x), x] + ([] if covariates is None else list(np.atleast_2d(np.asarray(covariates, float).T)))
    X = np.column_stack(cols)
    try:
        with optimiser_warnings_recorded_by_the_caller(), np.errstate(all="ignore"):
            fit = Logit(y, X).fit(disp=0, maxiter=200)
    except Exception as exc:  # noqa: BLE001 - perfect separation or a singular design: no estimate
        return nan(f"not estimated: {type(exc).__name__}: {exc}")
    if not fit.mle_retvals.get("converged", False):
        return nan(
            f"not estimated: the logistic fit did not converge in {fit.mle_retvals.get('iterations')} "
            "Newton iterations (the outcome is (almost) separated by the predictors)"
        )
    lo, hi = fit.conf_int()[1]
    return LogisticSlope(
        intercept=float(fit.params[0]),
        slope=float(fit.params[1]),
        slope_se=float(fit.bse[1]),
        p_value=float(fit.pvalues[1]),
        ci_low=float(lo),
        ci_high=float(hi),
        n=int(y.size),
        converged=True,
        note=None,
    )


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
    (:func:`rater1001.stats.classification.kappa_from_tables` of the two judges' count table).

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
