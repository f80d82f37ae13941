"""The embedded demo study: exact design, calibrated human reliability, and model conditions whose
planted behaviour (recall, bias, demographic gaps, coupling, stereotypy, thinking) is recovered
from the landed Parquet by independent routes (the `krippendorff` package, pandas group-bys)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from rater1001.landing import read_manifest
from rater1001.paths import REPO_ROOT, project
from rater1001.simulate import DesignError, ProfileError, load_profiles, simulate_study
from rater1001.simulate.derive_profiles import BIAS_SCALE, OUT, value_bias_rows

TABLES = ("stimuli", "raters", "human_ratings", "model_conditions", "model_predictions")


def _read(paths, name):
    return pd.read_parquet(paths.raw_table(name))


def _truth(paths, name):
    return pd.read_parquet(paths.root / "data" / "simulation_truth" / f"{name}.parquet")


@pytest.fixture(scope="module")
def demo(demo_study):
    p = demo_study
    st = _read(p, "stimuli")
    hr = _read(p, "human_ratings")
    mp = _read(p, "model_predictions")
    img = hr.groupby("image_id")[["valence", "arousal"]].mean().add_suffix("_human")
    preds = mp.merge(st, on="image_id", suffixes=("", "_true")).merge(img, left_on="image_id", right_index=True)
    preds["correct"] = preds["emotion"] == preds["emotion_true"]
    return dict(paths=p, stimuli=st, raters=_read(p, "raters"), ratings=hr, predictions=mp, joined=preds)


# ---------------------------------------------------------------- design


def test_paper_design_is_exact(demo):
    st, ra, hr = demo["stimuli"], demo["raters"], demo["ratings"]
    assert len(st) == 1440 and st["image_id"].is_unique
    cells = st.groupby(["race", "gender", "emotion"]).size()
    assert len(cells) == 36 and (cells == 40).all()
    per_identity = st.groupby("identity_id")["emotion"].agg(["size", "nunique"])
    assert len(per_identity) == 240 and (per_identity["size"] == 6).all() and (per_identity["nunique"] == 6).all()
    assert (st["file_path"] == "images/" + st["image_id"] + ".png").all()

    assert len(ra) == 1000 and ra["rater_id"].is_unique
    assert ra["gender"].value_counts().to_dict() == {"female": 500, "male": 500}
    assert ra["age"].between(20, 69).all() and ra["age"].min() == 20 and ra["age"].max() == 69
    assert abs(ra["age"].mean() - 44.6) < 0.3 and abs(ra["age"].std() - 13.7) < 0.3
    cohorts = (ra["age"] // 10).value_counts()
    assert (cohorts == 200).all() and len(cohorts) == 5

    assert len(hr) == 72_000 and not hr.duplicated(["rater_id", "image_id"]).any()
    assert (hr.groupby("image_id").size() == 50).all()
    assert (hr.groupby("rater_id").size() == 72).all()
    trials = hr.sort_values(["rater_id", "trial_index"]).groupby("rater_id")["trial_index"].apply(list)
    assert all(t == list(range(1, 73)) for t in trials)
    # trial order is randomised per rater, not the dealing order: positions of the same image differ
    assert hr.groupby("image_id")["trial_index"].nunique().mean() > 20
    # each rater's 72 images spread over the 36 design cells (2 per cell)
    seen = hr.merge(st, on="image_id").groupby(["rater_id", "race", "gender", "emotion_y"]).size()
    assert (seen == 2).all()
    for d in ("valence", "arousal", "naturalness"):
        assert hr[d].between(1, 9).all() and (hr[d] % 1 == 0).all()


def test_conditions_are_the_catalog_rows_and_every_image_is_predicted(demo):
    catalog = pd.read_csv(REPO_ROOT / "seeds" / "model_condition_catalog.csv")
    catalog = catalog[catalog["paper_table"].notna()]  # the paper's conditions; not fer-mini-xception
    mc = _read(demo["paths"], "model_conditions")
    assert list(mc["condition_id"]) == list(catalog["condition_id"])
    assert list(mc["display_name"]) == list(catalog["display_name"])
    assert mc.loc[mc["condition_id"] == "gemini-2.5-flash", "thinking_budget"].item() == -1
    mp = demo["predictions"]
    assert list(catalog["kind"]).count("fer") == 5  # Table S1's five FER models
    assert len(mp) == 13 * 1440 and not mp.duplicated(["condition_id", "image_id", "run_id"]).any()
    strategy = dict(zip(catalog["condition_id"], catalog["strategy"]))
    assert (mp["strategy"] == mp["condition_id"].map(strategy)).all()


def test_landing_zone_is_marked_simulated_and_study_yml_matches(demo):
    p = demo["paths"]
    manifest = read_manifest(p)
    assert sorted(manifest["table_name"]) == sorted(TABLES)
    assert manifest["is_simulated"].all()
    assert manifest.set_index("table_name")["rows_landed"].to_dict()["human_ratings"] == 72_000
    assert (p.root / "study.yml").read_text() == (REPO_ROOT / "study.yml").read_text()


# ---------------------------------------------------------------- humans


def test_human_interval_alpha_matches_the_paper(demo):
    krippendorff = pytest.importorskip("krippendorff")
    hr = demo["ratings"]
    r = hr["rater_id"].astype("category").cat.codes.to_numpy()
    i = hr["image_id"].astype("category").cat.codes.to_numpy()
    alpha = {}
    for d in ("valence", "arousal", "naturalness"):
        m = np.full((r.max() + 1, i.max() + 1), np.nan)
        m[r, i] = hr[d].to_numpy(float)
        alpha[d] = krippendorff.alpha(reliability_data=m, level_of_measurement="interval")
    assert 0.47 <= alpha["valence"] <= 0.53, alpha
    assert 0.09 <= alpha["arousal"] <= 0.15, alpha
    assert 0.09 <= alpha["naturalness"] <= 0.16, alpha


def test_emotion_centroids_rts_and_naturalness(demo):
    hr = demo["ratings"].merge(demo["stimuli"], on="image_id", suffixes=("", "_img"))
    by = hr.groupby("emotion_img")
    means = by[["valence", "arousal", "naturalness"]].mean()
    # paper 4.3: happy ~ (7.4, 5.8), sad ~ (4.0, 4.3); 2.x: naturalness fear 5.26 .. happy 6.94.
    # SE of an emotion mean over 12,000 ratings with rater effects is < 0.03.
    assert abs(means.loc["happy", "valence"] - 7.4) < 0.1 and abs(means.loc["happy", "arousal"] - 5.8) < 0.1
    assert abs(means.loc["sad", "valence"] - 4.0) < 0.1 and abs(means.loc["sad", "arousal"] - 4.3) < 0.1
    assert abs(means.loc["fear", "naturalness"] - 5.26) < 0.1 and abs(means.loc["happy", "naturalness"] - 6.94) < 0.1
    assert means["naturalness"].idxmin() == "fear" and means["naturalness"].idxmax() == "happy"
    planted = load_profiles().human["emotions"]
    for e, row in means.iterrows():
        for d in ("valence", "arousal", "naturalness"):
            assert abs(row[d] - planted[e][d]) < 0.1, (e, d)
    rt = by[["rt_valence_ms", "rt_arousal_ms"]].median() / 1000
    for e, target in {"happy": 2.139, "neutral": 2.157, "fear": 2.518}.items():
        assert abs(rt.loc[e, "rt_valence_ms"] / target - 1) < 0.03, (e, rt.loc[e, "rt_valence_ms"])
    assert rt["rt_valence_ms"].idxmax() == "fear"
    assert rt["rt_arousal_ms"].between(1.6, 1.8).all()
    assert abs(rt.loc["sad", "rt_arousal_ms"] / 1.745 - 1) < 0.03


def test_rater_variance_is_recovered(demo):
    """Method of moments: a rater's mean deviation from the image means has variance
    rater_var * (1 - 1/n)^2 + within_var / 72 (approximately); compare with the planted SD."""
    hr, truth = demo["ratings"], _truth(demo["paths"], "raters")
    for d in ("valence", "arousal"):
        dev = hr[d] - hr.groupby("image_id")[d].transform("mean")
        per_rater = dev.groupby(hr["rater_id"]).mean()
        within = dev.groupby(hr["image_id"]).var().mean()
        est = per_rater.var() - within / 72
        planted = load_profiles().human["variance"][d]["rater_sd"] ** 2
        assert abs(est / planted - 1) < 0.25, (d, est, planted)
        r = np.corrcoef(per_rater.sort_index(), truth.set_index("rater_id")[f"rater_effect_{d}"].sort_index())[0, 1]
        assert r > 0.6


def test_human_emotion_labels_follow_the_human_profile(demo, tmp_project):
    hr = demo["ratings"].merge(demo["stimuli"], on="image_id", suffixes=("", "_img"))
    acc = (hr["emotion"] == hr["emotion_img"]).mean()
    assert abs(acc - 0.993) < 0.004  # Table 2 Human accuracy; 72,000 draws
    wrong = hr[hr["emotion"] != hr["emotion_img"]]
    assert set(wrong["emotion_img"]) <= {"angry", "disgust", "fear", "happy", "neutral", "sad"}
    assert set(wrong["emotion_img"]) >= {"angry", "disgust"}  # the only confusions of Table 3's Human row

    simulate_study(
        tmp_project,
        seed=3,
        n_identities=1,
        ratings_per_image=2,
        images_per_rater=36,
        conditions=[],
        human_emotion_labels=False,
    )
    assert _read(tmp_project, "human_ratings")["emotion"].isna().all()


# ---------------------------------------------------------------- model conditions


def _per_cell(joined):
    rows = []
    for (c, e), g in joined.groupby(["condition_id", "emotion_true"]):
        for d in ("valence", "arousal"):
            diff = g[f"{d}_human"] - g[d]
            rows.append(
                {
                    "condition_id": c,
                    "emotion": e,
                    "dimension": d,
                    "n": len(g),
                    "recall": g["correct"].mean(),
                    "bias": diff.mean(),
                    "sd_d": diff.std(),
                }
            )
    return pd.DataFrame(rows)


def test_recall_recovers_the_profile(demo):
    cells = _per_cell(demo["joined"]).drop_duplicates(["condition_id", "emotion"])
    truth = _truth(demo["paths"], "model_values").drop_duplicates(["condition_id", "emotion"])
    m = cells.merge(truth, on=["condition_id", "emotion"])
    assert len(m) == 48
    # binomial sampling over 240 images: 4 SE (plus one image) -> a false alarm rate ~1e-4 per cell
    se = np.sqrt(m["recall_profile"] * (1 - m["recall_profile"]) / m["n"])
    assert ((m["recall"] - m["recall_profile"]).abs() <= 4 * se + 1 / 240).all(), m[
        ["condition_id", "emotion", "recall", "recall_profile"]
    ]
    overall = demo["joined"].groupby("condition_id")["correct"].mean()
    table2 = {"gemini-2.5-flash-nothink": 0.878, "llama-3.2-11b-vision": 0.613, "gemma3-4b-it": 0.724}
    for c, acc in table2.items():
        assert abs(overall[c] - acc) < 0.03


def test_value_bias_is_tables_4a_5a_but_the_one_documented_scale():
    """value_bias.csv is what derive_profiles writes from the paper's Tables 4a / 5a (the TSVs in
    tests/reference), and it departs from them only where BIAS_SCALE says: Gemma3-27B's arousal
    biases x 1.18 (docs/demo_fidelity.md, finding 9). The paper's cells are read here afresh."""
    shipped = pd.read_csv(OUT / "value_bias.csv")
    pd.testing.assert_frame_equal(value_bias_rows(REPO_ROOT / "tests" / "reference" / "paper_tables"), shipped)
    assert BIAS_SCALE == {("gemma3-27b-it", "arousal"): 1.18}
    t5a = pd.read_csv(
        REPO_ROOT / "tests" / "reference" / "paper_tables" / "table5a_arousal_bias_by_emotion.tsv", sep="\t"
    )
    paper = t5a.set_index("감정")["Gemma3-27B"].str.extract(r"([−+\-]?[\d.]+)")[0].str.replace("−", "-").astype(float)
    g27 = shipped[(shipped["condition_id"] == "gemma3-27b-it") & (shipped["dimension"] == "arousal")]
    assert len(g27) == 6 and (g27["source"] == "table5a x1.18").all()
    # the CSV keeps three decimals
    assert sorted(g27["bias"]) == pytest.approx(sorted(paper * 1.18), abs=5e-4 + 1e-12)
    assert (shipped.loc[~shipped.index.isin(g27.index), "source"].isin(["table4a", "table5a"])).all()


