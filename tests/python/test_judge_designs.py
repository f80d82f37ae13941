"""Judge studies of any design, as frames through the judge marts (no warehouse build): no anchor
(round-robin, any set of pairs, a comparison graph in pieces), one order per pair, human pairwise
labels as a rater pool, and an Alt-Test with nothing to test. Oracles: an independent Davidson fit
(Nelder-Mead on the written-out likelihood), brute-force counts, scikit-learn's Cohen's kappa and
the krippendorff package."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pandas as pd
import pytest
from rater1001.marts import judge as mj
from rater1001.marts._shared import anchor_of
from sklearn.metrics import cohen_kappa_score
from stats_helpers import davidson_mle

STRENGTH = {"A": 0.0, "B": 0.8, "C": -0.6, "D": 1.4}  # planted log strengths
NU = 0.5


def davidson_draw(rng, a: str, b: str) -> str:
    pa, pb = np.exp(STRENGTH[a]), np.exp(STRENGTH[b])
    tie = NU * np.sqrt(pa * pb)
    return rng.choice(["a", "b", "tie"], p=np.array([pa, pb, tie]) / (pa + pb + tie))


def calls(pairs_of, n_samples: int, *, judge="j1", kind="llm", orders=("AB",), seed=0, one_order=True):
    """Raw single-order calls (int_judge_verdicts_long rows) drawn from the planted Davidson model."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_samples):
        for a, b in pairs_of:
            winner = davidson_draw(rng, a, b)
            for order in orders:
                first_is_a = order == "AB"
                pos = "tie" if winner == "tie" else "1" if (winner == "a") == first_is_a else "2"
                rows.append(
                    {
                        "judge_id": judge,
                        "judge_kind": kind,
                        "sample_id": f"s{s:03d}",
                        "variant": "v",
                        "candidate_a": a,
                        "candidate_b": b,
                        "axis": "overall",
                        "presentation_order": order,
                        "position_verdict": pos,
                        "single_order_ok": one_order or kind == "human",
                    }
                )
    return pd.DataFrame(rows)


def dialogues(n: int) -> pd.DataFrame:
    return pd.DataFrame({"sample_id": [f"s{s:03d}" for s in range(n)], "category": "c"})


def davidson_oracle(pairs: pd.DataFrame, reference: str) -> dict:
    """Davidson (1970) maximum likelihood written out and maximised by Nelder-Mead (stats_helpers)."""
    comps = pd.DataFrame(
        {
            "item_i": pairs["candidate_a"].to_numpy(object),
            "item_j": pairs["candidate_b"].to_numpy(object),
            "outcome": pairs["final_verdict"].astype(object).map({"a": "i", "b": "j", "tie": "tie"}).to_numpy(object),
        }
    )
    return davidson_mle(comps, reference)


CATALOG_WITH_P = pd.DataFrame({"candidate_id": ["K", "P"], "is_anchor": [False, True]})


def test_a_study_without_the_anchor_has_no_anchor_instead_of_an_index_error():
    # the catalog's anchor P is in none of the pairs, and a catalog may name no anchor at all
    pairs = pd.DataFrame({"candidate_a": ["A"], "candidate_b": ["B"]})
    assert anchor_of(CATALOG_WITH_P, pairs) is None
    assert anchor_of(CATALOG_WITH_P.assign(is_anchor=False)) is None
    assert anchor_of(CATALOG_WITH_P, pd.DataFrame({"candidate_a": ["K"], "candidate_b": ["P"]})) == "P"


ROUND_ROBIN = [("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")]


