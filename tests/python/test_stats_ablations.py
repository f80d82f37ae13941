"""rater1001.stats.ablations and stats.intervals against independent routes: closed forms, scipy's
binomial test, brute-force pair counting and permutation enumeration, direct recomputation."""

from itertools import permutations

import numpy as np
import pandas as pd
import pytest
from rater1001.stats import ablations, intervals
from rater1001.stats import zscores as Z
from rater1001.stats.alpha import alpha_interval_from_sufficient
from scipy import stats as sps


def test_mcnemar_chi_square_matches_closed_form():
    # 40 discordant pairs (b=28, c=12): chi-square with continuity correction (|b - c| - 1)^2 / (b + c)
    a = [True] * 50 + [True] * 28 + [False] * 12 + [False] * 10
    b = [True] * 50 + [False] * 28 + [True] * 12 + [False] * 10
    res = ablations.mcnemar_paired(a, b)
    expected = (abs(28 - 12) - 1) ** 2 / 40
    assert (res.only_a_correct, res.only_b_correct, res.both_correct, res.both_wrong) == (28, 12, 50, 10)
    assert res.statistic == pytest.approx(expected)
    assert res.p_value == pytest.approx(sps.chi2.sf(expected, 1))
    assert res.method.startswith("chi-square")


def test_mcnemar_exact_matches_binomial_test_and_drops_missing():
    a = [True] * 9 + [False] * 2 + [True] * 5 + [None]
    b = [False] * 9 + [True] * 2 + [True] * 5 + [True]
    res = ablations.mcnemar_paired(a, b)
    assert res.n_pairs == 16 and res.method == "exact binomial"
    assert res.p_value == pytest.approx(sps.binomtest(2, 11, 0.5).pvalue)


def test_mcnemar_without_discordant_pairs_is_undefined_with_reason():
    res = ablations.mcnemar_paired([True, False, True], [True, False, True])
    assert np.isnan(res.p_value) and "no discordant" in res.reason


def test_mann_whitney_u_equals_brute_force_pair_count():
    rng = np.random.default_rng(3)
    x, y = rng.integers(0, 20, 37).astype(float), rng.integers(3, 25, 29).astype(float)
    res = ablations.mann_whitney(x, y)
    brute_u = sum((xi > yi) + 0.5 * (xi == yi) for xi in x for yi in y)
    assert res.u == pytest.approx(brute_u)
    assert res.rank_biserial == pytest.approx(2 * brute_u / (37 * 29) - 1)
    assert res.rank_biserial < 0  # y was drawn higher


def test_spearman_exact_p_equals_enumeration_and_carries_caveat():
    x = np.array([949, 989, 1011, 925, 1100, 1290.0])
    y = np.array([1676, 1700, 1745, 1690, 1710, 1740.0])
    res = ablations.spearman_small_n(x, y)
    rho = sps.spearmanr(x, y).statistic
    count = sum(abs(sps.spearmanr(x, y[list(p)]).statistic) >= abs(rho) - 1e-12 for p in permutations(range(6)))
    assert res.rho == pytest.approx(rho)
    assert res.p_value == pytest.approx(count / 720)
    assert res.n == 6 and "n = 6" in res.caveat and "exact" in res.method


def test_spearman_constant_side_is_undefined():
    assert ablations.spearman_small_n([1, 2, 3, 4], [5, 5, 5, 5]).reason == "one side is constant"


def test_size_deltas_subtract_next_smaller_size_within_group():
    f = pd.DataFrame({"family": ["g"] * 3 + ["h"] * 2, "size": [27, 4, 12, 1, 8], "acc": [0.8, 0.7, 0.75, 0.5, 0.6]})
    out = ablations.size_deltas(f, ["family"], "size", ["acc"])
    g = out[out.family == "g"].set_index("size")
    assert np.isnan(g.loc[4, "delta_acc"])
    assert g.loc[12, "delta_acc"] == pytest.approx(0.05) and g.loc[27, "delta_acc"] == pytest.approx(0.05)
    assert g.loc[27, "previous_size"] == 12
    assert out[out.family == "h"].set_index("size").loc[8, "delta_acc"] == pytest.approx(0.1)


