"""London Face Set: 102 faces rated 1-7 for attractiveness by 62 raters whose sex, sexual
preference and age band are given (three rater attributes); the faces' sex and ethnic group are
two audit factors with an empty cell; each face is its own identity; a held-out 12-rater panel's
mean is a human-proxy condition. Built through the CLI as a user would, then checked by the oracle
(tests/oracle), which shares no code with rater1001. README.md has the source and licence."""

from __future__ import annotations

import pytest
from acceptance_build import build_study, converter
from oracle_acceptance import CHECKS, oracle_check, paper_words_shown

pytestmark = pytest.mark.xdist_group("acceptance_londonfaces")


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    # No design is declared (an empty face_sex x face_eth cell), so the gate only reports.
    return build_study("londonfaces", tmp_path_factory.mktemp("londonfaces"), ("--allow-unbalanced",))


def test_every_rating_lands_and_the_design_has_its_empty_cell(study):
    assert study.ingest_codes == dict.fromkeys(study.ingest_codes, 0)
    faces, rows = converter("londonfaces").read_ratings()
    pool = [r for k, r in enumerate(rows, start=1) if k % 6]
    assert len(faces) == 102 and len(pool) == 62
    landed = study.query("select count(*) as n from stg_human_ratings")
    assert int(landed["n"].iloc[0]) == 62 * 102
    cells = study.query("select count(*) as n from stg_stimuli")
    assert int(cells["n"].iloc[0]) == 102


def test_the_run_builds_every_model(study):
    assert study.run_code == 0, study.run_stderr[-2000:]


@pytest.mark.parametrize("check", list(CHECKS))
def test_the_oracle_agrees_with_the_warehouse(study, request, check):
    oracle_check(study.paths.root, check, request)


def test_no_word_of_the_paper_where_a_person_reads(study):
    assert paper_words_shown(study, own=()) == []
