"""The ML binomial GLMM and its marginal likelihood (stats/glmm.py, stats/glmm_quadrature.py).

References used: lme4's published cbpp fits (Laplace and nAGQ=10), brute-force integration with
scipy.integrate.quad, AGHQ convergence in the number of nodes, ordinary logistic regression
(statsmodels) where the random intercept vanishes, and parameter recovery on simulated data."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from rater1001.stats import glmm_kernels
from rater1001.stats.design import treatment_design
from rater1001.stats.glmm import BinomialData, fit_glmm_binomial
from rater1001.stats.glmm_lrt import likelihood_ratio_test
from rater1001.stats.glmm_quadrature import (
    SPLIT_GL_DROP,
    conditional_modes,
    logsumexp_rows,
    marginal_loglik,
    split_gauss_legendre_log_integrals,
)
from scipy import integrate, special

# lme4's cbpp data (56 rows: herd, incidence, size, period), as distributed with the package.
CBPP = """herd,incidence,size,period
1,2,14,1\n1,3,12,2\n1,4,9,3\n1,0,5,4\n2,3,22,1\n2,1,18,2\n2,1,21,3\n3,8,22,1\n3,2,16,2\n3,0,16,3
3,2,20,4\n4,2,10,1\n4,0,10,2\n4,2,9,3\n4,0,6,4\n5,5,18,1\n5,0,25,2\n5,0,24,3\n5,1,4,4\n6,3,17,1
6,0,17,2\n6,0,18,3\n6,1,20,4\n7,8,16,1\n7,1,10,2\n7,3,9,3\n7,0,5,4\n8,12,34,1\n9,2,9,1\n9,0,6,2
9,0,8,3\n9,0,6,4\n10,1,22,1\n10,1,22,2\n10,0,18,3\n10,2,22,4\n11,0,25,1\n11,5,27,2\n11,3,22,3
11,1,22,4\n12,2,10,1\n12,1,8,2\n12,0,6,3\n12,0,5,4\n13,1,21,1\n13,2,24,2\n13,0,19,3\n13,0,23,4
14,11,19,1\n14,0,2,2\n14,0,3,3\n14,0,2,4\n15,1,19,1\n15,1,15,2\n15,1,15,3\n15,0,15,4
"""


@pytest.fixture(scope="module")
def cbpp():
    df = pd.read_csv(io.StringIO(CBPP))
    X, _ = treatment_design(df["period"].astype(str).rename("period"))
    full = BinomialData.build(X, df["incidence"], df["size"], df["herd"])
    null = BinomialData.build(X[:, :1], df["incidence"], df["size"], df["herd"])
    return df, full, null


def saturated_loglik(data: BinomialData) -> float:
    k, n = data.successes, data.trials
    phat = k / n
    return data.log_binom_const + float(np.sum(special.xlogy(k, phat) + special.xlogy(n - k, 1 - phat)))


LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def quad_loglik(data: BinomialData, beta, sigma) -> float:
    """Brute force: integrate each group's likelihood over b ~ N(0, 1) with adaptive quadrature,
    scaled by the group's maximum so that quad sees O(1) values. quad calls the integrand at one
    point at a time, so it is written for a scalar (the normal log-density by its formula, not
    scipy.stats' per-call argument handling): the same values, about 20 times less CPU."""
    eta0 = data.X @ np.asarray(beta)
    total = data.log_binom_const
    grid = np.linspace(-8, 8, 801)
    for g in range(data.n_groups):
        rows = data.group == g
        k, n, e = data.successes[rows], data.trials[rows], eta0[rows]
        eta = e[:, None] + sigma * grid[None, :]
        peak = float(np.max(k @ eta - n @ np.logaddexp(0, eta) - 0.5 * grid**2 - LOG_SQRT_2PI))

        def f(b: float) -> float:
            eta = e + sigma * b
            return math.exp(float(k @ eta - n @ np.logaddexp(0, eta)) - 0.5 * b * b - LOG_SQRT_2PI - peak)

        val, _ = integrate.quad(f, -12, 12, epsabs=0, epsrel=1e-12, limit=400)
        total += peak + np.log(val)
    return total


def test_cbpp_aghq_reproduces_lme4_nagq10(cbpp):
    # lme4 glmer(cbind(incidence, size - incidence) ~ period + (1 | herd), nAGQ = 10) prints
    # fixef -1.399224 -0.991409 -1.127810 -1.579481, theta 0.6475199, logLik -50.00501.
    # lme4's nAGQ > 1 logLik is computed from deviance residuals, i.e. relative to the saturated
    # model, so ours minus the saturated log-likelihood must equal it. lme4's default optimizer
    # stops ~1e-5 from the optimum in the parameters (our 25- and 50-node fits agree to 1e-6).
    _, full, _ = cbpp
    fit = fit_glmm_binomial(full, n_agq=10)
    np.testing.assert_allclose(fit.beta, [-1.399224, -0.991409, -1.127810, -1.579481], atol=2e-5)
    assert fit.sigma == pytest.approx(0.6475199, abs=2e-5)
    assert fit.loglik - saturated_loglik(full) == pytest.approx(-50.00501, abs=1e-5)


def test_cbpp_laplace_reproduces_lme4_default(cbpp):
    # lme4 default (Laplace): gm1 logLik -92.02657 (df=5), theta 0.6420699,
    # fixef -1.398343 -0.991925 -1.128216 -1.579745; gm0 (~ 1 + (1|herd)) logLik -104.8315.
    # lme4 stops its inner PIRLS at tolPwrss = 1e-7, which moves its Laplace deviance by ~5e-4
    # at these data (a third-party re-implementation reports the exact Laplace deviance at lme4's
    # estimates as 184.05257, lme4 prints 184.0531); so the exact Laplace optimum is within
    # 5e-4 of the printed log-likelihoods and 1e-3 of the printed estimates.
    _, full, null = cbpp
    lme4_beta = [-1.3983428639994453, -0.9919249753929507, -1.1282162163483180, -1.5797454141259091]
    assert marginal_loglik(full, lme4_beta, 0.6420699254034050, n_agq=1) == pytest.approx(-184.05257 / 2, abs=5e-6)
    f1, f0 = fit_glmm_binomial(full, n_agq=1), fit_glmm_binomial(null, n_agq=1)
    assert f1.loglik == pytest.approx(-92.02657, abs=5e-4)
    assert f0.loglik == pytest.approx(-104.8315, abs=5e-4)
    assert f1.sigma == pytest.approx(0.6420699, abs=5e-4)
    np.testing.assert_allclose(f1.beta, [-1.398343, -0.991925, -1.128216, -1.579745], atol=1e-3)
    assert 2 * (f1.loglik - f0.loglik) == pytest.approx(2 * (104.8315 - 92.02657), abs=1e-3)
    assert f1.method.startswith("ML, Laplace")


def test_cbpp_chi2_aghq_converges_and_equals_brute_force(cbpp):
    _, full, null = cbpp
    fits = {q: (fit_glmm_binomial(full, q), fit_glmm_binomial(null, q)) for q in (25, 50)}
    chi2 = {q: 2 * (f1.loglik - f0.loglik) for q, (f1, f0) in fits.items()}
    assert chi2[25] == pytest.approx(chi2[50], abs=1e-6)
    f1, f0 = fits[25]
    ll1, ll0 = quad_loglik(full, f1.beta, f1.sigma), quad_loglik(null, f0.beta, f0.sigma)
    assert f1.loglik == pytest.approx(ll1, abs=1e-8)
    assert f0.loglik == pytest.approx(ll0, abs=1e-8)
    assert 2 * (ll1 - ll0) == pytest.approx(chi2[25], abs=1e-4)
    # and the AGHQ optimum is a maximum of the brute-force likelihood too
    theta = np.r_[f1.beta, f1.sigma]
    for i in (0, len(theta) - 1):  # the intercept and sigma, both ways
        for h in (-1e-3, 1e-3):
            t = theta.copy()
            t[i] += h
            assert quad_loglik(full, t[:-1], t[-1]) < ll1


RACES, GENDERS = ("Black", "Caucasian", "Korean"), ("female", "male")


def simulate_correct(
    seed,
    n_per_cell=40,
    audit_1_effect=(0.0, 0.0, 0.0),
    sigma=0.8,
    categories=("happy", "sad", "angry", "fear", "disgust", "neutral"),
    intercept=1.2,
):
    """n_per_cell 0/1 answers per category x audit_1 x audit_2 cell (rows in that order), with a random
    intercept per category; drawn in one call rather than one frame per cell."""
    rng = np.random.default_rng(seed)
    u = rng.normal(0, sigma, len(categories))
    p = special.expit(intercept + u[:, None] + np.asarray(audit_1_effect)[None, :])
    draws = rng.random((len(categories), len(RACES), len(GENDERS), n_per_cell))
    return pd.DataFrame(
        {
            "category": np.repeat(categories, len(RACES) * len(GENDERS) * n_per_cell),
            "audit_1": np.tile(np.repeat(RACES, len(GENDERS) * n_per_cell), len(categories)),
            "audit_2": np.tile(np.repeat(GENDERS, n_per_cell), len(categories) * len(RACES)),
            "correct": (draws < p[:, :, None, None]).ravel(),
        }
    )


def test_parameter_recovery():
    rng = np.random.default_rng(11)
    G, per = 60, 400
    beta_true, sigma_true = np.array([0.4, -0.7, 0.5]), 0.6
    group = np.repeat(np.arange(G), per)
    level = rng.integers(0, 3, G * per)
    X = np.column_stack([np.ones(G * per), level == 1, level == 2]).astype(float)
    u = rng.normal(0, sigma_true, G)
    y = rng.random(G * per) < special.expit(X @ beta_true + u[group])
    agg = pd.DataFrame({"g": group, "l": level, "y": y}).groupby(["g", "l"])["y"].agg(["sum", "count"]).reset_index()
    Xa = np.column_stack([np.ones(len(agg)), agg["l"] == 1, agg["l"] == 2]).astype(float)
    fit = fit_glmm_binomial(BinomialData.build(Xa, agg["sum"], agg["count"], agg["g"]))
    assert fit.converged
    np.testing.assert_allclose(fit.beta[1:], beta_true[1:], atol=0.1)  # SE ~ 0.035
    assert abs(fit.beta[0] - beta_true[0]) < 0.3  # SE ~ sigma / sqrt(G) = 0.08
    assert abs(fit.sigma - sigma_true) < 0.2  # SE ~ 0.06


def test_single_group_reduces_to_ordinary_logistic_regression():
    d = simulate_correct(8, audit_1_effect=(0.0, -0.6, 0.2))
    d = d[d["category"] == "angry"]
    t = likelihood_ratio_test(d, "audit_1")
    X, _ = treatment_design(d["audit_1"].rename("audit_1"))
    y = d["correct"].astype(float).to_numpy()
    ll_full = sm.GLM(y, X, family=sm.families.Binomial()).fit().llf
    ll_null = sm.GLM(y, X[:, :1], family=sm.families.Binomial()).fit().llf
    assert t.random_intercept_sd < 1e-3
    assert t.chi2 == pytest.approx(2 * (ll_full - ll_null), abs=1e-6)
    assert "single group" in t.reason


def test_degenerate_inputs_give_null_with_reason():
    d = simulate_correct(9)
    all_correct = d.assign(correct=True)
    t = likelihood_ratio_test(all_correct, "audit_1")
    assert t.chi2 is None and t.p_value is None and "no variance" in t.reason
    one_level = d[d["audit_1"] == "Korean"]
    t = likelihood_ratio_test(one_level, "audit_1")
    assert t.chi2 is None and "single level" in t.reason
    assert likelihood_ratio_test(d.iloc[:0], "audit_1").reason.startswith("no rows")
    with pytest.raises(ValueError, match="not 0/1"):
        likelihood_ratio_test(d.assign(correct=2), "audit_1")


def test_group_all_correct_and_level_separation_stay_finite():
    d = simulate_correct(12, audit_1_effect=(0.0, -0.3, 0.3))
    d.loc[d["category"] == "happy", "correct"] = True  # one group has no errors
    t = likelihood_ratio_test(d, "audit_1")
    assert np.isfinite(t.chi2) and t.df == 2
    X, _ = treatment_design(d["audit_1"].rename("audit_1"))
    rows = BinomialData.build(X, d["correct"].astype(int), np.ones(len(d)), d["category"])
    beta = [t.coefficients[k] for k in ("(Intercept)", "audit_1[Caucasian]", "audit_1[Korean]")]
    assert quad_loglik(rows, beta, t.random_intercept_sd) == pytest.approx(t.loglik_full, abs=1e-7)
    d.loc[d["audit_1"] == "Korean", "correct"] = True  # a level that is never wrong
    t = likelihood_ratio_test(d, "audit_1")
    assert np.isfinite(t.chi2) and t.p_value < 0.05 and "separation" in t.reason


def test_marginal_loglik_is_even_in_sigma(cbpp):
    _, full, _ = cbpp
    beta = [-1.4, -1.0, -1.1, -1.6]
    assert marginal_loglik(full, beta, 0.7) == pytest.approx(marginal_loglik(full, beta, -0.7), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=30),
        # a few repeated values make ties for the row maximum; infinities and NaN the fallback
        elements=st.one_of(
            st.floats(-1e3, 1e3),
            st.sampled_from([0.0, 1.5, -700.0, np.inf, -np.inf, np.nan]),
        ),
    )
)
def test_logsumexp_rows_is_scipys_logsumexp_bit_for_bit(a):
    """The likelihood's own row log-sum-exp against scipy.special.logsumexp(axis=1), which it
    replaces: equal to the last bit (the optimiser's path depends on every bit), NaN where scipy's is."""
    assert np.array_equal(logsumexp_rows(a), special.logsumexp(a, axis=1), equal_nan=True)


