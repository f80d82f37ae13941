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
