"""The demographic bias audit marts (models/marts/demographics/, issue 4).

Independent routes:
- every mart equals rater1001.stats.demographics called directly on a pandas recomputation from
  the landing Parquet (human means by pandas groupby, correctness by string comparison), not on
  the warehouse's int_model_vs_human and not through rater1001.marts.demographics;
- the race and gender accuracy gaps planted by the simulator (its truth file labels.parquet, the
  P(correct) per condition x category x audit_1 x audit_2 cell) are found with the right sign;
- conditions simulated with no demographic effect (Profiles.without_demographic_gaps) reject no
  more often than the nominal 5 % over several seeds (stats functions on frames built from the
  simulator's Parquet, the same shape the marts read);
- degenerate inputs go through the full `dbt build` and give NULL + reason rows.
"""

from __future__ import annotations

import json

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import query_warehouse
from rater1001.marts import demographics as audit
from rater1001.stats import demographics as dm
from rater1001.stats import omnibus, stratified_anova, tukey
from scipy import stats
from stats_helpers import DEMO_NAMES, audit_aggregates, demo_spelled, factor_levels, read_landed, slotted

MARTS = [
    "demographic_slices",
    "demographic_slice_gaps",
    "demographic_glmm_lrt",
    "demographic_stratified_anova",
    "demographic_tukey",
    "demographic_omnibus",
    "demographic_significance_counts",
]


# --------------------------------------------------------------------------- pandas recomputation


def parquet_rows(paths, dimensions=("valence", "arousal")) -> pd.DataFrame:
    """One row per (condition, image) in stats.demographics' input shape, from the raw Parquet."""
    stimuli = read_landed(paths, "stimuli")
    preds = read_landed(paths, "model_predictions")
    ratings = read_landed(paths, "human_ratings")
    # the audit's pool (seeds/condition_pools.csv, 'demographics'): the VLM conditions
    kinds = pd.read_parquet(paths.raw_table("model_conditions")).set_index("condition_id")["kind"]
    preds = preds[preds["condition_id"].map(kinds) == "vlm"]
    preds = preds.sort_values("run_id").drop_duplicates(["condition_id", "image_id"])
    means = ratings.groupby("image_id")[list(dimensions)].mean()
    d = preds.rename(columns={"category": "predicted_category"}).merge(stimuli, on="image_id")
    for dim in dimensions:
        d[f"d_{dim}"] = d["image_id"].map(means[dim]) - d[dim]
    d["correct"] = (d["predicted_category"] == d["category"]).fillna(False).astype(bool)
    d["predicted_category"] = d["predicted_category"].astype(object).where(d["predicted_category"].notna(), None)
    cols = [
        "condition_id",
        "image_id",
        "audit_1",
        "audit_2",
        "category",
        "predicted_category",
        "correct",
        *[f"d_{dim}" for dim in dimensions],
    ]
    return d[cols].astype({c: object for c in ["condition_id", "image_id", "audit_1", "audit_2", "category"]})


def parquet_human_rows(paths) -> pd.DataFrame:
    ratings = read_landed(paths, "human_ratings")
    stimuli = read_landed(paths, "stimuli")
    d = ratings[ratings["category"].notna()].rename(columns={"category": "predicted_category"})
    d = d[["image_id", "predicted_category"]].merge(stimuli, on="image_id")
    return d.assign(condition_id="human")


def sort(frame, keys):
    return frame.sort_values(keys).reset_index(drop=True)


def assert_close(mart, ref, keys, numeric, exact=(), atol=1e-9):
    mart, ref = sort(mart, keys), sort(ref, keys)
    assert len(mart) == len(ref)
    pd.testing.assert_frame_equal(mart[keys].astype(str), ref[keys].astype(str))
    for col in numeric:
        a = pd.to_numeric(mart[col].astype(object), errors="coerce").to_numpy(dtype=float)
        b = pd.to_numeric(ref[col].astype(object), errors="coerce").to_numpy(dtype=float)
        np.testing.assert_allclose(a, b, atol=atol, rtol=1e-7, equal_nan=True, err_msg=col)
    for col in exact:
        assert (
            mart[col].astype(object).where(mart[col].notna(), None).tolist()
            == ref[col].astype(object).where(ref[col].notna(), None).tolist()
        ), col


