"""The issue 3 marts (agreement and replaceability) checked against independent routes: the
`krippendorff` package on the dense rater x image matrix, rater1001.stats functions on a pandas
recomputation from the landed Parquet, and parameter recovery against the simulator's behaviour
profiles (python/rater1001/data/demo_profiles), never against a copy of the outputs."""

from __future__ import annotations

import functools
import json

import krippendorff
import numpy as np
import pandas as pd
import pytest
from conftest import query_warehouse
from damaged_study import AGREEMENT_MARTS, agreement_damage, half_of_the_images
from rater1001.paths import REPO_ROOT
from rater1001.stats import agreement as AG
from rater1001.stats import alpha as AL
from rater1001.stats import bootstrap as BS
from rater1001.stats import classification as CL
from rater1001.stats import diversity as DV
from rater1001.stats import k_human_diversity
from rater1001.stats import zscores as ZS
from stats_helpers import delta_alpha_interval, loo_z, read_landed, slotted

PROFILES = REPO_ROOT / "python" / "rater1001" / "data" / "demo_profiles"
DIMS = ("valence", "arousal")


@pytest.fixture(scope="module")
def raw(demo_warehouse):
    """The landed demo tables, the per-image human statistics recomputed in pandas, and the
    model's per-image rows (primary run), all from the Parquet files, not from the warehouse."""
    p = demo_warehouse
    stimuli = read_landed(p, "stimuli")
    ratings = read_landed(p, "human_ratings")
    preds = read_landed(p, "model_predictions")
    # The VLM conditions (the FER baselines of Supplement S1 are checked in test_marts_fer.py).
    kinds = pd.read_parquet(p.raw_table("model_conditions")).set_index("condition_id")["kind"]
    preds = preds[preds["condition_id"].map(kinds) == "vlm"]
    preds = preds.sort_values("run_id").drop_duplicates(["condition_id", "image_id"])
    preds = preds.rename(columns={d: f"model_{d}" for d in DIMS})
    preds = preds.merge(stimuli[["image_id", "category"]].rename(columns={"category": "true_category"}), on="image_id")
    human = {}
    for dim in DIMS:
        g = ratings.groupby("image_id")[dim]
        human[dim] = pd.DataFrame(
            {
                "n": g.count(),
                "mean": g.mean(),
                "sd": g.std(ddof=1),
                "ss": g.var(ddof=1) * (g.count() - 1),
                "total": g.sum(),
                "total_sq": (ratings[dim] ** 2).groupby(ratings["image_id"]).sum(),
            }
        ).join(stimuli.set_index("image_id")["category"])
    # each rating with its image's intended category (the raters' own label is chosen_category)
    rated = ratings.rename(columns={"category": "chosen_category"}).merge(
        stimuli[["image_id", "category"]], on="image_id"
    )
    return {
        "paths": p,
        "stimuli": stimuli,
        "ratings": ratings,
        "rated": rated,
        "preds": preds,
        "human": human,
        "conditions": sorted(preds["condition_id"].unique()),
    }


def q(raw, sql):
    return query_warehouse(raw["paths"], sql)


# --- Krippendorff's alpha --------------------------------------------------------------------


def test_alpha_sql_equals_krippendorff_package_for_humans_and_every_model(raw):
    ratings, preds = raw["ratings"], raw["preds"]
    raters = {r: i for i, r in enumerate(sorted(ratings["rater_id"].unique()))}
    images = {m: j for j, m in enumerate(sorted(raw["stimuli"]["image_id"]))}
    mart = q(raw, "select * from alpha_delta where category = 'all' and metric = 'interval'")
    for dim in DIMS:
        dense = np.full((len(raters), len(images)), np.nan)
        dense[ratings["rater_id"].map(raters), ratings["image_id"].map(images)] = ratings[dim].astype(float)
        m = mart[mart["dimension"] == dim].set_index("condition_id")
        human = krippendorff.alpha(reliability_data=dense, level_of_measurement="interval")
        assert abs(m.loc["human", "alpha"] - human) < 1e-9
        for cond, p in preds.groupby("condition_id"):
            row = np.full(len(images), np.nan)
            row[p["image_id"].map(images)] = p[f"model_{dim}"].astype(float)
            plus = krippendorff.alpha(reliability_data=np.vstack([dense, row]), level_of_measurement="interval")
            assert abs(m.loc[cond, "alpha"] - plus) < 1e-9, (dim, cond)
            assert abs(m.loc[cond, "delta_alpha"] - (plus - human)) < 1e-9


