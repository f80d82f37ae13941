"""rater1001.stats.anova: the stratum's nested F tests against statsmodels anova_lm on formula fits
(balanced and unbalanced), the false-positive rate near nominal, cell sums against least squares on
the rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from demographic_study import (
    GENDERS,
    RACES,
    cells_of,
    planted_study,
    unbalanced_stratum,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rater1001.stats import anova
from rater1001.stats import demographics as dm
from scipy import stats
from statsmodels.stats.anova import anova_lm


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


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.lists(st.integers(0, 7), min_size=2, max_size=6), seed=st.integers(0, 10_000))
def test_nested_f_tests_from_cells_equal_least_squares_on_the_rows(sizes, seed):
    frame = unbalanced_stratum(sizes, seed)
    rows = anova.stratum_factorial_tests(frame, "b")
    cells = anova.stratum_factorial_tests_cells(cells_of(frame))
    for r, c in zip(rows, cells):
        assert (r["term"], r["df_num"], r["df_den"], r["reason"]) == (c["term"], c["df_num"], c["df_den"], c["reason"])
        for key in ("ss_term", "ss_total", "f_value", "eta_sq", "p_raw"):
            if r[key] is None:
                assert c[key] is None, key
            else:
                assert c[key] == pytest.approx(r[key], rel=1e-9, abs=1e-9 * (1 + r["ss_total"])), key


def test_a_stratum_with_no_values_is_not_called_zero_variance():
    """A condition that gave no value in a stratum (no arousal at all) has nothing to test: the
    reason says so, not 'zero variance', which describes values that are all equal."""
    from rater1001.stats.anova import nested_f_test, nested_f_test_cells

    empty = nested_f_test(np.array([]), np.ones((0, 1)), np.ones((0, 2)))
    cells = nested_f_test_cells([], [], [], np.ones((0, 1)), np.ones((0, 2)))
    flat = nested_f_test(np.array([0.7, 0.7, 0.7]), np.ones((3, 1)), np.array([[1.0, 0], [1, 1], [1, 1]]))
    assert empty.reason == cells.reason == "no values in this stratum" and empty.f_value is None
    assert flat.reason == "bias has zero variance in this stratum"


@pytest.fixture(scope="module")
def study():
    return planted_study()
