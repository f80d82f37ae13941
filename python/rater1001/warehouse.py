"""Running dbt on a project folder: `dbt build` into warehouse/rater1001.duckdb and the static docs.

dbt runs in-process (dbtRunner) on the repository's dbt project, with the landing zone and the
warehouse of the chosen project folder passed through environment variables, and the study's
declared dimensions and scale passed in RATER1001_STUDY (macros/study_setting.sql), so one dbt
project, and one parse of it, serves every study folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

from . import contract, unheard_events
from .build_events import BuildEvents, BuildSummary, OnNode, warnings_to_log
from .landing import MANIFEST_SCHEMA, write_parquet_atomic
from .paths import REPO_ROOT, ProjectPaths
from .study import load_study


def dbt_vars(paths: ProjectPaths) -> dict:
    """The study's settings, by the names of dbt_project.yml's vars."""
    study = load_study(paths)
    return {
        "dimensions": list(study.dimensions),
        "model_dimensions": list(study.model_dimensions),
        "stimulus_factors": [f.name for f in study.factors],
        "factor_slots": study.factor_slots,
        "study_factors": study.factor_rows,
        "rater_attributes": list(study.rater_attributes),
        "scale_min": study.scale_min,
        "scale_max": study.scale_max,
        "judge_axes": list(study.judge_axes),
        "judge_orders": study.judge_orders,
    }


def ensure_landing_tables(paths: ProjectPaths) -> list[str]:
    """dbt sources need every landing file to exist. A table that has not landed yet (e.g. no model
    predictions before the first `infer`) is created empty with the contract's schema, and named
    in the return value so the caller can say so."""
    created = []
    for name, spec in contract.tables_for(load_study(paths)).items():
        target = paths.raw_table(name)
        if not target.exists():
            write_parquet_atomic(spec.arrow_schema().empty_table(), target)
            created.append(name)
    if not paths.manifest.exists():
        write_parquet_atomic(MANIFEST_SCHEMA.empty_table(), paths.manifest)
    return created


@contextmanager
def _dbt_environment(paths: ProjectPaths):
    saved = {
        k: os.environ.get(k)
        for k in (
            "RATER1001_RAW",
            "RATER1001_WAREHOUSE",
            "RATER1001_SEEDS",
            "RATER1001_STUDY",
            "DBT_SEND_ANONYMOUS_USAGE_STATS",
        )
    }
    # Not --vars: dbt hashes those into its parse state and parses the whole project for every
    # new shape of study. The settings are read only when a node is compiled for a run, so every
    # study shares the kept parse (macros/study_setting.sql).
    os.environ["RATER1001_STUDY"] = json.dumps(dbt_vars(paths))
    os.environ["RATER1001_RAW"] = str(paths.raw.absolute())  # dbt runs in the project folder (below)
    # Relative to the dbt project: dbt writes a seed test's compiled SQL under a path built from
    # the seed folder, which must stay inside target/.
    os.environ["RATER1001_SEEDS"] = os.path.relpath(paths.seeds, REPO_ROOT)
    # Relative to the project folder, which dbt runs in: dbt hashes the profile's values into its
    # parse state, so an absolute path would make every folder's parse a full one (_reuse_parse).
    os.environ["RATER1001_WAREHOUSE"] = os.path.relpath(paths.warehouse, paths.root)
    os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
    cwd = os.getcwd()
    os.chdir(paths.root)
    try:
        yield
    finally:
        os.chdir(cwd)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _file_log_level() -> str:
    """What logs/dbt.log keeps: at info, each node's start and result and every error in full (a
    failing SQL node's database error and compiled file, a Python model's traceback); at debug,
    also every SQL statement and connection event, ten times the lines for ~0.8 s of CPU per small
    build. dbt's own variable asks for debug (docs/run_output.md)."""
    return os.environ.get("DBT_LOG_LEVEL_FILE") or "info"