def test_demo_human_alpha_is_in_the_issue_2_ranges(raw):
    a = q(
        raw,
        "select dimension, alpha from alpha_delta where condition_id = 'human' and category = 'all' "
        "and metric = 'interval'",
    ).set_index("dimension")["alpha"]
    assert 0.47 <= a["valence"] <= 0.53
    assert 0.09 <= a["arousal"] <= 0.15


def test_ordinal_nominal_and_per_category_alpha_equal_the_package(raw):
    ratings, preds = raw["ratings"], raw["preds"]
    happy = set(raw["stimuli"].loc[raw["stimuli"]["category"] == "happy", "image_id"])
    cond = "gpt-4o-mini"
    mart = q(raw, f"select * from alpha_delta where dimension = 'valence' and condition_id in ('human', '{cond}')")

    def package(level, subset=None):
        r = ratings if subset is None else ratings[ratings["image_id"].isin(subset)]
        p = preds[preds["condition_id"] == cond]
        p = p if subset is None else p[p["image_id"].isin(subset)]
        long = pd.concat(
            [
                r[["image_id", "valence"]].rename(columns={"valence": "v"}),
                p[["image_id", "model_valence"]].rename(columns={"model_valence": "v"}),
            ]
        )
        counts, domain = AL.value_count_matrix(r.rename(columns={"valence": "v"}), value="v")
        counts_plus, domain_plus = AL.value_count_matrix(long, value="v")
        return (
            krippendorff.alpha(value_counts=counts, value_domain=domain, level_of_measurement=level),
            krippendorff.alpha(value_counts=counts_plus, value_domain=domain_plus, level_of_measurement=level),
        )

    for level, category, subset in (
        ("ordinal", "all", None),
        ("nominal", "all", None),
        ("interval", "happy", happy),
        ("ordinal", "happy", happy),
    ):
        human, plus = package(level, subset)
        m = mart[(mart["metric"] == level) & (mart["category"] == category)].set_index("condition_id")["alpha"]
        assert abs(m["human"] - human) < 1e-9, (level, category)
        assert abs(m[cond] - plus) < 1e-9, (level, category)


# --- classification --------------------------------------------------------------------------


def test_classification_marts_equal_the_stats_functions_on_raw_predictions(raw):
    labels = ["happy", "sad", "angry", "fear", "disgust", "neutral"]
    summary = q(raw, "select * from classification_summary").set_index("condition_id")
    by_category = q(raw, "select * from classification_by_category").set_index(["condition_id", "category"])
    confusion = q(raw, "select * from confusion_matrix").set_index(
        ["condition_id", "true_category", "predicted_category"]
    )
    for cond, p in raw["preds"].groupby("condition_id"):
        s = CL.summary(p["true_category"], p["category"], labels)
        assert summary.loc[cond, "accuracy"] == pytest.approx(s.accuracy, abs=1e-12)
        assert summary.loc[cond, "kappa"] == pytest.approx(s.kappa, abs=1e-12)
        assert summary.loc[cond, "f1_macro"] == pytest.approx(s.f1_macro, abs=1e-12)
        assert summary.loc[cond, "landis_koch_band"] == s.band
        per = CL.by_label(p["true_category"], p["category"], labels).set_index("category")
        np.testing.assert_allclose(by_category.loc[cond].loc[labels, "recall"], per.loc[labels, "recall"], atol=1e-12)
        np.testing.assert_allclose(
            by_category.loc[cond].loc[labels, "kappa_within"], (per.loc[labels, "recall"] - 1 / 6) / (5 / 6), atol=1e-12
        )
        cm = pd.crosstab(p["true_category"], p["category"])
        for (t, pr), n in cm.stack().items():
            assert confusion.loc[(cond, t, pr), "n"] == n
    # the 'human' row: plurality vote of the raters' forced-choice labels, computed here with pandas
    votes = (
        raw["ratings"]
        .dropna(subset=["category"])
        .groupby("image_id")["category"]
        .agg(lambda s: s.mode().iloc[0] if len(s.mode()) == 1 else None)
    )
    truth = raw["stimuli"].set_index("image_id")["category"].reindex(votes.index)
    s = CL.summary(truth, votes, labels)
    assert summary.loc["human", "accuracy"] == pytest.approx(s.accuracy, abs=1e-12)
    assert summary.loc["human", "n"] == len(votes)


