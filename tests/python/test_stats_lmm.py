"""The rater_type x category LMM in closed form: estimates, variance components and Satterthwaite df
against the ANOVA forms of a balanced split-plot design, against mixedlm (lme4's algorithm with
lmerTest's df, the implementation it replaced) and, property-based, against a brute-force REML / ML
fit of the dense two-rows-per-image model."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rater1001.stats import lmm
from scipy import optimize

EMOTIONS = ["happy", "sad", "fear"]


def simulated(seed=0, per_category=(30, 30, 30), image_sd=1.0):
    rng = np.random.default_rng(seed)
    category = np.repeat(EMOTIONS[: len(per_category)], per_category)
    u = rng.normal(0, image_sd, len(category))
    offset = pd.Series({"happy": 0.0, "sad": -2.0, "fear": -1.0})[category].to_numpy()
    human = 6 + offset + u + rng.normal(0, 0.6, len(category))
    model = 6.5 + 1.5 * offset + u + rng.normal(0, 0.6, len(category))  # exaggerates polarity
    return human, model, category, np.arange(len(category))


def closed_form(human, model, category):
    """Balanced split plot: images (whole plots) within category, rater type within image."""
    df = pd.DataFrame({"h": human, "m": model, "e": category})
    n_img, n_emo = len(df), df.e.nunique()
    d = df.m - df.h
    ms_res = ((d - d.groupby(df.e).transform("mean")) ** 2).sum() / 2 / (n_img - n_emo)
    avg = (df.m + df.h) / 2
    ms_img = 2 * ((avg - avg.groupby(df.e).transform("mean")) ** 2).sum() / (n_img - n_emo)
    dfr = n_img - n_emo
    between_df = (ms_img + ms_res) ** 2 / (ms_img**2 / dfr + ms_res**2 / dfr)
    ref = df[df.e == EMOTIONS[0]]
    return dict(
        ms_res=ms_res,
        ms_img=ms_img,
        within_df=dfr,
        between_df=between_df,
        intercept=ref.h.mean(),
        rater_effect=(ref.m - ref.h).mean(),
        per_category=len(ref),
    )


def test_balanced_design_matches_closed_form_satterthwaite():
    human, model, category, image = simulated()
    res = lmm.fit_rater_type_lmm(human, model, category, image, EMOTIONS)
    cf = closed_form(human, model, category)
    fe = res.fixed_effects.set_index("term")
    assert fe.loc["(Intercept)", "estimate"] == pytest.approx(cf["intercept"], abs=1e-12)
    assert fe.loc["rater_type[model]", "estimate"] == pytest.approx(cf["rater_effect"], abs=1e-12)
    assert res.residual_variance == pytest.approx(cf["ms_res"], rel=1e-12)
    assert res.image_variance == pytest.approx((cf["ms_img"] - cf["ms_res"]) / 2, rel=1e-12)
    assert fe.loc["rater_type[model]", "se"] == pytest.approx(np.sqrt(2 * cf["ms_res"] / cf["per_category"]), rel=1e-12)
    for term in ["rater_type[model]", "rater_type[model]:category[sad]", "rater_type[model]:category[fear]"]:
        assert fe.loc[term, "df"] == pytest.approx(cf["within_df"], rel=1e-12)
    for term in ["(Intercept)", "category[sad]", "category[fear]"]:
        assert fe.loc[term, "df"] == pytest.approx(cf["between_df"], rel=1e-12)
    assert (fe.df_method == lmm.DF_METHOD).all()
    # The simulated polarity exaggeration is an interaction the LR test must find.
    assert res.interaction_df == 2 and res.interaction_p < 1e-3


@pytest.mark.filterwarnings("ignore::Warning")  # pandas deprecation inside mixedlm's dataset loader
def test_sleepstudy_df_equal_lmertest():
    # lmerTest: summary(lmer(Reaction ~ Days + (1 | Subject), sleepstudy)) prints df 22.81 and 161;
    # mixedlm is the reference the closed form is checked against below.
    import mixedlm

    fit = mixedlm.lmer("Reaction ~ Days + (1|Subject)", mixedlm.load_sleepstudy())
    df = mixedlm.satterthwaite_df(fit).df
    assert df[0] == pytest.approx(22.81, abs=0.01) and df[1] == pytest.approx(161.0, abs=0.01)


# --------------------------------------------------------------------------- mixedlm, the reference


def mixedlm_fit(human, model, category, image, categories):
    """The implementation the closed form replaced: mixedlm REML fit with Satterthwaite df, and
    the interaction LR test from two ML fits, on the 2N-row long table."""
    import mixedlm

    img = pd.DataFrame({"image_id": image, "category": category, "human": human, "model": model}).dropna()
    long = img.melt(
        id_vars=["image_id", "category"], value_vars=["human", "model"], var_name="rater_type", value_name="rating"
    )
    long["image_id"] = long["image_id"].astype(str)
    long["is_model"] = (long["rater_type"] == "model").astype(float)
    present = [e for e in categories if (img.category == e).any()]
    names, terms = {"(Intercept)": "(Intercept)", "is_model": "rater_type[model]"}, ["is_model"]
    for i, e in enumerate(present[1:], start=1):
        long[f"emo_{i}"] = (long["category"] == e).astype(float)
        names[f"emo_{i}"] = f"category[{e}]"
        names[f"is_model:emo_{i}"] = f"rater_type[model]:category[{e}]"
        terms.append(f"emo_{i}")
    inter = [f"is_model:{t}" for t in terms[1:]]
    full = "rating ~ " + " + ".join(terms + inter) + " + (1|image_id)"
    reduced = "rating ~ " + " + ".join(terms) + " + (1|image_id)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = mixedlm.lmer(full, long, REML=True)
        ddf = dict(zip(*(lambda d: (d.param_names, d.df))(mixedlm.satterthwaite_df(fit))))
        chi2 = 2 * (
            float(mixedlm.lmer(full, long, REML=False).logLik().value)
            - float(mixedlm.lmer(reduced, long, REML=False).logLik().value)
        )
    beta = fit.fixef()
    fe = pd.DataFrame(
        {
            "term": [names[t] for t in beta],
            "estimate": list(beta.values()),
            "se": np.sqrt(np.diag(np.asarray(fit.vcov()))),
            "df": [ddf[t] for t in beta],
        }
    ).set_index("term")
    sigma = float(fit.sigma() if callable(fit.sigma) else fit.sigma)
    theta = float(np.asarray(fit.theta, dtype=float).ravel()[0])
    return fe, (theta * sigma) ** 2, sigma**2, max(chi2, 0.0)


@pytest.mark.parametrize(
    "seed, per_category, image_sd",
    [
        (0, (30, 30, 30), 1.0),  # balanced, clear image variance
        (1, (40, 25, 12), 0.3),  # unbalanced categories
        (2, (20, 20, 20), 0.0),  # no image variance: boundary (singular) fit
        (3, (15, 9), 0.05),  # two categories, near the boundary
    ],
)
def test_equal_to_mixedlm_at_its_optimiser_tolerance(seed, per_category, image_sd):
    human, model, category, image = simulated(seed, per_category, image_sd)
    model[[3, 7]] = np.nan  # excluded images
    ref_fe, ref_img, ref_res, ref_chi2 = mixedlm_fit(human, model, category, image, EMOTIONS)
    res = lmm.fit_rater_type_lmm(human, model, category, image, EMOTIONS)
    fe = res.fixed_effects.set_index("term")
    assert list(fe.index) == list(ref_fe.index)
    assert np.allclose(fe["estimate"], ref_fe["estimate"], rtol=0, atol=1e-9)
    assert np.allclose(fe["se"], ref_fe["se"], rtol=1e-6)
    assert np.allclose(fe["df"], ref_fe["df"], rtol=1e-5)  # mixedlm's numerical Hessian
    assert res.residual_variance == pytest.approx(ref_res, rel=1e-6)
    assert res.image_variance == pytest.approx(ref_img, rel=1e-5, abs=1e-9)
    assert res.interaction_lr_chi2 == pytest.approx(ref_chi2, rel=1e-6, abs=1e-8)
    assert res.n_excluded_images == 2 and res.n_obs == 2 * res.n_images == 2 * (len(image) - 2)
    assert res.singular == (image_sd == 0.0)


# --------------------------------------------------------------------------- brute force


def dense_design(human, model, category, categories, interaction=True):
    present = [e for e in categories if e in set(category)]
    n = len(human)
    y = np.concatenate([human, model])
    is_model = np.repeat([0.0, 1.0], n)
    emo = np.tile(np.asarray(category), 2)
    cols = [np.ones(2 * n), is_model] + [(emo == e).astype(float) for e in present[1:]]
    if interaction:
        cols += [is_model * (emo == e) for e in present[1:]]
    Z = np.vstack([np.eye(n), np.eye(n)])
    return y, np.column_stack(cols), Z


def dense_loglik(params, y, X, Z, reml):
    """(log s^2, s_img^2 / s^2) -> log-likelihood of y ~ N(X b, s^2 (I + r Z Z')), b at its GLS
    optimum; REML adds -1/2 log |X' V^-1 X| (constants dropped)."""
    s2, r = np.exp(params[0]), params[1]
    V = s2 * (np.eye(len(y)) + r * Z @ Z.T)
    Vi = np.linalg.inv(V)
    A = X.T @ Vi @ X
    b = np.linalg.solve(A, X.T @ Vi @ y)
    e = y - X @ b
    ll = -0.5 * (np.linalg.slogdet(V)[1] + e @ Vi @ e)
    if reml:
        ll -= 0.5 * np.linalg.slogdet(A)[1]
    return ll, b, np.linalg.inv(A)


def dense_fit(y, X, Z, reml):
    best = None
    for r0 in (0.0, 0.5, 2.0):
        res = optimize.minimize(
            lambda p: -dense_loglik(p, y, X, Z, reml)[0],
            [np.log(np.var(y)), r0],
            method="L-BFGS-B",
            bounds=[(None, None), (0.0, None)],
            options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 2000},
        )
        best = res if best is None or res.fun < best.fun else best
    x, fun = best.x, best.fun
    if x[1] > 1e-6:
        # Polished on (log s^2, log ratio): with a tiny residual (two images whose model - human
        # differences nearly agree) the optimum sits at a ratio ~650, which L-BFGS-B on the
        # ratio itself stops short of by more than 1e-4.
        polish = optimize.minimize(
            lambda q: -dense_loglik([q[0], np.exp(q[1])], y, X, Z, reml)[0],
            [x[0], np.log(x[1])],
            method="Nelder-Mead",
            options={"xatol": 1e-12, "fatol": 1e-15, "maxiter": 4000},
        )
        if polish.fun < fun:
            x, fun = np.array([polish.x[0], np.exp(polish.x[1])]), polish.fun
    return x, -fun


cells_per_category = st.lists(st.integers(2, 5), min_size=1, max_size=3)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes=cells_per_category, seed=st.integers(0, 10_000), image_sd=st.sampled_from([0.0, 0.4, 1.5]))
@example(sizes=[2], seed=421, image_sd=0.4)  # residual variance 0.000625 beside an image variance of 0.41
def test_closed_form_equals_brute_force_dense_fit(sizes, seed, image_sd):
    rng = np.random.default_rng(seed)
    category = np.repeat(EMOTIONS[: len(sizes)], sizes)
    u = rng.normal(0, image_sd, len(category))
    human = np.round(5 + u + rng.normal(0, 0.7, len(category)), 2)
    model = np.round(5.5 + u + rng.normal(0, 0.7, len(category)) + (category == "sad"), 2)
    res = lmm.fit_rater_type_lmm(human, model, category, np.arange(len(category)), EMOTIONS)
    y, X, Z = dense_design(human, model, category, EMOTIONS)
    (log_s2, ratio), ll_brute = dense_fit(y, X, Z, reml=True)
    _, beta, cov = dense_loglik([log_s2, ratio], y, X, Z, True)
    s2 = np.exp(log_s2)
    # the closed form is the maximum: the numerical search gets no higher, and lands next to it
    closed = [np.log(res.residual_variance), res.image_variance / res.residual_variance]
    assert dense_loglik(closed, y, X, Z, True)[0] >= ll_brute - 1e-9
    assert res.residual_variance == pytest.approx(s2, rel=1e-4)
    assert res.image_variance == pytest.approx(ratio * s2, rel=1e-4, abs=1e-6 * s2)
    fe = res.fixed_effects
    assert np.allclose(fe["estimate"], beta, atol=1e-5 * (1 + np.abs(beta)))
    assert np.allclose(fe["se"], np.sqrt(np.diag(cov)), rtol=1e-4)
    if len(sizes) > 1:
        _, ll_full = dense_fit(y, X, Z, reml=False)
        _, ll_red = dense_fit(*dense_design(human, model, category, EMOTIONS, interaction=False), reml=False)
        assert res.interaction_lr_chi2 == pytest.approx(max(2 * (ll_full - ll_red), 0.0), abs=1e-5)
    if not res.singular:  # interior optimum: Satterthwaite df from the dense REML information
        dense_df = dense_satterthwaite(X, Z, res.residual_variance, res.image_variance)
        assert np.allclose(fe["df"], dense_df, rtol=1e-9)