def quad_group_loglik(k, n, eta0, sigma) -> float:
    """One group's log-integral by scipy.integrate.quad at rtol 1e-13, split at the integrand's
    peak (found on a fine grid) so that quad sees both sides of a skewed integrand."""
    k, n, eta0 = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (k, n, eta0))
    grid = np.linspace(-40, 40, 80001)  # h'' <= -1: the integrand is below e^-72 of its peak 12 away
    logf = (k @ (eta0[:, None] + sigma * grid) - n @ np.logaddexp(0, eta0[:, None] + sigma * grid)) - 0.5 * grid**2
    peak, top = float(np.max(logf)), float(grid[np.argmax(logf)])

    def f(b: float) -> float:
        eta = eta0 + sigma * b
        return math.exp(float(k @ eta - n @ np.logaddexp(0, eta)) - 0.5 * b * b - peak)

    parts = [
        integrate.quad(f, a, b, epsabs=0, epsrel=1e-13, limit=500)[0] for a, b in ((top - 12, top), (top, top + 12))
    ]
    return peak + math.log(sum(parts)) - LOG_SQRT_2PI


def test_group_always_right_with_a_large_sd_matches_quad():
    # The oracle's case (a category always answered right, random-intercept SD 3.5-4.8): the
    # integrand is a logistic cliff on one side of the mode and the N(0, 1) tail on the other,
    # which 25-node Gauss-Hermite missed by ~4e-4 in log-likelihood.
    for n, eta0, sigma in [(50, 2.0, 4.8), (50, 4.0, 4.8), (10, 3.0, 3.5), (200, 1.0, 4.8), (5, 6.0, 4.0)]:
        data = BinomialData.build(np.ones((1, 1)), [n], [n], ["always right"], from_binary_rows=True)
        assert marginal_loglik(data, [eta0], sigma) == pytest.approx(quad_group_loglik(n, n, eta0, sigma), abs=1e-11)


