"""Bootstraps on simulated data with known truth."""
from __future__ import annotations


import numpy as np
import pytest

from rater1001.stats import bootstrap as B
from rater1001.stats import zscores as Z
from stats_helpers import loo_z


def human_pool(rng, n_images=300, n_raters=50):
    mu = rng.uniform(2, 8, n_images)
    sd = rng.uniform(0.8, 2.0, n_images)
    return mu, sd, rng.normal(mu[:, None], sd[:, None], (n_images, n_raters))


def abs_z_inputs(ratings, model):
    n = ratings.shape[1]
    mean, s = ratings.mean(axis=1), ratings.std(axis=1, ddof=1)
    loo = np.abs(loo_z(n, ratings.sum(axis=1)[:, None], (ratings**2).sum(axis=1)[:, None], ratings))
    return np.abs(Z.zscore(model, mean, s)), loo


def test_a_model_that_is_one_more_human_is_rarely_significant():
    # p_sig is the bootstrap probability that the test is significant, not a p-value: for one
    # null data set it scatters (0.04-0.15 at paper scale), and over data sets it averages about
    # the test's size. So check the average over independent null studies and that none is "likely".
    values = []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        mu, sd, ratings = human_pool(rng)
        model = rng.normal(mu, sd)  # exchangeable with the humans
        mz, hz = abs_z_inputs(ratings, model)
        res = B.p_sig(mz, hz, replicates=200)
        values.append(res.p_sig)
    assert np.mean(values) <= 0.12 and max(values) < 0.5
    assert (res.replicates, res.seed, res.n_images) == (200, 42, 300)


def test_a_biased_model_is_almost_always_significant():
    rng = np.random.default_rng(1)
    mu, sd, ratings = human_pool(rng)
    mz, hz = abs_z_inputs(ratings, mu + 1.5 * sd)  # 1.5 human SDs off on every image
    assert B.p_sig(mz, hz, replicates=400).p_sig >= 0.99


def test_p_sig_is_deterministic_and_counts_exclusions():
    rng = np.random.default_rng(2)
    mu, sd, ratings = human_pool(rng, n_images=60)
    mz, hz = abs_z_inputs(ratings, mu + 0.8 * sd)
    mz[0] = np.nan  # an image whose humans all agreed (SD 0): model z undefined
    a, b = B.p_sig(mz, hz, replicates=200), B.p_sig(mz, hz, replicates=200)
    assert a == b and a.n_excluded_images == 1 and a.n_images == 59


def test_ragged_to_padded_keeps_each_group_in_its_row():
    out = B.ragged_to_padded([2, 0, 2, 1, 0, 2], [1, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(out[0, :2], [2, 5])
    np.testing.assert_array_equal(out[1, :1], [4])
    np.testing.assert_array_equal(out[2], [1, 3, 6])
    assert np.isnan(out[0, 2]) and np.isnan(out[1, 1:]).all()


def test_k_human_variance_recovers_the_generating_variance():
    rng = np.random.default_rng(3)
    n_images, sigma = 240, 1.4
    ratings = rng.normal(rng.uniform(2, 8, n_images)[:, None], sigma, (n_images, 50))
    ratings[::5, 45:] = np.nan  # some images have only 45 ratings
    models = rng.normal(5, 0.3, (n_images, 7))  # 7 stereotyped models: SD 0.3
    res = B.k_human_variance(models, ratings, replicates=200)
    assert res.k == 7 and res.n_images == n_images
    assert res.human_variance == pytest.approx(sigma**2, rel=0.03)  # ddof=1 draws are unbiased
    assert res.model_variance == pytest.approx(0.09, rel=0.1)
    assert res.share_human_sd_at_or_below_model == 0.0 and res.human_sd_ci_low > res.model_sd


def test_k_equal_to_pool_size_is_the_exact_per_image_statistic():
    rng = np.random.default_rng(4)
    ratings = rng.integers(1, 10, (30, 3)).astype(float)
    res = B.k_human_variance(rng.normal(size=(30, 3)), ratings, replicates=20)
    exact = ratings.std(axis=1, ddof=1).mean()
    assert res.human_sd == pytest.approx(exact, abs=1e-12)
    assert res.human_sd_ci_low == pytest.approx(exact, abs=1e-12) == pytest.approx(res.human_sd_ci_high, abs=1e-12)


def test_fast_wilcoxon_equals_scipy_asymptotic_with_ties_and_zeros():
    """The vectorised signed-rank p used by p_sig for > 50 pairs is scipy's asymptotic test."""
    from scipy import stats as sps

    from rater1001.stats.bootstrap import wilcoxon_greater_asymptotic

    rng = np.random.default_rng(3)
    for shape, step in (((300, 240), None), ((100, 1440), 1 / 3), ((40, 51), 1 / 2)):
        d = rng.normal(0.05, 1, shape)
        if step:  # rounding makes ties and exact zeros
            d = np.round(d / step) * step
        ref = sps.wilcoxon(d, alternative="greater", zero_method="wilcox", method="asymptotic", axis=1).pvalue
        np.testing.assert_allclose(wilcoxon_greater_asymptotic(d), ref, rtol=1e-12, atol=1e-15)


def test_small_samples_use_exact_without_ties_and_normal_approximation_with_ties():
    from scipy import stats as sps

    from rater1001.stats.bootstrap import _wilcoxon_greater

    rng = np.random.default_rng(4)
    d = rng.normal(0.3, 1, (20, 12))
    d[:5] = np.round(d[:5])  # ties (and zeros) in the first rows
    got = _wilcoxon_greater(d)
    exact = sps.wilcoxon(d[5:], alternative="greater", zero_method="wilcox", method="exact", axis=1).pvalue
    approx = sps.wilcoxon(d[:5], alternative="greater", zero_method="wilcox", method="asymptotic", axis=1).pvalue
    np.testing.assert_allclose(got[5:], exact, rtol=1e-12)
    np.testing.assert_allclose(got[:5], approx, rtol=1e-12)