# --- dimensional agreement, z-scores, diversity ------------------------------------------------


def _pairs(raw, cond, dim, category):
    p = raw["preds"][raw["preds"]["condition_id"] == cond].set_index("image_id")
    h = raw["human"][dim]
    j = h.join(p[f"model_{dim}"].rename("model"), how="inner")
    return j if category == "all" else j[j["category"] == category]


@pytest.mark.parametrize("category", ["all", "sad"])
def test_dimensional_agreement_and_zscores_equal_the_stats_functions(raw, category):
    agree = q(raw, f"select * from dimensional_agreement where category = '{category}'").set_index(
        ["condition_id", "dimension"]
    )
    zsum = q(raw, f"select * from zscore_summary where category = '{category}'").set_index(
        ["condition_id", "dimension"]
    )
    for cond in raw["conditions"]:
        for dim in DIMS:
            j = _pairs(raw, cond, dim, category)
            ba = AG.bland_altman(j["mean"], j["model"])
            row = agree.loc[(cond, dim)]
            for col in ("bias", "sd_d", "loa_lower", "loa_upper", "mae", "mae_folded_normal"):
                assert row[col] == pytest.approx(getattr(ba, col), abs=1e-9), (cond, dim, col)
            r = AG.pearson(j["mean"], j["model"])
            if np.isnan(r.r):
                assert pd.isna(row["pearson_r"]) and row["pearson_r_null_reason"] == r.reason
            else:
                assert row["pearson_r"] == pytest.approx(r.r, abs=1e-9)
            z = ZS.summarise(ZS.zscore(j["model"], j["mean"], j["sd"]))
            assert zsum.loc[(cond, dim), "w1sd"] == pytest.approx(z.w1sd, abs=1e-12)
            assert zsum.loc[(cond, dim), "mean_abs_z"] == pytest.approx(z.mean_abs_z, abs=1e-9)
            assert zsum.loc[(cond, dim), "n_images"] == z.n_images
    # human baselines: LOO z, LOO MAE and pairwise MAE from value counts of the raw ratings
    for dim in DIMS:
        r = raw["rated"]
        r = r if category == "all" else r[r["category"] == category]
        h = raw["human"][dim].reindex(r["image_id"]).to_numpy()
        y = r[dim].to_numpy(float)
        z = ZS.summarise(loo_z(h[:, 0], h[:, 4], h[:, 5], y))
        assert zsum.loc[("human_loo", dim), "w1sd"] == pytest.approx(z.w1sd, abs=1e-12)
        counts, _ = AL.value_count_matrix(r.rename(columns={dim: "v"}), value="v", value_domain=np.arange(1, 10))
        stats = raw["human"][dim].loc[sorted(r["image_id"].unique())]
        row = agree.xs(dim, level="dimension").iloc[0]
        assert row["human_pairwise_mae"] == pytest.approx(AG.human_pairwise_mae(counts), abs=1e-9)
        assert row["human_loo_mae"] == pytest.approx(AG.human_loo_mae(stats["n"], stats["mean"], counts), abs=1e-9)


def test_response_diversity_equals_the_stats_function(raw):
    mart = q(raw, "select * from response_diversity where category <> 'all'")
    long = raw["preds"].melt(
        id_vars=["condition_id", "true_category"],
        value_vars=[f"model_{d}" for d in DIMS],
        var_name="dimension",
        value_name="value",
    )
    long["dimension"] = long["dimension"].str.removeprefix("model_")
    ref = DV.diversity_table(
        long.rename(columns={"true_category": "category"}), ["condition_id", "dimension", "category"], "value"
    )
    m = mart.merge(ref, on=["condition_id", "dimension", "category"], suffixes=("", "_ref"))
    assert len(m) == len(ref) == len(raw["conditions"]) * 2 * 6
    assert (m["n_unique"] == m["n_unique_ref"]).all()
    np.testing.assert_allclose(m["modal_share"], m["modal_share_ref"], atol=1e-12)


