"""rater1001.stats.tukey against scipy.stats.tukey_hsd and statsmodels' pairwise_tukeyhsd on the rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from demographic_study import (
    cells_of,
    planted_study,
    unbalanced_stratum,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rater1001.stats import stratified_anova, tukey
from scipy import stats
from statsmodels.stats.multicomp import pairwise_tukeyhsd


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


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.lists(st.integers(2, 9), min_size=3, max_size=6), seed=st.integers(0, 10_000))
def test_tukey_from_cells_equals_pairwise_tukeyhsd_on_the_rows(sizes, seed):
    frame = unbalanced_stratum(sizes, seed)
    cells = cells_of(frame).assign(condition_id="c", dimension="valence", category="fear")
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


@pytest.fixture(scope="module")
def study():
    return planted_study()
