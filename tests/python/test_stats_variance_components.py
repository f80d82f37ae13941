"""Rater vs image variance (paper 3.2): the REML crossed fit against the two-way ANOVA estimators of
a balanced design (equal to REML there when positive), and recovery of known variances on a design
shaped like the paper's (each rater sees a random subset of the images)."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rater1001.stats import variance_components
from rater1001.stats.variance_components import crossed_variance_components


def balanced_ratings(seed, n_raters, n_images, n_categories, rater_sd, image_sd, error_sd):
    """Every rater rates every image; images nested in categories with fixed category means."""
    rng = np.random.default_rng(seed)
    category = np.arange(n_images) % n_categories
    y = (
        3.0 * category[None, :]
        + rng.normal(0, rater_sd, (n_raters, 1))
        + rng.normal(0, image_sd, (1, n_images))
        + rng.normal(0, error_sd, (n_raters, n_images))
    )
    return y, category


def anova_estimators(y, category):
    """Expected mean squares of the balanced crossed design: E[MS_rater] = s_e + I s_r,
    E[MS_image within category] = s_e + R s_i, E[MS_residual] = s_e."""
    n_raters, n_images = y.shape
    n_cat = len(np.unique(category))
    grand, rater_means, image_means = y.mean(), y.mean(axis=1), y.mean(axis=0)
    cat_means = np.array([image_means[category == c].mean() for c in category])
    ms_r = n_images * ((rater_means - grand) ** 2).sum() / (n_raters - 1)
    ms_i = n_raters * ((image_means - cat_means) ** 2).sum() / (n_images - n_cat)
    resid = y - rater_means[:, None] - image_means[None, :] + grand
    ms_e = (resid**2).sum() / ((n_raters - 1) * (n_images - 1))
    return ms_r, ms_i, ms_e


def long_form(y, category):
    n_raters, n_images = y.shape
    rater = np.repeat(np.arange(n_raters), n_images)
    image = np.tile(np.arange(n_images), n_raters)
    return y.ravel(), rater, image, category[image]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    seed=st.integers(0, 10_000),
    n_raters=st.integers(4, 9),
    n_images=st.sampled_from([6, 8, 10, 12]),
    n_categories=st.sampled_from([1, 2]),
    rater_sd=st.floats(0.5, 2.0),
    image_sd=st.floats(0.5, 2.0),
)
def test_balanced_design_equals_anova_estimators(seed, n_raters, n_images, n_categories, rater_sd, image_sd):
    y, category = balanced_ratings(seed, n_raters, n_images, n_categories, rater_sd, image_sd, 1.0)
    ms_r, ms_i, ms_e = anova_estimators(y, category)
    assume(ms_r > 1.05 * ms_e and ms_i > 1.05 * ms_e)  # REML = ANOVA only off the boundary
    rating, rater, image, cat = long_form(y, category)
    vc = crossed_variance_components(rating, rater, image, cat)
    assert vc.residual_variance == pytest.approx(ms_e, rel=1e-4)
    assert vc.rater_variance == pytest.approx((ms_r - ms_e) / n_images, rel=1e-3, abs=1e-6)
    assert vc.image_variance == pytest.approx((ms_i - ms_e) / n_raters, rel=1e-3, abs=1e-6)
    assert (vc.n_obs, vc.n_raters, vc.n_images) == (n_raters * n_images, n_raters, n_images)
    assert ("<category>" in vc.formula) == (n_categories > 1)


def test_known_variances_recovered_on_a_paper_shaped_design():
    """300 raters x 40 of 480 images each (25 ratings per image), six categories as fixed effects,
    rater variance 0.45 and image variance 0.04 (the paper's valence ratio of ~11)."""
    rng = np.random.default_rng(42)
    n_raters, n_images, per_rater = 300, 480, 40
    rater = np.repeat(np.arange(n_raters), per_rater)
    image = np.concatenate([rng.choice(n_images, per_rater, replace=False) for _ in range(n_raters)])
    category = image % 6
    rating = (
        2.0
        + 1.1 * category
        + rng.normal(0, np.sqrt(0.45), n_raters)[rater]
        + rng.normal(0, np.sqrt(0.04), n_images)[image]
        + rng.normal(0, np.sqrt(1.3), len(rater))
    )
    vc = crossed_variance_components(rating, rater, image, category)
    # tolerances ~3 standard errors of each component at this size
    assert vc.rater_variance == pytest.approx(0.45, abs=0.12)
    assert vc.image_variance == pytest.approx(0.04, abs=0.02)
    assert vc.residual_variance == pytest.approx(1.3, abs=0.05)
    assert not vc.singular and 4 < vc.rater_to_image_ratio < 40


def test_images_without_spread_give_a_boundary_fit_and_an_undefined_ratio():
    """Every image has the same mean: the ANOVA image estimate is negative, REML stops at 0 and the
    model becomes one-way (raters), whose residual pools the image and residual strata."""
    rng = np.random.default_rng(3)
    error = rng.normal(0, 1.0, (12, 15))
    y = rng.normal(0, 1.0, (12, 1)) + error - error.mean(axis=0)  # image means all equal
    category = np.zeros(15, dtype=int)
    rating, rater, image, _ = long_form(y, category)
    vc = crossed_variance_components(rating, rater, image)
    ms_r, ms_i, ms_e = anova_estimators(y, category)
    assert ms_i == pytest.approx(0.0, abs=1e-12)
    pooled = ((12 - 1) * (15 - 1) * ms_e) / ((12 - 1) * (15 - 1) + 15 - 1)
    assert vc.image_variance == pytest.approx(0.0, abs=1e-6) and vc.singular
    assert vc.residual_variance == pytest.approx(pooled, rel=1e-4)
    assert vc.rater_variance == pytest.approx((ms_r - pooled) / 15, rel=1e-3)
    assert np.isnan(vc.rater_to_image_ratio)


def test_too_few_raters_is_an_error():
    with pytest.raises(ValueError, match="two raters"):
        crossed_variance_components([1.0, 2.0, 3.0], ["a", "a", "a"], ["x", "y", "z"])


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_raters=st.integers(8, 30),
    n_images=st.sampled_from([24, 36, 48]),
    share=st.sampled_from([0.25, 0.5, 1.0]),
    n_categories=st.sampled_from([1, 3]),
    rater_sd=st.floats(0.0, 1.5),
    image_sd=st.floats(0.0, 1.5),
)
def test_the_moment_start_reaches_the_optimum_of_mixedlms_own_start(
    seed, n_raters, n_images, share, n_categories, rater_sd, image_sd
):
    """The fit starts at moment_start's relative SDs to save deviance evaluations; the estimate is
    the one mixedlm reaches from its own start (`start=None`, the same fit as no start), to the
    optimiser's tolerance, on incomplete and complete designs, boundary fits (an SD of 0)
    included. Both fits must converge (mixedlm_converged)."""
    rng = np.random.default_rng(seed)
    per_rater = int(n_images * share)
    rater = np.repeat(np.arange(n_raters), per_rater)
    image = np.concatenate([rng.choice(n_images, per_rater, replace=False) for _ in range(n_raters)])
    category = image % n_categories
    rating = (
        1.5 * category
        + rng.normal(0, rater_sd, n_raters)[rater]
        + rng.normal(0, image_sd, n_images)[image]
        + rng.normal(0, 1.0, len(rater))
    )
    vc = crossed_variance_components(rating, rater, image, category)
    with patch.object(variance_components, "moment_start", lambda *args: None):
        own = crossed_variance_components(rating, rater, image, category)
    assert vc.rater_variance == pytest.approx(own.rater_variance, rel=1e-4, abs=1e-6)
    assert vc.image_variance == pytest.approx(own.image_variance, rel=1e-4, abs=1e-6)
    assert vc.residual_variance == pytest.approx(own.residual_variance, rel=1e-6)


