"""The SIMULATED judge demo: it lands through the contract in the log's shape, and the planted judge
biases are recovered from the landed verdicts (parameter recovery with statsmodels' Logit)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from rater1001.contract import TABLES
from rater1001.landing import read_manifest
from rater1001.paths import project
from rater1001.runs.judge.simulate import AXES, CATEGORIES, simulate_judge_study


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    paths = project(tmp_path_factory.mktemp("judge_sim"))
    summary = simulate_judge_study(paths, seed=3)
    return paths, summary


def test_lands_in_the_logs_shape(sim):
    paths, summary = sim
    dialogues = pd.read_parquet(paths.raw_table("dialogues"))
    candidates = pd.read_parquet(paths.raw_table("candidates"))
    verdicts = pd.read_parquet(paths.raw_table("judge_verdicts"))
    assert len(dialogues) == 56 and dialogues["sample_id"].is_unique
    assert (candidates["status"] == "error").sum() == 42 and set(
        candidates.loc[candidates["status"] == "error", "candidate_id"]
    ) == {"Q"}
    llm = verdicts[verdicts["judge_kind"] == "llm"]
    touches_p = (llm["candidate_a"] == "P") | (llm["candidate_b"] == "P")
    assert llm[touches_p].groupby("judge_id").size().to_dict() == {"claude-sonnet-4.6": 1708, "gpt-5.1": 1708}
    # the round-robin supplement: gpt-5.1 also judges every model pair of the text variant, both orders
    ok = candidates[
        (candidates["status"] == "ok") & (candidates["variant"] == "text") & (candidates["candidate_id"] != "P")
    ]
    n_model_pairs = sum(n * (n - 1) // 2 for n in ok.groupby("sample_id").size())
    rr = llm[~touches_p]
    assert rr.groupby("judge_id").size().to_dict() == {"gpt-5.1": 2 * n_model_pairs}
    assert set(rr["variant"]) == {"text"} and rr.groupby(["sample_id", "candidate_a", "candidate_b"]).size().eq(2).all()
    assert not verdicts.duplicated(list(TABLES["judge_verdicts"].key)).any()
    for name in ("dialogues", "candidates", "judge_verdicts"):
        assert list(pd.read_parquet(paths.raw_table(name)).columns) == TABLES[name].column_names
    manifest = read_manifest(paths).set_index("table_name")
    assert manifest.loc[["dialogues", "candidates", "judge_verdicts"], "is_simulated"].all()
    humans = verdicts[verdicts["judge_kind"] == "human"]
    assert humans["judge_id"].nunique() == 3 and humans.groupby("judge_id").size().min() >= 30


def _design(paths, summary, judge_id, categories=None):
    """Decisive single-order verdicts of one judge on the three axes (on the dialogues of the given
    categories, default all), with the true quality and length differences (position 1 minus 2)."""
    v = pd.read_parquet(paths.raw_table("judge_verdicts"))
    v = v[v["judge_id"] == judge_id]
    if categories is not None:
        dialogues = pd.read_parquet(paths.raw_table("dialogues"))
        v = v[v["sample_id"].isin(dialogues.loc[dialogues["category"].isin(categories), "sample_id"])]
    lat = summary.latent.copy()
    invariant = lat[lat["candidate_id"] == "P"][["sample_id"] + list(AXES) + ["chars"]]
    rows = []
    for axis in AXES:
        d = v[v["verdict_" + axis].isin(["1", "2"])]
        first = np.where(d["order"] == "AB", d["candidate_a"], d["candidate_b"])
        second = np.where(d["order"] == "AB", d["candidate_b"], d["candidate_a"])

        def look(cands):
            keys = pd.DataFrame(
                {"sample_id": d["sample_id"].to_numpy(), "candidate_id": cands, "variant": d["variant"].to_numpy()}
            )
            m = keys.merge(lat, on=["sample_id", "candidate_id", "variant"], how="left")
            p = keys.merge(invariant, on="sample_id", how="left")
            is_p = keys["candidate_id"].eq("P").to_numpy()
            return np.where(is_p, p[axis], m[axis]), np.where(is_p, p["chars"], m["chars"])

        q1, l1 = look(first)
        q2, l2 = look(second)
        rows.append(
            pd.DataFrame({"y": (d["verdict_" + axis] == "1").to_numpy(float), "dq": q1 - q2, "dl": (l1 - l2) / 100.0})
        )
    return pd.concat(rows, ignore_index=True)


@pytest.mark.parametrize("judge_index", [0, 1])
def test_planted_position_and_verbosity_bias_are_recovered(sim, judge_index):
    paths, summary = sim
    judge = summary.parameters.judges[judge_index]
    # the categories where the judge's discrimination is the planted one (not a Korean-blind one)
    plain = sorted(set(CATEGORIES) - {c for c, m in judge.category_discrimination.items() if m != 1.0})
    data = _design(paths, summary, judge.judge_id, plain)
    assert not data.isna().any().any()
    fit = sm.Logit(data["y"], sm.add_constant(data[["dq", "dl"]])).fit(disp=0)
    ci = fit.conf_int(alpha=0.01)
    for name, planted in (("const", judge.position_bias), ("dl", judge.verbosity), ("dq", judge.discrimination)):
        assert ci.loc[name, 0] < planted < ci.loc[name, 1], (judge.judge_id, name, fit.params[name], planted)


def test_a_planted_korean_blind_judge_is_recovered_on_its_category(sim):
    """The second judge reads 한 with a quarter of its discrimination (the log's Bias 4, planted):
    the logit slope on the quality difference, fitted on the 한 dialogues alone, covers 2.0 x 0.25
    and lies below the first judge's on the same dialogues."""
    paths, summary = sim
    slopes = {}
    for judge in summary.parameters.judges:
        data = _design(paths, summary, judge.judge_id, ["한"])
        fit = sm.Logit(data["y"], sm.add_constant(data[["dq", "dl"]])).fit(disp=0)
        slopes[judge.judge_id] = (fit.params["dq"], fit.conf_int(alpha=0.01).loc["dq"])
        planted = judge.discrimination * judge.category_discrimination.get("한", 1.0)
        assert slopes[judge.judge_id][1][0] < planted < slopes[judge.judge_id][1][1], (judge.judge_id, slopes)
    assert slopes["claude-sonnet-4.6"][1][1] < slopes["gpt-5.1"][1][0]


def test_reasons_name_what_the_judge_saw_in_the_response_it_did_not_choose(sim):
    paths, _ = sim
    v = pd.read_parquet(paths.raw_table("judge_verdicts"))
    llm = v[(v["judge_kind"] == "llm") & (v["parse_status"] == "ok")]
    assert llm["reason"].notna().all() and llm["reason"].nunique() > 100
    ties = llm[llm["verdict_empathy"] == "tie"]
    assert ties["reason"].str.contains("공감 면에서는 두 응답이 비슷하다").all()


def test_landed_verdicts_are_what_the_parser_reads_from_the_raw_text(sim):
    from rater1001.runs.judge.catalog import load_axes
    from rater1001.runs.judge.parse import VerdictParser

    paths, _ = sim
    v = pd.read_parquet(paths.raw_table("judge_verdicts"))
    v = v[v["judge_kind"] == "llm"].sample(300, random_state=1)
    parser = VerdictParser(load_axes(paths.seeds))
    for row in v.itertuples(index=False):
        parsed = parser.parse(row.raw_text)
        assert parsed.status == row.parse_status
        landed = None if pd.isna(row.verdict_overall) else row.verdict_overall
        assert parsed.verdicts["overall"] == landed
    assert 0 < (v["parse_status"] == "failed").mean() < 0.05


def test_the_round_robin_bradley_terry_fit_recovers_the_planted_order(sim):
    """The demo's round-robin through the functions behind judge_bradley_terry: the candidates come
    out in the planted order of overall quality (K > H > Q > M, all below P), and the model-vs-model
    pairs make every model's interval narrower than the anchor-only design's on the same variant."""
    from rater1001.marts.judge import bradley_terry, pair_verdicts

    paths, summary = sim
    v = pd.read_parquet(paths.raw_table("judge_verdicts")).rename(columns={"order": "presentation_order"})
    keys = ["judge_id", "judge_kind", "sample_id", "variant", "candidate_a", "candidate_b", "presentation_order"]
    long = v.melt(
        id_vars=keys,
        value_vars=[f"verdict_{a}" for a in (*AXES, "overall")],
        var_name="axis",
        value_name="position_verdict",
    ).assign(axis=lambda d: d["axis"].str.removeprefix("verdict_"))
    pairs = pair_verdicts(long, pd.read_parquet(paths.raw_table("dialogues")))
    bt = bradley_terry(pairs, "P")
    got = bt[(bt["judge_id"] == "gpt-5.1") & (bt["variant"] == "text") & (bt["axis"] == "overall")]
    rr = got[got["design"] == "round_robin"].set_index("candidate_id")
    anchor = got[got["design"] == "anchor_only"].set_index("candidate_id")
    planted = {c: np.mean(q) for c, q in summary.parameters.quality.items()}
    order = sorted(planted, key=planted.get, reverse=True)
    assert order == ["P", "K", "H", "Q", "M"]
    assert list(rr["log_strength"].sort_values(ascending=False).index) == order
    for c in ("K", "H", "Q", "M"):
        assert rr.loc[c, "ci_high"] - rr.loc[c, "ci_low"] < anchor.loc[c, "ci_high"] - anchor.loc[c, "ci_low"], c
    assert not (bt[bt["judge_id"] == "claude-sonnet-4.6"]["design"] == "round_robin").any()
