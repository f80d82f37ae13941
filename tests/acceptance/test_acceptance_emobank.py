"""EmoBank: sentences rated by five readers on three dimensions (valence, arousal, dominance, 1-5)
and no category factor; the genre is the one audit factor; the writer-perspective annotators' mean
is a human-proxy condition. Built through the CLI as a user would, then every mart the answer reads
is recomputed from the landed Parquet by the oracle (tests/oracle), which shares no code with
rater1001. README.md has the source and licence."""

from __future__ import annotations

import csv

import pytest
from acceptance_build import HERE, build_study
from oracle_acceptance import CHECKS, oracle_check, paper_words_shown

pytestmark = pytest.mark.xdist_group("acceptance_emobank")
RAW = HERE / "emobank" / "raw"


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    # No design is declared (unbalanced: 5-7 readers per sentence), so the gate only reports.
    return build_study("emobank", tmp_path_factory.mktemp("emobank"), ("--allow-unbalanced",))


def test_every_reader_rating_lands_and_the_run_writes_the_report(study):
    assert study.ingest_codes == dict.fromkeys(study.ingest_codes, 0)
    assert study.run_code == 0, study.run_stderr[-2000:]
    with open(RAW / "individual_reader_ratings.csv", newline="", encoding="utf-8") as fh:
        n_ratings = sum(1 for _ in csv.DictReader(fh))
    landed = study.query("select count(*) as n from stg_human_ratings")
    assert int(landed["n"].iloc[0]) == n_ratings == 884


@pytest.mark.parametrize("check", list(CHECKS))
def test_the_oracle_agrees_with_the_warehouse(study, request, check):
    oracle_check(study.paths.root, check, request)


def test_no_word_of_the_paper_where_a_person_reads(study):
    assert paper_words_shown(study, own=("valence", "arousal")) == []
