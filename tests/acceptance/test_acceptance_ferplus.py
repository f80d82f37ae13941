"""FER+ (shape a): ten crowd taggers' forced-choice emotion per face, no ratings, no model.
Headline: the nominal alpha of the labels, and the human plurality label per emotion."""

from __future__ import annotations

import contextlib
import csv
import io
import shlex
from collections import Counter

import krippendorff
import numpy as np
import pytest
from acceptance_build import (
    HERE,
    build_study,
    differing_tables,
    readme_block,
)
from oracle_acceptance import test_the_oracle_agrees_with_the_warehouse  # noqa: F401
from rater1001.cli import main
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
        "count(chosen_category) as labelled from stg_human_ratings"
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
        "select category, support, recall from classification_by_category where condition_id = 'human'"
    ).set_index("category")
    _, recall, _, support = metrics.precision_recall_fscore_support(
        plurality, plurality, labels=list(OPTIONS), zero_division=np.nan
    )
    counts = Counter(plurality)
    for option, n, r in zip(OPTIONS, support, recall):
        assert by.loc[option, "support"] == n == counts.get(option, 0)
        assert (np.isnan(r) and np.isnan(by.loc[option, "recall"])) or by.loc[option, "recall"] == r


@pytest.fixture(scope="module")
def readme_study(tmp_path_factory):
    """The README's "Your own study in three commands", each line run as written from a folder
    holding the sample at the path the README names (the repository root's layout)."""
    root = tmp_path_factory.mktemp("readme")
    (root / "tests" / "acceptance" / "ferplus").mkdir(parents=True)
    (root / "tests" / "acceptance" / "ferplus" / "raw").symlink_to(RAW.parent)
    results = []
    with contextlib.chdir(root):
        for line in readme_block("Your own study in three commands"):
            argv = shlex.split(line)
            assert argv[0] == "rater1001", line
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                results.append((line, main(argv[1:]), out.getvalue(), err.getvalue()))
    return project(root / "ferplus-study"), results


def test_the_readme_example_runs_as_written_and_quietly(readme_study):
    _, results = readme_study
    assert [r[0].split()[3] for r in results] == ["init", "run", "summary"]
    for line, code, out, err in results:
        assert code == 0, (line, out, err)
        assert "Warning" not in err and "warning" not in err, (line, err)
    said = results[0][2]
    assert "most chosen label" in said and "NF: no rater chose it" in said and "each vote is a rater" in said


def test_the_readme_example_builds_the_hand_declared_warehouse(study, readme_study):
    """init from the published file and the hand-written study.yml + convert_ferplus.py build the
    same warehouse: every table and view, value for value (the build's own record of where and when
    it ran aside)."""
    guessed, _ = readme_study
    assert differing_tables(guessed, study.paths) == []
