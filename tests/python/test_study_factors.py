"""Free factor names, studies without a category, one or many audit factors, rater attributes
(docs/study_shape.md, "Factor names"). Fast: declarations, the contract, ingest into a temporary
folder, and the audit's glue and statistics on small frames. The end-to-end builds are the
acceptance studies (HANNA: no category, one audit factor named `generator`; MultiPICo: every name
the study's own, two rater attributes)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001 import contract
from rater1001.ingest import ingest_file
from rater1001.marts import demographics as audit
from rater1001.paths import project
from rater1001.stats import rater_slices
from rater1001.study import parse_study, read_factor_labels
from scipy import stats
from stats_helpers import audit_aggregates, factor_levels

LABELS_CSV = """factor,label,label_ko,aliases,display_order
topic,sports,,sport,1
topic,politics,,,2
annotator_region,north,,,1
annotator_region,south,,,2
venue,web,,,1
venue,print,,,2
outlet,a,,,1
outlet,b,,,2
age_band,young,,,1
age_band,old,,,2
"""
TOPIC_STUDY = {
    "name": "topics",
    "stimulus_kind": "text",
    "scale": {"min": 1, "max": 5},
    "dimensions": ["quality"],
    "factors": [
        {"name": "topic", "role": "category"},
        {"name": "annotator_region", "role": "audit"},
        {"name": "venue", "role": "audit"},
        {"name": "outlet", "role": "audit"},
    ],
    "rater_attributes": ["age_band"],
}


def _folder(root: Path, cfg: dict) -> Path:
    (root / "seeds").mkdir(parents=True, exist_ok=True)
    (root / "seeds" / "factor_labels.csv").write_text(LABELS_CSV, encoding="utf-8")
    (root / "study.yml").write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return root


def _study(cfg: dict, tmp_path: Path):
    _folder(tmp_path, cfg)
    return parse_study(cfg, read_factor_labels(tmp_path / "seeds" / "factor_labels.csv"), Path("study.yml"))


def test_free_names_fill_the_role_slots_in_declared_order(tmp_path):
    study = _study(TOPIC_STUDY, tmp_path)
    assert study.factor_slots == {"audit_1": "annotator_region", "audit_2": "venue", "category": "topic"}
    assert study.factor_rows == [
        {"name": "topic", "role": "category", "slot": "category"},
        {"name": "annotator_region", "role": "audit", "slot": "audit_1"},
        {"name": "venue", "role": "audit", "slot": "audit_2"},
        {"name": "outlet", "role": "audit", "slot": None},
    ]
    tables = contract.tables_for(study)
    assert tables["stimuli"].column_names == [
        "image_id",
        "identity_id",
        "topic",
        "annotator_region",
        "venue",
        "outlet",
        "file_path",
        "text",
    ]
    assert {c.name for c in tables["stimuli"].columns if c.required} == {
        "image_id",
        "topic",
        "annotator_region",
        "venue",
        "outlet",
        "text",
    }
    assert tables["stimuli"].column("outlet").rule == "factor:outlet"
    assert tables["raters"].column_names == ["rater_id", "age_band", "age"]
    assert tables["human_ratings"].column_names[-1] == "topic"
    assert tables["human_ratings"].column("topic").rule == "factor:topic"
    assert "topic" in tables["model_predictions"].column_names
    assert "emotion" not in tables["model_predictions"].column_names


def test_a_study_without_a_category_has_no_label_columns(tmp_path):
    cfg = {**TOPIC_STUDY, "factors": [{"name": "venue", "role": "audit"}]}
    study = _study(cfg, tmp_path)
    assert study.category is None and study.factor_slots == {"audit_1": "venue"}
    tables = contract.tables_for(study)
    assert tables["human_ratings"].column_names == ["rater_id", "image_id", "quality", "rt_quality_ms", "trial_index"]
    assert not {"emotion", "topic"} & set(tables["model_predictions"].column_names)


def test_ingest_lands_the_studys_own_column_names_and_names_them_in_errors(tmp_path):
    root = _folder(tmp_path / "study", TOPIC_STUDY)
    paths = project(root)
    stimuli = pd.DataFrame(
        {
            "image_id": ["t1", "t2", "t3"],
            "topic": ["sport", "politics", "cooking"],
            "annotator_region": ["north", "south", "north"],
            "venue": ["web", "print", "web"],
            "outlet": ["a", "b", "a"],
            "text": ["one", "two", "three"],
        }
    )
    stimuli.to_csv(tmp_path / "stimuli.csv", index=False)
    result = ingest_file(paths, "stimuli", tmp_path / "stimuli.csv")
    assert (result.rows_landed, result.rows_rejected) == (2, 1)
    landed = pd.read_parquet(paths.raw_table("stimuli"))
    assert landed["topic"].tolist() == ["sports", "politics"]  # the alias 'sport' canonicalised
    assert landed["outlet"].tolist() == ["a", "b"]
    reason = list(pd.read_parquet(paths.rejected_table("stimuli"))["_reason"].iloc[0])
    assert len(reason) == 1 and reason[0].startswith("topic='cooking': not a declared topic label")
    pd.DataFrame({"rater_id": ["r1", "r2"], "age_band": ["young", "old"], "age": [20, 70]}).to_csv(
        tmp_path / "raters.csv", index=False
    )
    assert ingest_file(paths, "raters", tmp_path / "raters.csv").rows_rejected == 0
    assert list(pd.read_parquet(paths.raw_table("raters")).columns) == ["rater_id", "age_band", "age"]


# --- the audit with one audit factor, or with the study's names ---------------------------------


def _model_vs_human(rng, n_per_cell: int, regions=("north", "south"), topics=("sports", "politics")) -> pd.DataFrame:
    rows = []
    for topic in topics:
        for region in regions:
            for i in range(n_per_cell):
                truth = topic
                pred = truth if rng.random() < (0.8 if region == "north" else 0.6) else topics[0]
                rows.append(
                    dict(
                        condition_id="m",
                        image_id=f"{topic}-{region}-{i}",
                        audit_1=region,
                        audit_2=None,
                        true_category=truth,
                        predicted_category=pred,
                        correct=pred == truth,
                        d_quality=rng.normal(0.5 if region == "north" else 0.0, 1.0),
                    )
                )
    return pd.DataFrame(rows)


ONE_FACTOR = pd.DataFrame(
    {
        "factor": ["topic", "annotator_region"],
        "role": ["category", "audit"],
        "slot": ["category", "audit_1"],
        "position": [1, 2],
    }
)


def test_one_audit_factor_gets_its_own_f_test_per_stratum_equal_to_a_one_way_anova():
    """With one audit factor the paper's race test (M_gen vs M_add) is a one-way ANOVA within each
    category stratum: scipy's f_oneway is the independent reference."""
    frame = _model_vs_human(np.random.default_rng(3), 12)
    cells = audit_aggregates(frame, {"audit_1": "annotator_region"})
    anova = audit.stratified_anova_table(cells["int_audit_bias_cells"], cells["int_audit_pair_cells"], ONE_FACTOR)
    assert set(anova["term"]) == {"annotator_region"}  # no second factor, no interaction
    for topic, part in frame.groupby("true_category"):
        row = anova[anova["category"] == topic].iloc[0]
        ref = stats.f_oneway(*[g["d_quality"].to_numpy() for _, g in part.groupby("audit_1")])
        assert row.f_value == pytest.approx(ref.statistic, rel=1e-9)
        assert row.p_raw == pytest.approx(ref.pvalue, rel=1e-9)
        assert (row.df_num, row.df_den) == (1, len(part) - 2)
    omnibus = audit.omnibus_table(cells["int_audit_bias_cells"], ONE_FACTOR)
    assert set(omnibus["factor"]) == {"annotator_region"}
    assert set(omnibus["term"]) == {"annotator_region", "annotator_region:topic"}