@pytest.fixture(scope="module")
def demo(demo_warehouse):
    tables = {m: query_warehouse(demo_warehouse, f"select * from {m}") for m in MARTS}
    return demo_warehouse, tables, parquet_rows(demo_warehouse)


# --------------------------------------------------------------------------- marts == stats(parquet)


def test_every_mart_says_simulated_and_has_the_stated_grain(demo):
    _, t, rows = demo
    for name, table in t.items():
        assert len(table) > 0, name
        assert set(table["data_origin"]) == {"SIMULATED"}, name
    n_cond = rows["condition_id"].nunique()
    assert len(t["demographic_glmm_lrt"]) == n_cond * 2
    # 3 races + 2 genders + 6 cells per condition, plus the pooled human labels
    assert len(t["demographic_slices"]) == (n_cond + 1) * 11
    assert len(t["demographic_stratified_anova"]) == n_cond * 2 * 6 * 3
    assert len(t["demographic_omnibus"]) == n_cond * 2 * 2 * 2


def test_cell_aggregates_equal_pandas_on_the_per_image_table(demo):
    """int_audit_bias_cells and int_audit_pair_cells (the stratified ANOVA's only inputs: one
    factor's cells, a pair's cells with each cell's two levels) against a pandas aggregation of
    int_model_vs_human, all conditions."""
    paths = demo[0]
    per_image = query_warehouse(paths, "select * from int_model_vs_human")
    ref = audit_aggregates(per_image, {"audit_1": "race", "audit_2": "gender"})
    stats_ = ["n_rows", "n_bias", "bias_mean", "bias_ss"]
    cells = query_warehouse(paths, "select * from int_audit_bias_cells")
    assert_close(
        cells,
        ref["int_audit_bias_cells"],
        ["condition_id", "dimension", "category", "factor", "level"],
        stats_,
        atol=1e-9,
    )
    pairs = query_warehouse(paths, "select * from int_audit_pair_cells")
    keys = ["condition_id", "dimension", "category", "term", "cell", "first_level", "second_level"]
    assert_close(pairs, ref["int_audit_pair_cells"], keys, stats_, atol=1e-9)
    assert (pairs["cell"] == pairs["first_level"] + ":" + pairs["second_level"]).all()
    assert pairs["n_bias"].sum() < pairs["n_rows"].sum()  # conditions without dimensions are counted


def test_slices_and_gaps_equal_stats_on_parquet(demo):
    paths, t, rows = demo
    ref = pd.concat([dm.slice_metrics(rows), dm.slice_metrics(parquet_human_rows(paths))], ignore_index=True)
    gaps = demo_spelled(dm.slice_gaps(ref), ["slice_type"])
    ref = demo_spelled(ref, ["slice_type"])
    keys = ["condition_id", "slice_type", "slice"]
    assert_close(t["demographic_slices"], ref, keys, ["n", "n_unparsed", "accuracy", "f1_macro"])
    assert_close(
        t["demographic_slice_gaps"],
        gaps,
        ["condition_id", "slice_type"],
        ["f1_gap_pp", "accuracy_gap_pp"],
        exact=["f1_max_slice", "f1_min_slice", "accuracy_max_slice", "accuracy_min_slice"],
    )
    # the human row exists (the demo simulates forced-choice labels) and is near-perfect
    human = t["demographic_slices"].query("condition_id == 'human'")
    assert (human["rater_kind"] == "human").all() and human["accuracy"].min() > 0.9


