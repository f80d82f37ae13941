"""Every documented error path of the command line ends in a short message and its exit code, never
a Python traceback: the user's mistakes (a file, a study.yml, a query, an argument), a folder
another command holds, and a warehouse that is missing, half-built or being written in place.

No case builds a warehouse: the ones that need one get a small DuckDB file made here. Each command
is a process forked from one helper that imported the CLI (fakes/forked_cli.py)."""

from __future__ import annotations

import os

import duckdb
import pytest
from fakes.forked_cli import ForkedCli
from fakes.landing import make_rating_project
from rater1001.lock import project_lock
from rater1001.paths import REPO_ROOT, project

pytestmark = pytest.mark.xdist_group("cli_errors")

STUDY = (REPO_ROOT / "study.yml").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def forked():
    with ForkedCli(preload=("rater1001.summary", "rater1001.adhoc", "rater1001.study")) as helper:
        yield helper


def _study(text):
    def setup(paths, tmp_path):
        (paths.root / "study.yml").write_text(text, encoding="utf-8")

    return setup


def _landed(paths, tmp_path):
    make_rating_project(paths.root, n_raters=10, n_images=72)


def _file(name, content):
    def setup(paths, tmp_path):
        (tmp_path / name).write_text(content, encoding="utf-8")

    return setup


def _warehouse(complete: bool | None):
    """A small warehouse with provenance; `complete` is its build mark (None: none, an older build)."""

    def setup(paths, tmp_path):
        paths.warehouse.parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(str(paths.warehouse))
        con.execute("create table int_study_provenance as select 'x' as landing_sha256, 'passed' as gate_status")
        con.execute("create table alpha_delta as select 1 as x")
        if complete is not None:
            con.execute(
                "create table rater1001_build as select 'i' as invocation_id, 'build' as command, "
                f"now() as started_at, null as finished_at, {complete} as complete, 'mart_x failed' as failed_nodes"
            )
        con.close()

    return setup


