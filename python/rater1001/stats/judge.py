"""Statistics of the pairwise judge (the lab log's protocol). Pure functions on frames.

Conventions. A pair is (candidate_a, candidate_b); `order` AB shows candidate_a as 응답 1, BA shows
candidate_b as 응답 1. A judge writes a *position* verdict ("1", "2", "tie"); `winner_of` turns it
into a *pair* verdict "a", "b" or "tie". The consistency rule of the log (Bias 1): when both orders
were judged, equal pair verdicts stand and unequal ones become a tie (and count as inconsistent).
A win rate counts a tie as half a win (Wilson intervals: stats.proportions). The judge's other
statistics have their own families: stats.bradley_terry (Davidson ties), stats.proportions
(position bias), stats.logistic (verbosity), stats.welch (score differences), stats.kappa.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .proportions import wilson_intervals

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
