"""The judge marts built by dbt against independent recomputation from the landed Parquet, the
planted biases seen through the marts, and a build on a study without a judge part. Both are the
shared session builds (conftest.py): the small warehouse holds the judge demo study, and the small
study before `infer` has no judge part at all."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from rater1001.stats.alt_test import alt_test
from sklearn.metrics import cohen_kappa_score
from stats_helpers import davidson_mle

JUDGE_MARTS = (
    "judge_pair_verdicts",
    "judge_inconsistency",
    "judge_win_rates",
    "judge_category_win_rates",
    "judge_bradley_terry",
    "judge_bias_checks",
    "judge_agreement",
    "judge_alt_test",
    "judge_costs",
    "judge_category_group_win_rates",
    "judge_category_group_agreement",
    "judge_reason_terms",
    "judge_reason_samples",
)


def query(paths, sql: str) -> pd.DataFrame:
    con = duckdb.connect(str(paths.warehouse), read_only=True)
    try:
        return con.execute(sql).df()
    finally:
        con.close()


@pytest.fixture(scope="module")
def built(small_warehouse):
    """The judge demo study (seed 4) in the shared small warehouse, built whole by `dbt build`."""
    return small_warehouse


def expected_pairs(paths) -> pd.DataFrame:
    """The consistency rule restated in pandas from the raw verdicts (overall axis)."""
    v = pd.read_parquet(paths.raw_table("judge_verdicts"))
    first_is_a = v["order"] == "AB"
    pos = v["verdict_overall"]
    v["winner"] = np.select(
        [
            pos.eq("tie"),
            pos.eq("1") & first_is_a,
            pos.eq("2") & ~first_is_a,
            pos.eq("1") & ~first_is_a,
            pos.eq("2") & first_is_a,
        ],
        ["tie", "a", "a", "b", "b"],
        None,
    )
    key = ["judge_id", "sample_id", "variant", "candidate_a", "candidate_b"]
    ab = v[v["order"] == "AB"].set_index(key)["winner"].rename("ab")
    ba = v[v["order"] == "BA"].set_index(key)["winner"].rename("ba")
    kinds = v.drop_duplicates(key).set_index(key)["judge_kind"]
    m = pd.concat([ab, ba, kinds], axis=1)
    both = m["ab"].notna() & m["ba"].notna()
    single = m["judge_kind"].eq("human") & (m["ab"].notna() ^ m["ba"].notna())
    m["final"] = np.where(
        both, np.where(m["ab"] == m["ba"], m["ab"], "tie"), np.where(single, m["ab"].fillna(m["ba"]), None)
    )
    return m.reset_index()


def test_consistency_rule_matches_pandas(built):
    exp = expected_pairs(built)
    got = query(built, "select * from judge_pair_verdicts where axis = 'overall'")
    key = ["judge_id", "sample_id", "variant", "candidate_a", "candidate_b"]
    m = exp.merge(got, on=key, how="outer", indicator=True)
    assert (m["_merge"] == "both").all()
    assert (m["final"].fillna("-") == m["final_verdict"].fillna("-")).all()
    llm = m[m["judge_kind_x"] == "llm"]
    inconsistent = llm["ab"].notna() & llm["ba"].notna() & (llm["ab"] != llm["ba"])
    assert (inconsistent == (llm["is_consistent"] == False)).all()  # noqa: E712
    assert inconsistent.mean() > 0.05  # the planted position bias produces disagreements


def test_win_rates_recount(built):
    exp = expected_pairs(built)
    exp = exp[exp["candidate_b"] == "P"]
    exp["outcome"] = exp["final"].map({"a": "win", "tie": "tie", "b": "loss"}).fillna("missing")
    counts = exp.groupby(["judge_id", "candidate_a", "outcome"]).size().unstack(fill_value=0)
    got = query(built, "select * from judge_win_rates where axis = 'overall' and variant = 'all'")
    got = got.set_index(["judge_id", "candidate_id"])
    assert counts.get("missing", pd.Series(0)).sum() > 0  # the simulated judge leaves some verdicts unparsed
    for (judge, cand), row in counts.iterrows():
        g = got.loc[(judge, cand)]
        assert (g["wins"], g["ties"], g["losses"], g["n_incomplete"]) == tuple(
            row.get(k, 0) for k in ("win", "tie", "loss", "missing")
        )
        credit = row.get("win", 0) + 0.5 * row.get("tie", 0)
        # a pair without a verdict counts against the candidate; the answered-only rate stands beside
        assert g["win_rate"] == pytest.approx(credit / row.sum(), abs=1e-12)
        assert g["win_rate_answered_only"] == pytest.approx(credit / (row.sum() - row.get("missing", 0)), abs=1e-12)
    cat = query(
        built,
        "select variant, sum(n_pairs) as n from judge_category_win_rates where axis = 'overall' "
        "and judge_id = 'gpt-5.1' group by variant",
    ).set_index("variant")["n"]
    assert cat["all"] == got.loc["gpt-5.1", "n_pairs"].sum()
    # the category x variant split adds up to the pooled rows, variant by variant
    per_variant = query(
        built,
        "select variant, sum(n_pairs) as n from judge_win_rates where axis = 'overall' "
        "and judge_id = 'gpt-5.1' and variant <> 'all' group by variant",
    ).set_index("variant")["n"]
    assert cat.drop("all").sort_index().to_dict() == per_variant.sort_index().to_dict()


def test_planted_biases_show_in_the_bias_checks(built):
    b = query(built, "select * from judge_bias_checks where variant = 'all' and axis = 'overall'")
    b = b.set_index(["judge_id", "check_name"])
    gpt, sonnet = b.loc["gpt-5.1"], b.loc["claude-sonnet-4.6"]
    # gpt-5.1 was given position bias 0.4 (logit) and verbosity 0.6 per 100 characters
    assert gpt.loc["position_bias", "estimate"] > 0.5 and gpt.loc["position_bias", "p_value"] < 0.01
    assert gpt.loc["verbosity", "estimate"] > 0 and gpt.loc["verbosity", "p_value"] < 0.05
    # the second judge has no position bias
    assert sonnet.loc["position_bias", "ci_low"] < 0.5 < sonnet.loc["position_bias", "ci_high"]
    corr = query(
        built,
        "select * from judge_bias_checks where check_name = 'axis_correlation' "
        "and judge_id = 'gpt-5.1' and variant = 'all'",
    )
    assert len(corr) == 6 and (corr["estimate"] > 0).all()  # the axes share a quality component


def test_bradley_terry_orders_candidates_as_planted(built):
    bt = query(
        built,
        "select * from judge_bradley_terry where judge_id = 'gpt-5.1' and variant = 'all' "
        "and axis = 'overall' and design = 'anchor_only'",
    ).set_index("candidate_id")
    assert bt.loc["P", "log_strength"] == 0 and bt.loc["P", "tie_model"] == "davidson"
    # planted mean quality (overall): K -0.2 > H -0.67 > M -1.43
    assert bt.loc["K", "log_strength"] > bt.loc["H", "log_strength"] > bt.loc["M", "log_strength"]
    assert (bt.drop(index="P")["ci_high"] < 0.5).all() or bt.loc["K", "ci_low"] < 0 < bt.loc["K", "ci_high"]


def test_kappa_between_judges_equals_sklearn(built):
    pairs = query(built, "select * from judge_pair_verdicts where axis = 'empathy' and is_complete")
    key = ["sample_id", "variant", "candidate_a", "candidate_b"]
    w = pairs.pivot_table(index=key, columns="judge_id", values="final_verdict", aggfunc="first")
    both = w[["gpt-5.1", "claude-sonnet-4.6"]].dropna()
    got = query(
        built,
        "select * from judge_agreement where axis = 'empathy' and judge_1 = 'claude-sonnet-4.6' "
        "and judge_2 = 'gpt-5.1'",
    )
    assert got["n_pairs"].item() == len(both)
    assert got["kappa"].item() == pytest.approx(cohen_kappa_score(both["gpt-5.1"], both["claude-sonnet-4.6"]))
    alt = query(built, "select * from judge_alt_test")
    assert len(alt) == 8 and (alt["n_annotators"] == 3).all() and alt["advantage_probability"].between(0, 1).all()


def test_costs_add_up(built):
    raw = pd.read_parquet(built.raw_table("judge_verdicts"))
    got = query(built, "select * from judge_costs").set_index("judge_id")
    for judge, g in raw[raw["judge_kind"] == "llm"].groupby("judge_id"):
        assert got.loc[judge, "n_calls"] == len(g)
        assert got.loc[judge, "cost_usd"] == pytest.approx(g["cost_usd"].sum())
        assert got.loc[judge, "n_parse_failed"] == (g["parse_status"] == "failed").sum()


def test_marts_build_empty_without_a_judge_part(small_warehouse_without_predictions):
    paths = small_warehouse_without_predictions.paths  # no judge file ever landed there
    assert not any(
        paths.raw_table(t).exists() and pd.read_parquet(paths.raw_table(t)).shape[0]
        for t in ("dialogues", "candidates", "judge_verdicts")
    )
    assert small_warehouse_without_predictions.build_ok
    for mart in JUDGE_MARTS:
        assert query(paths, f"select count(*) as n from {mart}")["n"].item() == 0, mart


def test_judge_marts_are_labelled_with_their_data_origin(built):
    for mart in JUDGE_MARTS:
        origin = query(built, f"select distinct data_origin from {mart}")["data_origin"].tolist()
        assert origin == ["SIMULATED"], mart


def test_each_llm_judge_is_compared_with_the_human_majority(built):
    pairs = query(built, "select * from judge_pair_verdicts where axis = 'empathy' and is_complete")
    key = ["sample_id", "variant", "candidate_a", "candidate_b"]
    human = pairs[pairs["judge_kind"] == "human"]
    counts = human.groupby(key)["final_verdict"].value_counts().rename("n").reset_index()
    total = counts.groupby(key)["n"].transform("sum")
    majority = counts[counts["n"] * 2 > total].set_index(key)["final_verdict"]
    got = query(built, "select * from judge_agreement where axis = 'empathy' and comparison = 'human-majority-llm'")
    llm_judges = sorted(pairs.loc[pairs["judge_kind"] == "llm", "judge_id"].unique())
    got["llm"] = got["judge_1"].where(got["judge_2"] == "human-majority", got["judge_2"])
    assert sorted(got["llm"]) == llm_judges
    for judge in llm_judges:
        mine = pairs[pairs["judge_id"] == judge].set_index(key)["final_verdict"]
        both = pd.concat([majority.rename("m"), mine.rename("j")], axis=1, join="inner")
        row = got[got["llm"] == judge].iloc[0]
        assert row["n_pairs"] == len(both) > 0
        assert row["kappa"] == pytest.approx(cohen_kappa_score(both["m"], both["j"]))
    # a human against a majority that includes them is still not reported
    assert not query(built, "select * from judge_agreement where comparison = 'human-human-majority'").shape[0]


def test_an_unparsed_judge_verdict_counts_against_the_judge_in_the_alt_test(built):
    pairs = query(built, "select * from judge_pair_verdicts")
    key = ["sample_id", "variant", "candidate_a", "candidate_b"]
    pairs["instance_id"] = pairs[key].astype(str).agg("|".join, axis=1)
    humans = pairs[(pairs["judge_kind"] == "human") & pairs["is_complete"]]
    labelled = humans.groupby(["instance_id", "axis"])["judge_id"].nunique()
    shared = set(labelled[labelled >= 2].index)
    got = query(built, "select * from judge_alt_test").set_index(["judge_id", "axis"])
    n_missing_total = 0
    for (judge, axis), row in got.iterrows():
        mine = pairs[(pairs["judge_id"] == judge) & (pairs["axis"] == axis)]
        asked = mine[[(i, axis) in shared for i in mine["instance_id"]]]
        assert row["n_instances"] == len(asked)
        assert row["n_missing"] == int((~asked["is_complete"].astype(bool)).sum())
        n_missing_total += row["n_missing"]
        h = humans[humans["axis"] == axis].rename(columns={"judge_id": "annotator_id", "final_verdict": "label"})
        answers = asked["final_verdict"].where(asked["is_complete"].astype(bool), None)
        ref = alt_test(
            h[["annotator_id", "instance_id", "label"]],
            pd.Series(answers.to_numpy(), index=asked["instance_id"], dtype="object"),
            epsilon=row["epsilon"],
            min_instances_per_human=30,
        )
        assert row["winning_rate"] == pytest.approx(ref.winning_rate, nan_ok=True)
        assert row["winning_rate_answered_only"] == pytest.approx(ref.winning_rate_answered_only, nan_ok=True)
    assert n_missing_total > 0  # the simulated judges leave some verdicts unparsed


def test_the_round_robin_bradley_terry_mart_equals_an_independent_fit(built):
    """The demo's round-robin (gpt-5.1, text variant) reaches judge_bradley_terry as a round_robin
    design, and its strengths equal an independent Davidson maximum likelihood on the same pairs."""
    pairs = query(
        built,
        "select * from judge_pair_verdicts where judge_id = 'gpt-5.1' and variant = 'text' "
        "and axis = 'overall' and is_complete",
    )
    assert ((pairs["candidate_a"] != "P") & (pairs["candidate_b"] != "P")).sum() > 200  # model-vs-model pairs
    comps = pd.DataFrame(
        {
            "item_i": pairs["candidate_a"],
            "item_j": pairs["candidate_b"],
            "outcome": pairs["final_verdict"].map({"a": "i", "b": "j", "tie": "tie"}),
        }
    )
    ref = davidson_mle(comps, "P")
    bt = query(
        built,
        "select * from judge_bradley_terry where judge_id = 'gpt-5.1' and variant = 'text' "
        "and axis = 'overall' and design = 'round_robin'",
    ).set_index("candidate_id")
    assert set(bt.index) == {"P", "K", "H", "Q", "M"}
    for c in ("K", "H", "Q", "M"):
        assert bt.loc[c, "log_strength"] == pytest.approx(ref[c], abs=1e-4), c
        assert bt.loc[c, "n_comparisons"] == ((comps["item_i"] == c) | (comps["item_j"] == c)).sum()
    assert bt["tie_parameter"].iloc[0] == pytest.approx(ref["nu"], rel=1e-3)
    # planted overall quality: P 0 > K > H > Q > M
    assert list(bt["log_strength"].sort_values(ascending=False).index) == ["P", "K", "H", "Q", "M"]
    # only the judge that ran a round-robin has the design
    designs = query(built, "select distinct judge_id, design from judge_bradley_terry")
    assert set(designs.loc[designs["design"] == "round_robin", "judge_id"]) == {"gpt-5.1"}


def test_reason_terms_recount_from_the_landed_reasons(built):
    """judge_reason_terms for one judge and axis, recounted from the landed Parquet with the
    formula written out; the planted flaws are what separates the verdicts."""
    import math
    from collections import Counter

    from rater1001.stats.terms import tokenize

    v = pd.read_parquet(built.raw_table("judge_verdicts"))
    v = v[(v["judge_id"] == "gpt-5.1") & v["reason"].notna() & (v["candidate_b"] == "P")]
    first_is_a = v["order"] == "AB"
    pos = v["verdict_empathy"]
    cls = np.select(
        [
            pos.eq("tie"),
            (pos.eq("1") & first_is_a) | (pos.eq("2") & ~first_is_a),
            (pos.eq("2") & first_is_a) | (pos.eq("1") & ~first_is_a),
        ],
        ["tie", "candidate_preferred", "anchor_preferred"],
        None,
    )
    bags = {k: Counter() for k in ("candidate_preferred", "anchor_preferred", "tie")}
    for c, reason in zip(cls, v["reason"]):
        if c is not None:
            bags[c].update(tokenize(reason))
    total = sum(bags.values(), Counter())
    got = query(built, "select * from judge_reason_terms where judge_id = 'gpt-5.1' and axis = 'empathy'")
    for verdict, g in got.groupby("verdict"):
        group, rest = bags[verdict], total - bags[verdict]
        a0, n_i, n_j, n_p = g["prior_total"].iloc[0], sum(group.values()), sum(rest.values()), sum(total.values())
        z = {}
        for w in total:
            a = a0 * total[w] / n_p
            d = math.log((group[w] + a) / (n_i + a0 - group[w] - a)) - math.log(
                (rest[w] + a) / (n_j + a0 - rest[w] - a)
            )
            z[w] = d / math.sqrt(1 / (group[w] + a) + 1 / (rest[w] + a))
        top = sorted(z, key=lambda w: (-z[w], w))[: len(g)]
        assert list(g.sort_values("rank")["term"]) == top, verdict
        assert g.sort_values("rank")["z"].to_numpy() == pytest.approx([z[w] for w in top])
    terms = got.groupby("verdict")["term"].apply(set)
    assert "형식적" in terms["anchor_preferred"] and "비슷하다" in terms["tie"]


def test_reason_samples_are_the_pairs_reasons_and_count_like_the_win_rates(built):
    samples = query(built, "select * from judge_reason_samples")
    wr = query(built, "select * from judge_win_rates where variant = 'all' and judge_kind = 'llm'")
    wr = wr.set_index(["judge_id", "candidate_id", "axis"])
    for (judge, cand, axis, outcome), g in samples.groupby(["judge_id", "candidate_id", "axis", "outcome"]):
        column = {"win": "wins", "tie": "ties", "loss": "losses"}[outcome]
        assert g["n_pairs_with_outcome"].iloc[0] == wr.loc[(judge, cand, axis), column]
        assert len(g) == min(2, wr.loc[(judge, cand, axis), column])
    raw = pd.read_parquet(built.raw_table("judge_verdicts"))
    ab = raw[(raw["order"] == "AB") & (raw["candidate_b"] == "P")].set_index(
        ["judge_id", "sample_id", "variant", "candidate_a"]
    )["reason"]
    for r in samples.itertuples():
        assert r.reason == ab.loc[(r.judge_id, r.sample_id, r.variant, r.candidate_id)]
    again = query(built, "select * from judge_reason_samples")
    pd.testing.assert_frame_equal(samples, again)


def test_korean_specific_against_general_categories(built):
    """The category-group win rates recount from the pair verdicts, and the planted Korean-blind
    second judge (it reads 한 with a quarter of its discrimination) agrees less with gpt-5.1 on
    the Korean-specific category than on the general ones."""
    pairs = query(
        built, "select * from judge_pair_verdicts where candidate_b = 'P' and axis = 'overall' and judge_kind = 'llm'"
    )
    pairs["score"] = pairs["final_verdict"].map({"a": 1.0, "tie": 0.5, "b": 0.0}).fillna(0.0)
    pairs["group"] = np.where(pairs["category"].isin(["정", "한", "공명"]), "korean_specific", "general")
    got = query(built, "select * from judge_category_group_win_rates where axis = 'overall' and variant = 'all'")
    got = got.set_index(["judge_id", "candidate_id"])
    for (judge, cand), g in pairs.groupby(["judge_id", "candidate_a"]):
        k, gen = g[g["group"] == "korean_specific"], g[g["group"] == "general"]
        row = got.loc[(judge, cand)]
        assert (row["korean_n_pairs"], row["general_n_pairs"]) == (len(k), len(gen))
        assert row["korean_win_rate"] == pytest.approx(k["score"].mean())
        assert row["difference"] == pytest.approx(k["score"].mean() - gen["score"].mean())
        assert row["korean_categories"] == "한"
    kappa = query(
        built, "select * from judge_category_group_agreement where comparison = 'llm-llm' and axis = 'overall'"
    ).set_index("category_group")
    assert kappa.loc["korean_specific", "kappa"] < kappa.loc["general", "kappa"] - 0.1


def test_a_category_group_whose_scores_are_all_equal_is_the_rows_note(built):
    """A group whose pair scores are all equal makes Welch's test degenerate (scipy would warn of
    precision loss): judge_category_group_win_rates says so in the row's note, and only then."""
    pairs = query(built, "select * from judge_pair_verdicts where candidate_b = 'P'")
    pairs["score"] = pairs["final_verdict"].map({"a": 1.0, "tie": 0.5, "b": 0.0}).fillna(0.0)
    pairs["korean"] = pairs["category"].isin(["정", "한", "공명"])
    got = query(built, "select * from judge_category_group_win_rates").set_index(
        ["judge_id", "candidate_id", "variant", "axis"]
    )
    said = {1: "group 1's scores are all equal", 2: "group 2's scores are all equal"}
    degenerate = 0
    for variant, rows in [*pairs.groupby("variant"), ("all", pairs)]:
        for (judge, cand, axis), g in rows.groupby(["judge_id", "candidate_a", "axis"]):
            k, gen = g.loc[g["korean"], "score"], g.loc[~g["korean"], "score"]
            constant = [n for n, group in ((1, k), (2, gen)) if group.nunique() == 1]
            if min(len(k), len(gen)) < 2 or not constant:
                expected = None
            else:
                expected = said[constant[0]] if len(constant) == 1 else "no spread in either group"
            note = got.loc[(judge, cand, variant, axis), "note"]
            note = note if pd.notna(note) else None
            assert (note is None) if expected is None else note.startswith(expected), (expected, note)
            degenerate += expected is not None
    assert degenerate > 0  # the case arises in this study


