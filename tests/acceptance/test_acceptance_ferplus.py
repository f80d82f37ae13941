"""FER+ (shape a): ten crowd taggers' forced-choice emotion per face, no ratings, no model.
Headline: the nominal alpha of the labels, and the human plurality label per emotion."""

from __future__ import annotations

import csv
from collections import Counter

import krippendorff
import numpy as np
import pytest
from acceptance_build import HERE, assert_same_study, build_study, init_study_from_raw
from rater1001.paths import project
from sklearn import metrics

# One build per dataset: under `make test` (pytest-xdist, --dist loadgroup) the module's tests
# stay on one worker, so its module-scoped study is built once.
pytestmark = pytest.mark.xdist_group("acceptance_ferplus")

RAW = HERE / "ferplus" / "raw" / "fer2013new_sample.csv"
OPTIONS = ("neutral", "happiness", "surprise", "sadness", "anger", "disgust", "fear", "contempt", "unknown")


def raw_votes() -> tuple[list[str], np.ndarray]:
    """Read straight from the upstream-format sample, not through the conversion script."""
    with open(RAW, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return [r["Image name"][:-4] for r in rows], np.array([[int(r[o]) for o in OPTIONS] for r in rows])


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return build_study("ferplus", tmp_path_factory.mktemp("ferplus"))


def test_the_sample_lands_whole_and_runs_quietly(study):
    images, votes = raw_votes()
    assert study.ingest_codes == {"stimuli": 0, "raters": 0, "human_ratings": 0}
    assert study.run_code == 0, study.run_stdout + study.run_stderr
    landed = study.query(
        "select count(*) as n, count(distinct image_id) as images, "
        "count(chosen_emotion) as labelled from stg_human_ratings"
    ).iloc[0]
    assert (landed.n, landed.images, landed.labelled) == (votes.sum(), len(images), 3000)
    # quiet: one line per stage, dbt's own lines only in logs/dbt.log, no warnings on stderr
    assert "dbt build: ok" in study.run_stdout and "START" not in study.run_stdout
    assert "Warning" not in study.run_stderr, study.run_stderr
    assert (study.paths.root / "logs" / "dbt.log").stat().st_size > 0
    assert (study.paths.report / "index.html").exists()


def test_label_alpha_equals_the_krippendorff_package(study):
    _, votes = raw_votes()
    expected = krippendorff.alpha(value_counts=votes, level_of_measurement="nominal")
    got = study.query("select * from label_alpha where slice_by = 'all' and condition_id = 'human'").iloc[0]
    assert got.alpha == pytest.approx(expected, abs=1e-9)
    assert (got.n_units, got.n_values) == (len(votes), votes.sum())
    assert got.data_origin == "observed"
    assert 0.3 < expected < 0.8  # FER+ taggers agree well but far from perfectly


def test_the_human_plurality_row_against_scikit_learn(study):
    """The category of an image is its most-voted emotion, so the human plurality label equals it
    (accuracy 1 by construction); the per-emotion support is the sample's plurality counts."""
    images, votes = raw_votes()
    plurality = [OPTIONS[i] for i in votes.argmax(axis=1)]
    summary = study.query("select * from classification_summary where condition_id = 'human'").iloc[0]
    assert (summary.n, summary.accuracy) == (len(images), 1.0)
    by = study.query(
        "select emotion, support, recall from classification_by_emotion where condition_id = 'human'"
    ).set_index("emotion")
    _, recall, _, support = metrics.precision_recall_fscore_support(
        plurality, plurality, labels=list(OPTIONS), zero_division=np.nan
    )
    counts = Counter(plurality)
    for option, n, r in zip(OPTIONS, support, recall):
        assert by.loc[option, "support"] == n == counts.get(option, 0)
        assert (np.isnan(r) and np.isnan(by.loc[option, "recall"])) or by.loc[option, "recall"] == r


def test_init_alone_sets_up_the_same_study_from_the_published_file(study, tmp_path):
    """`rater1001 init --yes` on fer2013new.csv as published (vote counts per emotion) declares and
    lands what the hand-written study.yml and convert_ferplus.py do; the one flag names the label."""
    code, out, err = init_study_from_raw(tmp_path, [str(RAW), "--label-col", "emotion", "--name", "ferplus-sample"])
    assert code == 0, out + err
    assert "NF: no rater chose it" in out and "each vote is a rater of its own" in out
    assert_same_study(study.paths, project(tmp_path))