def _invoke(paths: ProjectPaths, args: list[str], events: BuildEvents | None = None):
    from dbt.cli.main import dbtRunner

    unheard_events.install()

    paths.warehouse.parent.mkdir(parents=True, exist_ok=True)
    common = [
        "--project-dir",
        str(REPO_ROOT),
        "--profiles-dir",
        str(REPO_ROOT),
        "--target-path",
        str(paths.root / "target"),
        "--log-path",
        str(paths.root / "logs"),
        # Nothing on the console (a build printed ~1,100 lines); dbt's log in logs/dbt.log.
        "--log-level",
        "none",
        "--log-level-file",
        _file_log_level(),
    ]
    with _dbt_environment(paths), _one_blas_thread():
        parse_state = _reuse_parse(paths, args)
        try:
            return dbtRunner(callbacks=[events] if events else None).invoke([*args, *common])
        finally:
            _release_warehouse()
            _keep_parse(paths, parse_state)


# dbt parses the whole project (~550 nodes) for every build in a new folder (4.4 s of CPU). Its own
# partial parsing reuses the state of an earlier parse found in target/ and re-parses only the
# files whose content or env_var() values changed: in a new folder, those reading the landing's
# path and the nodes depending on them (2.0 s). So a new folder starts from the state the last
# parse of the same seed folder left (whatever the study), kept per repository; dbt still checks
# that state itself (dbt version, vars, profile, dbt_project.yml, every file's checksum) and
# parses in full if it does not match. docs/performance.md, "Parse reuse".
PARSE_STATE = "partial_parse.msgpack"
PARSE_CACHE = REPO_ROOT / "target" / "parse_cache"


# The environment variables profiles.yml reads besides the warehouse's (relative) path: dbt hashes
# the profile's connection settings into its parse state and parses in full when they differ.
PROFILE_ENV = ("RATER1001_DUCKDB_MEMORY_LIMIT", "RATER1001_DUCKDB_THREADS")


def _parse_cache(args: list[str]) -> Path:
    """The kept state for this seed folder, DuckDB settings and dbt version, and for the command's
    --vars if any (a caller's own; the study's settings are passed outside the parse, so every
    shape of study shares one state)."""
    from dbt.version import __version__

    vars_arg = args[args.index("--vars") + 1] if "--vars" in args else ""
    env = [os.environ.get(name, "") for name in ("RATER1001_SEEDS", *PROFILE_ENV)]
    key = "\0".join([__version__, vars_arg, *env])
    return PARSE_CACHE / f"{hashlib.sha256(key.encode()).hexdigest()[:16]}.msgpack"


def _reuse_parse(paths: ProjectPaths, args: list[str]) -> Path:
    """Seeds the folder's target/ with the kept parse state when it has none; returns the cache file."""
    cached = _parse_cache(args)
    own = paths.root / "target" / PARSE_STATE
    if not own.exists():
        own.parent.mkdir(parents=True, exist_ok=True)
        try:
            shutil.copyfile(cached, own)
        except FileNotFoundError:  # none kept yet (or removed meanwhile): dbt parses in full
            pass
    return cached


def _keep_parse(paths: ProjectPaths, cached: Path) -> None:
    """The folder's parse state becomes the kept one (written whole, then renamed: parallel builds
    read either the old file or the new one)."""
    own = paths.root / "target" / PARSE_STATE
    if not own.exists():
        return
    tmp = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(own, tmp)
        os.replace(tmp, cached)
    except OSError:  # a read-only repository only costs the next new folder a full parse
        tmp.unlink(missing_ok=True)


@contextmanager
def _one_blas_thread():
    """dbt already runs one Python model per core; OpenBLAS adding a thread per core inside each
    made small dense steps (mixedlm's rank check of a 2,880 x 12 matrix) wait on each other: the
    LMM mart took half the time with one BLAS thread, with bit-identical results. numpy's and
    scipy's OpenBLAS are loaded first so that the limit reaches both."""
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


def dbt_log_file(paths: ProjectPaths) -> Path:
    return paths.root / "logs" / "dbt.log"


