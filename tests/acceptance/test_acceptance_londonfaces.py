"""London Face Set: 102 faces rated 1-7 for attractiveness by 74 raters whose sex and sexual
preference are given (two rater attributes); the faces' sex and ethnic group are two audit factors
with an empty cell; each face is its own identity; a 12-rater panel's mean is a human-proxy
condition. Built through the CLI as a user would, then checked by the oracle
(tests/oracle), which shares no code with rater1001. README.md has the source and licence."""

from __future__ import annotations

import pandas as pd
import pytest
from acceptance_build import HERE, build_study, converter, differing_tables, init_from_raw, landed_by_init, run
from oracle_acceptance import paper_words_shown, test_the_oracle_agrees_with_the_warehouse  # noqa: F401
from rater1001.paths import project

pytestmark = pytest.mark.xdist_group("acceptance_londonfaces")


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    # No design is declared (an empty face_sex x face_eth cell), so the gate only reports.
    return build_study("londonfaces", tmp_path_factory.mktemp("londonfaces"), ("--allow-unbalanced",))


def test_every_rating_lands_and_the_design_has_its_empty_cell(study):
    assert study.ingest_codes == dict.fromkeys(study.ingest_codes, 0)
    faces, rows = converter("londonfaces").read_ratings()
    assert len(faces) == 102 and len(rows) == 74
    landed = study.query("select count(*) as n from stg_human_ratings")
    assert int(landed["n"].iloc[0]) == 74 * 102
    cells = study.query("select count(*) as n from stg_stimuli")
    assert int(cells["n"].iloc[0]) == 102


def test_the_run_builds_every_model(study):
    assert study.run_code == 0, study.run_stderr[-2000:]


def test_no_word_of_the_paper_where_a_person_reads(study):
    assert paper_words_shown(study, own=()) == []


@pytest.fixture(scope="module")
def guessed(tmp_path_factory):
    """`rater1001 init --yes` on the published files (a row per rater, a column per face; the faces'
    sheet beside it), with the flags a user passes for what the files leave open: the rating's name,
    which face columns are audit factors (not face_age) and that each face is its own identity; and
    the one condition the files do not hold, the mean of every sixth rater's ratings of a face,
    computed here as a user would and passed as a predictions file of kind human-proxy; then
    `rater1001 run`."""
    root = tmp_path_factory.mktemp("londonfaces-init")
    raw = HERE / "londonfaces" / "raw"
    ratings = pd.read_csv(raw / "london_faces_ratings.csv", lineterminator="\r")
    panel = ratings.iloc[5::6].filter(regex=r"^X\d+$")  # the 6th, 12th, ... rater in file order
    assert len(panel) == 12
    means = panel.mean().rename("attractiveness").rename_axis("face_id").reset_index()
    means.insert(1, "model", "panel-mean")
    means.insert(2, "display_name", "Mean of a 12-rater panel")
    means.to_csv(root / "panel_mean.csv", index=False)
    init = init_from_raw(
        root,
        [
            str(raw / "london_faces_ratings.csv"),
            *("--stimuli", str(raw / "london_faces_info.csv"), "--dimension", "attractiveness"),
            *("--audit", "face_sex", "--audit", "face_eth", "--identity-col", "face_id"),
            *("--name", "londonfaces-sample"),
            *("--predictions", str(root / "panel_mean.csv"), "--model-kind", "human-proxy"),
        ],
    )
    return project(root), init, run(root, "--allow-unbalanced")


def test_init_on_the_published_files_builds_the_hand_declared_warehouse(guessed, study):
    """Every table and view of the warehouse init sets up (the panel-mean condition with it) equals
    the hand study's (study.yml + convert_londonfaces.py), the build records aside."""
    paths, (code, out, err), (run_code, run_out, run_err) = guessed
    assert code == 0, out + err
    assert "each of the 74 rows is a rater, numbered r01 to r74" in out
    assert landed_by_init(paths) == dict.fromkeys(study.ingest_codes, "init")  # no ingest after init
    assert run_code == 0, run_out + run_err
    assert differing_tables(paths, study.paths) == []