def test_value_bias_recovers_the_profile(demo):
    """The mean of d = human mean - model over 240 images has SE sd_d / sqrt(240); the planted
    expectation is exact (sums of normal bin probabilities), so |observed - expected| <= 4 SE."""
    cells = _per_cell(demo["joined"])
    truth = _truth(demo["paths"], "model_values")
    m = cells.merge(truth, on=["condition_id", "emotion", "dimension"])
    assert len(m) == 96
    se = m["sd_d"] / np.sqrt(m["n"])
    assert ((m["bias"] - m["bias_expected"]).abs() <= 4 * se + 0.02).all(), m.loc[
        (m["bias"] - m["bias_expected"]).abs() > 4 * se + 0.02
    ]
    # the expectation is the paper's Table 4a/5a value except where coupling makes it unreachable
    close = (m["bias_expected"] - m["bias_profile"]).abs() <= 0.1
    assert close.mean() >= 0.9
    # polarity exaggeration: every condition rates happy higher and fear lower than the humans
    for c, g in m[m["dimension"] == "valence"].groupby("condition_id"):
        g = g.set_index("emotion")
        assert g.loc["happy", "bias"] < -0.5 and g.loc["fear", "bias"] > 1.5, c


def test_sad_is_absorbed_into_neutral(demo):
    j = demo["joined"]
    sad = j[j["emotion_true"] == "sad"]
    share = sad.groupby("condition_id")["emotion"].apply(lambda s: (s == "neutral").mean())
    wrong = sad[~sad["correct"]].groupby("condition_id")["emotion"].agg(lambda s: s.value_counts().idxmax())
    assert (wrong == "neutral").all()
    assert share["gemma3-4b-it"] > 0.5 and share["gpt-4o-mini"] > 0.45