def test_glmm_lrt_equals_stats_on_parquet(demo):
    _, t, rows = demo
    mart = t["demographic_glmm_lrt"]
    assert mart["method"].eq("ML, Gauss-Legendre quadrature split at the mode (2x48 nodes)").all()
    # two conditions keep the test fast; the code path is the same for all eight
    some = sorted(rows["condition_id"].unique())[:2]
    ref = demo_spelled(dm.glmm_lrt_table(rows[rows["condition_id"].isin(some)]), ["factor"])
    assert_close(
        mart[mart["condition_id"].isin(some)],
        ref,
        ["condition_id", "factor"],
        ["chi2", "df", "p_value", "random_intercept_sd", "loglik_full", "loglik_null", "n_obs", "n_levels"],
        atol=1e-6,
    )
    assert (mart["df"] == mart["factor"].map({"race": 2, "gender": 1})).all()


def test_anova_tukey_omnibus_counts_equal_stats_on_parquet(demo):
    _, t, rows = demo
    anova = stratified_anova.stratified_anova(rows)
    keys = ["condition_id", "dimension", "category", "term"]
    assert_close(
        t["demographic_stratified_anova"],
        demo_spelled(anova, ["term"]),
        keys,
        ["df_num", "df_den", "f_value", "eta_sq", "p_raw", "q_bh", "family_size", "n"],
        exact=["significant"],
        atol=1e-8,
    )
    # paper design: (2, 236) race, (1, 236) gender, (2, 234) race:gender, 18 tests per family
    a = t["demographic_stratified_anova"]
    dfs = a.groupby("term")[["df_num", "df_den"]].agg(lambda s: sorted(set(s)))
    assert dfs.loc["race"].tolist() == [[2], [236]] and dfs.loc["gender"].tolist() == [[1], [236]]
    assert dfs.loc["race:gender"].tolist() == [[2], [234]]
    assert set(a["family_size"]) == {18}

    # Tukey: every significant interaction gets its 15 cell pairs, each as recomputed from the rows
    hits = anova["term"].eq("audit_1:audit_2") & anova["significant"].fillna(False)
    assert len(t["demographic_tukey"]) == 15 * int(hits.sum()) > 0
    pairs = tukey.tukey_cells(rows, anova)
    assert_close(
        t["demographic_tukey"],
        pairs,
        ["condition_id", "dimension", "category", "group1", "group2"],
        ["meandiff", "p_adj", "lower", "upper"],
        exact=["reject"],
        atol=1e-8,
    )

    omni = demo_spelled(omnibus.omnibus_tests(rows), ["factor", "term"])
    assert_close(
        t["demographic_omnibus"],
        omni,
        ["condition_id", "dimension", "factor", "term"],
        ["df_num", "df_den", "f_value", "eta_sq", "p_raw"],
        atol=1e-8,
    )
    o = t["demographic_omnibus"].set_index("term")
    assert set(o.loc["race", "df_num"]) == {2} and set(o.loc["race", "df_den"]) == {1432}
    assert set(o.loc["gender:emotion", "df_num"]) == {5} and set(o.loc["gender:emotion", "df_den"]) == {1428}

    counts = demo_spelled(stratified_anova.significance_counts(anova), ["term", "label"])
    assert_close(
        t["demographic_significance_counts"],
        counts,
        ["condition_id", "dimension", "term"],
        ["n_significant", "n_tested", "n_strata"],
        exact=["label"],
    )


# --------------------------------------------------------------------------- planted gaps


def planted_accuracy(paths) -> pd.DataFrame:
    """Planted accuracy per (condition, factor, level): the mean of the simulator's P(correct)
    over the balanced category x audit_1 x audit_2 cells of that level."""
    truth = slotted(pd.read_parquet(paths.root / "data" / "simulation_truth" / "labels.parquet"))
    kinds = pd.read_parquet(paths.raw_table("model_conditions")).set_index("condition_id")["kind"]
    truth = truth[truth["condition_id"].map(kinds).fillna("vlm") == "vlm"]  # the audit's pool; 'human' kept
    out = []
    for factor in ("audit_1", "audit_2"):
        g = truth.groupby(["condition_id", factor])["p_correct"].mean().reset_index()
        out.append(g.rename(columns={factor: "level"}).assign(factor=DEMO_NAMES[factor]))
    return pd.concat(out, ignore_index=True)


