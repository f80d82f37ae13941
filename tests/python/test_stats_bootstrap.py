"""Bootstraps on simulated data with known truth."""

from __future__ import annotations

import numpy as np
import pytest
from rater1001.stats import bootstrap as B
from rater1001.stats import k_human_diversity as K
from rater1001.stats import psig_draws as PD
from rater1001.stats import signed_rank as S
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
    res = K.k_human_variance(models, ratings, replicates=200)
    assert res.k == 7 and res.n_images == n_images
    assert res.human_variance == pytest.approx(sigma**2, rel=0.03)  # ddof=1 draws are unbiased
    assert res.model_variance == pytest.approx(0.09, rel=0.1)
    assert res.share_human_sd_at_or_below_model == 0.0 and res.human_sd_ci_low > res.model_sd


def test_k_equal_to_pool_size_is_the_exact_per_image_statistic():
    rng = np.random.default_rng(4)
    ratings = rng.integers(1, 10, (30, 3)).astype(float)
    res = K.k_human_variance(rng.normal(size=(30, 3)), ratings, replicates=20)
    exact = ratings.std(axis=1, ddof=1).mean()
    assert res.human_sd == pytest.approx(exact, abs=1e-12)
    assert res.human_sd_ci_low == pytest.approx(exact, abs=1e-12) == pytest.approx(res.human_sd_ci_high, abs=1e-12)


def test_fast_wilcoxon_equals_scipy_asymptotic_with_ties_and_zeros():
    """The vectorised signed-rank p used by p_sig for > 50 pairs is scipy's asymptotic test."""
    from rater1001.stats.signed_rank import wilcoxon_greater_asymptotic
    from scipy import stats as sps

    rng = np.random.default_rng(3)
    for shape, step in (((300, 240), None), ((100, 1440), 1 / 3), ((40, 51), 1 / 2)):
        d = rng.normal(0.05, 1, shape)
        if step:  # rounding makes ties and exact zeros
            d = np.round(d / step) * step
        ref = sps.wilcoxon(d, alternative="greater", zero_method="wilcox", method="asymptotic", axis=1).pvalue
        np.testing.assert_allclose(wilcoxon_greater_asymptotic(d), ref, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("pairs", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 50])
def test_small_samples_use_exact_without_ties_and_normal_approximation_with_ties(pairs):
    from rater1001.stats.signed_rank import signed_codes, signed_rank_test
    from scipy import stats as sps

    rng = np.random.default_rng(4)
    d = rng.normal(0.3, 1, (20, pairs))
    d[:5] = np.round(d[:5])  # ties (and zeros) in the first rows (mostly: two rounded pairs may differ)
    untied = np.array([(r != 0).all() and len(np.unique(np.abs(r))) == pairs for r in d])
    assert untied[5:].all() and (pairs < 3 or not untied[:5].all())
    got = signed_rank_test(np.sort(signed_codes(d), axis=1))  # the route p_sig takes, row-wise
    exact = sps.wilcoxon(d[untied], alternative="greater", zero_method="wilcox", method="exact", axis=1).pvalue
    with np.errstate(invalid="ignore"):  # a row of zeros: scipy's 0/0 is NaN, as ours
        approx = sps.wilcoxon(
            d[~untied], alternative="greater", zero_method="wilcox", method="asymptotic", axis=1
        ).pvalue
    np.testing.assert_allclose(got[untied], exact, rtol=1e-12)
    np.testing.assert_allclose(got[~untied], approx, rtol=1e-12)