def test_one_audit_factor_slices_are_named_as_the_study_names_the_factor():
    frame = _model_vs_human(np.random.default_rng(4), 10)
    labels = pd.DataFrame(columns=["image_id", "audit_1", "audit_2", "true_category", "chosen_category", "n_labels"])
    levels = factor_levels(frame, {"audit_1": "annotator_region"})
    slices = audit.slices_table(frame, labels, ONE_FACTOR, levels)
    assert set(slices["slice_type"]) == {"annotator_region"}
    assert slices["audit_2"].isna().all()
    by = slices.set_index("slice")
    for region, part in frame.groupby("audit_1"):
        assert by.loc[region, "accuracy"] == pytest.approx(part["correct"].mean(), abs=1e-12)
        assert by.loc[region, "n"] == len(part)


def test_without_a_category_the_classification_audit_is_empty_and_the_ratings_audit_has_one_stratum():
    frame = _model_vs_human(np.random.default_rng(5), 10).assign(
        true_category=None, predicted_category=None, correct=None
    )
    factors = ONE_FACTOR[ONE_FACTOR["role"] == "audit"]
    labels = pd.DataFrame(columns=["image_id", "audit_1", "audit_2", "true_category", "chosen_category", "n_labels"])
    levels = factor_levels(frame, {"audit_1": "annotator_region"})
    assert audit.slices_table(frame, labels, factors, levels).empty
    audited = audit_aggregates(frame, {"audit_1": "annotator_region"})
    assert audit.glmm_lrt_table(audited["int_audit_correct_counts"], factors).empty
    anova = audit.stratified_anova_table(audited["int_audit_bias_cells"], audited["int_audit_pair_cells"], factors)
    # no category: the one stratum is 'all' (docs/study_shape.md, "The grain"), never NULL
    assert len(anova) == 1 and (anova["category"] == "all").all()
    ref = stats.f_oneway(*[g["d_quality"].to_numpy() for _, g in frame.groupby("audit_1")])
    assert anova["f_value"].iloc[0] == pytest.approx(ref.statistic, rel=1e-9)
    assert set(audit.omnibus_table(audited["int_audit_bias_cells"], factors)["term"]) == {"annotator_region"}