def test_planted_race_and_gender_gaps_are_found_with_the_right_sign(demo):
    paths, t, _ = demo
    planted = planted_accuracy(paths)
    slices = t["demographic_slices"].set_index(["condition_id", "slice_type", "slice"])
    glmm = t["demographic_glmm_lrt"].set_index(["condition_id", "factor"])
    checked, significant = 0, 0
    for (condition, factor), part in planted.groupby(["condition_id", "factor"]):
        if condition == "human":
            continue
        acc = part.set_index("level")["p_correct"]
        coef = json.loads(glmm.loc[(condition, factor), "fixed_effects_json"])
        ref = sorted(acc.index)[0]
        logit = {lev: (0.0 if lev == ref else coef[f"{factor}[{lev}]"]) for lev in acc.index}
        n = slices.loc[(condition, factor, ref), "n"]
        for a in acc.index:
            for b in acc.index:
                gap = acc[a] - acc[b]
                se = np.sqrt(acc[a] * (1 - acc[a]) / n + acc[b] * (1 - acc[b]) / n)
                if gap <= 3 * se:  # a pair the design can resolve; smaller plants are noise-level
                    continue
                checked += 1
                observed = (
                    slices.loc[(condition, factor, a), "accuracy"] - slices.loc[(condition, factor, b), "accuracy"]
                )
                assert observed > 0, (condition, factor, a, b, gap, observed)
                assert logit[a] > logit[b], (condition, factor, a, b, logit)
        planted_gap = acc.max() - acc.min()
        if planted_gap > 0.08:  # > 4 SE: the LR test should see it
            significant += 1
            assert glmm.loc[(condition, factor), "p_value"] < 0.05, (condition, factor, planted_gap)
    assert checked >= 5 and significant >= 2  # the demo plants Tables 7/7a's larger gaps
    # the largest planted gender gap (Gemma3-12B, Table 7a: women 10 pp more accurate)
    g = planted[planted["factor"] == "gender"].pivot(index="condition_id", columns="level", values="p_correct")
    top = (g["female"] - g["male"]).drop("human").idxmax()
    gaps = t["demographic_slice_gaps"].set_index(["condition_id", "slice_type"])
    assert gaps.loc[(top, "gender"), "accuracy_max_slice"] == "female"


# --------------------------------------------------------------------------- no planted effect

NULL_CONDITIONS = ["gemma3-4b-it", "gpt-4o-mini"]  # two keep the GLMM fits cheap
NULL_SEEDS = range(4)


