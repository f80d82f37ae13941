"""EmoBank: sentences rated by five readers on three dimensions (valence, arousal, dominance, 1-5)
and no category factor; the genre is the one audit factor; the writer-perspective annotators' mean
is a human-proxy condition. Built through the CLI as a user would, then every mart the answer reads
is recomputed from the landed Parquet by the oracle (tests/oracle), which shares no code with
rater1001. README.md has the source and licence."""

from __future__ import annotations

import csv

import pytest
from acceptance_build import HERE, build_study, differing_tables, init_from_raw, run
from oracle_acceptance import paper_words_shown, test_the_oracle_agrees_with_the_warehouse  # noqa: F401
from rater1001.cli import main
from rater1001.paths import project

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


def test_no_word_of_the_paper_where_a_person_reads(study):
    assert paper_words_shown(study, own=("valence", "arousal")) == []


@pytest.fixture(scope="module")
def guessed(study, tmp_path_factory):
    """`rater1001 init --yes` on the published files (the reader ratings, a row per rating with no
    rater column; meta.tsv and raw.csv beside them), the dimensions and the genre named by flag as a
    user would (V, A, D and `category` do not say their names); then the one table the files do not
    hold, the writer-mean condition, landed with `rater1001 ingest` from the hand conversion's
    files; then `rater1001 run`."""
    root = tmp_path_factory.mktemp("emobank-init")
    init = init_from_raw(
        root,
        [
            str(RAW / "individual_reader_ratings.csv"),
            *("--stimuli", str(RAW / "meta.tsv"), "--stimuli", str(RAW / "raw.csv")),
            *("--dimension", "valence=V", "--dimension", "arousal=A", "--dimension", "dominance=D"),
            *("--audit", "genre=category", "--name", "emobank-sample"),
        ],
    )
    codes = [
        main(["--home", str(root), "ingest", table, str(study.files[table])])
        for table in ("model_conditions", "model_predictions")
    ]
    return project(root), init, codes, run(root, "--allow-unbalanced")


def test_init_on_the_published_files_builds_the_hand_declared_warehouse(guessed, study):
    """Every table and view of the warehouse init sets up (with the writer-mean condition landed
    beside it) equals the hand study's (study.yml + convert_emobank.py), the build records aside."""
    paths, (code, out, err), codes, (run_code, run_out, run_err) = guessed
    assert code == 0, out + err
    assert "the k-th row of a stimulus is rater<k> (rater1 to rater7)" in out
    assert codes == [0, 0] and run_code == 0, run_out + run_err
    assert differing_tables(paths, study.paths) == []