THREE_FACTORS = pd.DataFrame(
    {
        "factor": ["topic", "annotator_region", "venue", "outlet"],
        "role": ["category", "audit", "audit", "audit"],
        "position": [1, 2, 3, 4],
    }
)


def _three_factor_frame(rng) -> pd.DataFrame:
    """Two topics x two regions x two venues x 8 stimuli; the south:print cell's bias shifted by 3
    (an interaction), the south region less often right; outlet has one level."""
    rows = []
    for topic, region, venue in itertools.product(("sports", "politics"), ("north", "south"), ("web", "print")):
        for i in range(8):
            right = rng.random() < (0.85 if region == "north" else 0.55)
            shift = 3.0 if (region, venue) == ("south", "print") else 0.0
            rows.append(
                dict(
                    condition_id="m",
                    image_id=f"{topic}-{region}-{venue}-{i}",
                    audit_1=region,
                    audit_2=venue,
                    outlet="a",
                    true_category=topic,
                    predicted_category=topic if right else ("politics" if topic == "sports" else "sports"),
                    d_quality=rng.normal(shift, 0.5) if i else None,  # one stimulus per cell without a bias
                )
            )
    return pd.DataFrame(rows)


def test_three_audit_factors_each_get_a_glmm_omnibus_and_tukey_row_named_as_declared():
    """Every declared audit factor gets its GLMM and omnibus rows (statsmodels' anova_lm on formula
    fits is the reference for the omnibus F tests), a factor of one level says why it has no
    statistic, and the planted region x venue interaction gets Tukey rows equal to statsmodels'
    pairwise_tukeyhsd on the stimuli's bias."""
    import statsmodels.formula.api as smf
    from rater1001.stats import stratified_anova
    from statsmodels.stats.anova import anova_lm
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    frame = _three_factor_frame(np.random.default_rng(11))
    cells = audit_aggregates(frame, {"audit_1": "annotator_region", "audit_2": "venue", "outlet": "outlet"})
    glmm = audit.glmm_lrt_table(cells["int_audit_correct_counts"], THREE_FACTORS, n_agq=5).set_index("factor")
    assert list(glmm.index) == ["annotator_region", "venue", "outlet"]
    assert glmm.loc["annotator_region", "df"] == 1 and glmm.loc["annotator_region", "n_obs"] == len(frame)
    assert pd.isna(glmm.loc["outlet", "chi2"]) and glmm.loc["outlet", "reason"].startswith("outlet has a single level")
    assert "annotator_region[south]" in glmm.loc["annotator_region", "fixed_effects_json"]
    # a declared factor no stimulus has a level of: its rows say so, nothing crashes
    empty = pd.concat([THREE_FACTORS, pd.DataFrame({"factor": ["era"], "role": ["audit"], "position": [5]})])
    era = audit.glmm_lrt_table(cells["int_audit_correct_counts"], empty, n_agq=5).set_index("factor").loc["era"]
    assert pd.isna(era["chi2"]) and era["reason"] == "no stimulus has a level of era" and era["n_obs"] == 0
    era = audit.omnibus_table(cells["int_audit_bias_cells"], empty).query("factor == 'era'")
    assert len(era) == 2 and era["f_value"].isna().all() and (era["reason"] == "no values in this stratum").all()

    omnibus = audit.omnibus_table(cells["int_audit_bias_cells"], THREE_FACTORS).set_index(["factor", "term"])
    assert set(omnibus.index) == {(f, t) for f in ("annotator_region", "venue", "outlet") for t in (f, f"{f}:topic")}
    assert omnibus.loc[("outlet", "outlet"), "reason"].startswith("term not estimable")
    used = frame.dropna(subset=["d_quality"])
    for factor, column in (("annotator_region", "audit_1"), ("venue", "audit_2")):
        add = smf.ols(f"d_quality ~ C({column}) + C(true_category)", used).fit()
        inter = smf.ols(f"d_quality ~ C({column}) * C(true_category)", used).fit()
        main = anova_lm(smf.ols("d_quality ~ C(true_category)", used).fit(), add).iloc[1]
        both = anova_lm(add, inter).iloc[1]
        assert omnibus.loc[(factor, factor), "f_value"] == pytest.approx(main["F"], rel=1e-9)
        assert omnibus.loc[(factor, f"{factor}:topic"), "p_raw"] == pytest.approx(both["Pr(>F)"], rel=1e-9)
        assert omnibus.loc[(factor, factor), "n_missing"] == 8

    named = used.rename(columns={"audit_1": "annotator_region", "audit_2": "venue", "true_category": "category"})
    anova = stratified_anova.stratified_anova_factors(
        named.assign(dimension="quality", d=named["d_quality"]), ("annotator_region", "venue", "outlet")
    )
    tukey = audit.tukey_table(cells["int_audit_pair_cells"], anova, THREE_FACTORS)
    hits = anova[(anova["term"] == "annotator_region:venue") & anova["significant"].fillna(False)]
    assert len(hits) == 2 and set(tukey["term"]) == {"annotator_region:venue"} and len(tukey) == 2 * 6
    for topic, part in used.groupby("true_category"):
        ref = pairwise_tukeyhsd(part["d_quality"].to_numpy(), (part["audit_1"] + ":" + part["audit_2"]).to_numpy())
        got = tukey[tukey["category"] == topic]
        np.testing.assert_allclose(got["meandiff"], ref.meandiffs, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got["p_adj"], ref.pvalues, rtol=0, atol=1e-9)
        np.testing.assert_allclose(got[["lower", "upper"]], ref.confint, rtol=0, atol=1e-12)