def test_context_carry_couples_values_to_the_predicted_label(demo):
    """A sad face labelled neutral answers w * typical(neutral) + (1 - w) * own(sad): the observed
    share of the way from the sad-labelled mean to the model's neutral mean is the planted
    coupling w (after the budget cap, in the truth table), within sampling and rounding."""
    j = demo["joined"]
    g = j[j["condition_id"] == "gpt-4o-mini"]
    sad_as_neutral = g[(g["emotion_true"] == "sad") & (g["emotion"] == "neutral")]["valence"].mean()
    sad_as_sad = g[(g["emotion_true"] == "sad") & g["correct"]]["valence"].mean()
    neutral = g[g["emotion_true"] == "neutral"]["valence"].mean()
    truth = pd.read_parquet(demo["paths"].root / "data" / "simulation_truth" / "model_values.parquet")
    w = truth.set_index(["condition_id", "dimension", "emotion"]).loc[("gpt-4o-mini", "valence", "sad"), "coupling"]
    assert w >= 0.3
    assert (sad_as_neutral - sad_as_sad) / (neutral - sad_as_sad) == pytest.approx(w, abs=0.15)
    assert sad_as_sad < sad_as_neutral - 0.5


def test_stereotyped_answers(demo):
    j = demo["joined"]
    uniq = j.groupby(["condition_id", "emotion_true"])["valence"].nunique()
    assert uniq[("gpt-4o-mini", "happy")] <= 2  # paper 4.4: one value (9) for all happy faces
    assert j[(j["condition_id"] == "gpt-4o-mini") & (j["emotion_true"] == "happy")]["valence"].mode().item() == 9
    human_sd = demo["ratings"].groupby("image_id")["valence"].std().mean()
    model_sd = j.groupby(["condition_id", "emotion_true"])["valence"].std().mean()
    assert model_sd < human_sd  # Table 6: VLM SDs are below the human SDs


