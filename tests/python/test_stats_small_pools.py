"""rater1001.stats.small_pools against independent routes: the `krippendorff` package on the
subsampled matrix, the full-pool closed form, and the multiset property of each draw (the draws themselves:
test_stats_floyd_sampling.py)."""

import krippendorff
import numpy as np
import pandas as pd
import pytest
from rater1001.stats import floyd_sampling, small_pools
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
        d = delta_alpha_interval(stats, pd.Series(model[cond].to_numpy(), index=stats.index))
        row = out[out.condition_id == cond].iloc[0]
        assert row["human_alpha"] == pytest.approx(d.without_extra.alpha)
        assert row["delta_alpha"] == pytest.approx(d.delta)
        assert row["delta_alpha_lo"] == pytest.approx(d.delta) and row["delta_alpha_hi"] == pytest.approx(d.delta)
    assert d.without_extra.alpha == pytest.approx(
        krippendorff.alpha(reliability_data=r.T, level_of_measurement="interval")
    )


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


# --- the vectorised draws against brute force ---------------------------------------------------

from itertools import combinations  # noqa: E402

from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.sampled_from(["b", "a", "c10", "c9", "é", "z"]), st.integers(1, 9), st.integers(0, 4)),
        min_size=1,
        max_size=30,
    ),
    numbers=st.booleans(),
)
def test_padded_ratings_are_each_units_ratings_in_value_order(rows, numbers):
    # against plain Python: each unit's value repeated count times, units and values sorted,
    # whatever order the rows come in and whether units are strings or numbers; a zero count adds
    # nothing and a unit with only zero counts is no unit
    if numbers:
        rows = [(ord(u[0]) * 100 + len(u), v, n) for u, v, n in rows]
    vc = pd.DataFrame(rows, columns=["image_id", "value", "n"])
    expected = {}
    for u, v, n in rows:
        expected.setdefault(u, []).extend([float(v)] * n)
    expected = {u: sorted(vals) for u, vals in sorted(expected.items()) if vals}
    units, pad = small_pools.padded_ratings(vc)
    assert list(units) == list(expected)
    width = max((len(v) for v in expected.values()), default=0)
    assert pad.shape == (len(expected), width)
    for row, vals in zip(pad, expected.values(), strict=True):
        assert row[: len(vals)].tolist() == vals and np.isnan(row[len(vals) :]).all()


@settings(max_examples=25, deadline=None)
@given(m=st.integers(1, 8), k=st.integers(1, 8), seed=st.integers(0, 2**16))
def test_subset_sums_are_sums_of_a_k_subset_of_the_units_ratings(m, k, seed):
    k = min(k, m)
    rng = np.random.default_rng(seed)
    ratings = np.full((3, 9), np.nan)
    ratings[:, :m] = rng.integers(1, 10, (3, m))
    pool = small_pools.Pool.of(ratings)
    rows = rng.integers(0, 3, (5, 4))
    total, total_sq = small_pools.subset_sums(pool, rows, k, rng)
    for (r, c), u in np.ndenumerate(rows):
        options = {(sum(s), sum(v * v for v in s)) for s in combinations(ratings[u, :m].tolist(), k)}
        assert (total[r, c], total_sq[r, c]) in options


def test_subset_sums_are_unbiased_whichever_side_is_drawn():
    ratings = np.array([[1, 2, 4, 8, 16, 32.0]])  # k = 2 draws 2, k = 5 draws the 1 left out
    pool = small_pools.Pool.of(ratings)
    for k in (2, 5):
        total, _ = small_pools.subset_sums(pool, np.zeros(200000, int), k, np.random.default_rng(k))
        assert total.mean() == pytest.approx(k * ratings.mean(), rel=0.01)


def _small_pool_reference(pad, model, k, replicates, seed, resample_images=True):
    """One replicate at a time, with the draws of small_pool_alpha when each block holds one
    replicate: image indices, then Floyd's k-of-m (or the left-out m-k) per image from the same
    uniforms, then alpha of the explicit subsampled matrix from the `krippendorff` package."""
    rng = np.random.default_rng(seed)
    m_all = (~np.isnan(pad)).sum(axis=1)
    eligible = np.flatnonzero(m_all >= k)
    n = len(eligible)
    base, plus = [], []
    for _ in range(replicates):
        units = eligible[rng.integers(0, n, size=(1, n))][0] if resample_images else eligible
        m = m_all[units]
        size = np.where(k > m - k, m - k, k)
        steps = int(size.max())
        chosen = [[] for _ in units]
        for s in range(steps):
            u = rng.random((1, n))[0]
            for i in range(n):
                if s < steps - size[i]:
                    continue
                j = m[i] - steps + s
                t = int(u[i] * (j + 1))
                chosen[i].append(j if t in chosen[i] else t)
        drawn = np.array(
            [
                pad[unit, sorted(c)] if k <= m[i] - k else np.delete(pad[unit, : m[i]], c)
                for i, (unit, c) in enumerate(zip(units, chosen))
            ]
        )
        base.append(krippendorff.alpha(reliability_data=drawn.T, level_of_measurement="interval"))
        full = np.column_stack([drawn, model[units]])
        plus.append(krippendorff.alpha(reliability_data=full.T, level_of_measurement="interval"))
    return np.array(base), np.array(plus)