def test_conditional_mode_far_from_zero_is_found():
    # 0 of 48 at offset 6 and sigma 0.5: the mode is near b = -12. Newton with step-halving that
    # only refused lower points cycled between about -1.35 and -22.8 (log-likelihood -260.9 by
    # either integrator against quad's -105.96).
    data = BinomialData.build(np.array([[6.0]]), [0], [48], ["never right"], from_binary_rows=True)
    b_hat, _ = conditional_modes(data, np.array([1.0]), 0.5)
    assert 0.5 * 48 * special.expit(6 + 0.5 * b_hat[0]) == pytest.approx(-b_hat[0], abs=1e-9)  # h'(b_hat) = 0
    assert marginal_loglik(data, [1.0], 0.5) == pytest.approx(quad_group_loglik(0, 48, 6.0, 0.5), abs=1e-10)
    assert marginal_loglik(data, [1.0], 0.5, n_agq=25) == pytest.approx(quad_group_loglik(0, 48, 6.0, 0.5), abs=1e-6)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 300), st.floats(0, 1), st.floats(-6, 6)), min_size=1, max_size=4
    ),  # rows of one group: trials, share right, offset x'beta
    st.floats(0, 6),
)
def test_marginal_loglik_equals_quad_on_random_groups(rows, sigma):
    n = np.array([r[0] for r in rows], dtype=float)
    k = np.round(n * np.array([r[1] for r in rows]))
    eta0 = np.array([r[2] for r in rows])
    data = BinomialData.build(eta0[:, None], k, n, np.zeros(len(rows)), from_binary_rows=True)
    assert marginal_loglik(data, [1.0], sigma) == pytest.approx(quad_group_loglik(k, n, eta0, sigma), abs=1e-10)