def test_no_demographic_effect_rejects_at_the_nominal_rate(tmp_path):
    """Conditions simulated without race / gender effects, small design (144 images), 4 seeds:
    the GLMM LR tests and the stratified F tests reject at about 5 %, and BH families are rarely
    hit at all (each family is a global null)."""
    from rater1001.paths import project
    from rater1001.simulate import load_profiles, simulate_study

    profiles = load_profiles().without_demographic_gaps()
    glmm_p, anova_p, families_hit, families = [], [], 0, 0
    for seed in NULL_SEEDS:
        paths = project(tmp_path / f"s{seed}")
        simulate_study(
            paths,
            seed=100 + seed,
            n_identities=4,
            ratings_per_image=2,
            images_per_rater=36,
            conditions=NULL_CONDITIONS,
            profiles=profiles,
        )
        truth = slotted(pd.read_parquet(paths.root / "data" / "simulation_truth" / "labels.parquet"))
        spread = truth.groupby(["condition_id", "category"])["p_correct"].agg(lambda s: s.max() - s.min())
        assert spread.max() < 1e-12  # the override really removes every race / gender effect
        rows = parquet_rows(paths)
        glmm_p += dm.glmm_lrt_table(rows)["p_value"].dropna().tolist()
        anova = stratified_anova.stratified_anova(rows)
        anova_p += anova["p_raw"].dropna().tolist()
        hits = anova.groupby(["condition_id", "dimension"])["significant"].agg(lambda s: bool(s.fillna(False).any()))
        families_hit, families = families_hit + int(hits.sum()), families + len(hits)
    glmm_p, anova_p = np.array(glmm_p), np.array(anova_p)
    assert len(glmm_p) == len(NULL_SEEDS) * len(NULL_CONDITIONS) * 2
    # one-sided binomial bounds at 0.1 %: more rejections than this would mean a biased test
    assert (glmm_p < 0.05).sum() <= stats.binom.ppf(0.999, len(glmm_p), 0.05)
    assert (anova_p < 0.05).mean() < 0.09  # 288 correlated tests; nominal .05
    assert stats.kstest(anova_p, "uniform").pvalue > 0.001
    assert families_hit <= stats.binom.ppf(0.999, families, 0.05)


# --------------------------------------------------------------------------- degenerate inputs


@pytest.fixture(scope="module")
def degenerate_warehouse(damaged_warehouse):
    """The shared damaged study (damaged_study.py, damage_for_demographics: a missing cell and a
    cell of one image, every answer correct, valence equal to the human mean, a single race, two
    races, a sad image left with one rating and one with none), built by `dbt build` of the
    demographics marts (with the agreement area's) and everything upstream, with their data tests."""
    paths = damaged_warehouse.paths
    assert damaged_warehouse.build_ok, "dbt build with degenerate demographic inputs failed"
    return paths, {m: query_warehouse(paths, f"select * from {m}") for m in MARTS}


@pytest.mark.xdist_group("damaged_study")
def test_degenerate_inputs_give_null_with_reasons(degenerate_warehouse):
    paths, t = degenerate_warehouse
    glmm = t["demographic_glmm_lrt"].set_index(["condition_id", "factor"])
    for factor in ("race", "gender"):
        row = glmm.loc[("gpt-4o-mini", factor)]
        assert pd.isna(row["chi2"]) and "no variance" in row["reason"]
    # never-answered faces are wrong answers (docs/stats.md, the missing-answer policy): a condition
    # that answered Black faces only is never correct on the others, every race stays in the test
    assert glmm.loc[("gemma3-12b-it", "race"), "df"] == 2
    assert "quasi-separation" in glmm.loc[("gemma3-12b-it", "race"), "reason"]
    assert glmm.loc[("gemma3-12b-it", "gender"), "df"] == 1
    assert glmm.loc[("gemma3-27b-it", "race"), "df"] == 2  # no Korean answers: three races still
    assert glmm.loc[("gemma3-27b-it", "race"), "n_levels"] == 3

    a = t["demographic_stratified_anova"]
    flat = a[(a["condition_id"] == "llama-3.2-11b-vision") & (a["dimension"] == "valence")]
    assert flat["f_value"].isna().all() and flat["reason"].str.contains("zero variance").all()
    assert flat["q_bh"].isna().all() and (flat["family_size"] == 0).all()
    assert a[(a["condition_id"] == "llama-3.2-11b-vision") & (a["dimension"] == "arousal")]["f_value"].notna().any()
    single = a[(a["condition_id"] == "gemma3-12b-it") & (a["term"] != "gender")]
    assert single["f_value"].isna().all() and single["reason"].str.contains("not estimable").all()

    # degrees of freedom follow the data actually used, stratum by stratum
    rows = parquet_rows(paths)
    for r in a[a["df_num"].notna()].itertuples():
        used = rows[
            (rows["condition_id"] == r.condition_id)
            & (rows["category"] == r.category)
            & rows[f"d_{r.dimension}"].notna()
        ]
        n_audit_1, n_audit_2 = used["audit_1"].nunique(), used["audit_2"].nunique()
        n_cells = (used["audit_1"] + used["audit_2"]).nunique()
        additive = 1 + (n_audit_1 - 1) + (n_audit_2 - 1)
        assert r.n == len(used)
        if used.empty:  # the agreement damage's condition without arousal: no rank, no residual
            assert (r.df_num, r.df_den) == (0, 0) and pd.isna(r.f_value), r
        elif r.term == "race:gender":
            assert (r.df_num, r.df_den) == (n_cells - additive, len(used) - n_cells)
        else:
            assert (r.df_num, r.df_den) == ((n_audit_1 if r.term == "race" else n_audit_2) - 1, len(used) - additive)
    happy = a[(a["condition_id"] == "gemma3-4b-it") & (a["category"] == "happy")].set_index(["dimension", "term"])
    assert happy.loc[("valence", "race:gender"), "df_num"] == 1  # 5 of 6 cells

    # images without human ratings: bias NULL, counted, never dropped silently
    sad = a[(a["category"] == "sad") & (a["condition_id"] == "gemma3-4b-it")]
    assert (sad["n_missing"] == 1).all()

    slices = t["demographic_slices"]
    black_only = slices[(slices["condition_id"] == "gemma3-12b-it") & (slices["slice_type"] == "race")]
    others = black_only[black_only["slice"] != "Black"]
    assert len(black_only) == 3 and (others["accuracy"] == 0).all() and (others["n_unparsed"] == others["n"]).all()
    perfect = slices[slices["condition_id"] == "gpt-4o-mini"]
    assert (perfect["accuracy"] == 1).all() and (perfect["accuracy_gap_pp"] == 0).all()