# --- the vectorised bootstraps against straightforward per-replicate references ----------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _p_sig_reference(mz, hz, replicates, seed, alpha=0.05, chunk=250):
    """p_sig as documented, one replicate at a time with scipy's signed-rank test: the same draws
    (blocks of `chunk`: image indices, then one uniform per drawn image for the rater)."""
    from scipy import stats as sps

    rng = np.random.default_rng(seed)
    packed = [row[~np.isnan(row)] for row in hz]
    n = len(mz)
    hits = 0
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        img = rng.integers(0, n, size=(b, n))
        u = rng.random((b, n))
        for r in range(b):
            d = np.array([mz[i] - packed[i][int(u[r, c] * len(packed[i]))] for c, i in enumerate(img[r])])
            untied = n <= 50 and np.all(np.diff(np.sort(np.abs(d))) > 0) and np.all(d != 0)
            if (d == 0).all():
                continue
            p = sps.wilcoxon(
                d, alternative="greater", zero_method="wilcox", method="exact" if untied else "asymptotic"
            ).pvalue
            hits += p < alpha
    return hits / replicates


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(40, 90),
    raters=st.integers(2, 9),
    step=st.sampled_from([0.25, 0.5, 1.0]),
    seed=st.integers(0, 2**16),
    chunk=st.sampled_from([7, 250]),
)
def test_p_sig_equals_the_per_replicate_scipy_loop(n, raters, step, seed, chunk):
    # coarse values make ties and zero differences; n straddles 50 (exact test below, codes above)
    rng = np.random.default_rng(seed)
    hz = np.round(np.abs(rng.normal(0.8, 0.7, (n, raters))) / step) * step
    hz[rng.random((n, raters)) < 0.2] = np.nan
    mz = np.round(np.abs(rng.normal(1.0, 0.8, n)) / step) * step
    keep = ~np.isnan(hz).all(axis=1)
    got = B.p_sig(mz, hz, replicates=23, seed=seed, chunk=chunk)
    assert got.p_sig == _p_sig_reference(mz[keep], hz[keep], 23, seed, chunk=chunk)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(40, 90), models=st.integers(2, 4), seed=st.integers(0, 2**16), cells=st.sampled_from([200, 1 << 22])
)
def test_p_sig_many_gives_each_model_its_own_p_sig(n, models, seed, cells):
    # models sharing the draws (same usable images), one with images of its own (NaN |z|), split
    # into parts when their codes pass the bound; each row is the per-replicate scipy loop on its own
    rng = np.random.default_rng(seed)
    hz = np.round(np.abs(rng.normal(0.8, 0.7, (n, 5))) / 0.5) * 0.5
    hz[rng.random((n, 5)) < 0.2] = np.nan
    mz = np.round(np.abs(rng.normal(1.0, 0.8, (models, n))) / 0.5) * 0.5
    mz[-1, rng.random(n) < 0.15] = np.nan
    got = B.p_sig_many(mz, hz, replicates=17, seed=seed, chunk=7, cells=cells)
    for row, res in zip(mz, got):
        keep = ~np.isnan(row) & ~np.isnan(hz).all(axis=1)
        assert (res.n_images, res.n_excluded_images) == (int(keep.sum()), int((~keep).sum()))
        assert res.p_sig == _p_sig_reference(row[keep], hz[keep], 17, seed, chunk=min(7, cells // int(keep.sum())))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(30, 80),
    values=st.integers(1, 9),
    models=st.integers(1, 3),
    seed=st.integers(0, 2**16),
    cells=st.sampled_from([300, 1 << 22]),
)
def test_p_sig_from_value_counts_is_the_per_replicate_loop_on_the_humans_in_value_order(n, values, models, seed, cells):
    """Per-(image, value) counts with one |z| per value (`weights`) draw exactly what the
    per-replicate scipy loop draws from the humans listed in value order (value v repeated n_iv
    times): the categorical draw from the counts, without per-rating rows. Some values have no
    defined |z| (NaN, e.g. an SD of 0 without them) and some counts are 0."""
    rng = np.random.default_rng(seed)
    hz = np.round(np.abs(rng.normal(0.8, 0.7, (n, values))) / 0.5) * 0.5
    counts = rng.integers(0, 6, (n, values))
    hz[rng.random((n, values)) < 0.1] = np.nan
    mz = np.round(np.abs(rng.normal(1.0, 0.8, (models, n))) / 0.5) * 0.5
    mz[0, rng.random(n) < 0.1] = np.nan
    expanded = [np.repeat(row, c) for row, c in zip(hz, np.where(np.isnan(hz), 0, counts))]
    got = B.p_sig_many(mz, hz, replicates=19, seed=seed, chunk=5, cells=cells, weights=counts)
    for row, res in zip(mz, got):
        keep = ~np.isnan(row) & np.array([len(e) > 0 for e in expanded])
        assert (res.n_images, res.n_excluded_images) == (int(keep.sum()), int((~keep).sum()))
        if not keep.any():
            continue
        width = max(len(e) for e in expanded)
        padded = np.array([np.pad(e, (0, width - len(e)), constant_values=np.nan) for e in expanded])
        chunk = min(5, cells // int(keep.sum()))
        assert res.p_sig == _p_sig_reference(row[keep], padded[keep], 19, seed, chunk=chunk)


def test_p_sig_weights_must_be_whole_counts_shaped_like_the_values():
    with pytest.raises(ValueError, match="weights"):
        B.p_sig(np.ones(3), np.ones((3, 2)), replicates=5, weights=np.ones((3, 3)))
    with pytest.raises(ValueError, match="weights"):
        B.p_sig(np.ones(3), np.ones((3, 2)), replicates=5, weights=np.full((3, 2), 0.5))


def test_p_sig_blocks_are_bounded_by_cells_and_keep_the_draws_below_the_bound():
    rng = np.random.default_rng(8)
    mz, hz = np.abs(rng.normal(0.3, 1, 120)), np.abs(rng.normal(size=(120, 6)))
    default = B.p_sig(mz, hz, replicates=60)
    assert B.p_sig(mz, hz, replicates=60, cells=250 * 120) == default  # bound not reached: same draws
    small = B.p_sig(mz, hz, replicates=60, cells=1000)  # 8 replicates per block
    assert small.p_sig == _p_sig_reference(mz, hz, 60, 42, chunk=1000 // 120)


@settings(max_examples=30, deadline=None)
@given(
    rows=st.integers(1, 6), width=st.integers(1, 80), step=st.sampled_from([0.5, 1.0, 2.0]), seed=st.integers(0, 2**16)
)
def test_signed_rank_p_from_codes_equals_scipy_with_heavy_ties(rows, width, step, seed):
    from scipy import stats as sps

    d = np.round(np.random.default_rng(seed).normal(0.2, 2, (rows, width)) / step) * step
    got = S.wilcoxon_greater_asymptotic(d)
    with np.errstate(invalid="ignore", divide="ignore"):
        ref = np.array(
            [
                sps.wilcoxon(r, alternative="greater", zero_method="wilcox", method="asymptotic").pvalue
                if (r != 0).any()
                else np.nan
                for r in d
            ]
        )
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)


def test_k_human_variance_is_unbiased_for_each_images_sample_variance():
    # closed form: a without-replacement sample's variance (ddof=1) has expectation the pool's
    # sample variance, image by image; and the mean SD equals the exhaustive mean over subsets
    from itertools import combinations

    rng = np.random.default_rng(11)
    ratings = rng.integers(1, 10, (12, 7)).astype(float)
    ratings[:4, 6] = np.nan  # some images have 6 ratings, the rest 7
    models = rng.normal(5, 1, (12, 3))
    res = K.k_human_variance(models, ratings, replicates=4000, seed=3)
    pools = [r[~np.isnan(r)] for r in ratings]
    exact_var = np.mean([p.var(ddof=1) for p in pools])
    exact_sd = np.mean([np.mean([np.std(c, ddof=1) for c in combinations(p, 3)]) for p in pools])
    assert res.human_variance == pytest.approx(exact_var, rel=0.01)
    assert res.human_sd == pytest.approx(exact_sd, rel=0.01)
    spread = K.k_human_image_sd(models, ratings, replicates=4000, seed=3)
    assert spread.kept.all() and spread.human_sd.mean() == pytest.approx(res.human_sd, abs=1e-12)  # same draws
    exact_image = [np.mean([np.std(c, ddof=1) for c in combinations(p, 3)]) for p in pools]
    np.testing.assert_allclose(spread.human_sd, exact_image, atol=0.05)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 10),
    raters=st.integers(1, 4),
    models=st.integers(1, 3),
    step=st.sampled_from([0.001, 0.5, 1.0]),
    shift=st.sampled_from([0.0, 1.5]),
    constant=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_p_sig_of_small_samples_equals_the_per_replicate_scipy_loop(n, raters, models, step, shift, constant, seed):
    # 1..10 images: scipy's exact test where a replicate has neither ties nor zeros (fine values;
    # models shifted up so that some replicates are significant), the normal approximation
    # otherwise (coarse values make ties and zero differences); a constant study (every human and
    # the first model alike) leaves no difference at all to test
    rng = np.random.default_rng(seed)
    hz = np.round(np.abs(rng.normal(0.8, 0.7, (n, raters))) / step) * step
    mz = np.round(np.abs(rng.normal(1.0 + shift, 0.8, (models, n))) / step) * step
    if constant:
        hz[:], mz[0] = step, step
    got = B.p_sig_many(mz, hz, replicates=13, seed=seed, chunk=5)
    for row, res in zip(mz, got):
        assert res.p_sig == _p_sig_reference(row, hz, 13, seed, chunk=5)
    if constant:
        assert got[0].p_sig == 0.0


@settings(max_examples=40, deadline=None)
@given(
    rows=st.integers(1, 5), width=st.integers(1, 60), step=st.sampled_from([0.5, 1.0, 2.0]), seed=st.integers(0, 2**16)
)
def test_signed_rank_sums_equal_brute_force_ranks(rows, width, step, seed):
    # W+ from average ranks of |d| (scipy.stats.rankdata) after dropping zeros, the tie term from
    # counting each run of equal |d|, and "untied" = no zero and no tie; all exactly
    from scipy.stats import rankdata

    d = np.round(np.random.default_rng(seed).normal(0.2, 2, (rows, width)) / step) * step
    r_plus, n, ties, untied = S.signed_rank_sums(np.sort(S.signed_codes(d), axis=1))
    for i, row in enumerate(d):
        nz = row[row != 0]
        _, counts = np.unique(np.abs(nz), return_counts=True)
        assert r_plus[i] == rankdata(np.abs(nz))[nz > 0].sum()
        assert n[i] == len(nz) and ties[i] == float((counts**3 - counts).sum())
        assert untied[i] == (len(nz) == width and (counts == 1).all())


def _vectorised_rank_sums(keys):
    """The row sums as numpy array passes (the kernel before the compiled one): W+ from the
    positives' positions less a (t - a) per tied run, runs found from the tied neighbours."""
    b, m = keys.shape
    positive = keys & 1
    twice_r_plus = np.einsum("ij,j->i", positive, np.arange(2, 2 * m + 2, 2, dtype=np.int64), dtype=np.int64)
    n_zero = (keys == 0).sum(axis=1)
    twice_r_plus -= 2 * n_zero * positive.sum(axis=1)
    x = (keys[:, 1:] ^ keys[:, :-1]).ravel()
    pair = np.flatnonzero(x < 2)
    ties, untied = np.zeros(b), n_zero == 0
    if len(pair):
        j = pair + pair // (m - 1)
        starts = np.flatnonzero(np.diff(j, prepend=-2) != 1)
        first = j[starts]
        t = np.diff(starts, append=len(j)) + 1
        row = first // m
        ties = np.bincount(row, weights=np.where(keys.ravel()[first] == 0, 0, t**3 - t), minlength=b)
        sign_change = j[x[pair] == 1]
        if len(sign_change):
            run = np.searchsorted(first, sign_change, side="right") - 1
            a = sign_change + 1 - first[run]
            twice_r_plus -= np.bincount(row[run], weights=a * (t[run] - a), minlength=b).astype(np.int64)
        untied &= np.bincount(row, minlength=b) == 0
    return twice_r_plus / 2, (m - n_zero).astype(float), ties, untied


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 8),
    width=st.integers(2, 3000),
    distinct=st.integers(1, 4000),
    zeros=st.floats(0, 0.3),
    dtype=st.sampled_from([np.int32, np.int64]),
    seed=st.integers(0, 2**16),
)
def test_compiled_rank_sums_equal_the_vectorised_kernel_with_ties_and_zeros(rows, width, distinct, zeros, dtype, seed):
    # few distinct |d| make long tied runs mixing signs; zeros (code 0) sort first and are dropped
    rng = np.random.default_rng(seed)
    codes = 2 * rng.integers(1, distinct + 1, (rows, width)) + rng.integers(0, 2, (rows, width))
    codes[rng.random((rows, width)) < zeros] = 0
    keys = np.sort(codes.astype(dtype), axis=1)
    for got, want in zip(S.signed_rank_sums(keys), _vectorised_rank_sums(keys)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("sorted_entries", [0, 1 << 40])
def test_p_sig_counts_do_not_depend_on_the_steps_or_threads(monkeypatch, sorted_entries):
    """Small steps (many tasks per block) on 1 or 4 threads, the draws sorted by image or not:
    the per-replicate scipy loop's p_sig for every model, drawn from value counts."""
    rng = np.random.default_rng(21)
    n, values = 70, 6
    hz = np.round(np.abs(rng.normal(0.8, 0.7, (n, values))) / 0.5) * 0.5
    counts = rng.integers(0, 5, (n, values))
    counts[:, 0] += 1  # every image has a human
    mz = np.round(np.abs(rng.normal(1.1, 0.8, (3, n))) / 0.5) * 0.5
    expanded = [np.repeat(row, c) for row, c in zip(hz, counts)]
    width = max(len(e) for e in expanded)
    padded = np.array([np.pad(e, (0, width - len(e)), constant_values=np.nan) for e in expanded])
    want = [_p_sig_reference(row, padded, 31, 5, chunk=4) for row in mz]
    monkeypatch.setattr(B, "KERNEL", 3 * n)  # three replicates per step
    monkeypatch.setattr(B, "SORTED_KERNEL", 3 * n)
    monkeypatch.setattr(B, "SORTED_ENTRIES", sorted_entries)
    for threads in (1, 4):
        monkeypatch.setattr(B, "_threads", lambda threads=threads: threads)
        got = B.p_sig_many(mz, hz, replicates=31, seed=5, chunk=4, cells=9 * n, weights=counts)
        assert [r.p_sig for r in got] == want
    assert len(set(want)) > 1 and max(want) > 0  # the models differ, and some replicates are significant


def test_the_kernel_compiles_where_numba_cannot_cache(monkeypatch):
    # numba raises at decoration when no cache folder is writable: the kernel then compiles per process
    import numba

    real = numba.njit

    def njit(*args, **options):
        if options.get("cache"):
            raise RuntimeError("cannot cache function: no locator available")
        return real(*args, **options)

    monkeypatch.setattr(S.numba, "njit", njit)

    def twice(x):
        return 2 * x

    assert S._compiled(twice)(21) == 42


@settings(max_examples=40, deadline=None)
@given(
    images=st.integers(1, 30),
    width=st.integers(1, 6),
    rows=st.integers(1, 5),
    draws=st.integers(1, 40),
    counted=st.booleans(),
    do_sort=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_drawn_codes_are_the_codes_of_the_humans_listed_one_slot_each(
    images, width, rows, draws, counted, do_sort, seed
):
    """Brute force: list every image's humans one slot each (entry j repeated count_j times, the
    former per-human table), take slot floor(u x humans) of each drawn image, read the entry's
    code; per replicate the same multiset of codes as the compiled passes (in image order or
    not)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 4, (images, width)) if counted else np.ones((images, width), dtype=np.int64)
    counts[:, 0] += counted  # every image has a human
    counts = counts[:, np.argsort(rng.random(width))] if counted else counts  # zero counts anywhere
    humans = counts.sum(axis=1)
    codes = rng.integers(0, 50, images * width).astype(np.int32)
    img, u = rng.integers(0, images, (rows, draws)), rng.random((rows, draws))
    u[0, 0] = np.nextafter(1.0, 0.0)  # the last slot
    slots = [np.repeat(np.arange(i * width, (i + 1) * width), counts[i]) for i in range(images)]
    want = [sorted(codes[slots[i][int(x * humans[i])]] for i, x in zip(ir, ur)) for ir, ur in zip(img, u)]
    drawn = PD.drawn_draws(img, u, humans, do_sort)
    entry, slot = PD.drawn_entries(drawn, rows, humans, np.cumsum(counts, axis=1) if counted else None, width)
    got = PD.drawn_codes(codes, entry, slot, rows)
    assert [sorted(r) for r in got.tolist()] == want