def test_round_robin_without_anchor_equals_an_independent_davidson_fit():
    pairs = mj.pair_verdicts(calls(ROUND_ROBIN, 150), dialogues(150))
    assert pairs["is_complete"].all()  # one order per pair, declared: every verdict stands
    bt = mj.bradley_terry(pairs, anchor_of(CATALOG_WITH_P, pairs))
    got = bt[bt["variant"] == "v"].set_index("candidate_id")
    assert set(got["design"]) == {"round_robin"} and set(got["reference_id"]) == {"A"}
    oracle = davidson_oracle(pairs[pairs["variant"] == "v"], "A")
    for c in "BCD":
        assert got.loc[c, "log_strength"] == pytest.approx(oracle[c], abs=1e-4)
        assert got.loc[c, "ci_low"] < got.loc[c, "log_strength"] < got.loc[c, "ci_high"]
    assert got["tie_parameter"].iloc[0] == pytest.approx(oracle["nu"], rel=1e-4)
    # and the planted order is recovered
    assert list(got["log_strength"].sort_values().index) == ["C", "A", "B", "D"]


def test_a_comparison_graph_in_pieces_is_fitted_per_component_and_says_so():
    some = [("A", "B"), ("B", "C"), ("D", "E")]
    STRENGTH["E"] = 0.3
    try:
        pairs = mj.pair_verdicts(calls(some, 80, seed=3), dialogues(80))
    finally:
        del STRENGTH["E"]
    bt = mj.bradley_terry(pairs, None)
    got = bt[bt["variant"] == "v"].set_index("candidate_id")
    assert set(got["design"]) == {"all_pairs"}
    assert got.loc[["A", "B", "C"], "reference_id"].eq("A").all() and got.loc[["D", "E"], "reference_id"].eq("D").all()
    assert got["note"].str.contains("component 1 {A, B, C} | component 2 {D, E}", regex=False).all()
    first = pairs[pairs["candidate_a"].isin(["A", "B"]) & (pairs["variant"] == "v")]
    oracle = davidson_oracle(first, "A")
    assert got.loc["C", "log_strength"] == pytest.approx(oracle["C"], abs=1e-4)


def test_pairwise_win_matrix_is_a_brute_force_count():
    pairs = mj.pair_verdicts(calls(ROUND_ROBIN, 40, seed=5), dialogues(40))
    pw = mj.pairwise_win_rates(pairs)
    got = pw[pw["variant"] == "v"].set_index(["candidate_id", "opponent_id"])
    assert len(got) == 12  # both directions of the six pairs
    for a, b in ROUND_ROBIN:
        p = pairs[(pairs["candidate_a"] == a) & (pairs["candidate_b"] == b)]
        wins, ties = int((p["final_verdict"] == "a").sum()), int((p["final_verdict"] == "tie").sum())
        assert got.loc[(a, b), "wins"] == wins and got.loc[(b, a), "losses"] == wins
        assert got.loc[(a, b), "win_rate"] == pytest.approx((wins + ties / 2) / len(p))
        assert got.loc[(a, b), "win_rate"] + got.loc[(b, a), "win_rate"] == pytest.approx(1.0)
    assert mj.win_rates(pairs, None).empty  # no anchor: the matrix is the win-rate table


def test_both_orders_stay_the_default_and_one_order_needs_the_declaration():
    both = calls([("A", "B")], 10, orders=("AB", "BA"), one_order=False)
    assert mj.pair_verdicts(both, dialogues(10))["is_complete"].all()
    single = calls([("A", "B")], 10, one_order=False)  # one order, not declared: incomplete
    assert not mj.pair_verdicts(single, dialogues(10))["is_complete"].any()
    assert mj.pair_verdicts(single.drop(columns="single_order_ok"), dialogues(10))["is_complete"].sum() == 0


def test_position_bias_only_where_both_orders_exist_and_the_note_says_so():
    cands = pd.DataFrame({"sample_id": [], "candidate_id": [], "variant": [], "response_chars": []})
    single = calls(ROUND_ROBIN, 20)
    pairs = mj.pair_verdicts(single, dialogues(20))
    pb = mj.bias_checks(single, pairs, cands)
    pb = pb[(pb["check_name"] == "position_bias") & (pb["variant"] == "v")].iloc[0]
    assert pd.isna(pb["estimate"]) and pb["n"] == 0
    assert "no pair was judged in both orders" in pb["note"] and f"{len(single)} verdicts" in pb["note"]
    mixed = pd.concat([single, calls([("A", "B")], 20, judge="j1", orders=("AB", "BA"), seed=9).assign(variant="w")])
    pb = mj.bias_checks(mixed, mj.pair_verdicts(mixed, dialogues(20)), cands)
    pb = pb[(pb["check_name"] == "position_bias") & (pb["variant"] == "all")].iloc[0]
    decisive_both = mixed[(mixed["variant"] == "w") & mixed["position_verdict"].isin(["1", "2"])]
    assert pb["n"] == len(decisive_both)
    assert pb["estimate"] == pytest.approx((decisive_both["position_verdict"] == "1").mean())