# --- the method of moments from sufficient statistics (crossed_moment_components) ----------------


def group_sums(rating, *keys):
    """The GroupTotals of the ratings grouped by the keys (pandas groupby), the estimator's input."""
    import pandas as pd

    frame = pd.DataFrame({"y": rating, **{f"k{i}": k for i, k in enumerate(keys)}})
    g = frame.assign(y2=frame["y"] ** 2).groupby([f"k{i}" for i in range(len(keys))])
    return variance_components.GroupTotals.of(g.size(), g["y"].sum(), g["y2"].sum())


def moments(rating, rater, image, category):
    return variance_components.crossed_moment_components(
        group_sums(rating, rater, category),
        group_sums(rating, image),
        group_sums(rating, category),
        len(np.unique(rater)),
        True,
    )


def incomplete_design(rng, n_raters, n_images, per_rater, n_categories, sds, mean_step=1.5):
    rater = np.repeat(np.arange(n_raters), per_rater)
    image = np.concatenate([rng.choice(n_images, per_rater, replace=False) for _ in range(n_raters)])
    category = image % n_categories
    rating = (
        mean_step * category
        + rng.normal(0, sds[0], n_raters)[rater]
        + rng.normal(0, sds[1], n_images)[image]
        + rng.normal(0, sds[2], len(rater))
    )
    return rating, rater, image, category


