"""Running dbt on a project folder: `dbt build` into warehouse/rater1001.duckdb and the static docs.

dbt runs in-process (dbtRunner) on the repository's dbt project, with the landing zone and the
warehouse of the chosen project folder passed through environment variables, and the study's
declared dimensions and scale passed in RATER1001_STUDY (macros/study_setting.sql), so one dbt
project, and one parse of it, serves every study folder.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path

from . import build_record, contract, landing
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
def _dbt_environment(paths: ProjectPaths, cwd: Path):
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
    # Relative to the folder dbt runs in (the project folder, or its staging folder for a build):
    # dbt hashes the profile's values into its parse state, so an absolute path would make every
    # folder's parse a full one (_reuse_parse), and so would a different path for the staged file.
    os.environ["RATER1001_WAREHOUSE"] = os.path.relpath(paths.warehouse, paths.root)
    os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
    before = os.getcwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(before)
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


def _invoke(
    paths: ProjectPaths, args: list[str], events: BuildEvents | None = None, staged: bool = False, manifest=None
):
    """dbt on the published warehouse, or with `staged` on the staged one (a build, and the docs of
    a run before it is published); `manifest`, one dbt_parse returned, spares dbt its parse."""
    from dbt.cli.main import dbtRunner

    cwd = paths.staging if staged else paths.root
    (cwd / "warehouse").mkdir(parents=True, exist_ok=True)
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
    with _dbt_environment(paths, cwd), _one_blas_thread(), _quiet_logging_errors():
        parse_state = _reuse_parse(paths, args)
        try:
            return dbtRunner(manifest=manifest, callbacks=[events] if events else None).invoke([*args, *common])
        finally:
            _release_warehouse()
            _keep_parse(paths, parse_state)


@contextmanager
def _quiet_logging_errors():
    """A log record that cannot be written (a full disk under logs/) is dropped instead of printing
    a "--- Logging error ---" traceback per record on the console: a build on a full disk printed
    4,396 lines. The build's failure says the disk is full (build_failure_cause)."""
    import logging

    saved = logging.raiseExceptions
    logging.raiseExceptions = False
    try:
        yield
    finally:
        logging.raiseExceptions = saved


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
    """dbt-duckdb keeps its DuckDB instance open after an in-process run (profile `keep_open`),
    which holds the file lock and the connection configuration; close it, through the adapter's
    public classmethods, so that readers (tests, the report, the duckdb CLI) can open the
    warehouse afterwards."""
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager as manager

    try:
        env = manager.env()
    except Exception:  # dbt-duckdb's own error when no run opened one (dbt stopped before connecting)
        return
    env.close()
    manager.close_all_connections()


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


def dbt_threads() -> int:
    """One dbt thread per core this process may run on, at most 4: the Python models hold their
    frames while they run, so more threads than cores only add memory (docs/performance.md)."""
    return max(1, min(len(os.sched_getaffinity(0)), 4))


def dbt_parse(paths: ProjectPaths):
    """dbt's manifest of the project (`dbt parse`), for dbt_build and dbt_docs to start from; None
    when dbt could not parse it (the build then parses again, and fails saying why)."""
    try:
        result = _invoke(paths, ["parse"])
    except Exception:  # dbt's own error: the build meets it again and records it
        return None
    return result.result if result.success else None


def dbt_build(
    paths: ProjectPaths,
    select: str | None = None,
    on_node: OnNode | None = None,
    publish: bool = True,
    manifest=None,
) -> BuildSummary:
    """`on_node(done, total, node_name)` is called as each node finishes (a progress bar);
    `manifest` (dbt_parse's) spares dbt its parse.

    The build writes a staged warehouse (paths.staged_warehouse) and, when every node passed and
    `publish` is set, makes it the warehouse in one rename (publish_build); a failed build leaves
    the published warehouse as it was and records why (paths.build_record). `publish=False` leaves
    the publishing to the caller (`rater1001 run` publishes its report in the same step).

    dbt's unit tests (`unit_tests:` in the models' yml) are left out: they check a model's SQL on
    fixed rows written in the yml, so their result depends on the project's code, never on the
    study being built, and a build of every study would run the same ones again. `dbt_unit_tests`
    runs them, and so does a plain `dbt build` from the repository root (docs/performance.md,
    "Fixed cost per build")."""
    created = ensure_landing_tables(paths)
    select = _stage(paths, select)
    args = ["build", "--threads", str(dbt_threads())]
    if select:
        args += ["--select", select]
    try:
        result = _run(
            paths,
            [*args, "--exclude-resource-type", "unit_test"],
            on_node,
            tuple(created),
            staged=True,
            manifest=manifest,
        )
    except BaseException as exc:  # an error of dbt's own (not of a node): recorded, then raised
        cause = failure_cause(paths, str(exc))
        abandon_build(paths, cause)
        if isinstance(exc, Exception) and cause.startswith(DISK_FULL):  # DuckDB's or dbt's own error type
            raise OSError(errno.ENOSPC, cause) from None
        raise
    if result and not _staged_complete(paths):
        result = replace(result, success=False)
        abandon_build(paths, failure_cause(paths, "the built warehouse was not written completely"))
    elif not result:
        # the failing and skipped models go into the record: the report names them on its first screen
        abandon_build(paths, failure_cause(paths, "\n".join(f.message for f in result.failures)), result.record())
    elif publish:
        publish_build(paths)
    return result