def test_empty_inputs_give_empty_typed_marts():
    """No predictions and no human labels: every mart function returns zero rows with declared,
    typed columns, which DuckDB stores as VARCHAR / DOUBLE / BIGINT / BOOLEAN (never NULL-typed)."""
    empty = pd.DataFrame(
        {
            c: pd.Series([], dtype=object)
            for c in [
                "condition_id",
                "image_id",
                "audit_1",
                "audit_2",
                "true_category",
                "predicted_category",
                "correct",
                "d_valence",
                "d_arousal",
            ]
        }
    )
    labels = pd.DataFrame(
        {
            c: pd.Series([], dtype=object)
            for c in ["image_id", "audit_1", "audit_2", "true_category", "chosen_category", "n_labels"]
        }
    )
    audited = audit_aggregates(empty, {"audit_1": "race", "audit_2": "gender"})
    levels = factor_levels(empty, {"audit_1": "race", "audit_2": "gender"})
    factors = pd.DataFrame(
        {
            "factor": ["emotion", "race", "gender"],
            "role": ["category", "audit", "audit"],
            "slot": ["category", "audit_1", "audit_2"],
            "position": [1, 2, 3],
        }
    )
    anova = audit.stratified_anova_table(audited["int_audit_bias_cells"], audited["int_audit_pair_cells"], factors)
    outputs = {
        "slices": audit.slices_table(empty, labels, factors, levels),
        "glmm": audit.glmm_lrt_table(audited["int_audit_correct_counts"], factors),
        "anova": anova,
        "tukey": audit.tukey_table(audited["int_audit_pair_cells"], anova, factors),
        "omnibus": audit.omnibus_table(audited["int_audit_bias_cells"], factors),
        "counts": audit.significance_counts_table(anova),
    }
    con = duckdb.connect()
    for name, frame in outputs.items():
        assert frame.empty, name
        con.register("f", frame)
        types = con.execute("describe select * from f").df()["column_type"]
        assert not types.str.contains("NULL").any(), (name, types.tolist())
        con.unregister("f")