# --- the audit by rater attribute ----------------------------------------------------------------


def test_the_stratified_anova_model_reads_the_per_stimulus_bias_only_for_more_than_two_factors():
    """The dbt function on DuckDB relations: with three audit factors it equals the table from frames
    (the per-stimulus bias, four of its columns); with two the cells serve and the per-stimulus
    relation is never executed (it raises when it is)."""
    import duckdb

    frame = _three_factor_frame(np.random.default_rng(11))
    names = {"audit_1": "annotator_region", "audit_2": "venue", "outlet": "outlet"}
    cells = audit_aggregates(frame, names)
    levels = factor_levels(frame, names)
    long = frame.rename(columns={"true_category": "category"}).assign(dimension="quality", d=frame["d_quality"])
    long = long.assign(z=0.0)[["condition_id", "dimension", "category", "image_id", "d", "z", "audit_1"]]
    con = duckdb.connect()
    pools = pd.DataFrame({"condition_id": ["m"], "pool": ["demographics"]})
    provenance = pd.DataFrame({"data_origin": ["SIMULATED"]})
    rel = {name: con.from_df(f) for name, f in {**cells, "long": long, "levels": levels, "pools": pools}.items()}

    def model(factors, model_long):
        return audit.demographic_stratified_anova(
            rel["int_audit_bias_cells"],
            rel["int_audit_pair_cells"],
            rel["pools"],
            con.from_df(factors),
            con.from_df(provenance),
            model_long=model_long,
            factor_levels=rel["levels"],
        )

    factors = THREE_FACTORS.assign(slot=["category", "audit_1", "audit_2", None])
    three = model(factors, rel["long"])
    frames = audit.stratified_anova_table(
        cells["int_audit_bias_cells"],
        cells["int_audit_pair_cells"],
        factors,
        model_long=long,
        factor_levels=levels,
    )
    assert len(three) == len(frames) > 0
    pd.testing.assert_frame_equal(three.drop(columns="data_origin"), frames)
    unread = con.sql("select 'm' as condition_id, error('the per-stimulus bias was read') as d")
    two = model(factors[factors["factor"] != "outlet"], unread)
    assert set(two["term"]) == {"annotator_region", "venue", "annotator_region:venue"}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(1, 40)), min_size=1, max_size=5))
