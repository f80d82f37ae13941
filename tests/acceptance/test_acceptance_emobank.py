"""EmoBank: sentences rated by five readers on three dimensions (valence, arousal, dominance, 1-5)
and no category factor; the genre is the one audit factor; the writer-perspective annotators' mean
is a human-proxy condition. Built through the CLI as a user would, then every mart the answer reads
is recomputed from the landed Parquet by the oracle (tests/oracle), which shares no code with
rater1001. README.md has the source and licence."""

from __future__ import annotations

import csv

import pandas as pd
import pytest
from acceptance_build import HERE, build_study, differing_tables, init_from_raw, landed_by_init, run
from oracle_acceptance import paper_words_shown, test_the_oracle_agrees_with_the_warehouse  # noqa: F401
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
def guessed(tmp_path_factory):
    """`rater1001 init --yes` on the published files (the reader ratings, a row per rating with no
    rater column; meta.tsv and raw.csv beside them), the dimensions and the genre named by flag as a
    user would (V, A, D and `category` do not say their names), and the one condition the files do
    not hold, the mean of each sentence's writer-perspective ratings, computed here as a user would
    and passed as a predictions file of kind human-proxy; then `rater1001 run`."""
    root = tmp_path_factory.mktemp("emobank-init")
    writers = pd.read_csv(RAW / "individual_writer_ratings.csv", dtype={"id": str})
    means = writers.groupby("id", sort=False)[["V", "A", "D"]].mean().reset_index()
    means.insert(1, "model", "writer-mean")
    means.insert(2, "display_name", "Writer-perspective mean")
    means.to_csv(root / "writer_mean.csv", index=False)
    init = init_from_raw(
        root,
        [
            str(RAW / "individual_reader_ratings.csv"),
            *("--stimuli", str(RAW / "meta.tsv"), "--stimuli", str(RAW / "raw.csv")),
            *("--dimension", "valence=V", "--dimension", "arousal=A", "--dimension", "dominance=D"),
            *("--audit", "genre=category", "--name", "emobank-sample"),
            *("--predictions", str(root / "writer_mean.csv"), "--model-kind", "human-proxy"),
        ],
    )
    return project(root), init, run(root, "--allow-unbalanced")


def test_init_on_the_published_files_builds_the_hand_declared_warehouse(guessed, study):
    """Every table and view of the warehouse init sets up (the writer-mean condition with it)
    equals the hand study's (study.yml + convert_emobank.py), the build records aside."""
    paths, (code, out, err), (run_code, run_out, run_err) = guessed
    assert code == 0, out + err
    assert "the k-th row of a stimulus is rater<k> (rater1 to rater7)" in out
    assert landed_by_init(paths) == dict.fromkeys(study.ingest_codes, "init")  # no ingest after init
    assert run_code == 0, run_out + run_err
    assert differing_tables(paths, study.paths) == []
