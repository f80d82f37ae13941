"""models/marts/worth on the paper-scale demo: k* per condition x measure x scope equals the brute
force over every pair of raters, recomputed from the landed files; the PPI point estimates and
intervals equal the PPI++ closed form on the same seeded subset; the budget fraction is where the
curve first comes within 10 % of the all-human width; query_worth and query_condition_headline
carry the mart's k*."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import query_warehouse
from rater1001.stats import prediction_powered as pp
from stats_helpers import DEMO_NAMES, k_star_of_terms, pairwise_k_star, pairwise_terms, read_landed
from test_stats_prediction_powered import closed_form

DIMENSIONS = ("valence", "arousal")

# the marts name a factor as the study does; the landed frames (read_landed) hold the slots
SLOT_OF = {name: slot for slot, name in DEMO_NAMES.items()}


@pytest.fixture(scope="module")
def landed(demo_warehouse):
    p = demo_warehouse
    ratings = read_landed(p, "human_ratings")
    stimuli = read_landed(p, "stimuli").set_index("image_id").sort_index()
    predictions = read_landed(p, "model_predictions").sort_values(["condition_id", "image_id", "run_id"])
    predictions = predictions.drop_duplicates(["condition_id", "image_id"])  # the primary (first) run
    return ratings, stimuli, predictions


def per_image_pairs(ratings, stimuli, predictions, measure):
    """{condition: frame of image_id -> P_i / 2 and M_i} from individual answers, for a dimension or
    the labels (one-hot over the labels any rater or the condition gave; the marts name that
    measure after the category factor, the demo's `emotion`)."""
    label = measure == DEMO_NAMES["category"]
    measure = "category" if label else measure
    labels = sorted(set(ratings["category"].dropna()) | set(predictions["category"].dropna()))
    panels = {}
    for image, part in ratings.groupby("image_id"):
        if label:
            x = part["category"].dropna().to_numpy()
            panels[image] = (x[:, None] == np.array(labels)[None, :]).astype(float)
        else:
            panels[image] = part[measure].dropna().to_numpy(float)[:, None]
    out = {}
    for cond, preds in predictions.groupby("condition_id"):
        preds = preds.set_index("image_id")[measure].dropna()
        if preds.empty:
            continue
        images = [i for i in sorted(panels) if i in preds.index and len(panels[i]) >= 2]
        models = [(np.array(labels) == preds[i]).astype(float) if label else np.array([preds[i]]) for i in images]
        out[cond] = (images, [panels[i] for i in images], models)
    return out


def per_image_terms(truth) -> dict:
    """{condition: (images, P_i, M_i)}: each stimulus's terms of pairwise_k_star, enumerated once
    (a human panel's P_i once for every condition), so that each mart row's subset of stimuli is a
    mean over them (k_star_of_terms) rather than a new enumeration of the same pairs."""
    p_of: dict = {}
    out = {}
    for cond, (images, panels, models) in truth.items():
        terms = [pairwise_terms(panel, model) for panel, model in zip(panels, models, strict=True)]
        for image, (p, _) in zip(images, terms, strict=True):
            assert p_of.setdefault(image, p) == p  # the same panel whichever condition answered
        out[cond] = (images, np.array([t[0] for t in terms]), np.array([t[1] for t in terms]))
    return out


@pytest.mark.parametrize("measure", [*DIMENSIONS, DEMO_NAMES["category"]])
def test_k_star_equals_the_brute_force_over_every_pair_of_raters(demo_warehouse, landed, measure):
    ratings, stimuli, predictions = landed
    mart = query_warehouse(demo_warehouse, f"select * from worth_k_star where measure = '{measure}'")
    truth = per_image_terms(per_image_pairs(ratings, stimuli, predictions, measure))
    assert set(mart["condition_id"]) == set(truth) and len(truth) >= 11
    checked = 0
    for _, row in mart.iterrows():
        images, p, m = truth[row["condition_id"]]
        if row["factor"] != "all":
            keep = stimuli.loc[images, SLOT_OF[row["factor"]]].to_numpy() == row["level"]
            images, p, m = [image for image, k in zip(images, keep, strict=True) if k], p[keep], m[keep]
        assert row["n_stimuli"] == len(images) and row["n_missing"] == 0
        assert row["k_star"] == pytest.approx(k_star_of_terms(p, m), rel=1e-9)
        assert row["lo"] <= row["k_star"] <= row["hi"]
        checked += 1
    assert checked == len(truth) * (1 + 6 + 3 + 2)  # all, six categories, three races, two genders


def test_ppi_estimates_and_intervals_equal_the_closed_form_on_the_same_subset(demo_warehouse, landed):
    ratings, stimuli, predictions = landed
    mart = query_warehouse(
        demo_warehouse, "select * from worth_ppi where condition_id = 'gpt-4o-mini' and statistic = 'mean'"
    )
    assert set(mart["fraction"]) == {0.1, 0.5}
    for dim in DIMENSIONS:
        human = ratings.groupby("image_id")[dim].mean().sort_index()
        model = (
            predictions[predictions["condition_id"] == "gpt-4o-mini"].set_index("image_id")[dim].reindex(human.index)
        )
        category = stimuli["category"].reindex(human.index).to_numpy()
        for fraction in (0.1, 0.5):
            labelled = pp.human_subset(len(human), fraction, np.random.default_rng(42))
            rows = mart[(mart["measure"] == dim) & (mart["fraction"] == fraction)]
            assert len(rows) == 7
            for _, r in rows.iterrows():
                part = np.ones(len(human), bool) if r["level"] == "all" else category == r["level"]
                y, yhat = human.to_numpy()[part], model.to_numpy()[part]
                lab = labelled[part]
                theta, lo, hi = closed_form(y[lab], yhat[lab], yhat[~lab])
                assert (r["estimate"], r["lo"], r["hi"]) == pytest.approx((theta, lo, hi), abs=1e-9)
                assert r["human_estimate"] == pytest.approx(y.mean(), abs=1e-12)
                assert r["n_human_rated"] == lab.sum()


def test_gaps_and_label_shares_are_there_with_the_all_human_interval_beside(demo_warehouse):
    mart = query_warehouse(demo_warehouse, "select * from worth_ppi where condition_id = 'gpt-4o-mini'")
    gaps = mart[mart["statistic"] == "gap"]
    assert set(gaps["factor"]) == {"race", "gender"} and len(gaps) == 2 * 2 * (3 + 2)
    shares = mart[mart["statistic"] == "share"]
    assert len(shares) == 2 * 6 and set(shares["measure"]) == {"emotion"}
    # the human label shares of every image sum to one, so the all-human shares do too
    for _, part in shares.groupby("fraction"):
        assert part["human_estimate"].sum() == pytest.approx(1.0, abs=1e-12)
    assert (mart["human_lo"] < mart["human_estimate"]).all() and (mart["human_estimate"] < mart["human_hi"]).all()


def test_budget_fraction_is_where_the_curve_comes_within_ten_percent(demo_warehouse):
    b = query_warehouse(demo_warehouse, "select * from worth_budget")
    for _, curve in b.groupby(["condition_id", "measure"]):
        curve = curve.sort_values("fraction")
        assert len(curve) == 20 and curve["width_ratio"].iloc[-1] == 1.0
        within = curve.loc[curve["width_ratio"] <= 1.1, "fraction"]
        assert curve["budget_fraction"].iloc[0] == within.min()
        # fewer human ratings never give a narrower interval than the all-human one here
        assert (curve["width_ratio"] >= 1 - 1e-9).all()


def test_query_views_carry_the_marts_k_star(demo_warehouse):
    q = query_warehouse(demo_warehouse, "select * from query_worth")
    k = query_warehouse(demo_warehouse, "select * from worth_k_star where factor = 'all'")
    merged = q.merge(k, on=["condition_id", "measure"])
    assert len(merged) == len(q) == len(k)
    assert np.allclose(merged["k_star_x"], merged["k_star_y"]) and merged["budget_fraction"].notna().all()
    h = query_warehouse(demo_warehouse, "select condition_id, dimension, k_star from query_condition_headline")
    h = h.merge(k, left_on=["condition_id", "dimension"], right_on=["condition_id", "measure"])
    assert len(h) > 0 and np.allclose(h["k_star_x"], h["k_star_y"])


def test_judge_k_star_equals_the_brute_force_over_pairs_of_human_judges(small_warehouse):
    """Each LLM judge's worth in human judges per axis, recomputed from judge_pair_verdicts by the
    pair enumeration: the outcome of a pair (which candidate won, or a tie) one-hot, whatever order
    each judge saw."""
    v = query_warehouse(small_warehouse, "select * from judge_pair_verdicts")
    v["pair"] = [tuple(sorted(p)) for p in zip(v["candidate_a"], v["candidate_b"], strict=True)]
    outcomes = lambda w, pair: np.array([w == pair[0], w == pair[1], w == "tie"], dtype=float)  # noqa: E731
    mart = query_warehouse(small_warehouse, "select * from worth_judge_k_star where variant = 'all'")
    llms = sorted(set(v.loc[v["judge_kind"] == "llm", "judge_id"]))
    assert sorted(set(mart["judge_id"])) == llms and len(llms) >= 1
    # each axis's pairs once: the human panel of every pair two humans judged, and each judge's
    # first verdict on it (a mart row is a judge on an axis)
    judged: dict[str, list] = {}
    kind, judge = v["judge_kind"].to_numpy(object), v["judge_id"].to_numpy(object)
    winner, has = v["winner_candidate"].to_numpy(object), v["winner_candidate"].notna().to_numpy()
    for (axis, _, _, pair), rows in v.groupby(["axis", "sample_id", "variant", "pair"]).indices.items():
        rows = np.sort(rows)  # the frame's order: a judge's first verdict is its first row
        humans = rows[(kind[rows] == "human") & has[rows]]
        if len(humans) >= 2:
            first: dict = {}
            for r in rows[has[rows]]:
                first.setdefault(judge[r], winner[r])
            judged.setdefault(axis, []).append((pair, np.array([outcomes(w, pair) for w in winner[humans]]), first))
    for _, row in mart.iterrows():
        panels, models, missing = [], [], 0
        for pair, panel, first in judged.get(row["axis"], []):
            if row["judge_id"] not in first:
                missing += 1
                continue
            panels.append(panel)
            models.append(outcomes(first[row["judge_id"]], pair))
        assert (row["n_pairs"], row["n_missing"]) == (len(panels), missing)
        assert row["k_star"] == pytest.approx(pairwise_k_star(panels, models), rel=1e-9)


def test_summary_prints_each_conditions_worth_and_budget(demo_warehouse):
    from rater1001.summary import headline

    text = headline(demo_warehouse).splitlines()
    q = query_warehouse(demo_warehouse, "select * from query_worth")
    assert text[0].startswith("rater1001 headline (SIMULATED data)")
    for r in q.itertuples():
        line = next(line for line in text if line.startswith(f"  {r.condition_id}: "))
        assert f"{r.measure} {r.k_star:.2f} [{r.k_star_lo:.2f}, {r.k_star_hi:.2f}]; {r.budget_fraction:.0%}" in line