def test_rater_agreement_homogeneity_equals_the_pearson_chi_square_written_out(cells):
    """levels x {agree, disagree}: chi2 = sum (O - E)^2 / E, df = levels - 1, and the gap."""
    levels = pd.DataFrame(
        {
            "condition_id": "m",
            "attribute": "age_band",
            "level": [f"l{i}" for i in range(len(cells))],
            "n_agree": [min(a, n) for a, n in cells],
            "n_labels": [n for _, n in cells],
        }
    )
    levels["agreement"] = levels["n_agree"] / levels["n_labels"]
    got = rater_slices.homogeneity(levels).iloc[0]
    observed = np.column_stack([levels["n_agree"], levels["n_labels"] - levels["n_agree"]]).astype(float)
    if len(cells) < 2:
        assert got.reason.startswith("fewer than two levels") and got.chi2 is None
        return
    rates = levels["agreement"]
    assert got.gap_pp == pytest.approx(100 * (rates.max() - rates.min()), abs=1e-9)
    if (observed.sum(axis=0) == 0).any():
        assert got.chi2 is None and "does not vary" in got.reason
        return
    expected = observed.sum(axis=1, keepdims=True) * observed.sum(axis=0) / observed.sum()
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    assert got.chi2 == pytest.approx(chi2, rel=1e-9, abs=1e-12)
    assert got.df == len(cells) - 1
    assert got.p_value == pytest.approx(stats.chi2.sf(chi2, len(cells) - 1), rel=1e-9, abs=1e-15)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n_raters=st.integers(2, 12), n_images=st.integers(1, 8))
