"""The paper's analyses that had no table (models/marts/human_baseline, difficulty, study_design):
each mart on the paper-scale demo against a recomputation from the landed Parquet files (pandas,
scipy), the paper's own tables where it prints them, and the project's files for Figure 1."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import REFERENCE, query_warehouse
from rater1001.paths import REPO_ROOT
from rater1001.stats.variance_components import crossed_variance_components
from scipy import stats as sps
from stats_helpers import read_landed


@pytest.fixture(scope="module")
def landed(demo_warehouse):
    p = demo_warehouse
    return {
        "paths": p,
        "stimuli": read_landed(p, "stimuli"),
        "ratings": read_landed(p, "human_ratings"),
        "preds": read_landed(p, "model_predictions"),
        "conditions": pd.read_parquet(p.raw_table("model_conditions")),
    }


def q(landed, sql):
    return query_warehouse(landed["paths"], sql)


def test_variance_components_are_the_crossed_fit_of_the_landed_ratings(landed):
    """The mart's valence row is the REML fit of the landed ratings with the stimuli's category as
    fixed effects (the statistic itself: tests/python/test_stats_variance_components.py)."""
    r = landed["ratings"].merge(
        landed["stimuli"][["image_id", "category"]].rename(columns={"category": "intended"}), on="image_id"
    )
    ref = crossed_variance_components(r["valence"], r["rater_id"], r["image_id"], r["intended"])
    mart = q(landed, "select * from human_variance_components").set_index("dimension")
    assert set(mart.index) == {"valence", "arousal", "naturalness"} and mart["fit_error"].isna().all()
    row = mart.loc["valence"]
    assert row["rater_variance"] == pytest.approx(ref.rater_variance, rel=1e-6)
    assert row["image_variance"] == pytest.approx(ref.image_variance, rel=1e-6)
    assert row["residual_variance"] == pytest.approx(ref.residual_variance, rel=1e-6)
    assert (row["n_ratings"], row["n_raters"], row["n_images"]) == (len(r), r["rater_id"].nunique(), 1440)
    assert row["formula"] == "rating ~ emotion + (1|rater_id) + (1|image_id)"  # the study's name
    shares = mart[["rater_share", "image_share"]].sum(axis=1) + mart["residual_variance"] / mart[
        ["rater_variance", "image_variance", "residual_variance"]
    ].sum(axis=1)
    np.testing.assert_allclose(shares, 1.0, atol=1e-12)


def test_moments_agree_with_the_reml_fit_of_the_demo(landed):
    """Checked against REML at 1x: the method of moments (what the mart gives above var
    variance_components_max_ratings, 10x and up) on the landed demo ratings lands within
    sampling error of the mart's REML fit for every dimension: rater and residual variance
    within 2 %, the image variance (0.02-0.06) within 0.005 (docs/marts_paper_extras.md)."""
    from test_stats_variance_components import moments

    r = landed["ratings"].merge(
        landed["stimuli"][["image_id", "category"]].rename(columns={"category": "intended"}), on="image_id"
    )
    mart = q(landed, "select * from human_variance_components").set_index("dimension")
    for dim in ("valence", "arousal", "naturalness"):
        d = r.dropna(subset=[dim])
        mom = moments(d[dim].to_numpy(float), *(d[c].to_numpy() for c in ("rater_id", "image_id", "intended")))
        row = mart.loc[dim]
        assert row["method"].startswith("REML")
        assert mom.rater_variance == pytest.approx(row["rater_variance"], rel=0.02), dim
        assert mom.residual_variance == pytest.approx(row["residual_variance"], rel=0.02), dim
        assert mom.image_variance == pytest.approx(row["image_variance"], abs=0.005), dim


def test_a_dimension_above_the_size_limit_is_estimated_by_moments_and_never_read_whole():
    """Above var variance_components_max_ratings a dimension is estimated by the method of moments
    from aggregates DuckDB computes (its ratings never become a frame); a dimension under the limit
    is the REML fit as before. The moments are checked against the pair-by-pair U-statistics
    (tests/python/test_stats_variance_components.py's brute force), categories as fixed effects."""
    import duckdb
    from rater1001.marts import human_baseline
    from test_stats_variance_components import brute_force_moments

    rng = np.random.default_rng(3)
    raters, images = np.repeat(np.arange(12), 10), np.tile(np.arange(10), 12)
    rating = 5 + rng.normal(0, 1, 12)[raters] + rng.normal(0, 0.5, 10)[images] + rng.normal(0, 0.7, 120)
    small = pd.DataFrame(
        {"rater_id": [f"r{r}" for r in raters], "image_id": [f"i{i}" for i in images], "dimension": "valence"}
    ).assign(rating=rating)
    # 24 raters, each 10 of 20 images; images of two emotions 3 points apart
    big_r = np.repeat(np.arange(24), 10)
    big_i = np.concatenate([rng.choice(20, 10, replace=False) for _ in range(24)])
    big_y = 3.0 * (big_i % 2) + rng.normal(0, 1, 24)[big_r] + rng.normal(0, 0.6, 20)[big_i] + rng.normal(0, 0.7, 240)
    large = pd.DataFrame(
        {"rater_id": [f"r{r}" for r in big_r], "image_id": [f"i{i}" for i in big_i], "dimension": "arousal"}
    ).assign(rating=big_y)
    stimuli = pd.DataFrame({"image_id": [f"i{i}" for i in range(20)], "category": ["happy", "sad"] * 10})
    con = duckdb.connect()
    con.register("ratings_df", pd.concat([small, large], ignore_index=True))
    con.register("stimuli_df", stimuli)
    con.register("prov_df", pd.DataFrame({"data_origin": ["observed"]}))
    relation = con.sql("select * from ratings_df")
    factors = pd.DataFrame({"factor": ["emotion"], "role": ["category"], "slot": ["category"], "position": [1]})
    # the per-image sums as the build passes them (int_image_human_stats' columns), summed by pandas
    rated = pd.concat([small, large], ignore_index=True).merge(stimuli, on="image_id")
    sums = (
        rated.assign(sq=rated["rating"] ** 2)
        .groupby(["image_id", "dimension", "category"], as_index=False)
        .agg(n_ratings=("rating", "size"), rating_sum=("rating", "sum"), rating_sumsq=("sq", "sum"))
    )
    con.register("sums_df", sums)
    image_stats = con.sql("select * from sums_df")
    out = human_baseline.human_variance_components(
        relation,
        con.sql("select * from stimuli_df"),
        factors,
        con.sql("select * from prov_df"),
        max_ratings=200,
        image_stats=image_stats,
    ).set_index("dimension")
    expected = brute_force_moments(big_y, big_r, big_i, big_i % 2)
    arousal = out.loc["arousal"]
    assert arousal["method"].startswith("method of moments") and pd.isna(arousal["fit_error"])
    got = arousal[["rater_variance", "image_variance", "residual_variance"]].to_numpy(float)
    np.testing.assert_allclose(got, expected, rtol=1e-9)
    assert (arousal["n_ratings"], arousal["n_raters"], arousal["n_images"]) == (240, 24, 20)
    assert arousal["formula"] == "rating ~ emotion + (1|rater_id) + (1|image_id)"  # the study's name
    ref = crossed_variance_components(
        small["rating"],
        small["rater_id"],
        small["image_id"],
        small["image_id"].map(stimuli.set_index("image_id")["category"]),
    )
    assert pd.isna(out.loc["valence", "fit_error"]) and out.loc["valence", "method"].startswith("REML")
    assert out.loc["valence", "rater_variance"] == pytest.approx(ref.rater_variance, rel=1e-9)
    # with the default limit both are REML fits
    both = human_baseline.human_variance_components(
        relation,
        con.sql("select * from stimuli_df"),
        factors,
        con.sql("select * from prov_df"),
        image_stats=image_stats,
    ).set_index("dimension")
    assert both["method"].str.startswith("REML").all() and both.loc["arousal", "n_ratings"] == 240


def test_human_reliability_puts_both_alpha_levels_beside_the_paper(landed):
    import krippendorff

    rel = q(landed, "select * from human_reliability").set_index("dimension")
    ratings = landed["ratings"]
    for dim in ("valence", "arousal", "naturalness"):
        matrix = ratings.pivot(index="rater_id", columns="image_id", values=dim).to_numpy(float)
        for level in ("ordinal", "interval"):
            ref = krippendorff.alpha(
                reliability_data=matrix, level_of_measurement=level, value_domain=list(range(1, 10))
            )
            assert rel.loc[dim, f"alpha_{level}"] == pytest.approx(ref, abs=1e-9), (dim, level)
    # the paper's section 3.2 numbers, from the seed
    assert rel["paper_alpha_ordinal"].to_dict() == {"valence": 0.498, "arousal": 0.116, "naturalness": 0.126}
    assert (
        rel.loc["valence", "paper_rater_variance"] == 0.450 and rel.loc["arousal", "paper_rater_to_image_ratio"] == 32
    )
    vc = q(landed, "select * from human_variance_components").set_index("dimension")
    assert rel.loc["valence", "rater_variance"] == vc.loc["valence", "rater_variance"]


def test_naturalness_means_per_category_match_the_landed_ratings(landed):
    r = landed["ratings"].merge(
        landed["stimuli"][["image_id", "category"]].rename(columns={"category": "intended"}), on="image_id"
    )
    mart = q(landed, "select * from naturalness_by_category").set_index("category")
    assert set(mart.index) == set(r["intended"]) | {"all"}
    for category, part in [*r.groupby("intended"), ("all", r)]:
        row = mart.loc[category]
        assert row["n_ratings"] == part["naturalness"].notna().sum()
        assert row["mean_naturalness"] == pytest.approx(part["naturalness"].mean(), abs=1e-12)
        assert row["sd_ratings"] == pytest.approx(part["naturalness"].std(ddof=1), abs=1e-12)
        assert row["sd_image_means"] == pytest.approx(
            part.groupby("image_id")["naturalness"].mean().std(ddof=1), abs=1e-12
        )
    assert mart["paper_mean"].dropna().to_dict() == {"fear": 5.26, "happy": 6.94}


def test_rt_rank_correlation_matches_scipy_on_the_landed_data(landed):
    """Section 5.3: median valence RT per category against the VLMs' mean recall (first run of each
    condition scored against the intended label), rho of RT with the error rate, from scipy."""
    r = landed["ratings"].merge(
        landed["stimuli"][["image_id", "category"]].rename(columns={"category": "intended"}), on="image_id"
    )
    rt = r.groupby("intended")["rt_valence_ms"].median()
    vlms = landed["conditions"].loc[landed["conditions"]["kind"] == "vlm", "condition_id"]
    p = landed["preds"][landed["preds"]["condition_id"].isin(vlms)]
    p = (
        p.sort_values("run_id")
        .drop_duplicates(["condition_id", "image_id"])
        .merge(landed["stimuli"][["image_id", "category"]].rename(columns={"category": "intended"}), on="image_id")
    )
    recall = (p["category"] == p["intended"]).groupby([p["condition_id"], p["intended"]]).mean()
    accuracy = recall.groupby(level="intended").mean()
    mart = q(landed, "select * from difficulty_rt_accuracy where rt_dimension = 'valence'").set_index("category")
    for category in rt.index:
        assert mart.loc[category, "median_rt_ms"] == pytest.approx(rt[category], abs=1e-9)
        assert mart.loc[category, "mean_accuracy"] == pytest.approx(accuracy[category], abs=1e-12)
        assert mart.loc[category, "n_conditions"] == len(vlms)
    ref = sps.spearmanr(rt.sort_index(), 1 - accuracy.sort_index())
    assert mart.loc["all", "spearman_rho"] == pytest.approx(ref.statistic, abs=1e-12)
    assert mart.loc["all", "n_categories"] == 6 and mart.loc["all", "small_n_caveat"]
    assert mart.loc["all", "paper_spearman_rho"] == 0.60 and mart.loc["fear", "paper_median_rt_ms"] == 2518


def test_table_1_from_the_catalog_reads_as_the_paper_prints_it(landed):
    specs = q(landed, "select * from model_condition_specs")
    assert sorted(specs["condition_id"]) == sorted(landed["conditions"]["condition_id"])
    paper = pd.read_csv(REFERENCE / "paper_tables" / "table1_model_conditions.tsv", sep="\t")
    ours = specs.set_index("display_name")
    assert set(paper["Model"]) <= set(ours.index)
    for row in paper.itertuples(index=False):
        mine = ours.loc[row.Model]
        assert (mine["provider"], mine["parameters"], mine["quantization"]) == (
            row.Provider,
            row.Parameters,
            row.Quantization,
        )
        assert mine["backend_label"] == row.Backend and mine["key_settings"] == row._6
        # NoThink's cell adds the paper's observation "~199 internal tokens persist", not a setting
        assert row.Thinking == mine["thinking_label"] or row.Thinking.startswith(mine["thinking_label"][:-1] + ";")
    s6 = specs.dropna(subset=["developer"])
    assert len(s6) == 8 and set(s6["kind"]) == {"vlm"}
    preds = landed["preds"].groupby("condition_id")["image_id"].nunique()
    assert (specs.set_index("condition_id")["n_images_predicted"] == preds.reindex(specs["condition_id"]).values).all()


def test_figure_1_stages_come_from_the_project(landed):
    stages = q(landed, "select * from pipeline_stages")
    nodes = stages[stages["element"] == "node"].set_index("node_id")
    marts = REPO_ROOT / "models" / "marts"
    folders = {
        d.name: sum(1 for f in d.iterdir() if f.suffix in (".sql", ".py")) for d in marts.iterdir() if d.is_dir()
    }
    folders = {k: v for k, v in folders.items() if v}
    shown = {n.removeprefix("marts/"): int(d.split()[0]) for n, d in nodes["detail"].items() if n.startswith("marts/")}
    assert shown == folders
    n_staging = sum(1 for f in (REPO_ROOT / "models" / "staging").iterdir() if f.suffix == ".sql")
    assert nodes.loc["staging", "detail"] == f"{n_staging} models"
    assert nodes.loc["stimuli", "detail"] == f"{len(landed['stimuli'])} stimuli"
    edges = stages[stages["element"] == "edge"]
    # every stage is reachable from the stimuli and reaches the report
    graph = edges.groupby("node_id")["to_node"].apply(set).to_dict()
    seen, todo = set(), ["stimuli"]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(graph.get(n, ()))
    assert seen == set(nodes.index)
    assert (edges["to_col"] > edges["col"]).all()
