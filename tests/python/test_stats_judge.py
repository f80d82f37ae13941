"""rater1001.stats.judge against hand-made cases, closed forms and reference fits: the consistency
rule on hand-made verdict pairs, Wilson's closed form, Davidson's two-player closed form,
Bradley-Terry without ties = logistic regression (statsmodels), parameter recovery with ties, the
exact binomial tail, and Cohen's kappa on a textbook 2x2 table."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.stats import bradley_terry, kappa, logistic, proportions, welch
from rater1001.stats import judge as js
from scipy import stats

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


@pytest.mark.parametrize("k,n", [(13.5, 20), (0, 7), (7, 7), (120.5, 224)])
def test_wilson_interval_closed_form(k, n):
    lo, hi = _wilson_closed_form(k, n)
    ci = proportions.wilson_interval(k, n)
    assert ci.lo == pytest.approx(lo, abs=1e-12) and ci.hi == pytest.approx(hi, abs=1e-12)


def test_win_rate_counts_ties_as_half():
    s = js.win_rate_summary(pd.Series(["win"] * 3 + ["tie"] * 4 + ["loss"] * 3))
    assert (s.wins, s.ties, s.losses, s.n_pairs) == (3, 4, 3, 10)
    assert s.win_rate == pytest.approx(0.5)
    assert s.win_rate_ci_low < 0.5 < s.win_rate_ci_high
    assert math.isnan(js.win_rate_summary(pd.Series([], dtype=object)).win_rate)


def _wilson_closed_form(k, n):
    z = stats.norm.ppf(0.975)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


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
        lo, hi = _wilson_closed_form(wins + ties / 2, n)
        assert got["win_rate_ci_low"] == pytest.approx(lo, abs=1e-12)
        assert got["win_rate_ci_high"] == pytest.approx(hi, abs=1e-12)
        one = js.win_rate_summary(pd.Series(outcomes, dtype=object))  # the one-candidate route
        for field, value in vars(one).items():
            assert value == got[field] or (math.isnan(value) and math.isnan(got[field])), field


# --- Bradley-Terry --------------------------------------------------------------------------------


def _comparisons(i, j, outcomes):
    return pd.DataFrame({"item_i": i, "item_j": j, "outcome": outcomes})


def test_davidson_two_players_closed_form():
    """Two players are a saturated trinomial: pi_A/pi_B = W/L and nu = T/sqrt(W L)."""
    W, L, T = 12, 5, 7
    comps = _comparisons(["A"] * (W + L + T), ["B"] * (W + L + T), ["i"] * W + ["j"] * L + ["tie"] * T)
    fit = bradley_terry.bradley_terry_davidson(comps, reference="B")
    a = fit.strengths.set_index("item").loc["A"]
    assert a["log_strength"] == pytest.approx(math.log(W / L), abs=1e-6)
    assert fit.tie_parameter == pytest.approx(T / math.sqrt(W * L), rel=1e-5)
    assert fit.strengths.set_index("item").loc["B", "log_strength"] == 0.0


def test_bradley_terry_without_ties_equals_logistic_regression():
    rng = np.random.default_rng(4)
    truth = {"P": 0.0, "K": 0.4, "H": -0.6, "M": -1.2}
    items = list(truth)
    rows = []
    for _ in range(1500):
        i, j = rng.choice(items, 2, replace=False)
        p = 1 / (1 + math.exp(-(truth[i] - truth[j])))
        rows.append((i, j, "i" if rng.random() < p else "j"))
    comps = pd.DataFrame(rows, columns=["item_i", "item_j", "outcome"])
    fit = bradley_terry.bradley_terry_davidson(comps, reference="P")
    free = [x for x in items if x != "P"]
    X = np.column_stack([(comps["item_i"] == x).astype(float) - (comps["item_j"] == x).astype(float) for x in free])
    ref = sm.Logit((comps["outcome"] == "i").astype(float), X).fit(disp=0)
    got = fit.strengths.set_index("item")
    assert fit.tie_parameter == 0.0
    np.testing.assert_allclose(got.loc[free, "log_strength"], ref.params, atol=1e-5)
    np.testing.assert_allclose(got.loc[free, "se"], ref.bse, rtol=1e-3)


def test_davidson_recovers_planted_strengths_and_tie_parameter():
    rng = np.random.default_rng(11)
    truth = {"P": 0.0, "K": 0.5, "H": -0.5, "Q": -1.0}
    nu = 0.8
    items = list(truth)
    rows = []
    for _ in range(6000):
        i, j = rng.choice(items, 2, replace=False)
        wi, wj = math.exp(truth[i]), math.exp(truth[j])
        wt = nu * math.sqrt(wi * wj)
        rows.append((i, j, rng.choice(["i", "j", "tie"], p=np.array([wi, wj, wt]) / (wi + wj + wt))))
    fit = bradley_terry.bradley_terry_davidson(
        pd.DataFrame(rows, columns=["item_i", "item_j", "outcome"]), reference="P"
    )
    got = fit.strengths.set_index("item")
    for item, value in truth.items():
        if item == "P":
            continue
        assert got.loc[item, "ci_low"] < value < got.loc[item, "ci_high"], item
        assert abs(got.loc[item, "log_strength"] - value) < 4 * got.loc[item, "se"]
    assert fit.tie_parameter == pytest.approx(nu, abs=0.1)


def test_bradley_terry_reports_separated_items_instead_of_infinity():
    comps = _comparisons(["K", "K", "M", "M"], ["P", "P", "P", "P"], ["i", "tie", "j", "j"])
    got = bradley_terry.bradley_terry_davidson(comps, reference="P").strengths.set_index("item")
    assert np.isnan(got.loc["M", "log_strength"]) and "no wins and no ties" in got.loc["M", "note"]
    assert np.isfinite(got.loc["K", "log_strength"])


# --- bias checks ----------------------------------------------------------------------------------


def test_position_bias_exact_binomial():
    res = proportions.position_bias_test(15, 5)
    tail = sum(math.comb(20, k) for k in range(15, 21)) / 2**20
    assert res.p_value == pytest.approx(2 * tail, rel=1e-12)
    assert res.share_first == 0.75 and res.n_decisive == 20
    assert math.isnan(proportions.position_bias_test(0, 0).p_value)


def test_logistic_slope_recovers_planted_coefficients():
    rng = np.random.default_rng(2)
    x = rng.normal(0, 1, 5000)
    z = rng.normal(0, 1, 5000)
    y = rng.random(5000) < 1 / (1 + np.exp(-(0.3 + 0.8 * x - 0.5 * z)))
    fit = logistic.logistic_slope(y, x, z)
    assert fit.ci_low < 0.8 < fit.ci_high
    assert fit.intercept == pytest.approx(0.3, abs=0.1) and fit.p_value < 1e-10
    assert math.isnan(logistic.logistic_slope(np.ones(10), np.arange(10.0)).slope)


def test_cohen_kappa_textbook_table():
    # 50 items: both yes 20, yes/no 5, no/yes 10, both no 15 -> po = .70, pe = .50, kappa = .40
    r1 = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
    r2 = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    k = kappa.cohen_kappa(r1, r2)
    assert k.kappa == pytest.approx(0.4, abs=1e-12) and k.agreement == pytest.approx(0.7)
    assert math.isnan(kappa.cohen_kappa(["tie"] * 5, ["tie"] * 5).kappa)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["a", "b", "tie", None]), st.sampled_from(["a", "b", "tie", None])), max_size=40)
)
def test_cohen_kappa_is_scikit_learns(pairs):
    """cohen_kappa (the two judges' count table through kappa_from_tables) against scikit-learn's
    cohen_kappa_score on the pairs both judges labelled; NaN exactly where that is undefined."""
    import warnings

    from sklearn.metrics import cohen_kappa_score

    got = kappa.cohen_kappa([x for x, _ in pairs], [y for _, y in pairs])
    both = [(x, y) for x, y in pairs if x is not None and y is not None]
    assert got.n == len(both)
    if both:
        assert got.agreement == pytest.approx(sum(x == y for x, y in both) / len(both), abs=1e-15)
    if len(both) < 2 or len({v for pair in both for v in pair}) == 1:
        assert math.isnan(got.kappa)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = cohen_kappa_score([x for x, _ in both], [y for _, y in both])
    assert got.kappa == pytest.approx(expected, abs=1e-12, nan_ok=True)


def test_logistic_slope_that_does_not_converge_is_null_with_a_reason_and_no_warning():
    import warnings

    # Quasi-complete separation: x > 0 always chooses 1, x < 0 always 0, except ties at x = 0.
    # The likelihood's supremum is at an infinite slope, so Newton's method cannot converge.
    x = np.concatenate([np.linspace(-3, -0.1, 40), [0.0, 0.0], np.linspace(0.1, 3, 40)])
    y = np.concatenate([np.zeros(40), [0.0, 1.0], np.ones(40)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = logistic.logistic_slope(y, x)
        good = logistic.logistic_slope(*_planted_logistic(400))
    assert caught == [], [str(w.message) for w in caught]
    assert fit.converged is False and math.isnan(fit.slope) and math.isnan(fit.p_value)
    assert "did not converge" in fit.note or "Separation" in fit.note, fit.note
    assert good.converged is True and good.note is None and math.isfinite(good.slope)


def _planted_logistic(n):
    rng = np.random.default_rng(4)
    x = rng.normal(0, 1, n)
    return (rng.random(n) < 1 / (1 + np.exp(-(0.2 + 0.7 * x)))).astype(float), x


def test_bradley_terry_that_does_not_converge_reports_null_strengths(monkeypatch):
    """An optimiser that stops early (here: returns its start, flagged unsuccessful) leaves a
    gradient far from 0: every strength but the reference's is NULL with the reason."""
    from scipy import optimize as scipy_optimize

    comps = pd.DataFrame(
        {
            "item_i": ["P"] * 30 + ["K"] * 30,
            "item_j": ["K"] * 30 + ["Q"] * 30,
            "outcome": ["i"] * 22 + ["j"] * 6 + ["tie"] * 2 + ["i"] * 20 + ["j"] * 10,
        }
    )
    assert bradley_terry.bradley_terry_davidson(comps, reference="P").converged
    stopped = lambda fun, x0, **kw: scipy_optimize.OptimizeResult(
        x=np.asarray(x0, float), success=False, message="stopped", fun=fun(x0, *kw["args"])
    )
    monkeypatch.setattr(bradley_terry.optimize, "minimize", stopped)
    fit = bradley_terry.bradley_terry_davidson(comps, reference="P")
    table = fit.strengths.set_index("item")
    assert not fit.converged and math.isnan(fit.tie_parameter)
    assert table.loc["P", "log_strength"] == 0.0
    for item in ("K", "Q"):
        assert math.isnan(table.loc[item, "log_strength"]) and "did not converge (stopped" in table.loc[item, "note"]


SCORES = st.sampled_from([0.0, 0.5, 1.0])


@settings(max_examples=30, deadline=None)
@given(
    value=SCORES,
    n_constant=st.integers(2, 60),
    varying=st.lists(SCORES, min_size=2, max_size=60).filter(lambda v: len(set(v)) > 1),
    constant_first=st.booleans(),
)
def test_score_difference_with_a_constant_group_is_welchs_formula_without_a_warning(
    value, n_constant, varying, constant_first
):
    """A group whose scores are all equal has variance exactly 0: Welch's t is (m1 - m2) / sqrt(s2^2 / n2)
    on n2 - 1 df, written out here; scipy's precision-loss warning is not raised and the note says it."""
    a, b = ([value] * n_constant, varying) if constant_first else (varying, [value] * n_constant)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        r = welch.score_difference(a, b)
    a, b = np.asarray(a), np.asarray(b)
    varying = b if np.ptp(a) == 0 else a
    se = math.sqrt(varying.var(ddof=1) / len(varying))
    t = (a.mean() - b.mean()) / se
    p = 2 * stats.t.sf(abs(t), len(varying) - 1)
    half = stats.t.ppf(0.975, len(varying) - 1) * se
    assert r.p_value == pytest.approx(p) and r.ci_low == pytest.approx(a.mean() - b.mean() - half)
    assert "all equal" in r.note and r.ci_high == pytest.approx(a.mean() - b.mean() + half)
