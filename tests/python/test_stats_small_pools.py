"""rater1001.stats.small_pools against independent routes: the `krippendorff` package on the
subsampled matrix, the full-pool closed form, and the multiset property of each draw."""
import krippendorff
import numpy as np
import pandas as pd
import pytest

from rater1001.stats import small_pools
from rater1001.stats.alpha import alpha_interval_from_sufficient, sufficient_statistics
from stats_helpers import delta_alpha_interval


def _study(n_images=80, n_per=12, seed=0):
    rng = np.random.default_rng(seed)
    true = rng.normal(5, 1.0, n_images)
    r = np.clip(np.round(true[:, None] + rng.normal(0, 1.2, (n_images, n_per))), 1, 9)
    long = pd.DataFrame({"image_id": np.repeat(np.arange(n_images), n_per), "value": r.ravel()})
    vc = long.groupby(["image_id", "value"]).size().rename("n").reset_index()
    return true, r, vc


def test_padded_ratings_hold_each_image_multiset():
    _, r, vc = _study()
    units, pad = small_pools.padded_ratings(vc)
    assert list(units) == list(range(80))
    for u in (0, 17, 79):
        assert sorted(pad[u][~np.isnan(pad[u])]) == sorted(r[u])


def test_subsample_draws_without_replacement_from_each_row():
    _, r, vc = _study()
    _, pad = small_pools.padded_ratings(vc)
    drawn = small_pools.subsample(pad, 5, np.random.default_rng(1))
    for u in range(80):
        remaining = list(r[u])
        for v in drawn[u]:
            remaining.remove(v)  # raises if v was not available (drawn twice or foreign)


def test_full_pool_without_image_resampling_equals_the_closed_form_delta():
    true, r, vc = _study()
    _, pad = small_pools.padded_ratings(vc)
    model = pd.DataFrame({"good": true, "flat": np.full(80, 5.0)})
    out = small_pools.small_pool_alpha(pad, model, ks=(12,), replicates=3, resample_images=False)
    long = vc.loc[vc.index.repeat(vc["n"])].rename(columns={"value": "rating"})
    stats = sufficient_statistics(long)
    for cond in ("good", "flat"):
        base, plus, delta = delta_alpha_interval(stats, pd.Series(model[cond].to_numpy(), index=stats.index))
        row = out[out.condition_id == cond].iloc[0]
        assert row["human_alpha"] == pytest.approx(base.alpha) and row["delta_alpha"] == pytest.approx(delta)
        assert row["delta_alpha_lo"] == pytest.approx(delta) and row["delta_alpha_hi"] == pytest.approx(delta)
    assert base.alpha == pytest.approx(krippendorff.alpha(reliability_data=r.T, level_of_measurement="interval"))


def test_each_replicate_alpha_is_krippendorff_of_the_subsampled_matrix():
    _, r, vc = _study(n_images=40, n_per=8, seed=3)
    _, pad = small_pools.padded_ratings(vc)
    rng = np.random.default_rng(5)
    drawn = small_pools.subsample(pad, 3, rng)
    mine = alpha_interval_from_sufficient(np.full(40, 3.0), drawn.sum(1), (drawn**2).sum(1)).alpha
    assert mine == pytest.approx(krippendorff.alpha(reliability_data=drawn.T, level_of_measurement="interval"))


def test_small_pools_excluded_images_and_model_help_more_when_pool_is_small():
    true, r, vc = _study(n_images=150, n_per=12, seed=7)
    vc = vc[~((vc.image_id < 10) & (vc.value >= 0))]  # 10 images without ratings at all
    vc = pd.concat([vc, pd.DataFrame({"image_id": range(10), "value": 5.0, "n": 2})])  # now 2 ratings each
    units, pad = small_pools.padded_ratings(vc)
    model = pd.DataFrame({"good": true[units]})
    out = small_pools.small_pool_alpha(pad, model, ks=(2, 5, 12), replicates=60, seed=1).set_index("k")
    assert out.loc[2, "n_images_excluded"] == 0 and out.loc[5, "n_images_excluded"] == 10
    # an accurate extra rater raises alpha, and raises it more when it is one of 3 than one of 13
    assert out.loc[2, "delta_alpha"] > out.loc[12, "delta_alpha"] > 0
    assert out.loc[2, "delta_alpha_lo"] <= out.loc[2, "delta_alpha"] <= out.loc[2, "delta_alpha_hi"]
    assert out.loc[2, "share_delta_positive"] > 0.9
