"""Demographic bias audit statistics (stats/demographics.py).

References: scikit-learn (slice accuracy / macro-F1), the paper's Tables 7 and 7a (gap logic),
statsmodels anova_lm on formula fits (nested F, eta^2, df), a hand-written Benjamini-Hochberg,
scipy.stats.tukey_hsd (Tukey HSD), and simulated studies with planted or absent effects."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from rater1001.stats import anova, omnibus, stratified_anova, tukey
from rater1001.stats import demographics as dm
from scipy import special, stats
from sklearn.metrics import accuracy_score, f1_score
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.multitest import multipletests

EMOTIONS = ("happy", "sad", "angry", "fear", "disgust", "neutral")
RACES = ("Black", "Caucasian", "Korean")
GENDERS = ("female", "male")
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


def simulate_predictions(seed, conditions, n_identities=40):
    """One row per (condition, image) in the paper's 3 x 2 x 6 x n_identities design.

    conditions: {condition_id: dict(acc_logit={audit_1: shift}, valence={audit_1 or "audit_1:audit_2": shift},
    category=optional category the valence shifts apply to)}. Baseline accuracy varies by category."""
    rng = np.random.default_rng(seed)
    images = pd.DataFrame(
        [(r, g, e, i) for r in RACES for g in GENDERS for e in EMOTIONS for i in range(n_identities)],
        columns=["audit_1", "audit_2", "category", "identity"],
    )
    images["image_id"] = [f"img{i:05d}" for i in range(len(images))]
    base = dict(zip(EMOTIONS, (3.0, -0.3, 1.0, 1.5, 0.5, 2.5)))
    frames = []
    for condition, spec in conditions.items():
        d = images.copy()
        d["condition_id"] = condition
        logit = d["category"].map(base) + d["audit_1"].map(spec.get("acc_logit", {})).fillna(0.0)
        d["correct"] = rng.random(len(d)) < special.expit(logit)
        wrong = rng.choice(EMOTIONS, len(d))
        d["predicted_category"] = np.where(d["correct"], d["category"], wrong)
        d["correct"] = d["predicted_category"] == d["category"]
        cell = d["audit_1"] + ":" + d["audit_2"]
        shift = d["audit_1"].map(spec.get("valence", {})).fillna(0.0) + cell.map(spec.get("valence", {})).fillna(0.0)
        if "category" in spec:
            shift = shift.where(d["category"] == spec["category"], 0.0)
        d["d_valence"] = rng.normal(0.3, 0.6, len(d)) + shift
        d["d_arousal"] = rng.normal(-0.2, 0.8, len(d))
        frames.append(d)
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def study():
    return simulate_predictions(
        1,
        {
            "planted": dict(acc_logit={"Caucasian": -1.0}, valence={"Caucasian": 0.5}),
            "interaction": dict(valence={"Korean:female": 0.9}, category="fear"),
            "clean": dict(),
        },
    )


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


def _statsmodels_reference(stratum: pd.DataFrame, bias: str) -> dict:
    fits = {
        name: smf.ols(f"{bias} ~ {rhs}", stratum).fit()
        for name, rhs in (
            ("full", "C(audit_1) * C(audit_2)"),
            ("add", "C(audit_1) + C(audit_2)"),
            ("audit_1", "C(audit_1)"),
            ("gen", "C(audit_2)"),
        )
    }
    tss = float(((stratum[bias] - stratum[bias].mean()) ** 2).sum())
    out = {}
    for term, small, large in (
        ("audit_1", "gen", "add"),
        ("audit_2", "audit_1", "add"),
        ("audit_1:audit_2", "add", "full"),
    ):
        t = anova_lm(fits[small], fits[large])
        out[term] = dict(
            df_num=t["df_diff"].iloc[1],
            df_den=t["df_resid"].iloc[1],
            f_value=t["F"].iloc[1],
            p_raw=t["Pr(>F)"].iloc[1],
            eta_sq=t["ss_diff"].iloc[1] / tss,
        )
    return out


def _check_against_statsmodels(stratum, bias="d_valence"):
    ours = {r["term"]: r for r in anova.stratum_factorial_tests(stratum, bias)}
    ref = _statsmodels_reference(stratum, bias)
    for term in dm.STRATIFIED_TERMS:
        for key in ("df_num", "df_den"):
            assert ours[term][key] == ref[term][key], (term, key)
        for key in ("f_value", "p_raw", "eta_sq"):
            assert ours[term][key] == pytest.approx(ref[term][key], rel=1e-9, abs=1e-14), (term, key)
    return ours


def test_stratified_tests_match_anova_lm_balanced(study):
    stratum = study[(study["condition_id"] == "interaction") & (study["category"] == "fear")]
    ours = _check_against_statsmodels(stratum)
    # the paper's degrees of freedom for 240 images: audit_1 (2, 236), audit_2 (1, 236), rxg (2, 234)
    assert [(ours[t]["df_num"], ours[t]["df_den"]) for t in dm.STRATIFIED_TERMS] == [(2, 236), (1, 236), (2, 234)]
    # balanced: the nested-model SS equal R's Type I anova(lm(bias ~ audit_1 * audit_2)) SS
    t1 = anova_lm(smf.ols("d_valence ~ C(audit_1) * C(audit_2)", stratum).fit(), typ=1)
    assert ours["audit_1"]["ss_term"] == pytest.approx(t1.loc["C(audit_1)", "sum_sq"], rel=1e-9)
    assert ours["audit_2"]["ss_term"] == pytest.approx(t1.loc["C(audit_2)", "sum_sq"], rel=1e-9)


@pytest.mark.filterwarnings("ignore::statsmodels.tools.sm_exceptions.SingularMatrixWarning")
def test_stratified_tests_match_anova_lm_unbalanced(study):
    stratum = study[(study["condition_id"] == "planted") & (study["category"] == "happy")]
    stratum = stratum[~((stratum["audit_1"] == "Black") & (stratum["audit_2"] == "male"))]  # empty cell
    ko_f = stratum[(stratum["audit_1"] == "Korean") & (stratum["audit_2"] == "female")]
    stratum = stratum.drop(ko_f.index[1:])  # a cell of one image
    ours = _check_against_statsmodels(stratum)
    assert ours["audit_1:audit_2"]["df_num"] == 1  # one interaction contrast left to estimate
    assert ours["audit_1:audit_2"]["df_den"] == len(stratum) - 5


def test_table_benjamini_hochberg_and_flags(study):
    out = stratified_anova.stratified_anova(study)
    assert len(out) == 3 * 2 * 6 * 3 and (out["family_size"] == 18).all()
    for _, fam in out.groupby(["condition_id", "dimension"]):
        p = fam["p_raw"].to_numpy()
        m, order = len(p), np.argsort(p)
        ranked = p[order] * m / np.arange(1, m + 1)
        q = np.empty(m)
        q[order] = np.minimum(1, np.minimum.accumulate(ranked[::-1])[::-1])
        np.testing.assert_allclose(fam["q_bh"], q, rtol=1e-12)
        np.testing.assert_allclose(fam["q_bh"], multipletests(p, method="fdr_bh")[1], rtol=1e-12)
        assert (fam["significant"].astype(bool) == (fam["q_bh"] < 0.05)).all()


def test_planted_audit_1_bias_found_and_clean_condition_quiet(study):
    out = stratified_anova.stratified_anova(study)
    counts = stratified_anova.significance_counts(out).set_index(["condition_id", "dimension", "term"])
    assert counts.loc[("planted", "valence", "audit_1"), "label"] == "6/6"
    assert counts.loc[("clean", "valence", "audit_1"), "n_significant"] <= 1
    assert counts.loc[("interaction", "valence", "audit_1:audit_2"), "n_significant"] >= 1
    hit = out[
        (out["condition_id"] == "interaction")
        & (out["category"] == "fear")
        & (out["term"] == "audit_1:audit_2")
        & (out["dimension"] == "valence")
    ].iloc[0]
    assert bool(hit["significant"]) and hit["eta_sq"] > 0.02
    # the planted sign: Caucasian valence bias is higher than the other races
    planted = study[study["condition_id"] == "planted"]
    means = planted.groupby("audit_1")["d_valence"].mean()
    assert means.idxmax() == "Caucasian"


def test_tukey_matches_scipy_tukey_hsd(study):
    out = stratified_anova.stratified_anova(study)
    pairs = tukey.tukey_cells(study, out)
    sig = out[(out["term"] == "audit_1:audit_2") & out["significant"].fillna(False).astype(bool)]
    assert len(pairs) == 15 * len(sig) and len(sig) >= 1
    hit = pairs[
        (pairs["condition_id"] == "interaction") & (pairs["category"] == "fear") & (pairs["dimension"] == "valence")
    ]
    stratum = study[(study["condition_id"] == "interaction") & (study["category"] == "fear")]
    cells = stratum["audit_1"] + ":" + stratum["audit_2"]
    names = sorted(cells.unique())
    ref = stats.tukey_hsd(*[stratum.loc[cells == c, "d_valence"].to_numpy() for c in names])
    ci = ref.confidence_interval(0.95)
    for r in hit.itertuples():
        i, j = names.index(r.group1), names.index(r.group2)
        assert r.meandiff == pytest.approx(-ref.statistic[i, j], abs=1e-12)  # group2 - group1
        assert r.p_adj == pytest.approx(ref.pvalue[i, j], abs=1e-3)
        assert (r.lower, r.upper) == pytest.approx((-ci.high[i, j], -ci.low[i, j]), abs=1e-3)
    # the planted Korean:female shift shows up against every other cell, with its sign
    ko = hit[(hit["group1"] == "Korean:female") | (hit["group2"] == "Korean:female")]
    signed = np.where(ko["group2"] == "Korean:female", ko["meandiff"], -ko["meandiff"])
    assert (signed > 0).all() and ko["reject"].sum() >= 4


def test_stratified_false_positive_rate_near_nominal():
    rng = np.random.default_rng(99)
    design = pd.DataFrame([(r, g) for r in RACES for g in GENDERS for _ in range(40)], columns=["audit_1", "audit_2"])
    n_sim = 400
    rejections = np.zeros(3)
    for _ in range(n_sim):
        tests = anova.stratum_factorial_tests(design.assign(b=rng.normal(size=len(design))), "b")
        rejections += [t["p_raw"] < 0.05 for t in tests]
    lo, hi = stats.binom.ppf([0.001, 0.999], n_sim, 0.05) / n_sim
    assert ((rejections / n_sim >= lo) & (rejections / n_sim <= hi)).all(), rejections / n_sim


# ------------------------------------------------------------------------------ robustness


def test_degenerate_strata_give_null_with_reason(study):
    d = study[study["condition_id"] == "clean"].copy()
    d.loc[d["category"] == "happy", "d_valence"] = 0.7  # zero variance
    d = d[~((d["category"] == "sad") & (d["audit_2"] == "male"))]  # one audit_2 level
    one_per_cell = d[d["category"] == "angry"].groupby(["audit_1", "audit_2"]).head(1).index
    d = d[(d["category"] != "angry") | d.index.isin(one_per_cell)]  # one image per cell
    d.loc[d[d["category"] == "fear"].index[:7], "d_valence"] = np.nan  # missing bias values
    out = stratified_anova.stratified_anova(d, dimensions=("valence",)).set_index(["category", "term"])
    assert out.loc[("happy", "audit_1"), "f_value"] is None or np.isnan(out.loc[("happy", "audit_1"), "f_value"])
    assert "zero variance" in out.loc[("happy", "audit_1"), "reason"]
    assert "not estimable" in out.loc[("sad", "audit_2"), "reason"]
    assert out.loc[("sad", "audit_1"), "df_num"] == 2 and out.loc[("sad", "audit_1"), "df_den"] == 117
    assert "not estimable" in out.loc[("sad", "audit_1:audit_2"), "reason"]
    assert "no residual degrees of freedom" in out.loc[("angry", "audit_1:audit_2"), "reason"]
    assert out.loc[("angry", "audit_1"), "df_den"] == 2 and np.isfinite(out.loc[("angry", "audit_1"), "p_raw"])
    assert (out.loc["fear", "n_missing"] == 7).all() and (out.loc["fear", "n"] == 233).all()
    assert out.loc[("fear", "audit_1"), "df_den"] == 233 - 4
    # NULL tests are outside the BH family; the family counts only defined tests
    assert (out["family_size"] == out["p_raw"].notna().sum()).all()
    assert out.loc[out["p_raw"].isna(), "q_bh"].isna().all()
    counts = stratified_anova.significance_counts(out.reset_index())
    assert counts.set_index("term").loc["audit_1:audit_2", "n_tested"] == 3  # disgust, fear, neutral


# ------------------------------------------------------------------------------ omnibus (S5)


def test_omnibus_matches_anova_lm_and_paper_dfs(study):
    out = omnibus.omnibus_tests(study).set_index(["condition_id", "dimension", "term"])
    d = study[study["condition_id"] == "planted"]
    fits = {
        rhs: smf.ols(f"d_valence ~ {rhs}", d).fit()
        for rhs in ("C(category)", "C(audit_1) + C(category)", "C(audit_1) * C(category)")
    }
    tss = float(((d["d_valence"] - d["d_valence"].mean()) ** 2).sum())
    for term, small, large, dfs in (
        ("audit_1", "C(category)", "C(audit_1) + C(category)", (2, 1432)),
        ("audit_1:category", "C(audit_1) + C(category)", "C(audit_1) * C(category)", (10, 1422)),
    ):
        ref = anova_lm(fits[small], fits[large])
        ours = out.loc[("planted", "valence", term)]
        assert (ours["df_num"], ours["df_den"]) == dfs
        assert ours["f_value"] == pytest.approx(ref["F"].iloc[1], rel=1e-9)
        assert ours["p_raw"] == pytest.approx(ref["Pr(>F)"].iloc[1], rel=1e-6, abs=1e-300)
        assert ours["eta_sq"] == pytest.approx(ref["ss_diff"].iloc[1] / tss, rel=1e-9)
    g = out.loc[("planted", "arousal", "audit_2")]
    gi = out.loc[("planted", "arousal", "audit_2:category")]
    assert (g["df_num"], g["df_den"], gi["df_num"], gi["df_den"]) == (1, 1433, 5, 1428)
    assert out.loc[("planted", "valence", "audit_1"), "p_raw"] < 1e-6


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

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from statsmodels.stats.multicomp import pairwise_tukeyhsd  # noqa: E402


def _unbalanced_stratum(sizes, seed):
    """One stratum's rows: sizes[i] images in audit_1 x audit_2 cell i (0 = an empty cell)."""
    rng = np.random.default_rng(seed)
    cells = [(r, g) for r in RACES for g in GENDERS][: len(sizes)]
    rows = [(r, g) for (r, g), k in zip(cells, sizes) for _ in range(k)]
    frame = pd.DataFrame(rows, columns=["audit_1", "audit_2"])
    shift = frame["audit_1"].map({"Black": 0.0, "Caucasian": 0.4, "Korean": -0.3})
    return frame.assign(b=np.round(shift + rng.normal(0, 1, len(frame)), 3))