def test_one_value_cells_answer_their_constant_on_every_face(demo):
    constants = load_profiles().constant_answers
    assert len(constants) >= 2
    j = demo["joined"]
    for _, c in constants.iterrows():
        faces = j[(j["condition_id"] == c["condition_id"]) & (j["emotion_true"] == c["emotion"])]
        assert len(faces) == 240 and (faces[c["dimension"]] == c["value"]).all(), c.to_dict()
    # the other cells of the same conditions still vary
    other = j[(j["condition_id"] == "llama-3.2-11b-vision") & (j["emotion_true"] == "sad")]
    assert other["valence"].nunique() > 1


def test_fer_baselines_recover_tables_s1_to_s3(demo):
    """Accuracy within 4 binomial SE of Table S1, kappa within .03 (the profile plants per-emotion
    accuracy only: kappa follows from it); Pearson r and MAE against the human image means within
    .03 / .06 of Tables S2/S3; no values where S2/S3 print none."""
    from sklearn.metrics import cohen_kappa_score

    ref = REPO_ROOT / "tests" / "reference" / "paper_tables"
    s1 = pd.read_csv(ref / "tableS1_fer_vs_vlm.tsv", sep="\t").set_index("모델")
    j = demo["joined"]
    names = {
        "posterv2": "PosterV2",
        "mobilevit": "MobileViT",
        "efficientnet": "EfficientNet",
        "beit": "BEiT",
        "emonet": "EmoNet",
    }
    for cid, name in names.items():
        g = j[j["condition_id"] == cid]
        acc, kappa = float(s1.loc[name, "정확도"]), float(s1.loc[name, "kappa"])
        assert abs(g["correct"].mean() - acc) <= 4 * np.sqrt(acc * (1 - acc) / len(g)), cid
        assert abs(cohen_kappa_score(g["emotion_true"], g["emotion"]) - kappa) <= 0.03, cid
        assert (g["strategy"] == "fer").all() and (g["parse_path"] == "json").all()
    for dim, table in (("valence", "tableS2_fer_valence.tsv"), ("arousal", "tableS3_fer_arousal.tsv")):
        t = pd.read_csv(ref / table, sep="\t", dtype={"Pearson r": float, "MAE": float}).set_index("Model")
        for cid, name in names.items():
            g = j[j["condition_id"] == cid]
            if name not in t.index:
                assert g[dim].isna().all(), (cid, dim)
                continue
            r = np.corrcoef(g[dim], g[f"{dim}_human"])[0, 1]
            mae = (g[f"{dim}_human"] - g[dim]).abs().mean()
            assert abs(r - t.loc[name, "Pearson r"]) <= 0.03, (cid, dim, r)
            assert abs(mae - t.loc[name, "MAE"]) <= 0.06, (cid, dim, mae)