def human_pool(n_pairs=60, seed=11):
    """Three humans per pair (one order each) and two LLM judges (one order per pair, declared)."""
    rng = np.random.default_rng(seed)
    truth = [davidson_draw(rng, "A", "B") for _ in range(n_pairs)]
    rows = []
    for who, noise in (("h1", 0.2), ("h2", 0.3), ("h3", 0.25), ("good-llm", 0.15), ("bad-llm", 0.9)):
        kind = "human" if who.startswith("h") else "llm"
        for s, t in enumerate(truth):
            v = t if rng.random() > noise else rng.choice(["a", "b", "tie"])
            order = rng.choice(["AB", "BA"])
            pos = "tie" if v == "tie" else "1" if (v == "a") == (order == "AB") else "2"
            rows.append(
                {
                    "judge_id": who,
                    "judge_kind": kind,
                    "sample_id": f"s{s:03d}",
                    "variant": "v",
                    "candidate_a": "A",
                    "candidate_b": "B",
                    "axis": "overall",
                    "presentation_order": order,
                    "position_verdict": pos,
                    "single_order_ok": True,
                }
            )
    return pd.DataFrame(rows)


def test_kappa_of_every_judge_with_each_human_and_the_majority_is_scikit_learns():
    pairs = mj.pair_verdicts(human_pool(), dialogues(60))
    ag = mj.agreement(pairs).set_index(["judge_1", "judge_2"])
    wide = pairs.pivot_table(index="sample_id", columns="judge_id", values="final_verdict", aggfunc="first")
    votes = wide[["h1", "h2", "h3"]]
    majority = votes.apply(lambda r: r.value_counts().index[0] if r.value_counts().iloc[0] >= 2 else None, axis=1)
    for judge in ("good-llm", "bad-llm"):
        for h in ("h1", "h2", "h3"):
            key = (judge, h) if (judge, h) in ag.index else (h, judge)
            assert ag.loc[key, "kappa"] == pytest.approx(cohen_kappa_score(wide[judge], wide[h]))
        m = majority.dropna()
        key = (judge, "human-majority") if (judge, "human-majority") in ag.index else ("human-majority", judge)
        assert ag.loc[key, "kappa"] == pytest.approx(cohen_kappa_score(wide.loc[m.index, judge], m))


def test_human_alpha_and_each_judge_as_one_more_annotator_equal_the_krippendorff_package():
    pairs = mj.pair_verdicts(human_pool(), dialogues(60))
    got = mj.human_alpha(pairs).set_index("judge_id")
    wide = pairs.pivot_table(index="sample_id", columns="judge_id", values="final_verdict", aggfunc="first")
    code = {"a": 0, "b": 1, "tie": 2}
    humans = wide[["h1", "h2", "h3"]].replace(code).to_numpy(float).T
    base = krippendorff.alpha(reliability_data=humans, level_of_measurement="nominal")
    assert got.loc[mj.HUMANS_ONLY, "alpha_humans"] == pytest.approx(base)
    for judge in ("good-llm", "bad-llm"):
        ext = krippendorff.alpha(
            reliability_data=np.vstack([humans, wide[judge].replace(code).to_numpy(float)]),
            level_of_measurement="nominal",
        )
        assert got.loc[judge, "alpha_with_judge"] == pytest.approx(ext)
        assert got.loc[judge, "delta_alpha"] == pytest.approx(ext - base)
    assert got.loc["good-llm", "delta_alpha"] > got.loc["bad-llm", "delta_alpha"]