def test_alpha_interval_replicates_are_alpha_of_resampled_units():
    rng = np.random.default_rng(0)
    ratings = rng.integers(1, 10, size=(60, 8)).astype(float) + rng.normal(0, 2, size=(60, 1)).round()
    m, tot, sq = np.full(60, 8.0), ratings.sum(1), (ratings**2).sum(1)
    model = ratings.mean(1) + rng.normal(0, 0.3, 60)
    out = intervals.alpha_intervals(m, tot, sq, model, replicates=50, seed=5)
    # independent recomputation: the same draws, alpha from the resampled raw matrix
    draws = np.random.default_rng(5).integers(0, 60, size=(50, 60))
    reps = []
    for idx in draws:
        h = alpha_interval_from_sufficient(m[idx], tot[idx], sq[idx]).alpha
        full = np.column_stack([ratings[idx], model[idx]])
        w = alpha_interval_from_sufficient(np.full(60, 9.0), full.sum(1), (full**2).sum(1)).alpha
        reps.append(w - h)
    lo, hi = np.quantile(reps, [0.025, 0.975])
    assert out.delta_alpha.lo == pytest.approx(lo) and out.delta_alpha.hi == pytest.approx(hi)
    assert out.alpha.lo <= out.alpha.estimate <= out.alpha.hi
    assert out.delta_alpha.estimate > 0  # a model close to the image mean raises alpha


def test_w1sd_interval_covers_the_true_share_at_the_nominal_rate():
    # parameter recovery: |z| <= 1 with probability .6827 for z ~ N(0,1); the 95 % interval of
    # 400 images should cover it in about 95 % of 60 independent studies
    hits = 0
    for s in range(60):
        z = np.random.default_rng(100 + s).normal(size=400)
        iv = intervals.w1sd_interval(z, replicates=300, seed=s)
        hits += iv.lo <= 0.6827 <= iv.hi
    assert 50 <= hits <= 60


def test_w1sd_interval_counts_a_missing_answer_against_the_model():
    rng = np.random.default_rng(7)
    z = rng.normal(size=200)
    missing = np.zeros(200, bool)
    missing[::5] = True
    z[missing] = np.nan
    z[3] = np.nan  # a zero human SD: out of the share, not a missing answer
    iv = intervals.w1sd_interval(z, replicates=200, seed=1, missing=missing)
    ref = Z.summarise(z[~missing], n_missing=int(missing.sum()))
    assert iv.estimate == pytest.approx(ref.w1sd) and iv.n_units == 199
    assert iv.lo <= iv.estimate <= iv.hi < ref.w1sd_answered_only


def test_kappa_interval_point_is_sklearn_kappa_and_interval_brackets_it():
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(1)
    labels = ["a", "b", "c"]
    truth = rng.choice(labels, 300)
    pred = np.where(rng.random(300) < 0.7, truth, rng.choice(labels, 300))
    iv = intervals.kappa_interval(truth, pred, labels, replicates=200)
    assert iv.estimate == pytest.approx(cohen_kappa_score(truth, pred))
    assert iv.lo < iv.estimate < iv.hi and iv.hi - iv.lo < 0.2


def test_kappa_replicates_equal_the_classification_summary_kappa_of_the_draw():
    from rater1001.stats.classification import summary

    rng = np.random.default_rng(2)
    labels = ["a", "b", "c"]
    truth = rng.choice(labels, 80)
    pred = np.where(rng.random(80) < 0.6, truth, rng.choice(labels + ["zzz"], 80)).astype(object)
    pred[:3] = None  # missing predictions count as wrong in both routes
    iv = intervals.kappa_interval(truth, pred, labels, replicates=40, seed=9)
    reps = [summary(truth[i], pred[i], labels).kappa for i in np.random.default_rng(9).integers(0, 80, (40, 80))]
    lo, hi = np.quantile(reps, [0.025, 0.975])
    assert (iv.lo, iv.hi) == pytest.approx((lo, hi))


