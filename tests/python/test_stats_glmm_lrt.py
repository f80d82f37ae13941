"""rater1001.stats.glmm_lrt: the likelihood-ratio test across quadrature nodes and against brute-force
integration, a planted gap found with its sign, the false-positive rate near nominal."""

from __future__ import annotations

import numpy as np
import pytest
from rater1001.stats.design import treatment_design
from rater1001.stats.glmm import BinomialData
from rater1001.stats.glmm_lrt import likelihood_ratio_test
from scipy import stats
from test_stats_glmm import quad_loglik, simulate_correct


def test_lrt_on_bernoulli_rows_agrees_across_nodes_and_with_quad():
    d = simulate_correct(3, audit_1_effect=(0.0, -0.5, 0.3))
    t25 = likelihood_ratio_test(d, "audit_1", n_agq=25)
    t50 = likelihood_ratio_test(d, "audit_1", n_agq=50)
    assert t25.df == 2 and t25.n_obs == len(d) and t25.n_groups == 6
    assert t25.chi2 == pytest.approx(t50.chi2, abs=1e-6)
    assert t25.p_value == pytest.approx(stats.chi2.sf(t25.chi2, 2))
    # the aggregated likelihood is the 0/1-row likelihood: rebuild it row by row and integrate
    X, _ = treatment_design(d["audit_1"].rename("audit_1"))
    rows = BinomialData.build(X, d["correct"].astype(int), np.ones(len(d)), d["category"])
    beta = [t25.coefficients[k] for k in ("(Intercept)", "audit_1[Caucasian]", "audit_1[Korean]")]
    assert quad_loglik(rows, beta, t25.random_intercept_sd) == pytest.approx(t25.loglik_full, abs=1e-7)
    laplace = likelihood_ratio_test(d, "audit_1", n_agq=1)
    assert laplace.method.startswith("ML, Laplace")
    assert laplace.chi2 == pytest.approx(t25.chi2, abs=0.05)  # close, not equal


def test_planted_audit_1_gap_found_with_right_sign():
    d = simulate_correct(5, audit_1_effect=(0.0, -0.9, 0.0))
    t = likelihood_ratio_test(d, "audit_1")
    assert t.p_value < 0.001
    assert t.coefficients["audit_1[Caucasian]"] < -0.4 and abs(t.coefficients["audit_1[Korean]"]) < 0.4


def test_false_positive_rate_near_nominal_without_effect():
    n_sim = 30
    p = np.array(
        [
            likelihood_ratio_test(simulate_correct(100 + s, n_per_cell=20), "audit_1", n_agq=5).p_value
            for s in range(n_sim)
        ]
    )
    rate = np.mean(p < 0.05)
    assert rate <= stats.binom.ppf(0.99, n_sim, 0.05) / n_sim  # at most 5/30
    assert stats.kstest(p, "uniform").pvalue > 0.01
