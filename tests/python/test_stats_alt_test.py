"""The Alternative Annotator Test against (1) a small case worked by hand and (2) the reference
procedure of Calderon, Reichart & Dror (github.com/nitaytech/AltTest, `alt_test` in
alt_test_example.ipynb), re-stated below with dictionaries and loops the way the reference does
it (its own step-up Benjamini-Yekutieli), on random data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from rater1001.stats.alt_test import alt_test
from scipy import stats


def reference_alt_test(llm, humans, scoring, epsilon, q=0.05, min_humans=2, min_instances=30):
    """The reference procedure: humans = {annotator: {instance: label}}, llm = {instance: label}."""
    if scoring == "accuracy":

        def score(pred, anns):
            return float(np.mean([pred == a for a in anns]))
    else:

        def score(pred, anns):
            return -float(np.sqrt(np.mean([(pred - a) ** 2 for a in anns])))

    who = {}
    for h, anns in humans.items():
        for i in anns:
            who.setdefault(i, []).append(h)
    keep = {i for i in who if len(who[i]) >= min_humans and i in llm}
    pvals, advs = [], []
    for h in humans:
        inst = [i for i in humans[h] if i in keep]
        if len(inst) < min_instances:
            continue
        w_llm, w_h = [], []
        for i in inst:
            rest = [humans[o][i] for o in who[i] if o != h]
            sh, sf = score(humans[h][i], rest), score(llm[i], rest)
            w_llm.append(1 if sf >= sh else 0)
            w_h.append(1 if sh >= sf else 0)
        diff = [a - b for a, b in zip(w_h, w_llm)]
        pvals.append(stats.ttest_1samp(diff, epsilon, alternative="less").pvalue)
        advs.append(float(np.mean(w_llm)))
    m = len(pvals)
    order = np.argsort(pvals)
    harmonic = sum(1.0 / k for k in range(1, m + 1))
    last = -1
    for rank, idx in enumerate(order):
        if pvals[idx] <= (rank + 1) / m * q / harmonic:
            last = rank
    return (last + 1) / m, float(np.mean(advs))


def to_long(humans):
    return pd.DataFrame(
        [(h, i, lab) for h, anns in humans.items() for i, lab in anns.items()],
        columns=["annotator_id", "instance_id", "label"],
    )


def test_worked_case_by_hand():
    """Three annotators, four instances, labels a/b. Leaving out h1: on i1..i4 the others say
    (a,a) (b,b) (a,b) (b,a); h1 says a a a a, the model a b a b. Scores h1 vs model: 1 vs 1,
    0 vs 1, .5 vs .5, .5 vs .5 -> W_model = 1 1 1 1, W_h1 = 1 0 1 1: rho_h1 = 1, diff = 0 -1 0 0."""
    humans = {
        "h1": dict(i1="a", i2="a", i3="a", i4="a"),
        "h2": dict(i1="a", i2="b", i3="a", i4="b"),
        "h3": dict(i1="a", i2="b", i3="b", i4="a"),
    }
    model = dict(i1="a", i2="b", i3="a", i4="b")
    res = alt_test(to_long(humans), model, epsilon=0.2, min_instances_per_human=4)
    per = res.per_annotator.set_index("annotator_id")
    assert per.loc["h1", "mean_w_model"] == 1.0 and per.loc["h1", "mean_w_human"] == 0.75
    # t = (mean(diff) - eps) / (sd / sqrt(n)) with diff = (0, -1, 0, 0): mean -.25, sd .5
    t = (-0.25 - 0.2) / (0.5 / 2)
    assert per.loc["h1", "p_value"] == pytest.approx(stats.t.cdf(t, df=3), rel=1e-12)
    # h2 agrees with the model on every instance: W_h2 = W_model = 1, diff = 0 < epsilon with zero
    # spread: t = -inf, p = 0 (scipy, as the reference calls it) -> the model beats h2
    assert per.loc["h2", "p_value"] == 0.0 and per.loc["h2", "rejected"]
    assert not per.loc["h1", "rejected"] and not per.loc["h3", "rejected"]
    omega, rho = reference_alt_test(model, humans, "accuracy", 0.2, min_instances=4)
    assert res.winning_rate == omega == pytest.approx(1 / 3) and res.advantage_probability == rho == 1.0


def random_study(rng, n_humans, n_instances, n_labels, model_noise, human_noise, continuous=False):
    truth = rng.integers(0, n_labels, n_instances)
    humans = {}
    for h in range(n_humans):
        seen = rng.random(n_instances) < 0.9
        if continuous:
            vals = truth + rng.normal(0, human_noise, n_instances)
        else:
            vals = np.where(rng.random(n_instances) < human_noise, rng.integers(0, n_labels, n_instances), truth)
        humans[f"h{h}"] = {f"i{i}": (float(v) if continuous else int(v)) for i, v in enumerate(vals) if seen[i]}
    if continuous:
        model = {f"i{i}": float(v) for i, v in enumerate(truth + rng.normal(0, model_noise, n_instances))}
    else:
        model = {
            f"i{i}": int(v)
            for i, v in enumerate(
                np.where(rng.random(n_instances) < model_noise, rng.integers(0, n_labels, n_instances), truth)
            )
        }
    return humans, model


@pytest.mark.parametrize(
    "seed,scoring,epsilon",
    [
        (1, "accuracy", 0.2),
        (2, "accuracy", 0.1),
        (3, "accuracy", 0.15),
        (4, "neg_rmse", 0.2),
        (5, "neg_rmse", 0.1),
    ],
)
def test_matches_reference_procedure(seed, scoring, epsilon):
    rng = np.random.default_rng(seed)
    humans, model = random_study(
        rng, n_humans=5, n_instances=60, n_labels=3, model_noise=0.25, human_noise=0.4, continuous=scoring == "neg_rmse"
    )
    res = alt_test(to_long(humans), model, epsilon=epsilon, scoring=scoring)
    omega, rho = reference_alt_test(model, humans, scoring, epsilon)
    assert res.winning_rate == pytest.approx(omega)
    assert res.advantage_probability == pytest.approx(rho)
    assert res.passed == (omega >= 0.5)


def test_a_better_model_passes_and_a_worse_one_fails():
    rng = np.random.default_rng(9)
    humans, good = random_study(rng, n_humans=4, n_instances=100, n_labels=4, model_noise=0.05, human_noise=0.35)
    _, bad = random_study(
        np.random.default_rng(10), n_humans=4, n_instances=100, n_labels=4, model_noise=0.9, human_noise=0.35
    )
    assert alt_test(to_long(humans), good, epsilon=0.2).passed
    worse = alt_test(to_long(humans), bad, epsilon=0.2)
    assert not worse.passed and worse.advantage_probability < alt_test(to_long(humans), good).advantage_probability


def test_annotators_with_too_few_instances_are_skipped():
    rng = np.random.default_rng(3)
    humans, model = random_study(rng, n_humans=3, n_instances=20, n_labels=3, model_noise=0.2, human_noise=0.3)
    res = alt_test(to_long(humans), model)
    assert res.n_annotators_tested == 0 and math.isnan(res.winning_rate) and not res.passed
    assert res.per_annotator["note"].str.startswith("skipped").all()


def test_duplicate_labels_are_an_error():
    df = pd.DataFrame({"annotator_id": ["h1", "h1"], "instance_id": ["i1", "i1"], "label": ["a", "b"]})
    with pytest.raises(ValueError, match="more than once"):
        alt_test(df, {"i1": "a"})


def blanked_study(seed=67, n=100, blank=25, p_model=0.8, p_humans=(0.5, 0.6, 0.8, 0.9)):
    """Four annotators of different skill label 100 pair verdicts (a / b / tie); the model is right
    80 % of the time and leaves `blank` answers empty (seed 67 reproduces the real-data symptom)."""
    rng = np.random.default_rng(seed)
    labels = np.array(["a", "b", "tie"])
    truth = rng.choice(3, n)
    humans = {
        f"h{h}": {f"i{i}": str(labels[v]) for i, v in enumerate(np.where(rng.random(n) < p, truth, rng.choice(3, n)))}
        for h, p in enumerate(p_humans)
    }
    answers = np.where(rng.random(n) < p_model, truth, rng.choice(3, n))
    model = {f"i{i}": str(labels[v]) for i, v in enumerate(answers)}
    for i in rng.choice(n, blank, replace=False):
        model[f"i{i}"] = ""
    return humans, model


@pytest.mark.parametrize("seed", [67, 1, 2, 3])
def test_a_missing_model_answer_counts_against_the_model_as_in_the_reference(seed):
    humans, model = blanked_study(seed)
    omega, rho = reference_alt_test(model, humans, "accuracy", 0.2)
    for missing in ("", None, float("nan")):
        res = alt_test(to_long(humans), {i: (missing if v == "" else v) for i, v in model.items()}, epsilon=0.2)
        assert (res.winning_rate, res.advantage_probability) == pytest.approx((omega, rho)), missing
        assert res.n_missing_model == 25 and res.n_instances == 100
    # answered-only figure beside it: the instances the model answered, as dropping the instance scores it
    answered = {i: v for i, v in model.items() if v}
    assert res.winning_rate_answered_only == pytest.approx(reference_alt_test(answered, humans, "accuracy", 0.2)[0])
    if seed == 67:  # the case: 25 of 100 blanked, reference 0.25 (fail), answered-only 0.50 (pass)
        assert (res.winning_rate, res.passed, res.winning_rate_answered_only) == (0.25, False, 0.5)


def test_a_missing_numeric_answer_is_a_loss():
    rng = np.random.default_rng(9)
    humans, model = random_study(
        rng, n_humans=4, n_instances=60, n_labels=5, model_noise=0.3, human_noise=0.8, continuous=True
    )
    full = alt_test(to_long(humans), model, epsilon=0.2, scoring="neg_rmse")
    holes = {i: (np.nan if k % 3 == 0 else v) for k, (i, v) in enumerate(model.items())}
    res = alt_test(to_long(humans), holes, epsilon=0.2, scoring="neg_rmse")
    per, per_full = res.per_annotator.set_index("annotator_id"), full.per_annotator.set_index("annotator_id")
    # every unanswered instance is a won comparison for each annotator: W_model falls by exactly its share
    for h, anns in humans.items():
        n_hole = sum(1 for i in anns if holes[i] != holes[i])
        lost = (
            per_full.loc[h, "mean_w_model"] * per_full.loc[h, "n_instances"]
            - per.loc[h, "mean_w_model"] * per.loc[h, "n_instances"]
        )
        won_before = sum(1 for i in anns if holes[i] != holes[i] and _model_wins(humans, model, h, i))
        assert lost == pytest.approx(won_before) and n_hole > 0
    assert res.n_missing_model == 20


def _model_wins(humans, model, h, i):
    rest = [humans[o][i] for o in humans if o != h and i in humans[o]]
    s = lambda v: -math.sqrt(np.mean([(v - a) ** 2 for a in rest]))
    return s(model[i]) >= s(humans[h][i])


# --- the rating scorings (stats.alt_test_scoring) against independent statements ------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from rater1001.stats.alt_test_scoring import instance_outcomes, neg_abs_error_score, rank_score  # noqa: E402

RATING = st.integers(1, 9)


@settings(max_examples=200, deadline=None)
@given(RATING, st.lists(RATING, min_size=1, max_size=12))
def test_rating_scorings_equal_scipy_mid_rank_and_the_mean(value, others):
    # rank: minus the distance of the mid-rank percentile (scipy's kind="mean") from the middle
    mid_rank = stats.percentileofscore(others, value, kind="mean") / 100
    assert rank_score(value, others) == pytest.approx(-abs(mid_rank - 0.5), abs=1e-9)
    assert neg_abs_error_score(value, others) == pytest.approx(-abs(value - sum(others) / len(others)), abs=1e-9)
    # rounded to 9 decimals: a tie in exact arithmetic is a tie in floats
    assert rank_score(value, others) == round(rank_score(value, others), 9)


def test_instance_outcomes_of_ratings_worked_by_hand():
    # image 1: a=1, b=3, c=5, model 3; image 2: a=2, b=2, model missing; image 3: one rating only
    human = pd.DataFrame(
        {"annotator_id": list("abcabc"), "instance_id": [1, 1, 1, 2, 2, 3], "label": [1, 3, 5, 2, 2, 4]}
    )[lambda d: ~((d.annotator_id == "c") & (d.instance_id == 2))]
    model = pd.Series({1: 3.0, 2: float("nan"), 3: 4.0})
    got = instance_outcomes(human, model, scoring="neg_abs_error").set_index(["annotator_id", "instance_id"])
    # a on 1: others b, c mean 4: a -3, model -1 (model better); b: others mean 3, b 0 = model 0 (tie);
    # c: others mean 2: c -3, model -1 (model better); image 2: model missing, a and b win; image 3 out
    w = got[["w_human", "w_model"]].to_numpy().tolist()
    assert list(got.index) == [("a", 1), ("a", 2), ("b", 1), ("b", 2), ("c", 1)]
    assert w == [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]
    assert got["model_missing"].tolist() == [False, True, False, True, False]
    # rank on image 1: a=1 among (3, 5): F 0, -0.5; model 3 among (3, 5): F 1/4, -0.25 -> model better
    rank = instance_outcomes(human, model, scoring="rank").set_index(["annotator_id", "instance_id"])
    assert rank.loc[("a", 1), ["w_human", "w_model"]].tolist() == [0.0, 1.0]
    assert rank.loc[("b", 1), ["w_human", "w_model"]].tolist() == [1.0, 1.0]  # both in the middle