def _cells_of(frame):
    g = frame.groupby(["audit_1", "audit_2"])["b"]
    return pd.DataFrame(
        {"n_bias": g.count(), "bias_mean": g.mean(), "bias_ss": g.apply(lambda b: float(((b - b.mean()) ** 2).sum()))}
    ).reset_index()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.lists(st.integers(0, 7), min_size=2, max_size=6), seed=st.integers(0, 10_000))
def test_nested_f_tests_from_cells_equal_least_squares_on_the_rows(sizes, seed):
    frame = _unbalanced_stratum(sizes, seed)
    rows = anova.stratum_factorial_tests(frame, "b")
    cells = anova.stratum_factorial_tests_cells(_cells_of(frame))
    for r, c in zip(rows, cells):
        assert (r["term"], r["df_num"], r["df_den"], r["reason"]) == (c["term"], c["df_num"], c["df_den"], c["reason"])
        for key in ("ss_term", "ss_total", "f_value", "eta_sq", "p_raw"):
            if r[key] is None:
                assert c[key] is None, key
            else:
                assert c[key] == pytest.approx(r[key], rel=1e-9, abs=1e-9 * (1 + r["ss_total"])), key


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.lists(st.integers(2, 9), min_size=3, max_size=6), seed=st.integers(0, 10_000))
def test_tukey_from_cells_equals_pairwise_tukeyhsd_on_the_rows(sizes, seed):
    frame = _unbalanced_stratum(sizes, seed)
    cells = _cells_of(frame).assign(condition_id="c", dimension="valence", category="fear")
    anova = pd.DataFrame(
        {
            "condition_id": ["c"],
            "dimension": ["valence"],
            "category": ["fear"],
            "term": ["audit_1:audit_2"],
            "significant": [True],
        }
    )
    ours = tukey.tukey_from_cells(cells, anova)
    ref = pairwise_tukeyhsd(frame["b"].to_numpy(), (frame["audit_1"] + ":" + frame["audit_2"]).to_numpy())
    first, second = np.triu_indices(len(ref.groupsunique), 1)
    assert ours["group1"].tolist() == list(ref.groupsunique[first])
    assert ours["group2"].tolist() == list(ref.groupsunique[second])
    np.testing.assert_allclose(ours["meandiff"], ref.meandiffs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours["p_adj"], ref.pvalues, rtol=0, atol=1e-10)
    np.testing.assert_allclose(ours[["lower", "upper"]].to_numpy(), ref.confint, rtol=0, atol=1e-10)
    assert ours["reject"].tolist() == list(ref.reject)


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