def _release_warehouse() -> None:
    """dbt-duckdb keeps its DuckDB instance open in a class attribute after an in-process run,
    which holds the file lock and the connection configuration; close it so that readers (tests,
    the report, the duckdb CLI) can open the warehouse afterwards."""
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager as manager

    with manager._LOCK:
        if manager._ENV is not None:
            manager._ENV.close()
            manager._ENV = None


# The storage version profiles.yml asks for (storage_compatibility_version v1.0.0); readers as old
# as DuckDB 0.10 open it (docs/sql.md).
COMPATIBLE_STORAGE_VERSION = 64


def storage_version(path: Path) -> int | None:
    """The storage version in a DuckDB file's header: an 8-byte checksum, b"DUCK", then the version
    as a little-endian uint64. None when the file is absent or not a DuckDB file."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(20)
    except FileNotFoundError:
        return None
    return int.from_bytes(head[12:20], "little") if head[8:12] == b"DUCK" else None


def _drop_incompatible_warehouse(paths: ProjectPaths) -> bool:
    """A warehouse written before the compatibility setting keeps its newer storage version
    (DuckDB never downgrades a file), so it is removed and rebuilt whole; it holds only derived
    tables."""
    version = storage_version(paths.warehouse)
    if version is None or version <= COMPATIBLE_STORAGE_VERSION:
        return False
    print(
        f"note: {paths.warehouse} has storage version {version}, which the DuckDB command-line and "
        f"older clients cannot open; rebuilding it whole in version {COMPATIBLE_STORAGE_VERSION}"
    )
    paths.warehouse.unlink()
    paths.warehouse.with_name(paths.warehouse.name + ".wal").unlink(missing_ok=True)
    return True


def dbt_threads() -> int:
    """One dbt thread per core this process may run on, at most 4: the Python models hold their
    frames while they run, so more threads than cores only add memory (docs/performance.md)."""
    return max(1, min(len(os.sched_getaffinity(0)), 4))


def dbt_build(paths: ProjectPaths, select: str | None = None, on_node: OnNode | None = None) -> BuildSummary:
    """`on_node(done, total, node_name)` is called as each node finishes (a progress bar).

    dbt's unit tests (`unit_tests:` in the models' yml) are left out: they check a model's SQL on
    fixed rows written in the yml, so their result depends on the project's code, never on the
    study being built, and a build of every study would run the same ones again. `dbt_unit_tests`
    runs them, and so does a plain `dbt build` from the repository root (docs/performance.md,
    "Fixed cost per build")."""
    created = ensure_landing_tables(paths)
    if _drop_incompatible_warehouse(paths):
        select = None
    args = ["build", "--threads", str(dbt_threads())]
    if select:
        args += ["--select", select]
    return _run(paths, [*args, "--exclude-resource-type", "unit_test"], on_node, tuple(created))


def dbt_unit_tests(paths: ProjectPaths) -> BuildSummary:
    """`dbt test` of the project's unit tests alone, on a built warehouse: dbt reads the columns
    of the relations their input rows stand in for, and writes nothing but temporary relations."""
    args = ["test", "--select", "test_type:unit", "--threads", "1"]
    return _run(paths, args, None, ())


def _run(paths: ProjectPaths, args: list[str], on_node: OnNode | None, created: tuple[str, ...]) -> BuildSummary:
    events = BuildEvents(on_node=on_node)
    with warnings_to_log(dbt_log_file(paths)) as python_warnings:
        result = _invoke(paths, args, events)
    return events.summary(
        bool(result.success),
        dbt_log_file(paths),
        created,
        error=str(result.exception) if result.exception else None,
        python_warnings=python_warnings.n,
    )


def dbt_docs(paths: ProjectPaths) -> Path | None:
    """One offline HTML file (dbt docs generate --static) at target/static_index.html.

    --no-compile: after a build, the manifest dbt keeps in target/ already holds every node's
    compiled SQL; compiling all ~470 nodes again took 8x the rest of the docs step (docs/performance.md)
    and gave the same page (it is only called after a build)."""
    result = _invoke(paths, ["docs", "generate", "--static", "--no-compile"])
    out = paths.root / "target" / "static_index.html"
    return out if result.success and out.exists() else None