def _staged_complete(paths: ProjectPaths) -> bool:
    """The staged file holds the whole build: DuckDB wrote everything into it when dbt closed it
    (no write-ahead log left beside it, as when the disk filled at that checkpoint) and the build
    marked it complete (macros/build_marker.sql)."""
    import duckdb

    if paths.staged_warehouse.with_name(paths.staged_warehouse.name + ".wal").exists():
        return False
    try:
        con = duckdb.connect(str(paths.staged_warehouse), read_only=True)
    except duckdb.Error:
        return False
    try:
        return bool(con.execute("select bool_and(complete) from rater1001_build").fetchone()[0])
    except duckdb.Error:
        return False
    finally:
        con.close()


def _stage(paths: ProjectPaths, select: str | None) -> str | None:
    """A new staged folder, recorded as a build in progress. A full build starts from an empty
    warehouse (so no table of an earlier build survives into this one); a selected build starts from
    a copy of the published one (if any), or builds everything when that one cannot be copied or
    is of another landing. Returns the selection to build."""
    shutil.rmtree(paths.staging, ignore_errors=True)
    paths.staged_warehouse.parent.mkdir(parents=True, exist_ok=True)
    build_record.write(paths, build_record.started(paths, select))
    if select and paths.warehouse.exists() and not (_same_landing(paths) and _copy_published(paths)):
        return None
    return select


def _same_landing(paths: ProjectPaths) -> bool:
    """Whether the published warehouse was built from the landing in data/raw. A selected build
    of another landing would leave the tables it does not select from the old one under the new
    one's name, so it builds everything instead."""
    from .freshness import WarehouseUnavailable, landing_fingerprint, read_provenance

    try:
        built = (read_provenance(paths) or {}).get("landing_sha256")
    except WarehouseUnavailable:
        built = None
    if built == landing_fingerprint(paths):
        return True
    print(f"note: data/raw holds another landing than {paths.warehouse} was built from: building everything")
    return False


def _copy_published(paths: ProjectPaths) -> bool:
    """Copy the published warehouse into the staged folder (for a selected build); False when it is
    not a DuckDB file, or is in a storage version older clients cannot open (DuckDB never downgrades
    a file, so it is rebuilt whole in the compatible one)."""
    version = storage_version(paths.warehouse)
    if version is None:
        return False
    if version > COMPATIBLE_STORAGE_VERSION:
        print(
            f"note: {paths.warehouse} has storage version {version}, which the DuckDB command-line and "
            f"older clients cannot open; rebuilding it whole in version {COMPATIBLE_STORAGE_VERSION}"
        )
        return False
    shutil.copyfile(paths.warehouse, paths.staged_warehouse)
    return True


def staged_report(paths: ProjectPaths) -> Path:
    """Where `rater1001 run` writes the report of a staged build, published with it."""
    return paths.staging / "report"


