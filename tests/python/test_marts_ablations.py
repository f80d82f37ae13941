"""The issue 8 marts (models/marts/{ablations,calibration,small_pools,intervals,alt_test}) against
independent routes: statsmodels / scipy / sklearn / the `krippendorff` package on a pandas
recomputation from the landed Parquet, the reference stats.alt_test.alt_test itself, and parameter
recovery against the simulator's generating truth (data/simulation_truth) and behaviour profiles."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pandas as pd
import pytest
from conftest import query_warehouse
from rater1001.paths import REPO_ROOT
from rater1001.stats import calibration as CAL
from rater1001.stats import zscores as ZS
from rater1001.stats.alt_test import alt_test
from scipy import stats as sps
from sklearn.metrics import cohen_kappa_score
from stats_helpers import read_landed, slotted
from statsmodels.stats.contingency_tables import mcnemar

PROFILES = REPO_ROOT / "python" / "rater1001" / "data" / "demo_profiles"
DIMS = ("valence", "arousal")
MY_MARTS = (
    "ablation_thinking_comparison",
    "ablation_scaling_accuracy",
    "ablation_scaling_metrics",
    "ablation_thinking_traces",
    "ablation_thinking_rt",
    "ablation_disagreement_split",
    "calibration_scores",
    "calibration_verdicts",
    "small_pool_alpha",
    "headline_intervals",
    "alt_test_results",
)


@pytest.fixture(scope="module")
def raw(demo_warehouse):
    """Landed demo tables from Parquet (not the warehouse): stimuli, ratings, primary-run
    predictions with truth and correctness, per-image human mean / SD / n."""
    p = demo_warehouse
    stimuli = read_landed(p, "stimuli")
    ratings = read_landed(p, "human_ratings").rename(columns={"category": "chosen_category"})
    preds = read_landed(p, "model_predictions").sort_values("run_id")
    preds = (
        preds.rename(columns={"category": "predicted_category"})
        .drop_duplicates(["condition_id", "image_id"])
        .merge(stimuli, on="image_id")
    )
    preds["correct"] = preds["category"] == preds["predicted_category"]
    human = {d: ratings.groupby("image_id")[d].agg(["count", "mean", "std", "sum"]) for d in DIMS}
    for d in DIMS:
        human[d]["sumsq"] = ratings.assign(_sq=ratings[d] ** 2).groupby("image_id")["_sq"].sum()
    return {"paths": p, "stimuli": stimuli, "ratings": ratings, "preds": preds, "human": human}


def q(raw, sql):
    return query_warehouse(raw["paths"], sql)


def test_every_issue8_mart_is_labelled_simulated(raw):
    for mart in MY_MARTS:
        origins = q(raw, f"select distinct data_origin from {mart}")["data_origin"].tolist()
        assert origins == ["SIMULATED"], mart


def test_thinking_pair_mcnemar_matches_statsmodels_on_raw_outcomes(raw):
    mart = q(raw, "select * from ablation_thinking_comparison").set_index("category")
    assert set(mart[["condition_a", "condition_b"]].itertuples(index=False)) == {
        ("gemini-2.5-flash", "gemini-2.5-flash-nothink")
    }
    p = raw["preds"]
    wide = (
        p[p.condition_id.isin(["gemini-2.5-flash", "gemini-2.5-flash-nothink"])]
        .pivot(index="image_id", columns="condition_id", values="correct")
        .join(raw["stimuli"].set_index("image_id")["category"])
    )
    for category, part in [("all", wide), ("sad", wide[wide.category == "sad"])]:
        a, b = part["gemini-2.5-flash"].astype(bool), part["gemini-2.5-flash-nothink"].astype(bool)
        table = [[(a & b).sum(), (a & ~b).sum()], [(~a & b).sum(), (~a & ~b).sum()]]
        ref = mcnemar(np.array(table), exact=(table[0][1] + table[1][0]) < 25, correction=True)
        row = mart.loc[category]
        assert row["mcnemar_p"] == pytest.approx(ref.pvalue) and row["mcnemar_statistic"] == pytest.approx(
            ref.statistic
        )
        assert row["accuracy_diff_pp"] == pytest.approx(100 * (a.mean() - b.mean()))
    # tokens per step: the simulator plants ~520 (thinking) and ~199 (budget 0, paper 4A.1) per step
    steps = p.assign(steps=p["raw_responses"].map(lambda s: len(json.loads(s))))
    per_step = (steps["thinking_tokens"] / steps["steps"]).groupby(steps["condition_id"]).mean()
    assert mart.loc["all", "thinking_tokens_per_step_a"] == pytest.approx(per_step["gemini-2.5-flash"])
    assert mart.loc["all", "thinking_tokens_per_step_b"] == pytest.approx(199, rel=0.1)


def test_scaling_accuracy_recovers_planted_recall_and_deltas(raw, demo_warehouse):
    mart = q(raw, "select * from ablation_scaling_accuracy where family = 'gemma3'")
    assert sorted(mart["size_b"].unique()) == [4, 12, 27]
    truth = slotted(pd.read_parquet(demo_warehouse.root / "data" / "simulation_truth" / "model_values.parquet"))
    recall = truth[truth.dimension == "valence"].set_index(["condition_id", "category"])["recall_profile"]
    for row in mart[mart.category != "all"].itertuples():
        se = np.sqrt(recall[(row.condition_id, row.category)] * (1 - recall[(row.condition_id, row.category)]) / 240)
        assert abs(row.accuracy - recall[(row.condition_id, row.category)]) <= 4 * se + 1e-9
    acc = raw["preds"].groupby(["condition_id", "category"])["correct"].mean()
    m = mart.set_index(["category", "size_b"])
    assert m.loc[("sad", 12), "delta_accuracy"] == pytest.approx(
        acc[("gemma3-12b-it", "sad")] - acc[("gemma3-4b-it", "sad")]
    )
    assert np.isnan(m.loc[("sad", 4), "delta_accuracy"])


def test_scaling_metrics_match_scipy_pearson_and_mae_from_raw(raw):
    mart = q(raw, "select * from ablation_scaling_metrics").set_index(["condition_id", "metric"])
    p = raw["preds"][raw["preds"].condition_id == "gemma3-27b-it"].set_index("image_id")
    h = raw["human"]["arousal"]["mean"].reindex(p.index)
    assert mart.loc[("gemma3-27b-it", "arousal_r"), "value"] == pytest.approx(sps.pearsonr(h, p["arousal"]).statistic)
    assert mart.loc[("gemma3-27b-it", "arousal_mae"), "value"] == pytest.approx((h - p["arousal"]).abs().mean())
    acc = p.groupby("audit_1")["correct"].mean()
    assert mart.loc[("gemma3-27b-it", "audit_1_gap_accuracy_pp"), "value"] == pytest.approx(
        100 * (acc.max() - acc.min())
    )


def test_thinking_traces_mann_whitney_and_planted_lengths(raw):
    mart = q(raw, "select * from ablation_thinking_traces").set_index(["condition_id", "measure", "category"])
    g = raw["preds"][raw["preds"].condition_id == "gemini-2.5-flash"]
    length = g["thinking_text"].str.len()
    ref = sps.mannwhitneyu(length[~g.correct], length[g.correct], alternative="two-sided")
    row = mart.loc[("gemini-2.5-flash", "chars", "all")]
    assert row["mann_whitney_u"] == pytest.approx(ref.statistic) and row["mann_whitney_p"] == pytest.approx(ref.pvalue)
    # parameter recovery: per-category mean characters near Table 4A-3's plant (thinking.csv)
    plant = slotted(pd.read_csv(PROFILES / "thinking.csv"))
    plant = plant[plant.condition_id == "gemini-2.5-flash"].set_index("category")["mean_length"]
    got = mart.loc[("gemini-2.5-flash", "chars")]["mean_length"].drop("all")
    assert got.idxmax() == "sad"
    # the plant is the mean over all faces; wrong answers are 13 % longer, so allow 10 %
    assert ((got / plant.reindex(got.index) - 1).abs() < 0.10).all()
    assert ("gemma3-4b-it", "chars", "all") not in mart.index  # only thinking conditions


def test_thinking_rt_spearman_matches_scipy_on_raw_rt(raw):
    mart = q(raw, "select * from ablation_thinking_rt").set_index(["condition_id", "measure", "rt_dimension"])
    r = raw["ratings"].merge(raw["stimuli"][["image_id", "category"]], on="image_id")
    rt = r.groupby("category")["rt_arousal_ms"].median()
    g = raw["preds"][raw["preds"].condition_id == "qwen3-vl-4b-thinking"]
    tokens = g.groupby("category")["thinking_tokens"].mean()
    row = mart.loc[("qwen3-vl-4b-thinking", "tokens", "arousal")]
    assert row["spearman_rho"] == pytest.approx(sps.spearmanr(tokens, rt.reindex(tokens.index)).statistic)
    assert row["n_categories"] == 6 and "n = 6" in row["small_n_caveat"]


def test_offset_calibration_recovers_the_planted_bias_out_of_sample(raw, demo_warehouse):
    mart = q(raw, "select * from calibration_scores where method = 'offset'")
    mart = mart[
        mart["condition_id"].isin(raw["preds"].loc[raw["preds"]["strategy"] != "fer", "condition_id"])
    ]  # VLM plants
    truth = slotted(pd.read_parquet(demo_warehouse.root / "data" / "simulation_truth" / "model_values.parquet"))
    truth = truth.set_index(["condition_id", "dimension", "category"])
    z = []
    for row in mart.itertuples():
        t = truth.loc[(row.condition_id, row.dimension, row.category)]
        # SE of a mean of 240 differences with the uncalibrated SD_d (the fold means average 4/5 of them)
        se = q_sd(raw, row) / np.sqrt(240)
        z.append((row.mean_b - t["bias_expected"]) / se)
    z = np.abs(np.array(z))
    assert len(z) == 96 and np.mean(z < 3) > 0.97 and z.max() < 5
    # after the offset the out-of-sample bias is ~0 and W1SD never falls for a clearly biased cell
    biased = mart[mart["bias_uncalibrated"].abs() > 1.0]
    assert (biased["bias"].abs() < 0.2).all() and (biased["w1sd"] >= biased["w1sd_uncalibrated"]).all()


def q_sd(raw, row):
    """SD of d = human mean - model for one (condition, dimension, category), from the raw Parquet."""
    p = raw["preds"]
    p = p[(p.condition_id == row.condition_id) & (p.category == row.category)].set_index("image_id")
    return float((raw["human"][row.dimension]["mean"].reindex(p.index) - p[row.dimension]).std(ddof=1))


def test_calibrated_scores_equal_an_independent_identity_fold_loop(raw):
    mart = q(
        raw,
        "select * from calibration_scores where condition_id = 'gpt-4o-mini' and dimension = 'valence' "
        "and category = 'fear'",
    ).set_index("method")
    p = raw["preds"][(raw["preds"].condition_id == "gpt-4o-mini")].set_index("image_id")
    folds = pd.Series(CAL.identity_folds(p["identity_id"], 5, 42), index=p.index)
    fear = p[p.category == "fear"]
    h = raw["human"]["valence"].reindex(fear.index)
    out = pd.Series(np.nan, index=fear.index)
    for f in range(5):
        test = folds.reindex(fear.index) == f
        x, y = fear.loc[~test, "valence"], h.loc[~test, "mean"]
        assert not set(fear.loc[test, "identity_id"]) & set(fear.loc[~test, "identity_id"])  # no shared face
        a, b = np.polyfit(x, y, 1)
        out[test] = np.clip(a * fear.loc[test, "valence"] + b, 1, 9)
    z = (out - h["mean"]) / h["std"]
    assert mart.loc["affine", "w1sd"] == pytest.approx((z.abs() <= 1).mean())
    assert mart.loc["affine", "mae"] == pytest.approx((h["mean"] - out).abs().mean())
    assert mart.loc["none", "n_unique"] <= 4 and "cannot add distinct values" in mart.loc["affine", "note"]


def test_calibration_verdicts_follow_the_scores(raw):
    v = q(raw, "select * from calibration_verdicts")
    s = q(raw, "select * from calibration_scores")
    assert len(v) == 2 * 6 * 3
    n_pass = s.groupby(["dimension", "category", "method"])["passes"].sum()
    for row in v.itertuples():
        assert row.n_conditions_passing == n_pass[(row.dimension, row.category, row.method)]
    assert (v[v.method == "none"]["verdict_moved"] == False).all()  # noqa: E712


def test_small_pools_match_krippendorff_at_full_pool_and_models_matter_more_in_small_pools(raw):
    mart = q(raw, "select * from small_pool_alpha").set_index(["dimension", "k", "condition_id"])
    r = raw["ratings"]
    matrix = r.pivot(index="rater_id", columns="image_id", values="valence").to_numpy(dtype=float)
    full = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
    at50 = mart.loc[("valence", 50, "gemma3-27b-it")]
    assert at50["human_alpha_lo"] <= full <= at50["human_alpha_hi"] and abs(at50["human_alpha"] - full) < 0.01
    at2 = mart.loc[("valence", 2, "gemma3-27b-it")]
    # one accurate extra rater among 3 moves alpha far more than among 51
    assert abs(at2["delta_alpha"]) > 5 * abs(at50["delta_alpha"])
    assert at2["human_alpha_hi"] - at2["human_alpha_lo"] > at50["human_alpha_hi"] - at50["human_alpha_lo"]
    assert (mart["n_images_excluded"] == 0).all()


def test_headline_intervals_estimates_match_reference_packages(raw):
    mart = q(raw, "select * from headline_intervals").set_index(["condition_id", "dimension", "category", "statistic"])
    r = raw["ratings"]
    matrix = r.pivot(index="rater_id", columns="image_id", values="arousal")
    base = krippendorff.alpha(reliability_data=matrix.to_numpy(dtype=float), level_of_measurement="interval")
    p = raw["preds"][raw["preds"].condition_id == "gemma3-4b-it"].set_index("image_id")
    plus = np.vstack([matrix.to_numpy(dtype=float), p["arousal"].reindex(matrix.columns).to_numpy(dtype=float)])
    with_model = krippendorff.alpha(reliability_data=plus, level_of_measurement="interval")
    assert mart.loc[("human", "arousal", "all", "alpha"), "estimate"] == pytest.approx(base)
    row = mart.loc[("gemma3-4b-it", "arousal", "all", "delta_alpha")]
    assert row["estimate"] == pytest.approx(with_model - base)
    assert row["lo"] < row["estimate"] < row["hi"]
    kappa = mart.loc[("gemma3-4b-it", "classification", "all", "kappa")]
    assert kappa["estimate"] == pytest.approx(cohen_kappa_score(p["category"], p["predicted_category"]))
    h = raw["human"]["valence"].reindex(p.index)
    z = ZS.zscore(p["valence"], h["mean"], h["std"])
    sad = (p["category"] == "sad").to_numpy()
    w = mart.loc[("gemma3-4b-it", "valence", "sad", "w1sd")]
    assert w["estimate"] == pytest.approx(ZS.summarise(z[sad]).w1sd) and w["lo"] < w["estimate"] < w["hi"]


def test_disagreement_split_terciles_and_w1sd_from_raw(raw):
    mart = q(
        raw, "select * from ablation_disagreement_split where condition_id = 'gpt-4o-mini' and dimension = 'valence'"
    ).set_index("tercile")
    h = raw["human"]["valence"]
    sd = h["std"].round(9)  # equal multisets of integer ratings must compare equal at the cut points
    lo, hi = np.quantile(sd, [1 / 3, 2 / 3])
    tercile = np.where(sd <= lo, "low", np.where(sd <= hi, "mid", "high"))
    p = raw["preds"][raw["preds"].condition_id == "gpt-4o-mini"].set_index("image_id").reindex(h.index)
    z = ZS.zscore(p["valence"], h["mean"], h["std"])
    for t in ("low", "mid", "high"):
        assert mart.loc[t, "w1sd"] == pytest.approx(ZS.summarise(z[tercile == t]).w1sd)
        assert mart.loc[t, "n_images"] == (tercile == t).sum()
    assert mart.loc[["low", "mid", "high"], "n_images"].sum() == mart.loc["all", "n_images"] == 1440


def _rounded(score):
    return lambda v, others: round(score(v, others), 9)


def _neg_abs_error(v, others):
    return -abs(float(v) - float(np.mean(others)))


def _rank_centrality(v, others):
    o = np.asarray(others, dtype=float)
    return -abs(((o < v).sum() + 0.5 * (o == v).sum()) / len(o) - 0.5)


@pytest.mark.parametrize("scoring,fn", [("neg_abs_error", _neg_abs_error), ("rank", _rank_centrality)])
def test_alt_test_mart_equals_the_reference_alt_test(raw, scoring, fn):
    """The SQL + counts route against stats.alt_test.alt_test on one category's images (the
    per-instance Python loop is too slow for the whole study, ~25 s per condition and dimension)."""
    cond, dim, category, eps = "gemma3-4b-it", "arousal", "neutral", 0.2
    mart = q(
        raw,
        f"select * from alt_test_results where condition_id = '{cond}' and dimension = '{dim}' "
        f"and scoring = '{scoring}' and category = '{category}' and epsilon = {eps}",
    ).iloc[0]
    r = raw["ratings"].merge(raw["stimuli"][["image_id", "category"]], on="image_id")
    r = r[r.category == category]
    human = r.rename(columns={"rater_id": "annotator_id", "image_id": "instance_id", dim: "label"})
    p = raw["preds"][raw["preds"].condition_id == cond].set_index("image_id")[dim]
    ref = alt_test(
        human[["annotator_id", "instance_id", "label"]],
        p.astype(float),
        epsilon=eps,
        q=0.05,
        scoring=_rounded(fn),
        min_instances_per_human=int(mart["min_instances_per_human"]),
    )
    assert mart["n_annotators_tested"] == ref.n_annotators_tested
    assert mart["winning_rate"] == pytest.approx(ref.winning_rate)
    assert mart["advantage_probability"] == pytest.approx(ref.advantage_probability)
    assert bool(mart["passed"]) == ref.passed


def test_marts_build_empty_without_predictions(small_warehouse_without_predictions):
    """No model predictions at all: every issue 8 mart builds, empty, instead of failing."""
    # the shared build; other areas' marts are not this test's business, ours must exist
    small_study = small_warehouse_without_predictions.paths
    for mart in MY_MARTS:
        if mart == "headline_intervals":
            continue
        n = query_warehouse(small_study, f"select count(*) as n from {mart}")["n"].item()
        assert n == 0, mart
    # the human-only numbers are still there: human alpha with its interval, human RT by category
    iv = query_warehouse(small_study, "select * from headline_intervals")
    assert set(iv["condition_id"]) == {"human"} and set(iv["dimension"]) == set(DIMS)
    assert iv["lo"].notna().all() and (iv["lo"] <= iv["estimate"]).all()
    rt = query_warehouse(small_study, "select count(*) as n from ablation_human_rt_by_category")["n"].item()
    assert rt > 0
