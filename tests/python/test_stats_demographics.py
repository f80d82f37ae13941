"""Demographic bias audit statistics (stats/demographics.py): slices, gaps and the GLMM table.

References: scikit-learn (slice accuracy / macro-F1), the paper's Tables 7 and 7a (gap logic), and
simulated studies with planted or absent effects (demographic_study.py)."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pandas as pd
import pytest
from demographic_study import (
    planted_study,
)
from rater1001.stats import demographics as dm
from rater1001.stats import stratified_anova
from sklearn.metrics import accuracy_score, f1_score

# The paper's Tables 7 and 7a (reference/paper_tables/*.tsv), inline so the test needs no
# checkout of the shared folder: F1-macro (accuracy) per slice and the printed largest delta.
PAPER_TABLES = {
    "table7_f1_by_race.tsv": """\
모델	Black	Caucasian	Korean	최대 delta (F1)
Human	1.000 (100.0%)	0.979 (97.9%)	1.000 (100.0%)	2.1 pp
Gemini 2.5 Flash (NoThink)	0.910 (91.0%)	0.857 (86.0%)	0.850 (86.3%)	5.9 pp
Gemini 2.5 Flash	0.903 (90.4%)	0.847 (85.2%)	0.854 (86.5%)	5.6 pp
Gemma3-27B	0.835 (84.0%)	0.803 (80.8%)	0.841 (84.6%)	3.8 pp
GPT-4o-mini	0.801 (81.9%)	0.751 (77.3%)	0.806 (82.9%)	5.4 pp
Qwen3-VL-4B	0.740 (75.2%)	0.811 (80.2%)	0.841 (84.6%)	10.1 pp
Gemma3-12B	0.691 (74.0%)	0.710 (75.0%)	0.763 (78.8%)	7.2 pp
Gemma3-4B	0.735 (76.0%)	0.650 (70.0%)	0.648 (71.0%)	8.7 pp
LLaMA-3.2-11B	0.493 (58.5%)	0.539 (60.6%)	0.570 (64.8%)	7.7 pp
""",
    "table7a_f1_by_gender.tsv": """\
