"""MultiPICo (shape c): post-reply texts labelled ironic or not by annotators with self-reported
gender and age. Headline: the nominal alpha of the labels overall and within each rater gender, and
how often the crowd's majority label agrees with each gender's and age band's annotators. The
study names its factors itself (irony, source, language_variety; rater gender and age_band)."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pandas as pd
import pytest
from acceptance_build import HERE, build_study, differing_tables, init_from_raw, landed_by_init, run
from oracle_acceptance import test_the_oracle_agrees_with_the_warehouse  # noqa: F401
from rater1001.paths import project
from rater1001.study import load_study
from scipy import stats

# One build per dataset: under `make test` (pytest-xdist, --dist loadgroup) the module's tests
# stay on one worker, so its module-scoped study is built once.
pytestmark = pytest.mark.xdist_group("acceptance_multipico")

RAW = HERE / "multipico" / "raw"


def raw() -> tuple[dict, dict]:
    """Straight from the upstream-format sample, not through the conversion script."""
    items = json.loads((RAW / "MP_dev_en_sample.json").read_text(encoding="utf-8"))
    people = json.loads((RAW / "MP_annotators_meta_sample.json").read_text(encoding="utf-8"))
    return items, people


def value_counts(items: dict, keep=lambda annotator: True) -> np.ndarray:
    """units x (not ironic, ironic) label counts, for the annotators `keep` accepts."""
    return np.array(
        [
            [sum(1 for a, v in item["annotations"].items() if keep(a) and v == label) for label in "01"]
            for item in items.values()
        ]
    )


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return build_study("multipico", tmp_path_factory.mktemp("multipico"))


def test_the_sample_lands_whole_with_the_annotators_demographics(study):
    items, people = raw()
    assert study.ingest_codes == {
        "stimuli": 0,
        "raters": 0,
        "model_conditions": 0,
        "human_ratings": 0,
        "model_predictions": 0,
    }
    assert study.run_code == 0, study.run_stdout + study.run_stderr
    raters = study.query("select gender, count(*) as n, min(age) as youngest from stg_raters group by gender")
    expected = {g.lower(): sum(1 for p in people.values() if p["Gender"] == g) for g in ("Female", "Male")}
    assert dict(zip(raters.gender, raters.n)) == expected
    assert raters.youngest.min() == min(p["Age"] for p in people.values())
    texts = study.query("select count(*) as n from stg_human_ratings").iloc[0].n
    assert texts == sum(len(i["annotations"]) for i in items.values())
    assert "Warning" not in study.run_stderr, study.run_stderr


def test_label_alpha_overall_and_per_rater_gender_equals_the_krippendorff_package(study):
    items, people = raw()
    got = study.query(
        "select slice_by, slice_level, alpha, n_units, n_values from label_alpha where condition_id = 'human'"
    ).set_index(["slice_by", "slice_level"])
    overall = value_counts(items)
    assert got.loc[("all", "all"), "alpha"] == pytest.approx(
        krippendorff.alpha(value_counts=overall, level_of_measurement="nominal"), abs=1e-9
    )
    assert got.loc[("all", "all"), "n_values"] == overall.sum()
    for gender in ("Female", "Male"):
        counts = value_counts(items, lambda a, g=gender: people[a.removeprefix("Ann")]["Gender"] == g)
        pairable = counts[counts.sum(axis=1) >= 2]
        row = got.loc[("gender", gender.lower())]
        assert row.alpha == pytest.approx(
            krippendorff.alpha(value_counts=pairable, level_of_measurement="nominal"), abs=1e-9
        )
        assert (row.n_units, row.n_values) == (len(pairable), pairable.sum())
    # irony is hard to agree on: alpha is low, as the MultiPICo paper reports for its annotators
    assert got.loc[("all", "all"), "alpha"] < 0.5


def test_the_studys_own_factor_names_land_in_the_role_slots(study):
    items, _ = raw()
    factors = study.query("select factor, role, slot from stg_study_factors order by position")
    assert factors.values.tolist() == [
        ["irony", "category", "category"],
        ["source", "audit", "audit_1"],
        ["language_variety", "audit", "audit_2"],
    ]
    stimuli = study.query("select image_id, audit_1 as source, audit_2 as variety, category as irony from stg_stimuli")
    by_id = stimuli.set_index("image_id")
    for k, v in items.items():
        assert by_id.loc[k, "source"] == v["other_info"]["source"]
        assert by_id.loc[k, "variety"] == v["other_info"]["language_variety"]
    # the audit names the factors as the study does
    slice_types = set(study.query("select distinct slice_type from demographic_slices").slice_type)
    assert slice_types == {"source", "language_variety", "source_language_variety"}
    # the query view names them as the study does
    view = study.query("select source, language_variety, true_irony, predicted_irony from query_predictions")
    assert len(view) == len(items) and set(view.source) == {"reddit", "twitter"}
    assert (view.true_irony == view.predicted_irony).all()  # the crowd majority is the category
    texts = study.query("select image_id, text from stg_stimulus_texts").set_index("image_id")["text"]
    assert texts[next(iter(items))].endswith("\n---\n" + next(iter(items.values()))["text"]["reply"])


def test_agreement_of_the_majority_label_with_each_rater_group_by_brute_force(study):
    """The crowd-majority condition against each annotator's label, counted straight from the raw
    JSON per gender; the chi-square written out as sum (O - E)^2 / E."""
    items, people = raw()
    got = study.query("select * from demographic_rater_agreement where condition_id = 'crowd-majority'")
    assert set(got.attribute) == {"gender"}
    group_of = {"gender": lambda p: p["Gender"].lower()}
    for attribute, group in group_of.items():
        counts: dict[str, list[int]] = {}
        for item in items.values():
            votes = list(item["annotations"].values())
            majority = "1" if 2 * votes.count("1") > len(votes) else "0"
            for annotator, label in item["annotations"].items():
                level = group(people[annotator.removeprefix("Ann")])
                agree, total = counts.setdefault(level, [0, 0])
                counts[level] = [agree + (label == majority), total + 1]
        mine = got[got.attribute == attribute].set_index("level")
        assert set(mine.index) == set(counts)
        for level, (agree, total) in counts.items():
            assert (mine.loc[level, "n_agree"], mine.loc[level, "n_labels"]) == (agree, total)
            assert mine.loc[level, "agreement"] == pytest.approx(agree / total, abs=1e-12)
        observed = np.array([[a, t - a] for a, t in counts.values()], dtype=float)
        expected = observed.sum(axis=1, keepdims=True) * observed.sum(axis=0) / observed.sum()
        chi2 = float(((observed - expected) ** 2 / expected).sum())
        rates = [a / t for a, t in counts.values()]
        assert mine.chi2.iloc[0] == pytest.approx(chi2, rel=1e-9)
        assert mine.df.iloc[0] == len(counts) - 1
        assert mine.p_value.iloc[0] == pytest.approx(stats.chi2.sf(chi2, len(counts) - 1), rel=1e-9)
        assert mine.gap_pp.iloc[0] == pytest.approx(100 * (max(rates) - min(rates)), abs=1e-9)


def test_worth_of_the_majority_label_in_raters_equals_the_brute_force_over_annotator_pairs(study):
    """k* of the crowd-majority condition on the irony labels (one-hot), from every ordered pair of
    an item's annotators and the majority label against each of them, straight from the raw file:
    k* = mean D_hh / (2 mean D_mh - mean D_hh) with D the share of disagreeing pairs."""
    items, _ = raw()
    d_hh, d_mh = [], []
    for item in items.values():
        votes = list(item["annotations"].values())
        majority = "1" if 2 * votes.count("1") > len(votes) else "0"
        n = len(votes)
        d_hh.append(sum(a != b for i, a in enumerate(votes) for j, b in enumerate(votes) if i != j) / (n * (n - 1)))
        d_mh.append(sum(v != majority for v in votes) / n)
    expected = np.mean(d_hh) / (2 * np.mean(d_mh) - np.mean(d_hh))
    got = study.query("select * from worth_k_star where condition_id = 'crowd-majority' and factor = 'all'").set_index(
        "measure"
    )
    assert list(got.index) == ["irony"] and got.loc["irony", "measure_kind"] == "label"
    assert got.loc["irony", "k_star"] == pytest.approx(expected, rel=1e-9)
    assert got.loc["irony", "n_stimuli"] == len(items) and got.loc["irony", "n_missing"] == 0
    # the audit factors are scopes under the study's own names; no category-level rows of a
    # rating measure exist in a labels-only study
    scopes = set(study.query("select distinct factor from worth_k_star")["factor"])
    assert scopes == {"all", "irony", "source", "language_variety"}
    budget = study.query("select * from worth_budget where condition_id = 'crowd-majority'")
    assert len(budget) == 20 and budget["width_ratio"].iloc[-1] == 1.0


@pytest.fixture(scope="module")
def guessed(tmp_path_factory):
    """`rater1001 init --yes` on MP_dev.json and MP_annotators_meta.json as published (an object of
    records; each record maps annotators to labels), the roles the files leave open named by flag as
    a user would, and the one condition the files do not hold, the crowd's majority label, computed
    here as a user would and passed as a predictions file of kind human-proxy; then `rater1001 run`."""
    root = tmp_path_factory.mktemp("multipico-init")
    items, _ = raw()
    ironic = {k: sum(v == "1" for v in item["annotations"].values()) for k, item in items.items()}
    crowd = pd.DataFrame(
        {
            "id": list(items),
            "condition": "crowd-majority",
            "display_name": "Majority label of the annotators",
            "irony": ["1" if 2 * ironic[k] > len(items[k]["annotations"]) else "0" for k in items],
        }
    )
    crowd.to_csv(root / "crowd_majority.csv", index=False)
    init = init_from_raw(
        root,
        [
            str(RAW / "MP_dev_en_sample.json"),
            *("--raters", str(RAW / "MP_annotators_meta_sample.json")),
            *("--stimulus-col", "id", "--label-col", "irony"),
            *("--audit", "other_info.source", "--audit", "other_info.language_variety"),
            *("--rater-attribute", "Gender", "--name", "multipico-sample"),
            *("--predictions", str(root / "crowd_majority.csv"), "--model-kind", "human-proxy"),
        ],
    )
    return project(root), init, run(root)


def test_init_on_the_published_files_lands_what_the_hand_study_lands(guessed, study):
    paths, (code, out, err), (run_code, run_out, run_err) = guessed
    assert code == 0, out + err
    assert "'id' values are the raters' ids less the prefix 'Ann'" in out
    assert "text.reply" in out and "a line --- between" in out
    assert landed_by_init(paths) == dict.fromkeys(study.ingest_codes, "init")  # no ingest after init
    assert run_code == 0, run_out + run_err
    mine, theirs = load_study(paths), load_study(study.paths)
    assert [(f.name, f.role) for f in mine.factors] == [(f.name, f.role) for f in theirs.factors]
    assert mine.stimulus_kind == theirs.stimulus_kind == "text"
    assert mine.rater_attributes == theirs.rater_attributes == ("gender",)


def test_init_on_the_published_files_builds_the_hand_declared_warehouse(guessed, study):
    """Every table and view of the warehouse init sets up (the crowd-majority condition with it)
    equals the hand study's (study.yml + convert_multipico.py, which use the files' own
    names), the build records aside."""
    assert differing_tables(guessed[0], study.paths) == []