def test_bootstraps_equal_the_stats_functions_on_raw_inputs(raw):
    """p_sig and the k-human comparison for one slice, rebuilt from the Parquet: images in
    image_id order, each image's humans in value order (int_image_value_counts: the mart draws a
    value with probability its count over the image's humans)."""
    cond, dim, category = "gemma3-4b-it", "arousal", "fear"
    j = _pairs(raw, cond, dim, category).sort_index()
    r = raw["ratings"][raw["ratings"]["image_id"].isin(j.index)].sort_values(["image_id", dim, "rater_id"])
    h = raw["human"][dim].reindex(r["image_id"]).to_numpy()
    r = r.assign(loo=np.abs(loo_z(h[:, 0], h[:, 4], h[:, 5], r[dim].to_numpy(float))))
    loo = r.dropna(subset=["loo"])
    padded = BS.ragged_to_padded(loo["image_id"].map({m: i for i, m in enumerate(j.index)}), loo["loo"])
    ref = BS.p_sig(np.abs(ZS.zscore(j["model"], j["mean"], j["sd"])), padded)
    mart = q(
        raw,
        f"select * from bootstrap_psig where condition_id = '{cond}' and dimension = '{dim}' and category = '{category}'",
    ).iloc[0]
    assert mart["p_sig"] == ref.p_sig and mart["replicates"] == 2000 and mart["seed"] == 42

    # Table 6's pool: the paper's 7 VLMs, without the thinking-suppressed repeat of Gemini
    pool = sorted(set(raw["conditions"]) - {"gemini-2.5-flash-nothink"})
    wide = raw["preds"].pivot(index="image_id", columns="condition_id", values=f"model_{dim}")
    wide = wide.loc[j.index, pool]
    ratings = BS.ragged_to_padded(r["image_id"].map({m: i for i, m in enumerate(j.index)}), r[dim])
    k = k_human_diversity.k_human_variance(wide.to_numpy(float), ratings)
    mart = q(
        raw, f"select * from response_diversity_k_human where dimension = '{dim}' and category = '{category}'"
    ).iloc[0]
    assert mart["k"] == len(pool) == 7 and mart["conditions"] == ",".join(pool)
    assert mart["model_sd"] == pytest.approx(k.model_sd, abs=1e-12)
    assert mart["human_sd"] == pytest.approx(k.human_sd, abs=1e-12)

    # Figure 6's per-image rows: the models' SD per image is the SD of that image's predictions,
    # and the same draws averaged over the category's images give Table 6's human_sd.
    per_image = q(raw, f"select * from response_diversity_images where dimension = '{dim}' and category = '{category}'")
    models = per_image[per_image["source"] == "models"].set_index("image_id")["sd"]
    humans = per_image[per_image["source"] == "k_humans"].set_index("image_id")["sd"]
    np.testing.assert_allclose(models.loc[wide.index], wide.std(axis=1, ddof=1), atol=1e-12)
    assert humans.mean() == pytest.approx(k.human_sd, abs=1e-12)
    assert models.mean() == pytest.approx(k.model_sd, abs=1e-12)


def test_bootstrap_psig_separates_models_near_and_far_from_humans(raw):
    """Gemma3-4B's arousal sits inside the human spread (W1SD above the human LOO W1SD) and the
    Gemini models' valence far outside it: p_sig must say so."""
    p = q(raw, "select condition_id, dimension, p_sig from bootstrap_psig where category = 'all'")
    p = p.set_index(["condition_id", "dimension"])["p_sig"]
    assert p[("gemma3-4b-it", "arousal")] < 0.2
    assert p[("gemini-2.5-flash", "valence")] > 0.95


# --- parameter recovery against the behaviour profiles -----------------------------------------


def test_recall_and_confusion_recover_the_profile(raw):
    profile = slotted(pd.read_csv(PROFILES / "confusion.csv"))
    profile = profile[profile["condition_id"] != "human"]
    cm = q(
        raw,
        "select condition_id, true_category, predicted_category, n from confusion_matrix where condition_id <> 'human'",
    )
    m = profile.merge(cm, on=["condition_id", "true_category", "predicted_category"], how="left")
    assert m["n"].notna().all()
    support = m.groupby(["condition_id", "true_category"])["n"].transform("sum")
    assert (support == 240).all()
    observed = m["n"] / support
    se = np.sqrt(m["probability"] * (1 - m["probability"]) / support)
    # 4 binomial SE (a false alarm ~1e-4 per cell); a planted 0 or 1 must be observed exactly
    assert (np.abs(observed - m["probability"]) <= 4 * se + 1e-12).all(), m[
        np.abs(observed - m["probability"]) > 4 * se
    ]
    recall = q(
        raw, "select condition_id, category, recall from classification_by_category where condition_id <> 'human'"
    )
    diag = profile[profile["true_category"] == profile["predicted_category"]].rename(
        columns={"true_category": "category"}
    )
    r = diag.merge(recall, on=["condition_id", "category"])
    assert len(r) == len(diag)
    assert (
        np.abs(r["recall"] - r["probability"]) <= 4 * np.sqrt(r["probability"] * (1 - r["probability"]) / 240) + 1e-12
    ).all()


