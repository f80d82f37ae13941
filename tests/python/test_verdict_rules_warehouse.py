"""One pass rule for every verdict mart: after the verdict_rules seed is edited (margins and the
delta-alpha scope), calibration_scores, calibration_verdicts and replaceability_verdicts still
agree with each other and with the edited rules."""
from __future__ import annotations

import os

import duckdb
import pandas as pd
import pytest

from rater1001.paths import project
from rater1001.warehouse import dbt_build

from conftest import SMALL_DESIGN, query_warehouse

MARTS = "calibration_scores calibration_verdicts replaceability_verdicts"


def build(paths, select: str) -> bool:
    # Only the selected models' own tests: the generated label tests of other marts also read the
    # seeds and would be selected indirectly against tables this partial build never made.
    old = os.environ.get("DBT_INDIRECT_SELECTION")
    os.environ["DBT_INDIRECT_SELECTION"] = "cautious"
    try:
        return dbt_build(paths, select=select)
    finally:
        if old is None:
            del os.environ["DBT_INDIRECT_SELECTION"]
        else:
            os.environ["DBT_INDIRECT_SELECTION"] = old


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from rater1001.simulate import simulate_study

    paths = project(tmp_path_factory.mktemp("rules_wh"))
    simulate_study(paths, seed=5, **SMALL_DESIGN)
    assert build(paths, "+calibration_verdicts +replaceability_verdicts"), "dbt build failed"
    return paths


def edit_seed(paths, **values):
    con = duckdb.connect(str(paths.warehouse))
    try:
        for k, v in values.items():
            con.execute("update verdict_rules set value = ? where parameter = ?", [str(v), k])
    finally:
        con.close()
    assert build(paths, MARTS), "rebuilding the verdict marts failed"


def verdict_marts(paths):
    q = lambda sql: query_warehouse(paths, sql)
    rep = q("select * from replaceability_verdicts where measure <> 'classification'")
    cal = q("select * from calibration_verdicts where method = 'none'")
    scores = q("select * from calibration_scores where method = 'none'")
    return rep.set_index(["emotion", "measure"]), cal.set_index(["emotion", "dimension"]), scores


def passing(names) -> set[str]:
    return set(filter(None, (names or "").split(",")))


@pytest.mark.parametrize("values", [{}, {"w1sd_margin": 0.04, "delta_alpha_scope": "per_category"},
                                    {"w1sd_margin": -0.05, "delta_alpha_min": 0.002}])
def test_calibration_and_replaceability_verdicts_agree_under_the_seed(built, values):
    edit_seed(built, **{"w1sd_margin": 0, "delta_alpha_min": 0, "delta_alpha_scope": "pooled", **values})
    rep, cal, scores = verdict_marts(built)
    scope = values.get("delta_alpha_scope", "pooled")
    assert (rep["delta_alpha_scope"] == scope).all() and (cal["delta_alpha_scope"] == scope).all()
    checked = 0
    for key, r in rep.iterrows():
        c = cal.loc[key]
        assert passing(c["passing_conditions"]) == passing(r["passing_conditions"]), key
        assert c["verdict"] == r["verdict"], key
        s = scores[(scores["emotion"] == key[0]) & (scores["dimension"] == key[1])]
        assert set(s.loc[s["passes"].astype(bool), "condition_id"]) == passing(r["passing_conditions"]), key
        checked += 1
    assert checked == 12  # 6 emotions x valence, arousal
    # the edits did something: the per-category / margin runs pass a different number of conditions
    edit_seed(built, w1sd_margin=0, delta_alpha_min=0, delta_alpha_scope="pooled")
    base = verdict_marts(built)[0]["n_conditions_passing"].sum()
    if values:
        assert rep["n_conditions_passing"].sum() != base