def test_alt_test_from_counts_equals_reference_alt_test_including_degenerate_raters():
    from rater1001.stats.alt_test import alt_test
    from rater1001.stats.alt_test_ratings import alt_test_from_counts

    rng = np.random.default_rng(4)
    n_raters, n_items = 25, 40
    truth = rng.normal(5, 1.5, n_items)
    labels = np.clip(np.round(truth + rng.normal(0, 1.2, (n_raters, n_items))), 1, 9)
    labels[0] = labels[1]  # two raters identical
    model = pd.Series(np.clip(np.round(truth + rng.normal(0, 0.8, n_items)), 1, 9), index=range(n_items))
    labels[2] = model.to_numpy()  # rater 2 always ties the model: W_h - W_f constant 0, p = 0 in scipy
    human = pd.DataFrame(
        {
            "annotator_id": np.repeat(range(n_raters), n_items),
            "instance_id": np.tile(range(n_items), n_raters),
            "label": labels.ravel(),
        }
    )
    human = human[~((human.annotator_id == 3) & (human.instance_id >= 20))]  # rater 3: too few items
    score = lambda v, others: round(-abs(float(v) - float(np.mean(others))), 9)  # noqa: E731
    # brute-force outcome counts (the SQL model's job in the warehouse)
    by_item = {i: dict(zip(g.annotator_id, g.label)) for i, g in human.groupby("instance_id")}
    counts = []
    for a, part in human.groupby("annotator_id"):
        c = {"annotator_id": a, "n_human_better": 0, "n_tie": 0, "n_model_better": 0}
        for i, y in zip(part.instance_id, part.label):
            others = [v for o, v in by_item[i].items() if o != a]
            s_h, s_f = score(y, others), score(model[i], others)
            c["n_human_better" if s_h > s_f else "n_tie" if s_h == s_f else "n_model_better"] += 1
        counts.append(c)
    counts = pd.DataFrame(counts)
    for eps in (0.1, 0.2):
        ref = alt_test(human, model, epsilon=eps, scoring=score, min_instances_per_human=30)
        got = alt_test_from_counts(counts, epsilon=eps, min_instances_per_human=30)
        assert got.n_annotators_tested == ref.n_annotators_tested == n_raters - 1
        assert got.winning_rate == pytest.approx(ref.winning_rate)
        assert got.advantage_probability == pytest.approx(ref.advantage_probability)
        per = got.per_annotator.set_index("annotator_id")["p_value"].dropna()
        ref_p = ref.per_annotator.set_index("annotator_id")["p_value"].dropna()
        assert np.allclose(per.sort_index(), ref_p.sort_index(), equal_nan=True)
        assert per[2] == 0.0 and got.per_annotator.set_index("annotator_id").loc[2, "rejected"]


def test_alt_test_from_counts_with_a_weight_equals_one_row_per_annotator():
    """Annotators with equal outcome counts passed as one row with their number (what the mart
    does) give the omega, rho, decisions and counts of one row per annotator."""
    from rater1001.stats.alt_test_ratings import alt_test_from_counts

    rng = np.random.default_rng(11)
    n = rng.integers(5, 40, 600)
    plus = rng.binomial(n, rng.uniform(0.05, 0.4, len(n)))
    minus = rng.binomial(n - plus, 0.6)
    per = pd.DataFrame({"n_human_better": plus, "n_tie": n - plus - minus, "n_model_better": minus})
    keys = list(per.columns)
    grouped = per.groupby(keys).size().rename("n_annotators").reset_index()
    assert len(grouped) < len(per) and (grouped["n_annotators"] > 1).any()
    rates = []
    for eps, min_n in ((0.1, 10), (0.2, 30), (0.3, 41)):
        plain = alt_test_from_counts(per, epsilon=eps, min_instances_per_human=min_n)
        weighted = alt_test_from_counts(grouped, epsilon=eps, min_instances_per_human=min_n, weight="n_annotators")
        for key in ("winning_rate", "advantage_probability", "passed", "n_annotators_tested", "n_annotators_skipped"):
            assert getattr(weighted, key) == pytest.approx(getattr(plain, key), abs=1e-12, nan_ok=True), (eps, key)
        # the mart's route: the columns as plain arrays, no per-annotator frame
        arrays = {c: grouped[c].to_numpy() for c in grouped.columns}
        bare = alt_test_from_counts(
            arrays, epsilon=eps, min_instances_per_human=min_n, weight="n_annotators", per_annotator_frame=False
        )
        assert bare.per_annotator is None
        for key in ("winning_rate", "advantage_probability", "passed", "n_annotators_tested", "n_annotators_skipped"):
            b, w = getattr(bare, key), getattr(weighted, key)
            assert b == w or (np.isnan(b) and np.isnan(w)), (eps, key)
        back = plain.per_annotator.merge(weighted.per_annotator, on=keys, suffixes=("", "_w"))
        assert len(back) == len(per) and (back["rejected"] == back["rejected_w"]).all()
        rates.append(plain.winning_rate)
    assert 0 < np.nanmax(rates) < 1 and np.isnan(rates[-1])  # decisions exercised; nobody tested at 41