# The numpy expressions stats.glmm_kernels' loops replace (np.add.at: unbuffered, in row order from
# 0); the loops must give their values to the last bit, since the optimiser's path depends on every bit.
def numpy_h(data, offset, sigma, nodes):
    eta = offset[:, None] + sigma * nodes[data.group]
    terms = data.successes[:, None] * eta - data.trials[:, None] * np.logaddexp(0.0, eta)
    out = np.zeros(nodes.shape)
    np.add.at(out, data.group, terms)
    return out - 0.5 * nodes**2


def numpy_modes(data, offset, sigma, b, tol=1e-12):
    group, k, n, G = data.group, data.successes, data.trials, data.n_groups

    def h(bv):
        eta = offset + sigma * bv[group]
        return np.bincount(group, weights=k * eta - n * np.logaddexp(0.0, eta), minlength=G) - 0.5 * bv**2, eta

    hb, eta = h(b)
    for _ in range(100):
        p = special.expit(eta)
        grad = sigma * np.bincount(group, weights=k - n * p, minlength=G) - b
        step = grad / (sigma**2 * np.bincount(group, weights=n * p * (1 - p), minlength=G) + 1.0)
        new_h, new_eta = h(b + step)
        for _ in range(30):
            worse = new_h < hb + 1e-4 * step * grad - 1e-14 * (1 + np.abs(hb))
            if not worse.any():
                break
            step = np.where(worse, step / 2, step)
            new_h, new_eta = h(b + step)
        b, hb, eta = b + step, new_h, new_eta
        if np.abs(step).max(initial=0.0) < tol:
            break
    return b, hb, eta