def test_a_stratum_with_no_values_is_not_called_zero_variance():
    """A condition that gave no value in a stratum (no arousal at all) has nothing to test: the
    reason says so, not 'zero variance', which describes values that are all equal."""
    from rater1001.stats.anova import nested_f_test, nested_f_test_cells

    empty = nested_f_test(np.array([]), np.ones((0, 1)), np.ones((0, 2)))
    cells = nested_f_test_cells([], [], [], np.ones((0, 1)), np.ones((0, 2)))
    flat = nested_f_test(np.array([0.7, 0.7, 0.7]), np.ones((3, 1)), np.array([[1.0, 0], [1, 1], [1, 1]]))
    assert empty.reason == cells.reason == "no values in this stratum" and empty.f_value is None
    assert flat.reason == "bias has zero variance in this stratum"


# --- any number of audit factors ---------------------------------------------------------------


def _three_factor_rows(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 60
    return pd.DataFrame(
        {
            "condition_id": "m",
            "dimension": "warmth",
            "category": rng.choice(["x", "y"], n),
            "a": rng.choice(["a1", "a2", "a3"], n),
            "b": rng.choice(["b1", "b2"], n),
            "c": rng.choice(["c1", "c2"], n),
            "d": rng.normal(0, 1, n) + np.where(rng.random(n) < 0.1, np.nan, 0),
        }
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_factor_anova_with_two_factors_is_the_papers_three_tests(seed):
    """With two factors, stratified_anova_factors (per image) gives the cell path's F, p and q."""
    rows = _three_factor_rows(seed)
    got = stratified_anova.stratified_anova_factors(rows, ["a", "b"])
    cells = rows.rename(columns={"a": "audit_1", "b": "audit_2", "d": "d_warmth"})
    want = stratified_anova.stratified_anova(cells, dimensions=("warmth",))
    cols = ["df_num", "df_den", "f_value", "p_raw", "q_bh", "n", "n_missing"]
    assert list(got["term"]) == [t.replace("audit_1", "a").replace("audit_2", "b") for t in want["term"]]
    np.testing.assert_allclose(got[cols].to_numpy(float), want[cols].to_numpy(float), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", [4, 5])
def test_every_factor_anova_matches_statsmodels_type_ii_and_the_interactions(seed):
    """Three factors: each main term is statsmodels' type II test of the main-effects model; each
    pair's term is the nested F of that model against it plus the pair's interaction."""
    rows = _three_factor_rows(seed)
    got = stratified_anova.stratified_anova_factors(rows, ["a", "b", "c"]).set_index(["category", "term"])
    for category, part in rows.dropna(subset=["d"]).groupby("category"):
        mains = smf.ols("d ~ C(a) + C(b) + C(c)", part).fit()
        type2 = anova_lm(mains, typ=2)
        for f in "abc":
            assert got.loc[(category, f), "f_value"] == pytest.approx(type2.loc[f"C({f})", "F"], rel=1e-9)
        for x, y in (("a", "b"), ("a", "c"), ("b", "c")):
            larger = smf.ols(f"d ~ C(a) + C(b) + C(c) + C({x}):C({y})", part).fit()
            f_value = anova_lm(mains, larger)["F"].iloc[1]
            assert got.loc[(category, f"{x}:{y}"), "f_value"] == pytest.approx(f_value, rel=1e-9)