def test_level_agreement_from_label_counts_equals_one_row_per_label(seed, n_raters, n_images):
    """Counted (a row per condition, level, stimulus and label with its n and the level's raters)
    and one row per label give the same table: the mart counts in DuckDB, the formula stays one."""
    rng = np.random.default_rng(seed)
    rows = [
        (cond, f"r{r}", f"i{i}", str(rng.choice(["x", "y", "z"])))
        for cond in ("m1", "m2")
        for r in range(n_raters)
        for i in range(n_images)
        if rng.random() < 0.7
    ]
    pairs = pd.DataFrame(rows, columns=["condition_id", "rater_id", "image_id", "chosen"])
    pairs["attribute"] = "age"
    pairs["level"] = np.where(pairs["rater_id"].str[1:].astype(int) % 3 == 0, "old", "young")
    predicted = {(c, f"i{i}"): rng.choice(["x", "y", None]) for c in ("m1", "m2") for i in range(n_images)}
    pairs["predicted"] = [predicted[(c, i)] for c, i in zip(pairs["condition_id"], pairs["image_id"])]
    keys = ["condition_id", "attribute", "level", "image_id", "chosen"]
    counted = pairs.groupby(keys, dropna=False).agg(n=("rater_id", "size"), predicted=("predicted", "first"))
    raters = pairs.groupby(["condition_id", "attribute", "level"])["rater_id"].nunique().rename("n_raters")
    counted = counted.reset_index().merge(raters.reset_index(), on=["condition_id", "attribute", "level"])
    pd.testing.assert_frame_equal(rater_slices.level_agreement(pairs), rater_slices.level_agreement(counted))
    # and counted per stimulus, the agreeing labels summed (what the mart hands over from DuckDB)
    agreeing = counted.assign(n_agree=np.where(counted["predicted"] == counted["chosen"], counted["n"], 0))
    per_image = agreeing.groupby(["condition_id", "attribute", "level", "image_id"], as_index=False).agg(
        n=("n", "sum"), n_agree=("n_agree", "sum"), n_raters=("n_raters", "first")
    )
    pd.testing.assert_frame_equal(rater_slices.level_agreement(pairs), rater_slices.level_agreement(per_image))
    # and summed over the stimuli, their number beside (what the mart hands over from DuckDB)
    per_level = per_image.groupby(["condition_id", "attribute", "level"], as_index=False).agg(
        n=("n", "sum"), n_agree=("n_agree", "sum"), n_raters=("n_raters", "first"), n_items=("image_id", "size")
    )
    pd.testing.assert_frame_equal(rater_slices.level_agreement(pairs), rater_slices.level_agreement(per_level))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_raters=st.integers(1, 9),
    n_images=st.integers(1, 7),
    n_runs=st.integers(1, 3),
)
def test_rater_agreement_table_equals_a_loop_over_every_label(seed, n_raters, n_images, n_runs):
    """The mart's DuckDB sums (labels counted per level, stimulus and label before a condition
    meets them) against a loop over every (condition, rater, stimulus) label with the condition's
    first run: raters without a level, missing labels, unanswered stimuli, several runs, a NULL
    run_id last, stimuli without a prediction row."""
    rng = np.random.default_rng(seed)
    labels = ["x", "y", "z"]
    ratings = pd.DataFrame(
        [
            (f"r{r}", f"i{i}", None if rng.random() < 0.2 else str(rng.choice(labels)))
            for r in range(n_raters)
            for i in range(n_images)
            if rng.random() < 0.8
        ],
        columns=["rater_id", "image_id", "chosen_category"],
    )
    attributes = pd.DataFrame(
        [
            (f"r{r}", a, str(rng.choice(levels)))
            for r in range(n_raters)
            if rng.random() < 0.9
            for a, levels in (("age", ["old", "young"]), ("region", ["n", "s", "w"]))
        ],
        columns=["rater_id", "attribute", "level"],
    )
    predictions = pd.DataFrame(
        [
            (
                c,
                f"i{i}",
                None if rng.random() < 0.15 else f"{run}",
                None if rng.random() < 0.3 else str(rng.choice(labels)),
            )
            for c in ("m1", "m2")
            for i in range(n_images)
            if rng.random() < 0.85
            for run in range(n_runs)
        ],
        columns=["condition_id", "image_id", "run_id", "predicted_category"],
    ).drop_duplicates(["condition_id", "image_id", "run_id"])
    got = audit.rater_agreement_table(ratings, attributes, predictions)
    first = {}
    for c, i, run, label in predictions.astype(object).where(predictions.notna(), None).itertuples(index=False):
        rank = (run is None, run or "")
        if (c, i) not in first or rank < first[(c, i)][0]:
            first[(c, i)] = (rank, label)
    cells = {}
    ratings = ratings.astype(object).where(ratings.notna(), None)
    for (c, i), (_, label) in first.items():
        for r, img, chosen in ratings.itertuples(index=False):
            if img != i or chosen is None:
                continue
            for _, a, level in attributes[attributes["rater_id"] == r].itertuples(index=False):
                cell = cells.setdefault((c, a, level), {"labels": 0, "agree": 0, "items": set()})
                cell["labels"] += 1
                cell["agree"] += int(label is not None and label == chosen)
                cell["items"].add(i)
    labelled = ratings.dropna(subset=["chosen_category"]).merge(attributes, on="rater_id")
    raters = labelled.groupby(["attribute", "level"])["rater_id"].nunique()
    if not cells or all(label is None for _, label in first.values()):  # no first run has a label
        assert got.empty
        return
    got = got.set_index(["condition_id", "attribute", "level"]).sort_index()
    assert list(got.index) == sorted(cells)
    for key, cell in cells.items():
        row = got.loc[key]
        assert (row["n_labels"], row["n_agree"], row["n_items"]) == (cell["labels"], cell["agree"], len(cell["items"]))
        assert row["n_raters"] == raters[key[1:]]
        assert row["agreement"] == cell["agree"] / cell["labels"]


