"""rater1001.stats.omnibus against statsmodels anova_lm and the paper's degrees of freedom."""

from __future__ import annotations

import pytest
import statsmodels.formula.api as smf
from demographic_study import (
    planted_study,
)
from rater1001.stats import omnibus
from statsmodels.stats.anova import anova_lm


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


@pytest.fixture(scope="module")
def study():
    return planted_study()