def test_demographic_gaps_follow_the_profile(demo):
    j = demo["joined"]
    labels = _truth(demo["paths"], "labels")
    profiles = load_profiles()
    for c in ("gpt-4o-mini", "gemma3-12b-it", "qwen3-vl-4b-thinking"):
        for factor in ("race", "gender"):
            planted = labels[labels["condition_id"] == c].groupby(factor)["p_correct"].mean()
            target = pd.Series(profiles.accuracy_targets(c, factor)).reindex(planted.index)
            # gaps are planted exactly (around the overall accuracy the recalls imply)
            assert np.allclose(planted - planted.mean(), target - target.mean(), atol=0.005), (c, factor)
            observed = j[j["condition_id"] == c].groupby(factor)["correct"].mean()
            n = j[j["condition_id"] == c].groupby(factor).size()
            se = np.sqrt(planted * (1 - planted) / n)
            assert ((observed - planted).abs() <= 4 * se).all(), (c, factor)
    # Table 7a's largest gender gap (Gemma3-12B, women +15 pp) is visible in the data
    g12 = j[j["condition_id"] == "gemma3-12b-it"].groupby("gender")["correct"].mean()
    assert g12["female"] - g12["male"] > 0.07


def test_value_shifts_by_race_and_gender_are_recovered(demo):
    """Tables 7b/7c effect sizes are planted as race / gender shifts of the answers. The mean
    answer of every (condition, dimension, emotion) x race level and x gender level (120-240
    images) matches its exact expectation within 4.5 SE (expected SD from the truth; 480 groups)."""
    cells = _truth(demo["paths"], "model_cells")
    j = demo["joined"].rename(columns={"emotion_true": "truth_emotion"})
    for factor in ("race", "gender"):
        for d in ("valence", "arousal"):
            c = cells[cells["dimension"] == d].assign(
                m2=lambda t: t["model_sd_expected"] ** 2 + t["model_mean_expected"] ** 2
            )
            exp = c.groupby(["condition_id", "emotion", factor])[["model_mean_expected", "m2"]].mean()
            exp["sd"] = np.sqrt(exp["m2"] - exp["model_mean_expected"] ** 2)
            obs = j.groupby(["condition_id", "truth_emotion", factor])[d].agg(["mean", "size"])
            obs.index = obs.index.set_names(["condition_id", "emotion", factor])
            m = obs.join(exp, how="inner")  # the VLM conditions (FER values have no cell shifts)
            z = (m["mean"] - m["model_mean_expected"]) / np.maximum(m["sd"] / np.sqrt(m["size"]), 0.01)
            assert (z.abs() <= 4.5).all(), m[z.abs() > 4.5]
    # the largest planted effect shows up as a significant race x gender interaction (Table 7c:
    # LLaMA angry arousal F = 26.7), with an F test of statsmodels on d = model - human mean
    smf = pytest.importorskip("statsmodels.formula.api")
    from statsmodels.stats.anova import anova_lm

    g = j[(j["condition_id"] == "llama-3.2-11b-vision") & (j["truth_emotion"] == "angry")]
    g = g.assign(bias=g["arousal"] - g["arousal_human"])
    table = anova_lm(smf.ols("bias ~ C(race) * C(gender)", data=g).fit(), typ=1)
    assert (table["PR(>F)"].iloc[:3] < 0.001).all()