def brute_force_moments(rating, rater, image, category):
    """The three U-statistics and their expectations by enumerating every ordered pair of ratings
    (Gao & Owen's definitions, restricted to pairs in one category), then the 3 x 3 solve."""
    same_cat = category[:, None] == category[None, :]
    distinct = ~np.eye(len(rating), dtype=bool)
    half_sq = (rating[:, None] - rating[None, :]) ** 2 / 2
    same_r, same_i = rater[:, None] == rater[None, :], image[:, None] == image[None, :]
    masks = [same_r & same_cat & distinct, same_i & distinct, same_cat & distinct]
    u = [half_sq[m].sum() for m in masks]
    # expected half squared difference of a pair: s_r^2 if raters differ, s_i^2 if images differ, s^2
    coef = [[(m & ~same_r).sum(), (m & ~same_i).sum(), m.sum()] for m in masks]
    return np.linalg.solve(np.array(coef, dtype=float), np.array(u))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_raters=st.integers(3, 12),
    n_images=st.integers(4, 16),
    share=st.floats(0.3, 1.0),
    n_categories=st.integers(1, 3),
)
def test_moments_from_sufficient_statistics_equal_the_pairwise_u_statistics(
    seed, n_raters, n_images, share, n_categories
):
    """sum_g n_g sum y^2 - (sum y)^2 is half the sum of squared differences over the group's ordered
    pairs, and the coefficients count the pairs that differ in rater / image: the estimator equals
    the pair-by-pair definition on any incomplete design."""
    rng = np.random.default_rng(seed)
    per_rater = max(2, int(n_images * share))
    rating, rater, image, category = incomplete_design(rng, n_raters, n_images, per_rater, n_categories, (1, 1, 1))
    try:
        expected = brute_force_moments(rating, rater, image, category)
    except np.linalg.LinAlgError:
        assume(False)
    assume(np.isfinite(expected).all())
    vc = moments(rating, rater, image, category)
    got = [vc.rater_variance, vc.image_variance, vc.residual_variance]
    np.testing.assert_allclose(got, np.maximum(expected, 0.0), rtol=1e-7, atol=1e-9)
    assert vc.singular == bool(expected[0] <= 0 or expected[1] <= 0)
    assert (vc.n_obs, vc.n_raters, vc.n_images) == (len(rating), n_raters, len(np.unique(image)))


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    shifts=st.lists(st.floats(-50, 50), min_size=3, max_size=3),
)
def test_moments_do_not_see_the_category_means(seed, shifts):
    """The categories are fixed effects: shifting each category's ratings by any constant leaves
    the three estimates unchanged (every pair lies inside one category)."""
    rng = np.random.default_rng(seed)
    rating, rater, image, category = incomplete_design(rng, 20, 30, 12, 3, (0.7, 0.5, 1.0))
    base = moments(rating, rater, image, category)
    moved = moments(rating + np.asarray(shifts)[category], rater, image, category)
    for field in ("rater_variance", "image_variance", "residual_variance"):
        assert getattr(moved, field) == pytest.approx(getattr(base, field), rel=1e-8, abs=1e-9)


def test_moments_recover_known_variances_on_average():
    """Unbiasedness by parameter recovery: over 200 simulated studies shaped like the paper's
    (each rater a random 40 of 480 images, six categories), the mean estimates are within 4
    standard errors of the generating variances (rater .45, image .04, residual 1.3)."""
    rng = np.random.default_rng(7)
    truth = np.array([0.45, 0.04, 1.3])
    est = []
    for _ in range(200):
        rating, rater, image, category = incomplete_design(rng, 300, 480, 40, 6, np.sqrt(truth), 1.1)
        vc = variance_components.crossed_moment_components(
            group_sums(rating, rater, category),
            group_sums(rating, image),
            group_sums(rating, category),
            300,
            True,
        )
        est.append([vc.rater_variance, vc.image_variance, vc.residual_variance])
    est = np.array(est)
    se = est.std(axis=0, ddof=1) / np.sqrt(len(est))
    assert np.all(np.abs(est.mean(axis=0) - truth) < 4 * se + 1e-3), (est.mean(axis=0), se)


def test_moments_agree_with_reml_on_a_paper_shaped_design():
    """The same data as test_known_variances_recovered_on_a_paper_shaped_design: both estimators
    land within their sampling error of each other (REML is the more efficient one)."""
    rng = np.random.default_rng(42)
    rating, rater, image, category = incomplete_design(rng, 300, 480, 40, 6, np.sqrt([0.45, 0.04, 1.3]), 1.1)
    reml = crossed_variance_components(rating, rater, image, category)
    mom = moments(rating, rater, image, category)
    assert mom.rater_variance == pytest.approx(reml.rater_variance, abs=0.05)
    assert mom.image_variance == pytest.approx(reml.image_variance, abs=0.03)
    assert mom.residual_variance == pytest.approx(reml.residual_variance, abs=0.03)


def test_moments_refuse_a_design_that_cannot_separate_the_components():
    one_each = variance_components.GroupTotals.of([1, 1, 1], [1.0, 2.0, 3.0], [1.0, 4.0, 9.0])
    with pytest.raises(ValueError, match="does not separate"):
        variance_components.crossed_moment_components(
            one_each, one_each, variance_components.GroupTotals.of([3], [6.0], [14.0]), 3, False
        )