def test_an_alt_test_with_nothing_to_test_is_not_evaluable_with_the_reason_never_failed():
    pool = human_pool()
    # the judge answered one order of every pair, but the study did not declare one order: every
    # answer is incomplete, so there is nothing of the judge's to test
    undeclared = pool.assign(single_order_ok=pool["judge_kind"] == "human")
    res = mj.alt_tests(mj.pair_verdicts(undeclared, dialogues(60)), epsilon=0.2, min_instances_per_human=30)
    for r in res.itertuples():
        assert r.status == "not evaluable" and pd.isna(r.passed) and pd.isna(r.winning_rate)
        assert "no verdict on any of the 60 instances" in r.note
    one_human = pool[pool["judge_id"].isin(["h1", "good-llm"])]
    res = mj.alt_tests(mj.pair_verdicts(one_human, dialogues(60)), epsilon=0.2)
    assert res["status"].tolist() == ["not evaluable"] and "at least two" in res["note"].iloc[0]
    # declared: the test runs and the judge is judged
    res = mj.alt_tests(mj.pair_verdicts(pool, dialogues(60)), epsilon=0.2, min_instances_per_human=30)
    assert set(res["status"]) <= {"passed", "failed"} and res["passed"].notna().all()
    assert all(len(json.loads(a)) == 3 for a in res["annotators"])


def test_without_an_anchor_the_reference_is_a_candidate_with_a_finite_strength():
    # A loses every comparison: as the reference it would put every other strength at +inf
    rows = [("A", "B", "b"), ("A", "C", "b"), ("B", "C", "a"), ("B", "C", "b"), ("B", "C", "tie"), ("A", "B", "b")]
    pairs = pd.DataFrame(
        {
            "judge_id": "j",
            "variant": "v",
            "axis": "overall",
            "candidate_a": [r[0] for r in rows],
            "candidate_b": [r[1] for r in rows],
            "final_verdict": [r[2] for r in rows],
            "is_complete": True,
        }
    )
    got = mj.bradley_terry(pairs, None)
    got = got[got["variant"] == "v"].set_index("candidate_id")
    assert set(got["reference_id"]) == {"B"}
    assert pd.isna(got.loc["A", "log_strength"]) and got.loc["A", "note"] == "not finite: no wins and no ties"
    assert got.loc["C", "log_strength"] == pytest.approx(0.0, abs=1e-6)  # B and C: one win each, a tie


def test_the_answer_has_a_judge_block_without_an_anchor(tmp_path):
    """A study without an anchor: no win rates, but each LLM judge's kappa with the human majority
    (also when 'human-majority' sorts first), its Alt-Test outcome and delta alpha are answered."""
    import duckdb
    from rater1001.paths import project
    from rater1001.report.answer import read_answer
    from rater1001.report.reader import WarehouseReader

    paths = project(tmp_path)
    paths.warehouse.parent.mkdir(parents=True)
    con = duckdb.connect(str(paths.warehouse))
    con.execute("""CREATE TABLE judge_agreement AS SELECT * FROM (VALUES
        ('human-majority', 'llama', 'human-majority-llm', 'overall', 0.26)) t(judge_1, judge_2, comparison, axis, kappa)""")
    con.execute("""CREATE TABLE judge_alt_test AS SELECT * FROM (VALUES ('llama', 'overall', 'not evaluable'))
        t(judge_id, axis, status)""")
    con.execute("""CREATE TABLE judge_human_alpha AS SELECT * FROM (VALUES
        ('(humans only)', 'overall', NULL), ('llama', 'overall', -0.23)) t(judge_id, axis, delta_alpha)""")
    con.close()
    with WarehouseReader(paths) as reader:
        answer = read_answer(reader, [])
    assert [j.judge for j in answer.judges] == ["llama"] and answer.judges[0].candidates == []
    cells = {k: e.estimate.text for k, e in answer.judges[0].cells.items()}
    assert cells == {
        ("overall", "kappa"): "0.26",
        ("overall", "alt_test"): "not evaluable",
        ("overall", "delta_alpha"): "-0.230",
    }