def dense_satterthwaite(X, Z, s2, s2_img):
    """2 Var(b_k)^2 / (g_k' I^-1 g_k) with V = s2 I + s2_img Z Z', the REML (expected) information
    I_ij = tr(P V_i P V_j) / 2 and g_k the derivatives of Var(b_k) in (s2, s2_img), analytically."""
    derivs = [np.eye(len(X)), Z @ Z.T]
    Vi = np.linalg.inv(s2 * derivs[0] + s2_img * derivs[1])
    cov = np.linalg.inv(X.T @ Vi @ X)
    P = Vi - Vi @ X @ cov @ X.T @ Vi
    info = np.array([[0.5 * np.trace(P @ a @ P @ b) for b in derivs] for a in derivs])
    grad = np.column_stack([np.diag(cov @ X.T @ Vi @ d @ Vi @ X @ cov) for d in derivs])
    return 2 * np.diag(cov) ** 2 / np.einsum("ki,ij,kj->k", grad, np.linalg.inv(info), grad)


# --------------------------------------------------------------------------- inputs it cannot fit


def test_missing_predictions_and_unknown_categories():
    human, model, category, image = simulated(seed=1)
    model[:5] = np.nan
    res = lmm.fit_rater_type_lmm(human, model, category, image, EMOTIONS)
    assert res.n_images == len(image) - 5 and res.n_obs == 2 * res.n_images and res.n_excluded_images == 5
    with pytest.raises(ValueError, match=r"categories \['surprise'\] are not in the declared label set"):
        lmm.fit_rater_type_lmm(human[:2], model[:2], ["surprise", "happy"], [0, 1], EMOTIONS)