@pytest.mark.parametrize("k", [2, 9])
def test_small_pool_alpha_equals_the_per_replicate_krippendorff_loop(k, monkeypatch):
    true, r, vc = _study(n_images=30, n_per=12, seed=4)
    _, pad = small_pools.padded_ratings(vc)
    model = true + np.random.default_rng(1).normal(0, 0.4, 30)
    monkeypatch.setattr(small_pools, "CELLS", 1)  # one replicate per block: the reference's stream
    out = small_pools.small_pool_alpha(pad, pd.DataFrame({"m": model}), ks=(k,), replicates=15, seed=6).iloc[0]
    base, plus = _small_pool_reference(pad, model, k, 15, 6)
    assert out["human_alpha"] == pytest.approx(base.mean(), abs=1e-12)
    assert out["delta_alpha"] == pytest.approx((plus - base).mean(), abs=1e-12)
    lo, hi = np.quantile(plus - base, [0.025, 0.975])
    assert (out["delta_alpha_lo"], out["delta_alpha_hi"]) == pytest.approx((lo, hi), abs=1e-12)
    assert out["share_delta_positive"] == pytest.approx(((plus - base) > 0).mean())


def _assert_floyd_steps_sums(pool, ratings, rows, k, seed):
    # subset_sums against adding floyd_steps' values read from the padded rows (k drawn, or the
    # m - k left out taken from the totals), to the last bit and in the same random stream
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    s1, s2 = small_pools.subset_sums(pool, rows, k, a)
    m = pool.m[rows]
    left_out = k > m - k
    r1, r2 = np.zeros(rows.shape), np.zeros(rows.shape)
    for t in floyd_sampling.floyd_steps(m, np.where(left_out, m - k, k), b):
        v = np.where(t >= 0, np.nan_to_num(ratings)[rows, np.maximum(t, 0)], 0.0)
        r1 += v
        r2 += v * v
    np.testing.assert_array_equal(s1, np.where(left_out, pool.total[rows] - r1, r1))
    np.testing.assert_array_equal(s2, np.where(left_out, pool.total_sq[rows] - r2, r2))
    assert a.random() == b.random()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_subset_sums_equal_floyd_steps_over_all_entries(seed):
    # ragged pools (2..9 ratings), k drawn directly or as the ratings left out, late starters
    # (images 0-6 have 3 ratings): the compiled sums (subset_sums) are those of floyd_steps' draws
    # over every entry at once, to the last bit, and leave the generator in the same state
    rng = np.random.default_rng(seed)
    ratings = np.round(rng.normal(5, 2, (40, 9)), 1)
    m = np.concatenate([np.full(7, 3), rng.integers(2, 10, 33)])
    ratings[np.arange(9) >= m[:, None]] = np.nan
    pool = small_pools.Pool.of(ratings)
    rows = np.vstack([np.arange(40), rng.permutation(40), rng.integers(0, 40, 40)])
    _assert_floyd_steps_sums(pool, ratings, rows, 2, seed + 10)


@settings(max_examples=40, deadline=None)
@given(
    width=st.integers(1, 90),
    levels=st.integers(1, 40),
    k=st.integers(1, 90),
    seed=st.integers(0, 2**16),
)
@example(width=90, levels=40, k=30, seed=1)  # > 64 ratings, > 16 runs
@example(width=70, levels=3, k=2, seed=2)
def test_subset_sums_are_floyd_steps_sums_of_the_padded_rows_to_the_last_bit(width, levels, k, seed):
    # the compiled draws read runs of equal values (few or many: counted or bisected) and, above
    # 64 ratings, compare with the earlier picks instead of a bit mask: the same sums as adding
    # floyd_steps' values read from the padded rows, in the same stream
    rng = np.random.default_rng(seed)
    m = rng.integers(1, width + 1, 12)
    k = min(k, int(m.min()))
    codes = rng.integers(0, levels, (12, width))
    ratings = (codes + rng.normal(0, 1e-3, levels)[codes]).astype(float)
    ratings[np.arange(width) >= m[:, None]] = np.nan
    ratings = np.sort(ratings, axis=1)  # value order, packed left (NaN last)
    pool = small_pools.Pool.of(ratings)
    rows = rng.integers(0, 12, (3, 7))
    _assert_floyd_steps_sums(pool, ratings, rows, k, seed + 1)