def test_profile_override_without_demographic_effect(tmp_project):
    profiles = load_profiles().without_demographic_gaps(["gemini-2.5-flash"])
    simulate_study(
        tmp_project,
        seed=11,
        n_identities=2,
        ratings_per_image=2,
        images_per_rater=36,
        conditions=["gemini-2.5-flash", "gpt-4o-mini"],
        profiles=profiles,
    )
    labels = _truth(tmp_project, "labels")
    flat = labels[labels["condition_id"] == "gemini-2.5-flash"].groupby("emotion")["p_correct"].agg(np.ptp)
    assert (flat < 1e-9).all()
    gapped = labels[labels["condition_id"] == "gpt-4o-mini"].groupby("emotion")["p_correct"].agg(np.ptp)
    assert (gapped > 0.01).any()
    assert sorted(_read(tmp_project, "model_predictions")["condition_id"].unique()) == [
        "gemini-2.5-flash",
        "gpt-4o-mini",
    ]
    cells = _truth(tmp_project, "model_cells")
    assert (cells.loc[cells["condition_id"] == "gemini-2.5-flash", "shift"] == 0).all()
    assert (cells.loc[cells["condition_id"] == "gpt-4o-mini", "shift"].abs() > 0.05).any()


def test_thinking_traces_and_raw_responses(demo):
    j = demo["joined"]
    for c in ("gemini-2.5-flash", "qwen3-vl-4b-thinking"):
        g = j[j["condition_id"] == c]
        length = g["thinking_tokens"] if c.startswith("qwen") else g["thinking_text"].str.len()
        assert length.groupby(g["emotion_true"]).mean().idxmax() == "sad"  # 4A.3
    nothink = j[j["condition_id"] == "gemini-2.5-flash-nothink"]
    assert nothink["thinking_text"].isna().all() and nothink["thinking_tokens"].between(300, 900).mean() > 0.9
    assert j[j["condition_id"] == "gpt-4o-mini"]["thinking_tokens"].isna().all()

    steps = {"context-carry": 3, "json-single": 1}
    for _, row in j[j["strategy"] != "fer"].sample(400, random_state=0).iterrows():
        raw = json.loads(row["raw_responses"])
        assert len(raw) == steps[row["strategy"]]
        if row["parse_path"] == "json":
            parsed = {k: v for step in raw for k, v in json.loads(step).items()}
            assert parsed["valence"] == row["valence"] and parsed["arousal"] == row["arousal"]
            assert parsed["emotion"][:3].lower() == row["emotion"][:3]
        elif row["parse_path"] == "fenced":
            assert all(s.startswith("```json") for s in raw)
    assert (demo["predictions"]["parse_path"] == "json").mean() > 0.95
    vlm = demo["predictions"][demo["predictions"]["strategy"] != "fer"]
    assert (vlm[["latency_ms", "input_tokens", "output_tokens"]] > 0).all().all()
    # the paper reports no latency or tokens for the FER models: none are invented
    fer = demo["predictions"][demo["predictions"]["strategy"] == "fer"]
    assert fer[["latency_ms", "input_tokens", "output_tokens", "thinking_text"]].isna().all().all()


# ---------------------------------------------------------------- small designs, seeds, errors


def test_small_design_and_its_study_yml(small_study):
    st, hr = _read(small_study, "stimuli"), _read(small_study, "human_ratings")
    assert len(st) == 72 and (st.groupby(["race", "gender", "emotion"]).size() == 2).all()
    assert (hr.groupby("image_id").size() == 5).all() and (hr.groupby("rater_id").size() == 12).all()
    assert len(_read(small_study, "raters")) == 30
    text = (small_study.root / "study.yml").read_text()
    assert "images_per_cell: 2" in text and "ratings_per_image: 5" in text and "images_per_rater: 12" in text
    from rater1001.study import load_study

    s = load_study(small_study)
    assert (s.images_per_cell, s.ratings_per_image, s.images_per_rater) == (2, 5, 12)


def test_same_seed_same_tables_other_seed_other_tables(tmp_path):
    kw = dict(n_identities=1, ratings_per_image=3, images_per_rater=12)
    a, b, c = (project(tmp_path / n) for n in "abc")
    simulate_study(a, seed=5, **kw)
    simulate_study(b, seed=5, **kw)
    simulate_study(c, seed=6, **kw)
    for name in TABLES:
        assert _read(a, name).equals(_read(b, name)), name
    for name in ("images", "raters", "model_values", "model_cells", "labels", "confusion"):
        assert _truth(a, name).equals(_truth(b, name)), name
    assert not _read(a, "human_ratings").equals(_read(c, "human_ratings"))
    assert not _read(a, "model_predictions").equals(_read(c, "model_predictions"))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(images_per_rater=7), "not a multiple of images_per_rater=7"),
        (dict(n_identities=0), "n_identities must be a positive integer"),
        (dict(ratings_per_image=2.5), "ratings_per_image must be a positive integer"),
        (dict(n_identities=1, images_per_rater=72), "exceeds the 36 images"),
    ],
)
def test_bad_design_is_refused_with_a_clear_message(tmp_project, kwargs, message):
    with pytest.raises(DesignError, match=message):
        simulate_study(tmp_project, **kwargs)
    assert not tmp_project.raw.exists()