def publish_build(paths: ProjectPaths) -> None:
    """The staged warehouse becomes the warehouse, and a staged report (index.html, figures/*.png,
    data/*.parquet and *.csv) the report, in one step (landing.publish: a journal, then renames; a process killed half-way is
    rolled forward by the next writer). Figures of the old report that the new one does not have are
    deleted with it, unless the new one is of the same warehouse and was written without figures. Either part may be absent (`rater1001 report` stages a report
    only)."""
    staged: list[tuple[Path, Path]] = []
    delete: list[Path] = []
    build = paths.staged_warehouse.exists()
    if build:
        staged.append((paths.staged_warehouse, paths.warehouse))
        # a write-ahead log beside the old file would be replayed into the new one
        delete += [paths.warehouse.with_name(paths.warehouse.name + ".wal"), paths.failed_warehouse]
    report = staged_report(paths)
    if (report / "index.html").exists():
        staged.append((report / "index.html", paths.report / "index.html"))
        if (report / "figures").is_dir() or build:  # a new build's report: no figure of the old one stays
            staged_files, gone = _replaced(report, paths.report, "figures", ("*.png",))
            staged, delete = staged + staged_files, delete + gone
        # the whole long tables the page links to (report/data): always of this report's warehouse
        staged_files, gone = _replaced(report, paths.report, "data", ("*.parquet", "*.csv"))
        staged, delete = staged + staged_files, delete + gone
    landing.publish(paths, staged, delete)
    if build:
        build_record.write(paths, build_record.finished(paths, "published"))
    shutil.rmtree(paths.staging, ignore_errors=True)


def _replaced(staged: Path, published: Path, folder: str, patterns) -> tuple[list, list]:
    """The staged folder's files to publish, and the published ones the new report does not have."""
    new = sorted(f for p in patterns for f in (staged / folder).glob(p))
    names = {f.name for f in new}
    old = [f for p in patterns for f in (published / folder).glob(p) if f.name not in names]
    return [(f, published / folder / f.name) for f in new], old


def abandon_build(paths: ProjectPaths, cause: str, detail: dict | None = None) -> None:
    """A failed build (or a run stopped before it published): the published warehouse is kept, the
    staged one is moved to paths.failed_warehouse for a look at what failed (dropped instead on a
    full disk, where it holds the space needed), and the record says why."""
    if paths.staged_warehouse.exists() and not _disk_full(paths):
        with suppress(OSError):
            paths.failed_warehouse.parent.mkdir(exist_ok=True)
            os.replace(paths.staged_warehouse, paths.failed_warehouse)
            cause += f"; the failed build is kept in {paths.failed_warehouse.relative_to(paths.root)}"
    shutil.rmtree(paths.staging, ignore_errors=True)
    with suppress(OSError):  # a disk too full for the record: the message still says it
        build_record.write(paths, {**build_record.finished(paths, "failed", cause), **(detail or {})})


DISK_FULL = "the disk holding"


def failure_cause(paths: ProjectPaths, error: str) -> str:
    """One short line naming why a build failed: a full disk, or the first failing node's message."""
    if "No space left on device" in error or "ENOSPC" in error or _disk_full(paths):
        return f"{DISK_FULL} {paths.root} is full"
    return error.strip().splitlines()[0] if error.strip() else "dbt failed (see logs/dbt.log)"


def _disk_full(paths: ProjectPaths) -> bool:
    try:
        return shutil.disk_usage(paths.root).free < 1 << 20
    except OSError:
        return False


def dbt_unit_tests(paths: ProjectPaths) -> BuildSummary:
    """`dbt test` of the project's unit tests alone, on a built warehouse: dbt reads the columns
    of the relations their input rows stand in for, and writes nothing but temporary relations."""
    args = ["test", "--select", "test_type:unit", "--threads", "1"]
    return _run(paths, args, None, ())


def _run(
    paths: ProjectPaths,
    args: list[str],
    on_node: OnNode | None,
    created: tuple[str, ...],
    staged: bool = False,
    manifest=None,
) -> BuildSummary:
    events = BuildEvents(on_node=on_node)
    with warnings_to_log(dbt_log_file(paths)) as python_warnings:
        result = _invoke(paths, args, events, staged=staged, manifest=manifest)
    return events.summary(
        bool(result.success),
        dbt_log_file(paths),
        created,
        error=str(result.exception) if result.exception else None,
        python_warnings=python_warnings.n,
    )


def dbt_docs(paths: ProjectPaths, staged: bool = False, manifest=None) -> Path | None:
    """One offline HTML file (dbt docs generate --static) at target/static_index.html.

    --no-compile: after a build, the manifest dbt keeps in target/ already holds every node's
    compiled SQL; compiling all ~470 nodes again took 8x the rest of the docs step
    and gave the same page (it is only called after a build). `manifest`: the build's (dbt_parse's,
    compiled by the build), so dbt does not parse again."""
    result = _invoke(paths, ["docs", "generate", "--static", "--no-compile"], staged=staged, manifest=manifest)
    out = paths.root / "target" / "static_index.html"
    return out if result.success and out.exists() else None