def test_the_report_lays_out_the_judge_tables(built):
    """The judge section's tables on the judge marts: every one lays out (no duplicated cell), the
    win-rate cells match judge_win_rates, and every cell of the win-rate table has its reasons."""
    from rater1001.report.build import table_block
    from rater1001.report.reader import WarehouseReader
    from rater1001.report.tables_judge import JUDGE

    with WarehouseReader(built) as reader:
        blocks = {spec.ours: table_block(reader, spec) for spec in JUDGE}
    for ours, block in blocks.items():
        assert block.kind == "table" and block.note in (None, ""), (ours, block.note)
        assert len(block.frame) > 0, ours
    wr = query(built, "select * from judge_win_rates where variant = 'all'").set_index(
        ["judge_id", "candidate_id", "axis"]
    )
    t1 = blocks["TJ1"].frame.set_index(["judge", "candidate"])
    for (judge, cand, axis), r in wr.iterrows():
        assert t1.loc[(judge, cand), axis] == f"{r['win_rate']:.2f} ({r['wins']}/{r['ties']}/{r['losses']})"
    t2 = blocks["TJ2"].frame
    llm_cells = wr[wr.index.get_level_values(0).isin(["gpt-5.1", "claude-sonnet-4.6"])]
    for (judge, cand, axis), r in llm_cells.iterrows():
        for outcome, n in (("win", r["wins"]), ("tie", r["ties"]), ("loss", r["losses"])):
            row = t2[(t2["judge"] == judge) & (t2["candidate"] == cand) & (t2["outcome"] == outcome)]
            assert (len(row) == 1 and isinstance(row[axis].iloc[0], str)) or n == 0, (judge, cand, axis, outcome)
    assert set(blocks["TJ4"].frame["korean_categories"].dropna()) == {"한"}
    assert {"text", "image", "audio_neutral", "audio_emotion", "all"} <= set(blocks["TJ5"].frame.columns)
