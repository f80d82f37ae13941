"""rater1001.stats.judge against hand-made cases and closed forms: the consistency rule on hand-made
verdict pairs, win rates as each group's brute-force count with Wilson's closed form."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.stats import judge as js
from test_stats_proportions import wilson_closed_form

# --- the consistency rule -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "verdict,order,expected",
    [
        ("1", "AB", "a"),
        ("2", "AB", "b"),
        ("1", "BA", "b"),
        ("2", "BA", "a"),
        ("tie", "BA", "tie"),
        (None, "AB", None),
    ],
)
def test_position_verdict_to_pair_verdict(verdict, order, expected):
    assert js.winner_of(verdict, order) == expected


def test_winner_of_rejects_unknown_values():
    with pytest.raises(ValueError, match="position verdict"):
        js.winner_of("3", "AB")


@pytest.mark.parametrize(
    "ab,ba,single_ok,expected",
    [
        ("a", "a", False, ("a", True)),
        ("b", "b", False, ("b", True)),
        ("tie", "tie", False, ("tie", True)),
        ("a", "b", False, ("tie", False)),  # the log's rule: orders disagree -> tie
        ("a", "tie", False, ("tie", False)),
        ("tie", "b", False, ("tie", False)),
        ("a", None, False, (None, None)),  # an LLM pair with one order missing is incomplete
        (None, "b", True, ("b", None)),  # a human shown one order: the verdict stands
        (None, None, True, (None, None)),
    ],
)
def test_consistent_verdict(ab, ba, single_ok, expected):
    r = js.consistent_verdict(ab, ba, single_order_ok=single_ok)
    assert (r.verdict, r.consistent) == expected


def _raw(rows):
    cols = [
        "judge_id",
        "judge_kind",
        "sample_id",
        "variant",
        "candidate_a",
        "candidate_b",
        "axis",
        "presentation_order",
        "position_verdict",
    ]
    return pd.DataFrame(rows, columns=cols)


def test_consolidate_orders_on_hand_made_pairs():
    raw = _raw(
        [
            # s1: K wins in both orders (shown 1st in AB, 2nd in BA) -> a, consistent
            ("j", "llm", "s1", "text", "K", "P", "overall", "AB", "1"),
            ("j", "llm", "s1", "text", "K", "P", "overall", "BA", "2"),
            # s2: the judge always picks position 1 -> inconsistent -> tie
            ("j", "llm", "s2", "text", "K", "P", "overall", "AB", "1"),
            ("j", "llm", "s2", "text", "K", "P", "overall", "BA", "1"),
            # s3: P wins both orders -> b
            ("j", "llm", "s3", "text", "K", "P", "overall", "AB", "2"),
            ("j", "llm", "s3", "text", "K", "P", "overall", "BA", "1"),
            # s4: BA not parsed -> incomplete
            ("j", "llm", "s4", "text", "K", "P", "overall", "AB", "1"),
            ("j", "llm", "s4", "text", "K", "P", "overall", "BA", None),
            # s5: a human shown BA only, chose position 1 = P
            ("h", "human", "s5", "text", "K", "P", "overall", "BA", "1"),
        ]
    )
    out = js.consolidate_orders(raw).set_index("sample_id")
    assert out.loc["s1", "final_verdict"] == "a" and out.loc["s1", "is_consistent"]
    assert out.loc["s2", "final_verdict"] == "tie" and not out.loc["s2", "is_consistent"]
    assert out.loc["s3", "final_verdict"] == "b" and out.loc["s3", "score_a"] == 0.0
    assert pd.isna(out.loc["s4", "final_verdict"]) and out.loc["s4", "n_orders_parsed"] == 1
    assert out.loc["s5", "final_verdict"] == "b" and pd.isna(out.loc["s5", "is_consistent"])
    assert list(out["score_a"].loc[["s1", "s2"]]) == [1.0, 0.5]


def test_consolidate_orders_rejects_duplicate_calls():
    raw = _raw([("j", "llm", "s1", "text", "K", "P", "overall", "AB", "1")] * 2)
    with pytest.raises(ValueError, match="more than one row"):
        js.consolidate_orders(raw)


# --- Wilson ---------------------------------------------------------------------------------------


def test_win_rate_counts_ties_as_half():
    s = js.win_rate_summary(pd.Series(["win"] * 3 + ["tie"] * 4 + ["loss"] * 3))
    assert (s.wins, s.ties, s.losses, s.n_pairs) == (3, 4, 3, 10)
    assert s.win_rate == pytest.approx(0.5)
    assert s.win_rate_ci_low < 0.5 < s.win_rate_ci_high
    assert math.isnan(js.win_rate_summary(pd.Series([], dtype=object)).win_rate)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["x", "y", "z"]), st.sampled_from(["win", "tie", "loss", None])),
        max_size=40,
    )
)
def test_win_rate_table_is_each_groups_brute_force_count_and_wilson(rows):
    """The whole-table route (outcome_counts + win_rate_summaries, one Wilson call) against
    counting each group by hand and Wilson's closed form."""
    frame = pd.DataFrame(rows, columns=["group", "outcome"], dtype=object)
    table = js.win_rate_summaries(js.outcome_counts(frame, ["group"]))
    assert list(table.index) == sorted({g for g, _ in rows})
    for group, got in table.iterrows():
        outcomes = [o for g, o in rows if g == group]
        wins, ties, losses = (outcomes.count(v) for v in ("win", "tie", "loss"))
        n, judged = len(outcomes), wins + ties + losses
        assert (got["wins"], got["ties"], got["losses"], got["n_pairs"]) == (wins, ties, losses, n)
        assert got["n_incomplete"] == n - judged
        assert got["win_rate"] == pytest.approx((wins + ties / 2) / n, abs=1e-15)
        if judged:
            assert got["win_rate_answered_only"] == pytest.approx((wins + ties / 2) / judged, abs=1e-15)
        else:
            assert math.isnan(got["win_rate_answered_only"])
        lo, hi = wilson_closed_form(wins + ties / 2, n)
        assert got["win_rate_ci_low"] == pytest.approx(lo, abs=1e-12)
        assert got["win_rate_ci_high"] == pytest.approx(hi, abs=1e-12)
        one = js.win_rate_summary(pd.Series(outcomes, dtype=object))  # the one-candidate route
        for field, value in vars(one).items():
            assert value == got[field] or (math.isnan(value) and math.isnan(got[field])), field


# --- Bradley-Terry --------------------------------------------------------------------------------


# --- bias checks ----------------------------------------------------------------------------------
