"""MultiPICo (shape c): post-reply texts labelled ironic or not by annotators with self-reported
gender and age. Headline: the nominal alpha of the labels overall and within each rater gender."""
from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest

from acceptance_build import HERE, build_study

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
    return np.array([[sum(1 for a, v in item["annotations"].items() if keep(a) and v == label) for label in "01"]
                     for item in items.values()])


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return build_study("multipico", tmp_path_factory.mktemp("multipico"))


def test_the_sample_lands_whole_with_the_annotators_demographics(study):
    items, people = raw()
    assert study.ingest_codes == {"stimuli": 0, "raters": 0, "human_ratings": 0}
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
    got = study.query("select slice_by, slice_level, alpha, n_units, n_values from label_alpha "
                      "where condition_id = 'human'").set_index(["slice_by", "slice_level"])
    overall = value_counts(items)
    assert got.loc[("all", "all"), "alpha"] == pytest.approx(
        krippendorff.alpha(value_counts=overall, level_of_measurement="nominal"), abs=1e-9)
    assert got.loc[("all", "all"), "n_values"] == overall.sum()
    for gender in ("Female", "Male"):
        counts = value_counts(items, lambda a, g=gender: people[a.removeprefix("Ann")]["Gender"] == g)
        pairable = counts[counts.sum(axis=1) >= 2]
        row = got.loc[("gender", gender.lower())]
        assert row.alpha == pytest.approx(
            krippendorff.alpha(value_counts=pairable, level_of_measurement="nominal"), abs=1e-9)
        assert (row.n_units, row.n_values) == (len(pairable), pairable.sum())
    # irony is hard to agree on: alpha is low, as the MultiPICo paper reports for its annotators
    assert got.loc[("all", "all"), "alpha"] < 0.5