def test_unknown_condition_and_missing_profile_are_refused(tmp_project):
    with pytest.raises(ValueError, match="unknown condition"):
        simulate_study(tmp_project, n_identities=1, images_per_rater=36, conditions=["gpt-5"])
    profiles = load_profiles()
    from dataclasses import replace

    broken = replace(profiles, conditions=profiles.conditions[profiles.conditions["condition_id"] != "gpt-4o-mini"])
    with pytest.raises(ProfileError, match="gpt-4o-mini"):
        simulate_study(tmp_project, n_identities=1, images_per_rater=36, profiles=broken)
    assert not tmp_project.raw.exists()


def test_raw_responses_parse_back_with_the_real_parser(demo):
    """The simulated raw texts go through infer's parsing cascade to the landed values and path."""
    parse = pytest.importorskip("rater1001.runs.infer.parse")
    from rater1001.study import load_study

    parser = parse.StepParser(load_study(demo["paths"]))
    fields = {
        "context-carry": [("emotion",), ("valence",), ("arousal",)],
        "json-single": [("emotion", "valence", "arousal")],
    }
    mp = demo["predictions"]
    mp = mp[mp["strategy"] != "fer"]  # FER rows are not model text
    sample = pd.concat([mp[mp["parse_path"] != "json"], mp[mp["parse_path"] == "json"].sample(300, random_state=1)])
    for _, row in sample.iterrows():
        steps = [parser.parse(text, f) for text, f in zip(json.loads(row["raw_responses"]), fields[row["strategy"]])]
        values = {k: v for s in steps for k, v in s.values.items()}
        assert parse.weakest(s.path for s in steps) == row["parse_path"], row["raw_responses"]
        assert values == {"emotion": row["emotion"], "valence": row["valence"], "arousal": row["arousal"]}


def test_failed_parses_leave_no_values(tmp_project):
    parse = pytest.importorskip("rater1001.runs.infer.parse")
    from dataclasses import replace

    from rater1001.study import load_study

    profiles = load_profiles()
    conditions = profiles.conditions.astype({"failed_rate": float})
    conditions.loc[conditions["condition_id"] == "gemma3-4b-it", "failed_rate"] = 0.25
    simulate_study(
        tmp_project,
        seed=2,
        n_identities=2,
        ratings_per_image=1,
        images_per_rater=72,
        conditions=["gemma3-4b-it"],
        profiles=replace(profiles, conditions=conditions),
    )
    mp = _read(tmp_project, "model_predictions")
    failed = mp[mp["parse_path"] == "failed"]
    assert 0.1 < len(failed) / len(mp) < 0.4
    assert failed[["emotion", "valence", "arousal"]].isna().all().all()
    assert mp.loc[mp["parse_path"] != "failed", ["emotion", "valence", "arousal"]].notna().all().all()
    parser = parse.StepParser(load_study(tmp_project))
    for raw in failed["raw_responses"]:
        assert parser.parse(json.loads(raw)[0], ("emotion", "valence", "arousal")).path == "failed"


def test_profiles_for_another_scale_are_refused(tmp_project):
    (tmp_project.root / "study.yml").write_text(
        (REPO_ROOT / "study.yml").read_text().replace("scale: {min: 1, max: 9}", "scale: {min: 1, max: 7}")
    )
    with pytest.raises(ProfileError, match="calibrated for a 1-9 scale"):
        simulate_study(tmp_project, n_identities=1, images_per_rater=36)


def test_a_projects_own_study_yml_keeps_its_text_and_gets_the_design_counts(tmp_project):
    own = (REPO_ROOT / "study.yml").read_text().replace("name: demo", "name: my-lab-study")
    (tmp_project.root / "study.yml").write_text(own)
    simulate_study(tmp_project, seed=1, n_identities=1, ratings_per_image=2, images_per_rater=36, conditions=[])
    text = (tmp_project.root / "study.yml").read_text()
    assert "name: my-lab-study" in text
    assert text == own.replace("images_per_cell: 40", "images_per_cell: 1").replace(
        "ratings_per_image: 50", "ratings_per_image: 2"
    ).replace("images_per_rater: 72", "images_per_rater: 36").replace(
        # the race x emotion cell: 2 genders x 1 identity
        "{factors: [race, emotion], stimuli: 80}",
        "{factors: [race, emotion], stimuli: 2}",
    )


