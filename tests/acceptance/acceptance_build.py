"""Building one dataset of this folder the way a user would (each test module does it once, in a
module-scoped fixture): convert the raw sample, copy the study's own study.yml and label set into
an empty project folder, `rater1001 ingest` every table, then `rater1001 run --no-png` (gate, dbt
build, docs, report). README.md has the sources and licences."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
from rater1001 import contract
from rater1001.cli import main
from rater1001.landing import read_manifest
from rater1001.paths import ProjectPaths, project

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class BuiltStudy:
    paths: ProjectPaths
    files: dict[str, Path]  # converted landing files by table
    ingest_codes: dict[str, int]
    run_code: int
    run_stdout: str
    run_stderr: str

    def query(self, sql: str) -> pd.DataFrame:
        con = duckdb.connect(str(self.paths.warehouse), read_only=True)
        try:
            return con.execute(sql).df()
        finally:
            con.close()


def converter(name: str):
    """The dataset's conversion module (tests/acceptance/<name>/convert_<name>.py)."""
    path = HERE / name / f"convert_{name}.py"
    spec = importlib.util.spec_from_file_location(f"convert_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_study(name: str, root: Path, run_options: tuple[str, ...] = ()) -> BuiltStudy:
    shutil.copytree(HERE / name / "project", root, dirs_exist_ok=True)
    files = converter(name).convert(root / "converted")
    home = ["--home", str(root)]
    codes = {}
    for table in contract.LOAD_ORDER:
        if table in files:
            with contextlib.redirect_stdout(io.StringIO()):
                codes[table] = main([*home, "ingest", table, str(files[table])])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        # --no-png: the PNG copies (up to ~2.5 s of CPU a study) are drawn by the dataset's `init` run,
        # a plain `run` as a user types it, whose warehouse is asserted equal to this one.
        run_code = main([*home, "run", "--no-progress", "--no-png", *run_options])
    return BuiltStudy(project(root), files, codes, run_code, out.getvalue(), err.getvalue())


def readme_block(heading: str) -> list[str]:
    """The command lines of the first ```sh block under a README heading, as written."""
    text = (HERE.parents[1] / "README.md").read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def warehouse_tables(paths: ProjectPaths) -> dict[str, pd.DataFrame]:
    """Every table and view of a built warehouse, rows in a stable order."""
    con = duckdb.connect(str(paths.warehouse), read_only=True)
    try:
        names = [r[0] for r in con.execute("select table_name from information_schema.tables").fetchall()]
        out = {}
        for name in names:
            frame = con.execute(f'select * from "{name}"').df()
            for column in frame.columns:  # a list or struct cell: its text
                if (
                    frame[column].dtype == object
                    and frame[column].map(lambda v: isinstance(v, (np.ndarray, list, dict))).any()
                ):
                    frame[column] = frame[column].map(lambda v: repr(v.tolist() if hasattr(v, "tolist") else v))
            out[name] = frame.sort_values(list(frame.columns)).reset_index(drop=True) if len(frame) else frame
        return out
    finally:
        con.close()


# The landing's and the build's records: which files were ingested and when it was built (paths,
# checksums, times), not the study.
BUILD_RECORDS = frozenset({"stg_landing_manifest", "int_study_provenance", "rater1001_build"})


def differing_tables(mine: ProjectPaths, theirs: ProjectPaths) -> list[str]:
    """The tables and views of two built warehouses that are not equal (the same rows, every value
    equal or, for numbers, within 1e-12), the build records aside; a table only one has counts."""
    a, b = warehouse_tables(mine), warehouse_tables(theirs)
    assert BUILD_RECORDS < set(b)
    differing = sorted(set(a) ^ set(b))
    for name in sorted(set(a) & set(b) - BUILD_RECORDS):
        try:
            pd.testing.assert_frame_equal(a[name], b[name], check_like=True, rtol=1e-12, atol=1e-12)
        except AssertionError:
            differing.append(name)
    assert len(b) - len(BUILD_RECORDS) > 90  # every model (over 100 tables and views), not a handful
    return differing


def run(root: Path, *options: str) -> tuple[int, str, str]:
    """`rater1001 --home ROOT run --no-progress OPTIONS`: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--home", str(root), "run", "--no-progress", *options])
    return code, out.getvalue(), err.getvalue()


def init_from_raw(root: Path, argv: list[str]) -> tuple[int, str, str]:
    """`rater1001 --home ROOT init ARGV --yes` on a study's published files: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--home", str(root), "init", *argv, "--yes"])
    return code, out.getvalue(), err.getvalue()


def init_and_run(root: Path, argv: list[str], *run_options: str) -> tuple[ProjectPaths, tuple, tuple]:
    """`init ARGV --yes` on a study's published files, then `run`: (paths, init's, run's (code, stdout, stderr))."""
    init = init_from_raw(root, argv)
    return project(root), init, run(root, *run_options)


def landed_by_init(paths: ProjectPaths) -> dict[str, str]:
    """Each landed table with the folder of the file it came from (`init`: written by init --yes)."""
    manifest = read_manifest(paths)
    return dict(zip(manifest.table_name, manifest.source.map(lambda source: Path(source).parent.name)))


def landed(paths: ProjectPaths, table: str) -> pd.DataFrame:
    return pd.read_parquet(paths.raw_table(table))


def assert_judge_study_built(study: BuiltStudy) -> None:
    """A judge-only study landed its three tables whole, passed the gate and built."""
    assert study.ingest_codes == {"dialogues": 0, "candidates": 0, "judge_verdicts": 0}
    assert study.run_code == 0, study.run_stdout + study.run_stderr
    assert "Quality gate PASSED" in study.run_stdout and "dbt build: ok" in study.run_stdout