def numpy_side_ends(data, offset, sigma, b_hat, h_max, side, start):
    group, k, n, G = data.group, data.successes, data.trials, data.n_groups
    far = b_hat + side * np.sqrt(2.0 * SPLIT_GL_DROP)
    b = far if start is None else np.where(side * (start - b_hat) > 0, start, far)
    target = h_max - SPLIT_GL_DROP
    for _ in range(100):
        eta = offset + sigma * b[group]
        h = np.bincount(group, weights=k * eta - n * np.logaddexp(0.0, eta), minlength=G) - 0.5 * b**2
        if np.all(np.abs(h - target) <= 0.5):
            break
        b = b - (h - target) / (sigma * np.bincount(group, weights=k - n * special.expit(eta), minlength=G) - b)
    return b


ROWS = st.lists(
    st.tuples(st.integers(0, 4), st.integers(1, 60), st.floats(0, 1), st.floats(-4, 4)), min_size=1, max_size=12
)  # rows: group, trials, share right, covariate


def random_data(rows):
    n = np.array([r[1] for r in rows], dtype=float)
    k = np.round(n * np.array([r[2] for r in rows]))
    X = np.column_stack([np.ones(len(rows)), [r[3] for r in rows]])
    return BinomialData.build(X, k, n, [f"g{r[0]}" for r in rows], from_binary_rows=True)


@settings(max_examples=80, deadline=None)
@given(ROWS, st.floats(-3, 3), st.floats(0, 6), st.floats(-8, 8), st.integers(1, 96))
def test_compiled_loops_are_the_numpy_expressions_bit_for_bit(rows, intercept, sigma, shift, n_nodes):
    data = random_data(rows)
    offset = data.X @ np.array([intercept, 0.5])
    nodes = np.linspace(-6, 6, n_nodes)[None, :] * (1 + np.arange(data.n_groups)[:, None]) + shift
    assert np.array_equal(
        glmm_kernels.nodes_h(offset, sigma, data.group, data.successes, data.trials, nodes),
        numpy_h(data, offset, sigma, nodes),
        equal_nan=True,  # sigma 0 at a subnormal shift: NaN on both sides
    )
    for start in (np.zeros(data.n_groups), np.full(data.n_groups, shift)):
        got = glmm_kernels.modes(offset, sigma, data.group, data.successes, data.trials, start.copy(), 1e-12, 100)
        for a, b in zip(got, numpy_modes(data, offset, sigma, start)):
            assert np.array_equal(a, b, equal_nan=True)
    b_hat, h_max, _ = got
    for side in (-1.0, 1.0):
        for start in (None, b_hat + shift):
            got = glmm_kernels.side_ends(
                offset,
                sigma,
                data.group,
                data.successes,
                data.trials,
                b_hat,
                h_max,
                side,
                b_hat if start is None else start,
                start is not None,
                SPLIT_GL_DROP,
            )
            assert np.array_equal(got, numpy_side_ends(data, offset, sigma, b_hat, h_max, side, start), equal_nan=True)


@settings(max_examples=60, deadline=None)
@given(ROWS, st.floats(-3, 3), st.floats(0, 6))
def test_marginal_loglik_is_its_parts_bit_for_bit(rows, intercept, sigma):
    """The likelihood reuses h and eta at the modes from the mode search instead of evaluating them
    again: the same value, to the last bit, as the public parts (modes, then the split
    Gauss-Legendre integrals, which evaluate h at the modes themselves)."""
    data = random_data(rows)
    beta = np.array([intercept, 0.5])
    b_hat, _ = conditional_modes(data, beta, sigma)
    parts = split_gauss_legendre_log_integrals(data, beta, sigma, b_hat) - 0.5 * np.log(2 * np.pi)
    assert marginal_loglik(data, beta, sigma) == float(parts.sum() + data.log_binom_const)