# --- shared-difficulty label draws (classify.py) -------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hst  # noqa: E402
from rater1001.simulate.classify import correct_by_ease, wrong_labels_by_share  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(hst.lists(hst.tuples(hst.integers(0, 3), hst.floats(0, 1)), min_size=1, max_size=60), hst.integers(0, 2**32 - 1))
def test_correct_by_ease_gives_each_cell_its_expected_count_to_its_easiest_rows(rows, seed):
    cell = np.array([c for c, _ in rows])
    p = np.array([q for _, q in rows])
    rng = np.random.default_rng(seed)
    ease = rng.standard_normal(len(rows))
    correct = correct_by_ease(rng, cell, p, ease)
    for c in np.unique(cell):
        m = cell == c
        k = correct[m].sum()
        assert np.floor(p[m].sum() + 1e-9) <= k <= np.ceil(p[m].sum() - 1e-9)  # brute force: the sum's floor or ceiling
        if 0 < k < m.sum():  # the correct rows are the easiest ones
            assert ease[m][correct[m]].min() >= ease[m][~correct[m]].max()


def test_correct_by_ease_rounds_without_bias():
    # one cell with expected count 0.3: over many draws the count is 1 in ~30 % of them
    hits = [
        correct_by_ease(np.random.default_rng(s), np.zeros(3, int), np.full(3, 0.1), np.arange(3.0)).sum()
        for s in range(4000)
    ]
    assert set(hits) <= {0, 1} and abs(np.mean(hits) - 0.3) < 0.03


def test_wrong_labels_follow_the_confusion_shares_exactly():
    confusion = np.array([[0.55, 0.35, 0.1], [0.0, 1.0, 0.0], [0.25, 0.25, 0.5]])
    true = np.array([0] * 50 + [2] * 7 + [1] * 3)
    wrong = true != 1
    got = wrong_labels_by_share(np.random.default_rng(1), true, wrong, confusion)
    assert np.bincount(got[true == 0], minlength=3).tolist() == [0, 39, 11]  # 50 * (.778, .222) = 38.9 / 11.1
    assert np.bincount(got[true == 2], minlength=3).tolist() in ([4, 3, 0], [3, 4, 0])  # 7 * (.5, .5)
    assert (got[true == 1] == -1).all()  # rows that are not wrong get no wrong label


# ---------------------------------------------------------------- landing in parts


def test_predictions_landed_in_parts_are_the_file_of_the_whole_frame(tmp_project):
    """simulate lands each condition's predictions as Arrow as soon as it is made; the file must be
    the one landing the concatenated frame writes, schema metadata (pandas column types) included.
    Parts whose column types differ (a condition without thinking leaves thinking_tokens empty)
    are the case that matters."""
    from rater1001.simulate.output import land, land_parts, landed_part

    simulate_study(tmp_project, n_identities=2, ratings_per_image=4, images_per_rater=8)
    whole = _read(tmp_project, "model_predictions")
    frames = [whole[whole["condition_id"] == c].reset_index(drop=True) for c in whole["condition_id"].unique()]
    frames[-1] = frames[-1].assign(thinking_tokens=None, thinking_text=None)
    path = tmp_project.raw_table("model_predictions")

    land(tmp_project, "model_predictions", pd.concat(frames, ignore_index=True))
    expected = path.read_bytes()
    land_parts(
        tmp_project,
        "model_predictions",
        [landed_part(tmp_project, "model_predictions", f) for f in frames],
        [f.iloc[:0] for f in frames],
    )
    assert path.read_bytes() == expected


def test_a_table_is_written_one_row_group_at_a_time_as_pyarrow_writes_it_whole(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from rater1001 import landing

    monkeypatch.setattr(landing, "ROW_GROUP_ROWS", 7)
    rng = np.random.default_rng(3)
    parts = [pa.table({"x": rng.integers(0, 5, n), "s": [f"v{i % 3}" for i in range(n)]}) for n in (5, 9, 1, 6)]
    table = pa.concat_tables(parts)
    landing.write_parquet_atomic(table, tmp_path / "parts.parquet")
    pq.write_table(table.combine_chunks(), tmp_path / "whole.parquet", row_group_size=7)
    assert pq.ParquetFile(tmp_path / "parts.parquet").metadata.num_row_groups == 3
    assert (tmp_path / "parts.parquet").read_bytes() == (tmp_path / "whole.parquet").read_bytes()