def test_value_offsets_recover_the_profile(raw):
    """bias (human mean - model) per condition x dimension x category within 4 SE of the profile's
    planted bias (value_bias.csv, Tables 4a/5a); SE = SD_d / sqrt(n)."""
    profile = slotted(pd.read_csv(PROFILES / "value_bias.csv"))
    d = q(
        raw,
        "select condition_id, dimension, category, bias, sd_d, n from dimensional_agreement where category <> 'all'",
    )
    m = profile.merge(d, on=["condition_id", "dimension", "category"], suffixes=("_profile", ""))
    assert len(m) == len(profile) == len(raw["conditions"]) * 2 * 6
    se = m["sd_d"] / np.sqrt(m["n"])
    off = np.abs(m["bias"] - m["bias_profile"])
    assert (off <= 4 * se).all(), m[off > 4 * se]


# --- replaceability --------------------------------------------------------------------------


def test_verdict_counts_follow_from_independently_computed_inputs(raw):
    """n_conditions_passing per dimension cell = conditions whose W1SD (stats.zscores on the raw
    data) reaches the human LOO W1SD and whose pooled delta alpha over all images of the dimension
    (stats.alpha Python route; the seed's default delta_alpha_scope) is >= 0."""
    verdicts = q(raw, "select * from replaceability_verdicts").set_index(["category", "measure"])
    assert (
        verdicts.loc[verdicts.index.get_level_values("measure") != "classification", "delta_alpha_scope"] == "pooled"
    ).all()
    for dim in DIMS:
        h = raw["human"][dim]
        r = raw["rated"]
        all_stats = AL.sufficient_statistics(r.rename(columns={dim: "rating"}))
        pooled = {
            cond: delta_alpha_interval(all_stats, _pairs(raw, cond, dim, "all")["model"]).delta
            for cond in raw["conditions"]
        }
        for category, _images in h.groupby("category"):
            ri = r[r["category"] == category]
            hh = h.reindex(ri["image_id"]).to_numpy()
            loo = ZS.summarise(loo_z(hh[:, 0], hh[:, 4], hh[:, 5], ri[dim].to_numpy(float))).w1sd
            passing = []
            for cond in raw["conditions"]:
                j = _pairs(raw, cond, dim, category)
                w = ZS.summarise(ZS.zscore(j["model"], j["mean"], j["sd"])).w1sd
                if w >= loo and pooled[cond] >= 0:
                    passing.append(cond)
            cell = verdicts.loc[(category, dim)]
            assert cell["n_conditions_passing"] == len(passing), (category, dim)
            assert set(filter(None, cell["passing_conditions"].split(","))) == set(passing)
            inputs = json.loads(cell["rule_inputs"])
            assert {i["condition_id"] for i in inputs} == set(raw["conditions"])
            expected = "replaceable" if len(passing) > len(raw["conditions"]) / 2 else ("partial" if passing else None)
            if expected:
                assert cell["verdict"] == expected


def test_every_mart_says_simulated(raw):
    for table in (
        "classification_summary",
        "classification_by_category",
        "confusion_matrix",
        "dimensional_agreement",
        "alpha_delta",
        "zscore_summary",
        "bootstrap_psig",
        "response_diversity",
        "response_diversity_k_human",
        "response_diversity_images",
        "lmm_rater_type",
        "replaceability_inputs",
        "replaceability_verdicts",
    ):
        origins = q(raw, f"select distinct data_origin from {table}")["data_origin"].tolist()
        assert origins == ["SIMULATED"], table


def test_lmm_rows_state_the_df_and_the_model_offset(raw):
    """The rater_type[model] coefficient is the model - human difference of the reference category
    (happy): with two rows per image it equals -bias of happy from dimensional_agreement's route."""
    lmm = q(raw, "select * from lmm_rater_type where term = 'rater_type[model]'").set_index(
        ["condition_id", "dimension"]
    )
    lmm = lmm[lmm.index.get_level_values("condition_id").isin(raw["conditions"])]
    assert len(lmm) == len(raw["conditions"]) * 2
    assert lmm["df_method"].str.contains("Satterthwaite").all()
    for cond in raw["conditions"][:3]:
        j = _pairs(raw, cond, "valence", "happy")
        assert lmm.loc[(cond, "valence"), "estimate"] == pytest.approx(-(j["mean"] - j["model"]).mean(), abs=1e-6)