def test_rater_agreement_counts_each_rater_label_against_the_models_first_run():
    ratings = pd.DataFrame(
        {
            "rater_id": ["r1", "r2", "r3", "r1", "r2", "r3"],
            "image_id": ["a", "a", "a", "b", "b", "b"],
            "chosen_category": ["x", "x", "y", "y", None, "y"],
        }
    )
    attributes = pd.DataFrame(
        {"rater_id": ["r1", "r2", "r3"], "attribute": "age_band", "level": ["young", "old", "old"]}
    )
    predictions = pd.DataFrame(
        {
            "condition_id": ["m", "m", "m"],
            "image_id": ["a", "b", "a"],
            "run_id": ["1", "1", "2"],
            "predicted_category": ["x", None, "y"],
        }
    )
    got = audit.rater_agreement_table(ratings, attributes, predictions).set_index("level")
    # young: r1 on a (x = x) and b (y vs no answer); old: r2 on a (x), r3 on a (y) and b (y vs none)
    assert (got.loc["young", "n_agree"], got.loc["young", "n_labels"]) == (1, 2)
    assert (got.loc["old", "n_agree"], got.loc["old", "n_labels"]) == (1, 3)
    assert got.loc["old", "n_raters"] == 2 and got.loc["old", "n_items"] == 2


# --- what the report says for a study's names ------------------------------------------------------


def test_the_report_names_the_slots_as_the_study_does_and_says_what_the_audit_leaves_out(tmp_path):
    import duckdb
    from rater1001.report.applicability import audit_limits, slot_headers, study_spelling

    study = _study(TOPIC_STUDY, tmp_path)
    assert slot_headers(study) == {
        "category": "topic",
        "true_category": "true_topic",
        "predicted_category": "predicted_topic",
        "chosen_category": "chosen_topic",
        "audit_1": "annotator_region",
        "audit_2": "venue",
    }
    assert audit_limits(study) == []  # every audit mart covers every audit factor and pair
    one = _study({**TOPIC_STUDY, "factors": TOPIC_STUDY["factors"][:2]}, tmp_path / "one")
    assert audit_limits(one)[0].startswith("one audit factor (annotator_region)")
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE stg_study_factors AS SELECT * FROM (VALUES ('topic', 'category', 'category'), "
        "('annotator_region', 'audit', 'audit_1')) t(factor, role, slot)"
    )
    spell = lambda v: con.execute(f"SELECT {study_spelling(v)}").fetchone()[0]  # noqa: E731
    assert [spell("audit_1"), spell("audit_1_audit_2"), spell("audit_1:category")] == [
        "annotator_region",
        "annotator_region_audit_2",
        "annotator_region:topic",
    ]