모델	Man	Woman	delta (F1)
Human	0.986 (98.6%)	1.000 (100.0%)	1.4 pp
Gemini 2.5 Flash (NoThink)	0.841 (85.0%)	0.905 (90.6%)	6.4 pp
Gemini 2.5 Flash	0.853 (86.0%)	0.884 (88.8%)	3.1 pp
Gemma3-27B	0.802 (81.4%)	0.846 (84.9%)	4.4 pp
GPT-4o-mini	0.723 (76.4%)	0.840 (85.0%)	11.7 pp
Qwen3-VL-4B	0.751 (76.4%)	0.838 (83.6%)	8.7 pp
Gemma3-12B	0.645 (70.8%)	0.796 (81.0%)	15.1 pp
Gemma3-4B	0.693 (73.2%)	0.668 (71.5%)	2.5 pp
LLaMA-3.2-11B	0.523 (62.1%)	0.541 (60.6%)	1.8 pp
""",
}


@pytest.fixture(scope="module")
def study():
    return planted_study()


# ------------------------------------------------------------------------------ slices


def test_slice_metrics_match_sklearn(study):
    d = study.copy()
    rng = np.random.default_rng(4)
    d.loc[rng.choice(len(d), 60, replace=False), "predicted_category"] = None  # unparsed
    d.loc[rng.choice(len(d), 40, replace=False), "predicted_category"] = "surprise"  # out of set
    # one slice without any sad image: its macro-F1 averages five labels
    d = d[~((d["audit_1"] == "Korean") & (d["audit_2"] == "male") & (d["category"] == "sad"))]
    out = dm.slice_metrics(d)
    assert set(out["slice_type"]) == set(dm.SLICE_TYPES)
    assert len(out) == 3 * (3 + 2 + 6)
    keys = {"audit_1": d["audit_1"], "audit_2": d["audit_2"], "audit_1_audit_2": d["audit_1"] + ":" + d["audit_2"]}
    for row in out.itertuples():
        part = d[(d["condition_id"] == row.condition_id) & (keys[row.slice_type] == row.slice)]
        truth = part["category"].to_numpy()
        pred = part["predicted_category"].fillna("<none>").to_numpy()
        labels = sorted(set(truth))
        assert row.n == len(part) and row.n_labels == len(labels)
        assert row.accuracy == pytest.approx(accuracy_score(truth, pred), abs=1e-12)
        assert row.f1_macro == pytest.approx(
            f1_score(truth, pred, labels=labels, average="macro", zero_division=0), abs=1e-12
        )
    korean_male = out[(out["slice"] == "Korean:male")]
    assert (korean_male["n_labels"] == 5).all()
    assert out["n_unparsed"].sum() == 3 * d["predicted_category"].isna().sum() > 0


def test_weighted_slice_metrics_equal_the_expanded_rows(study):
    """Per-(image, label) counts with a weight column give the statistics of one row per answer:
    the pooled human labels reach slice_metrics as counts (7.2 million rows at 100x otherwise)."""
    rng = np.random.default_rng(9)
    rows = study.assign(predicted_category=study["predicted_category"].astype(object))
    rows.loc[rng.choice(len(rows), 50, replace=False), "predicted_category"] = None
    rows["n_answers"] = rng.integers(1, 6, len(rows))
    expanded = rows.loc[rows.index.repeat(rows["n_answers"])].drop(columns="n_answers")
    weighted = dm.slice_metrics(rows, weight="n_answers")
    plain = dm.slice_metrics(expanded)
    pd.testing.assert_frame_equal(weighted, plain, check_exact=False, rtol=0, atol=1e-12)
    assert weighted["n"].sum() == 3 * len(expanded) and weighted["n_unparsed"].sum() > 0


def _paper_slices(table: str) -> tuple[pd.DataFrame, pd.Series]:
    t = pd.read_csv(io.StringIO(PAPER_TABLES[table]), sep="\t")
    rows = []
    for _, r in t.iterrows():
        for col in t.columns[1:-1]:
            f1, acc = re.match(r"([\d.]+) \(([\d.]+)%\)", r[col]).groups()
            rows.append(
                dict(condition_id=r.iloc[0], slice=col, f1_macro=float(f1), accuracy=float(acc) / 100, slice_type="x")
            )
    printed = t.set_index(t.columns[0])[t.columns[-1]].str.replace(" pp", "").astype(float)
    return pd.DataFrame(rows), printed


@pytest.mark.parametrize("table", ["table7_f1_by_race.tsv", "table7a_f1_by_gender.tsv"])
def test_gaps_reproduce_paper_tables_7_and_7a(table):
    slices, printed = _paper_slices(table)
    gaps = dm.slice_gaps(slices).set_index("condition_id")
    # cells are printed to 3 decimals and deltas to 0.1 pp: agreement within rounding
    diff = (gaps["f1_gap_pp"] - printed.reindex(gaps.index)).abs()
    assert (diff <= 0.11).all(), diff
    if table.startswith("table7a"):
        # the text's accuracy gaps: Gemma3-12B 10.2 pp, GPT-4o-mini 8.6 pp
        assert gaps.loc["Gemma3-12B", "accuracy_gap_pp"] == pytest.approx(10.2, abs=0.06)
        assert gaps.loc["GPT-4o-mini", "accuracy_gap_pp"] == pytest.approx(8.6, abs=0.06)
        assert gaps.loc["Gemma3-4B", "f1_max_slice"] == "Man"
    else:
        assert gaps.loc["LLaMA-3.2-11B", "accuracy_gap_pp"] == pytest.approx(6.3, abs=0.06)
        assert gaps.loc["Qwen3-VL-4B", "f1_max_slice"] == "Korean"
        assert gaps.loc["Qwen3-VL-4B", "f1_min_slice"] == "Black"


def test_planted_accuracy_gap_has_right_sign(study):
    gaps = dm.slice_gaps(dm.slice_metrics(study)).set_index(["condition_id", "slice_type"])
    assert gaps.loc[("planted", "audit_1"), "accuracy_min_slice"] == "Caucasian"
    assert gaps.loc[("planted", "audit_1"), "accuracy_gap_pp"] > 5
    glmm = dm.glmm_lrt_table(study[study["condition_id"] == "planted"], n_agq=9)
    audit_1 = glmm[glmm["factor"] == "audit_1"].iloc[0]
    assert audit_1["df"] == 2 and audit_1["p_value"] < 1e-4
    audit_2 = glmm[glmm["factor"] == "audit_2"].iloc[0]
    assert audit_2["df"] == 1 and audit_2["p_value"] > 0.001
    assert "adaptive Gauss-Hermite" in audit_1["method"] and audit_1["random_intercept_sd"] > 0.5
    effects = json.loads(audit_1["fixed_effects_json"])  # reference level: Black
    assert effects["audit_1[Caucasian]"] < -0.5 and abs(effects["audit_1[Korean]"]) < 0.4


def test_perfectly_correct_condition_gives_null_glmm_with_reason(study):
    d = study[study["condition_id"] == "clean"].assign(correct=True)
    d["predicted_category"] = d["category"]
    glmm = dm.glmm_lrt_table(d)
    assert glmm["chi2"].isna().all() and glmm["reason"].str.contains("no variance").all()
    slices = dm.slice_metrics(d)
    assert (slices["accuracy"] == 1).all() and (slices["f1_macro"] == 1).all()


# ------------------------------------------------------------------------------ stratified ANOVA


# ------------------------------------------------------------------------------ robustness


# ------------------------------------------------------------------------------ omnibus (S5)


def test_other_label_sets_and_missing_design_values(study):
    d = study[study["condition_id"] == "planted"].copy()
    # four races and the paper's genders renamed: nothing assumes the paper's label sets
    d["audit_1"] = np.where(d["identity"] % 4 == 0, "Other", d["audit_1"])
    d["audit_2"] = d["audit_2"].map({"female": "W", "male": "M"})
    tests = stratified_anova.stratified_anova(d, dimensions=("valence",))
    first = tests[tests["category"] == "fear"].set_index("term")
    assert first.loc["audit_1", "df_num"] == 3 and first.loc["audit_1:audit_2", "df_num"] == 3
    glmm = dm.glmm_lrt_table(d, factors=("audit_1",), n_agq=5)
    assert glmm.loc[0, "df"] == 3
    assert set(dm.slice_metrics(d).query("slice_type == 'audit_1'")["slice"]) == {
        "Black",
        "Caucasian",
        "Korean",
        "Other",
    }
    d.loc[d.index[5], "audit_1"] = None
    with pytest.raises(ValueError, match=r"row \d+ \(image_id='img\d+'\) has no value in column 'audit_1'"):
        stratified_anova.stratified_anova(d)


# ------------------------------------------------------------------------------ per-cell aggregates
# The marts compute on per-cell aggregates made in SQL (int_audit_bias_cells, int_audit_pair_cells);
# these check each cell route against the same statistic on one row per image, by brute force.


def test_glmm_on_counts_equals_the_glmm_on_one_row_per_image(study):
    rows = study[study["condition_id"] == "planted"]
    counts = (
        rows.groupby(["condition_id", "audit_1", "audit_2", "category", "correct"])
        .size()
        .rename("n_images")
        .reset_index()
    )
    plain = dm.glmm_lrt_table(rows, n_agq=5)
    weighted = dm.glmm_lrt_table(counts, n_agq=5, weight="n_images")
    assert len(counts) < len(rows) / 10
    pd.testing.assert_frame_equal(weighted, plain, check_exact=True)


# --- any number of audit factors ---------------------------------------------------------------