# (id, set-up, command line, exit code, a phrase the message carries); {tmp} is the test's folder.
# A set-up is a step or a tuple of steps; "hold" holds the project lock, "open" opens the warehouse
# for writing, both while the command runs.
CASES = [
    # ingest (docs/ingest.md, exit codes)
    ("ingest: no such file", None, ["ingest", "stimuli", "{tmp}/nope.csv"], 2, "nope.csv"),
    ("ingest: unknown table", _file("x.csv", "a\n1\n"), ["ingest", "stimulus", "{tmp}/x.csv"], 2, "stimulus"),
    ("ingest: empty file", _file("x.csv", ""), ["ingest", "stimuli", "{tmp}/x.csv"], 2, "x.csv"),
    ("ingest: unknown file type", _file("x.pdf", "%PDF"), ["ingest", "stimuli", "{tmp}/x.pdf"], 2, "x.pdf"),
    ("ingest: wrong columns", _file("x.csv", "a,b\n1,2\n"), ["ingest", "stimuli", "{tmp}/x.csv"], 2, "column"),
    (
        "ingest: bad JSON line",
        _file("x.jsonl", '{"image_id": "a"}\n[1]\n'),
        ["ingest", "stimuli", "{tmp}/x.jsonl"],
        2,
        "x.jsonl",
    ),
    (
        "ingest: a referenced table has not landed",
        _file("r.csv", "rater_id,image_id,valence,arousal,naturalness\nr1,i1,1,1,1\n"),
        ["ingest", "human_ratings", "{tmp}/r.csv"],
        2,
        "stimuli",
    ),
    ("ingest: some rows rejected", None, ["ingest", "raters", "{tmp}/raters.csv"], 3, "reject"),
    # study.yml that does not fit (docs/study_shape.md): exit 2, file, line, key
    ("study.yml: YAML syntax", _study("scale: {min: 1, max: 5\n"), ["check"], 2, "study.yml:"),
    ("study.yml: unknown key", _study(STUDY.replace("design:", "desing:")), ["build"], 2, "did you mean 'design'"),
    ("study.yml: min above max", _study("scale: {min: 9, max: 1}\n"), ["run"], 2, "study.yml:1: scale"),
    (
        "study.yml: factor without label rows",
        _study("scale: {min: 1, max: 5}\nfactors:\n  - {name: topic, role: category}\n"),
        ["check"],
        2,
        "study.yml:3: factors[0]: no levels for 'topic'",
    ),
    (
        "study.yml: dimension name",
        _study("scale: {min: 1, max: 5}\ndimensions: [val ence]\n"),
        ["simulate"],
        2,
        "dimension name 'val ence'",
    ),
    # readers without a complete warehouse
    ("summary: no warehouse", None, ["summary"], 2, "run `rater1001 run`"),
    ("sql: no warehouse", None, ["sql", "select 1"], 2, "run `rater1001 run`"),
    ("report: no warehouse", None, ["report"], 2, "run `rater1001 run`"),
    ("sql: --csv without a query", _warehouse(True), ["sql", "--csv", "{tmp}/x.csv"], 2, "need a query"),
    ("sql: a bad query", _warehouse(True), ["sql", "select nope from nowhere"], 2, "nowhere"),
    ("summary: a warehouse without the marts", _warehouse(True), ["summary"], 2, "lacks"),
    ("summary: a half-built warehouse", _warehouse(False), ["summary"], 2, "incomplete"),
    ("sql: a half-built warehouse", _warehouse(False), ["sql", "select 1"], 2, "incomplete"),
    ("report: a half-built warehouse", _warehouse(False), ["report"], 2, "incomplete"),
    # the folder held by another command (docs/ingest.md, "One writer at a time")
    ("a writer while another holds the folder", ("hold",), ["--wait", "0", "check"], 75, "another command is writing"),
    ("sql --write during a build", (_warehouse(True), "hold"), ["sql", "--write", "select 1"], 75, "writing"),
    (
        "sql while the warehouse is written in place",
        (_warehouse(True), "open"),
        ["sql", "select 1"],
        75,
        "open for writing",
    ),
    (
        "sql --write while the warehouse is written in place",
        (_warehouse(True), "open"),
        ["sql", "--write", "select 1"],
        75,
        "open for writing",
    ),
    (
        "summary while the warehouse is written in place",
        (_warehouse(True), "open"),
        ["summary"],
        75,
        "open for writing",
    ),
    # arguments
    ("infer: unknown condition", _landed, ["infer", "no-such-model", "--images", "{tmp}"], 2, "no-such-model"),
    ("infer: bad --concurrency", _landed, ["infer", "gpt-4o-mini", "--concurrency", "x"], 2, "--concurrency"),
    ("infer: --limit 0", None, ["infer", "gpt-4o-mini", "--limit", "0"], 2, "--limit"),
    ("judge: nothing to judge", None, ["judge", "--dry-run"], 2, "has not landed"),
    ("run: the quality gate fails", _file("unused", ""), ["run"], 1, "quality gate failed"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_an_error_path_ends_in_a_short_message_without_a_traceback(case, tmp_path, forked):
    _, setup, argv, code, phrase = case
    paths = project(tmp_path / "p")
    paths.root.mkdir()
    (tmp_path / "raters.csv").write_text("rater_id,gender\nr1,female\nr2,nobody\n", encoding="utf-8")
    holds = []
    for step in setup if isinstance(setup, tuple) else (setup,):
        if step == "hold":
            holds.append(project_lock(paths, "build"))
            holds[-1].__enter__()
        elif step == "open":
            holds.append(duckdb.connect(str(paths.warehouse)))
        elif step is not None:
            step(paths, tmp_path)
    try:
        run = forked.run(paths, *[a.replace("{tmp}", str(tmp_path)) for a in argv])
    finally:
        for held in holds:
            if isinstance(held, duckdb.DuckDBPyConnection):
                held.close()
            else:
                held.__exit__(None, None, None)
    said = run.stdout + run.stderr
    assert "Traceback" not in said, said
    assert run.returncode == code, said
    assert phrase in said, said
    assert len(run.stderr.splitlines()) <= 15, run.stderr


def test_the_cases_cover_each_command_with_a_documented_error():
    commands = {next(a for a in argv if not a.startswith("-") and a != "0") for _, _, argv, _, _ in CASES}
    assert {"ingest", "check", "build", "run", "simulate", "summary", "sql", "report", "infer", "judge"} <= commands
    assert os.environ.get("RATER1001_HOME") is None
