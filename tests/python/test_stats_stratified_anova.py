"""rater1001.stats.stratified_anova: Benjamini-Hochberg against statsmodels' multipletests, planted
and absent effects, degenerate strata with their reason, the every-factor form against the paper's
three tests and statsmodels' type II."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from demographic_study import (
    planted_study,
)
from rater1001.stats import stratified_anova
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.multitest import multipletests


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


@pytest.fixture(scope="module")
def study():
    return planted_study()