def test_thinking_pairs_pick_same_model_different_setting_with_more_thinking_first():
    from rater1001.marts.ablations import scaling_conditions, thinking_pairs

    cat = pd.DataFrame(
        {
            "condition_id": ["g-nothink", "g-think", "q-256", "q-1024", "solo", "s4", "s12", "s12-think"],
            "model_id": ["g", "g", "q", "q", "z", "s-4", "s-12", "s-12"],
            "family": ["g", "g", "q", "q", "z", "s", "s", "s"],
            "size_b": [None, None, 4, 4, 7, 4, 12, 12],
            "thinking": [False, True, True, True, False, False, False, True],
            "thinking_budget": [0, -1, 256, 1024, None, None, None, 512],
        }
    )
    pairs = thinking_pairs(cat).set_index("model_id")
    assert (pairs.loc["g", "condition_a"], pairs.loc["g", "condition_b"]) == ("g-think", "g-nothink")
    assert (pairs.loc["q", "condition_a"], pairs.loc["q", "condition_b"]) == ("q-1024", "q-256")
    assert (pairs.loc["s-12", "condition_a"], pairs.loc["s-12", "condition_b"]) == ("s12-think", "s12")
    assert "z" not in pairs.index and "s-4" not in pairs.index
    # scaling: only non-thinking conditions of families with >= 2 sizes
    assert sorted(scaling_conditions(cat)["condition_id"]) == ["s12", "s4"]


def test_w1sd_replicates_equal_summarise_of_each_draw(monkeypatch):
    # brute force: the same draws, one summarise() per replicate; tiny blocks (CELLS) as well
    rng = np.random.default_rng(12)
    z = rng.normal(0, 1.2, 70)
    missing = rng.random(70) < 0.15
    z[missing] = np.nan
    z[5] = np.nan if not missing[5] else z[5]
    keep = ~np.isnan(z) | missing
    zk, mk = z[keep], missing[keep]
    reps = [
        Z.summarise(zk[i][~mk[i]], n_missing=int(mk[i].sum())).w1sd
        for i in np.random.default_rng(3).integers(0, len(zk), (90, len(zk)))
    ]
    lo, hi = np.quantile(reps, [0.025, 0.975])
    for cells in (intervals.CELLS, 3 * len(zk)):
        monkeypatch.setattr(intervals, "CELLS", cells)
        iv = intervals.w1sd_interval(z, replicates=90, seed=3, missing=missing)
        assert (iv.lo, iv.hi) == pytest.approx((lo, hi), abs=1e-12)


def test_index_blocks_are_the_rows_of_one_draw_of_the_whole_matrix(monkeypatch):
    monkeypatch.setattr(intervals, "CELLS", 5 * 61)  # blocks of 5 replicates
    blocks = list(intervals.index_blocks(61, 23, 4))
    assert [s for s, _ in blocks] == [0, 5, 10, 15, 20]
    whole = np.random.default_rng(4).integers(0, 61, size=(23, 61))
    np.testing.assert_array_equal(np.vstack([b for _, b in blocks]), whole)


def test_replicate_sums_are_the_sums_over_each_draw():
    rng = np.random.default_rng(6)
    terms = rng.normal(size=(3, 40))
    draws = np.random.default_rng(9).integers(0, 40, (25, 40))
    np.testing.assert_allclose(
        intervals.replicate_sums(terms, 25, 9), np.stack([terms[:, i].sum(axis=1) for i in draws]), rtol=1e-12
    )


def test_headline_intervals_do_not_depend_on_the_order_rows_arrive_in():
    # A warehouse returns a model's rows in no fixed order; the bootstrap draws positions, so the
    # function must fix the order itself or the same data gives other intervals from build to build.
    from rater1001.marts.intervals import intervals_table as headline_intervals

    rng = np.random.default_rng(3)
    images = [f"img{i:02d}" for i in range(30)]
    categories = ["happy", "sad", "fear"]
    n = rng.integers(3, 8, size=30)
    sums = [rng.integers(1, 10, size=k) for k in n]
    stats = pd.DataFrame(
        {
            "dimension": "valence",
            "image_id": images,
            "category": [categories[i % 3] for i in range(30)],
            "n_ratings": n,
            "rating_sum": [s.sum() for s in sums],
            "rating_sumsq": [(s**2).sum() for s in sums],
        }
    )
    preds = pd.concat(
        [
            pd.DataFrame(
                {
                    "condition_id": cond,
                    "image_id": images,
                    "true_category": stats["category"],
                    "predicted_category": rng.choice(categories, size=30),
                    "model_valence": rng.integers(1, 10, size=30).astype(float),
                    "human_mean_valence": stats["rating_sum"] / n,
                    "human_sd_valence": [s.std(ddof=1) for s in sums],
                }
            )
            for cond in ("m1", "m2")
        ],
        ignore_index=True,
    )
    ordered = headline_intervals(preds, stats, ["valence"], categories, replicates=200, seed=7)
    shuffled = headline_intervals(
        preds.sample(frac=1, random_state=1),
        stats.sample(frac=1, random_state=2),
        ["valence"],
        categories,
        replicates=200,
        seed=7,
    )
    pd.testing.assert_frame_equal(ordered, shuffled)
    assert ordered["lo"].notna().any() and (ordered["lo"] < ordered["hi"]).any()