def test_rater_type_cells_equal_pandas_on_the_long_table(raw):
    """int_rater_type_cells, the LMM's only input, against lmm.rater_type_cells on
    int_model_vs_human_long, per condition and dimension."""
    from rater1001.stats.lmm import rater_type_cells

    long = q(raw, "select * from int_model_vs_human_long")
    cells = (
        q(raw, "select * from int_rater_type_cells").set_index(["condition_id", "dimension", "category"]).sort_index()
    )
    ref = (
        long.groupby(["condition_id", "dimension"])
        .apply(lambda g: rater_type_cells(g["human_mean"], g["model_value"], g["category"]), include_groups=False)
        .reset_index(level=2, drop=True)
        .reset_index()
        .set_index(["condition_id", "dimension", "category"])
        .sort_index()
    )
    assert cells.index.equals(ref.index)
    for col in ("n_rows", "n_images", "diff_mean", "diff_ss", "sum_mean", "sum_ss"):
        np.testing.assert_allclose(cells[col].astype(float), ref[col].astype(float), rtol=1e-12, atol=1e-9, err_msg=col)


def test_headline_prints_every_condition_labelled_simulated(raw):
    from rater1001.summary import headline

    text = headline(raw["paths"])
    assert "SIMULATED" in text.splitlines()[0]
    acc = q(raw, "select condition_id, accuracy from classification_summary")
    for r in acc.itertuples():
        line = next(l for l in text.splitlines() if l.startswith(r.condition_id + " "))
        assert f"{r.accuracy:.3f}" in line


# --- bad input: defined results, never a crash -------------------------------------------------

MY_MARTS = AGREEMENT_MARTS


def _assert_my_marts_built(paths):
    """This area's marts and their tests passed (target/run_results.json); other areas' data tests
    may object to a damaged study, so the assertion is on this area's models and their tests."""
    results = json.loads((paths.root / "target" / "run_results.json").read_text())["results"]
    mine = [r for r in results if any(m in r["unique_id"] for m in MY_MARTS)]
    assert len(mine) > len(MY_MARTS)
    bad = [(r["unique_id"], r["status"], r.get("message")) for r in mine if r["status"] not in ("success", "pass")]
    assert not bad, bad


@pytest.mark.xdist_group("damaged_study")
def test_bad_input_gives_defined_results(damaged_warehouse):
    """The shared damaged study (damaged_study.py): a condition that answered half the images, one
    with a constant valence on happy faces, one without arousal values, a sad image every rater
    gave valence 5 and one with a single valence value."""
    paths = damaged_warehouse.paths
    # the damage is planned on the landed files (the demo's names); the checks read the slots
    d = agreement_damage(
        pd.read_parquet(paths.raw_table("stimuli")), pd.read_parquet(paths.raw_table("model_predictions"))
    )
    stimuli = read_landed(paths, "stimuli")
    partial, constant, no_arousal = d.partial, d.constant, d.no_arousal
    _assert_my_marts_built(paths)

    agree = query_warehouse(paths, "select * from dimensional_agreement").set_index(
        ["condition_id", "dimension", "category"]
    )
    assert agree.loc[(partial, "valence", "all"), "n"] == 36
    assert agree.loc[(partial, "valence", "all"), "n_excluded_images"] == 36
    row = agree.loc[(constant, "valence", "happy")]
    assert pd.isna(row["pearson_r"]) and row["pearson_r_null_reason"] == "model gives one constant value (SD 0)"
    assert agree.loc[(no_arousal, "arousal", "all"), "n"] == 0

    z = query_warehouse(paths, "select * from zscore_summary").set_index(["condition_id", "dimension", "category"])
    assert z.loc[(constant, "valence", "sad"), "n_zero_sd_images"] >= 1  # the SD-0 image (one-rating image: SD NULL)
    # 36 images unanswered; one of human SD 0 or with one rating is out of W1SD, answered or not
    ratings = read_landed(paths, "human_ratings").dropna(subset=["valence"])
    sd = ratings.groupby("image_id")["valence"].std(ddof=1)
    unanswered = sd[~sd.index.isin(half_of_the_images(stimuli))]
    assert z.loc[(partial, "valence", "all"), "n_missing_model_values"] == (unanswered > 0).sum() < 36

    alpha = query_warehouse(paths, "select * from alpha_delta where metric = 'interval' and category = 'all'")
    alpha = alpha.set_index(["condition_id", "dimension"])
    # not pairable: the one-rating image, and the demographic damage's sad images left with one
    # rating and with none
    assert alpha.loc[("human", "valence"), "n_units"] == 72 - 3
    assert pd.isna(alpha.loc[(no_arousal, "arousal"), "alpha"])
    assert alpha.loc[(no_arousal, "arousal"), "alpha_null_reason"].startswith("condition has no values")
    assert alpha.loc[(partial, "valence"), "n_model_values"] == 36
    verdicts = query_warehouse(paths, "select * from replaceability_verdicts")
    assert verdicts["verdict"].notna().all() and len(verdicts) == 18
    _every_alpha_delta_row_equals_the_package(paths, stimuli)