def test_no_image_variance_is_a_singular_fit_not_a_crash():
    rng = np.random.default_rng(2)
    category = np.repeat(EMOTIONS, 40)
    human = 5 + rng.normal(0, 0.3, len(category))  # images do not differ at all
    model = np.where(category == "happy", 9.0, 5 + rng.normal(0, 0.5, len(category)))  # constant on happy
    res = lmm.fit_rater_type_lmm(human, model, category, np.arange(len(category)), EMOTIONS)
    fe = res.fixed_effects.set_index("term")
    assert res.singular and res.image_variance == 0.0
    assert fe.loc["rater_type[model]", "estimate"] == pytest.approx(9 - human[category == "happy"].mean(), abs=1e-12)
    # at the boundary every row is independent: 2N - 2K residual df for every term
    assert (fe.df == 2 * (len(category) - 3)).all() and np.isfinite(fe.p).all()


def test_designs_that_cannot_carry_the_model_are_fit_errors_in_the_mart():
    from rater1001.marts.agreement import lmm_table

    with pytest.raises(lmm.ModelCheckError, match="only 1 level"):
        lmm.fit_rater_type_lmm([5.0, 4], [6.0, np.nan], ["happy", "sad"], [0, 1], EMOTIONS)
    with pytest.raises(lmm.ModelCheckError, match="no residual degrees of freedom: 2 images in 2 categories"):
        lmm.fit_rater_type_lmm([5.0, 4], [6.0, 3], ["happy", "sad"], [0, 1], EMOTIONS)
    with pytest.raises(lmm.ModelCheckError, match="no residual variance"):
        lmm.fit_rater_type_lmm([5.0, 4, 3], [6.0, 5, 4], ["happy"] * 3, [0, 1, 2], EMOTIONS)
    human, model, category, _ = simulated(seed=4)
    good = lmm.rater_type_cells(human, model, category).assign(condition_id="c", dimension="valence")
    empty = good.assign(condition_id="d", n_images=0, diff_mean=np.nan, diff_ss=np.nan, sum_mean=np.nan, sum_ss=np.nan)
    mart = lmm_table(pd.concat([good, empty]), EMOTIONS)
    assert len(mart[mart.condition_id == "c"]) == 6 and mart.loc[mart.condition_id == "c", "fit_error"].isna().all()
    failed = mart[mart.condition_id == "d"]
    assert len(failed) == 1 and failed["estimate"].isna().all()
    assert failed["fit_error"].item() == (
        "ModelCheckError: Grouping factor 'image_id' has only 0 level(s). Random effects require at least 2 levels."
    )