def _every_alpha_delta_row_equals_the_package(paths, stimuli):
    """Every (condition, dimension, category, metric) row of alpha_delta against the `krippendorff`
    package on the landed ratings plus the condition's values, on a study with a condition that
    rated half the images, one with no arousal values and an image with one rating: the mart adds
    a condition's values to the human coincidence matrix algebraically, this rebuilds it."""
    ratings = read_landed(paths, "human_ratings").merge(
        stimuli[["image_id", "category"]].rename(columns={"category": "true_category"}), on="image_id"
    )
    model = query_warehouse(
        paths,
        "select condition_id, dimension, image_id, model_value from int_model_vs_human_long "
        "where model_value is not null",
    )
    mart = query_warehouse(paths, "select * from alpha_delta")
    assert set(mart["metric"]) == {"interval", "ordinal", "nominal"}

    # Each (condition, dimension, category)'s values are built once: its metrics' rows share them,
    # as a dimension and category's human ratings are shared by every condition.
    @functools.cache
    def human(dimension, category):
        r = ratings if category == "all" else ratings[ratings["true_category"] == category]
        return r[["image_id", dimension]].rename(columns={dimension: "v"}).dropna()

    model_values = {key: m for key, m in model.groupby(["condition_id", "dimension"])}

    @functools.cache
    def value_counts(condition_id, dimension, category):
        long = human(dimension, category)
        if condition_id != "human":
            m = model_values.get((condition_id, dimension), model.iloc[:0])
            m = m[m["image_id"].isin(set(long["image_id"]))]
            if m.empty:
                return None
            long = pd.concat([long, m[["image_id", "model_value"]].rename(columns={"model_value": "v"})])
        return AL.value_count_matrix(long, value="v")

    checked = 0
    for row in mart.itertuples():
        counted = value_counts(row.condition_id, row.dimension, row.category)
        if counted is None:
            assert pd.isna(row.alpha)
            continue
        counts, domain = counted
        expected = krippendorff.alpha(value_counts=counts, value_domain=domain, level_of_measurement=row.metric)
        assert row.alpha == pytest.approx(expected, abs=1e-12), row
        pairable = counts.sum(axis=1) >= 2
        assert (row.n_units, row.n_values) == (pairable.sum(), counts[pairable].sum()), row
        checked += 1
    assert checked > 100


def test_no_predictions_builds_empty_marts(small_warehouse_without_predictions):
    paths = small_warehouse_without_predictions.paths  # the shared full build of the same study
    _assert_my_marts_built(paths)
    for table in (
        "classification_summary",
        "confusion_matrix",
        "dimensional_agreement",
        "zscore_summary",
        "bootstrap_psig",
        "response_diversity",
        "response_diversity_k_human",
        "response_diversity_images",
        "lmm_rater_type",
        "replaceability_verdicts",
    ):
        rows = query_warehouse(
            paths,
            f"select * from {table} where condition_id is distinct from 'human' "
            "and condition_id is distinct from 'human_loo'"
            if table not in ("response_diversity_k_human", "response_diversity_images", "replaceability_verdicts")
            else f"select * from {table}",
        )
        assert rows.empty, table
    human = query_warehouse(paths, "select * from alpha_delta where condition_id = 'human'")
    assert len(human) and human["alpha"].notna().all()
