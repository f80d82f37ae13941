"""Which landing an output was built from, and whether it still is the landing in data/raw and one
the quality gate passed.

A landing is named by the SHA-256 of its manifest file: every ingest, simulate or infer rewrites
the manifest, so any new data give a new fingerprint. The gate records the fingerprint it checked
(data/raw/_quality.json); the dbt build records the fingerprint it read and the gate status of it
(int_study_provenance, macros/landing_status.sql computes both from the same bytes); outputs built
from the warehouse compare those with the current landing here and say what is wrong.
"""

from __future__ import annotations

import re
from pathlib import Path

from .landing import file_sha256
from .paths import ProjectPaths


def landing_fingerprint(paths: ProjectPaths) -> str | None:
    return file_sha256(paths.manifest) if paths.manifest.exists() else None


def gate_status(paths: ProjectPaths) -> str:
    """What the gate recorded for the landing in data/raw now: passed, failed, 'not checked' or
    'checked another landing'. Python twin of macros/landing_status.sql (parity: test_sql.py), for
    the CLI to say it before dbt starts."""
    import json

    verdict_file = paths.raw / "_quality.json"
    if not verdict_file.exists():
        return "not checked"
    verdict = json.loads(verdict_file.read_text(encoding="utf-8"))
    if verdict.get("landing_sha256") != landing_fingerprint(paths):
        return "checked another landing"
    return "passed" if verdict.get("passed") else "failed"


# gate_status() of the current landing, as said before a build of it.
LANDING_PROBLEMS = {
    "failed": "FAILED the quality gate",
    "not checked": "has NOT been checked by the quality gate",
    "checked another landing": "has NOT been checked by the quality gate (its verdict is for an earlier landing)",
}

GATE_PROBLEMS = {
    "failed": "the warehouse was built from a landing that FAILED the quality gate",
    "not checked": "the warehouse was built from a landing the quality gate never checked",
    "checked another landing": (
        "the warehouse was built from a landing the quality gate never checked "
        "(its recorded verdict was for an earlier landing)"
    ),
}


def staleness(built_from: str | None, gate_status: str | None, current: str | None) -> list[str]:
    """What is wrong with outputs built from landing `built_from` whose gate status at build time was
    `gate_status`, when data/raw now holds landing `current`. Empty when nothing is."""
    problems = []
    if built_from is None and gate_status is None:
        return [
            "the warehouse does not record which landing it was built from (built by an older "
            "version of rater1001); rebuild it with `rater1001 run`"
        ]
    if built_from != current:
        problems.append(
            f"the warehouse is STALE: it was built from landing {str(built_from)[:12]}, but "
            f"data/raw now holds landing {str(current)[:12]} (data landed since the build); "
            "run `rater1001 run` to check and rebuild"
        )
    if gate_status in GATE_PROBLEMS:
        problems.append(
            GATE_PROBLEMS[gate_status] + "; run `rater1001 check` (report/data_quality/index.html says why)"
        )
    return problems


def warehouse_problems(paths: ProjectPaths, provenance: dict) -> list[str]:
    """staleness() for a warehouse whose int_study_provenance row is `provenance`."""
    return staleness(provenance.get("landing_sha256"), provenance.get("gate_status"), landing_fingerprint(paths))


class WarehouseUnavailable(RuntimeError):
    """No complete warehouse to read: none built, one being written in place, or one a plain dbt
    build left half-done. The message says which and what to do."""


class WarehouseBusy(WarehouseUnavailable):
    """Another process has the warehouse file open for writing (DuckDB's file lock)."""


_LOCK_HOLDER = re.compile(r"PID (\d+)")


def connect(paths: ProjectPaths, path: Path | None = None, write: bool = False):
    """A DuckDB connection to the published warehouse (or `path`), read-only unless `write`, with a
    sentence instead of DuckDB's "Could not set lock on file" when another process writes it."""
    import duckdb

    path = path or paths.warehouse
    if not path.exists():
        raise WarehouseUnavailable(f"{path} does not exist; run `rater1001 run` (or `rater1001 build`) first")
    try:
        return duckdb.connect(str(path), read_only=not write)
    except duckdb.IOException as exc:
        if "lock" not in str(exc).lower():
            raise
        pid = _LOCK_HOLDER.search(str(exc))
        raise WarehouseBusy(
            f"{path} is open for writing by another process{f' (pid {pid.group(1)})' if pid else ''}: "
            "a plain `dbt build` or `rater1001 sql --write` (`rater1001 build` and `run` write a copy "
            "and leave this file readable). Try again when it has finished."
        ) from None


def read_provenance(paths: ProjectPaths, path: Path | None = None) -> dict | None:
    """The warehouse's int_study_provenance row ({} when the table is absent, None when there is no
    warehouse), with the build marker's columns (macros/build_marker.sql) as build_*."""
    import duckdb

    if not (path or paths.warehouse).exists():
        return None
    con = connect(paths, path)
    try:
        try:
            frame = con.execute("select * from int_study_provenance").df()
        except duckdb.CatalogException:
            return {}
        row = frame.iloc[0].to_dict() if len(frame) else {}
        try:
            marker = con.execute("select * from rater1001_build").df()
        except duckdb.CatalogException:
            return row
        if len(marker):
            row.update({f"build_{k}": v for k, v in marker.iloc[0].to_dict().items()})
        return row
    finally:
        con.close()


def require_complete(paths: ProjectPaths, provenance: dict | None) -> None:
    """Refuse a warehouse a build wrote in place and did not finish (a plain `dbt build` that was
    killed or had a failing node): its tables may come from two landings."""
    if provenance and "build_complete" in provenance and not bool(provenance["build_complete"]):
        raise WarehouseUnavailable(
            f"{paths.warehouse} is incomplete: a `dbt {provenance.get('build_command', 'build')}` started "
            f"{provenance.get('build_started_at')} wrote it in place and did not finish "
            f"({provenance.get('build_failed_nodes') or 'it was stopped'}), so its tables may mix two builds; "
            "run `rater1001 build` (or a plain `dbt build` to the end)"
        )


def built_from(provenance: dict) -> str:
    """One line naming the landing a warehouse was built from and its gate status then."""
    sha = provenance.get("landing_sha256")
    return (
        f"built from landing {str(sha)[:12] if sha else 'unknown'} "
        f"(quality gate at build time: {provenance.get('gate_status') or 'unknown'})"
    )


def label(paths: ProjectPaths, provenance: dict) -> str:
    """built_from(), and whether data/raw still holds that landing."""
    sha, current = provenance.get("landing_sha256"), landing_fingerprint(paths)
    since = (
        "the landing in data/raw is unchanged since"
        if sha and sha == current
        else f"data/raw now holds landing {str(current)[:12]}"
    )
    return f"warehouse {built_from(provenance)}; {since}"


def built_warehouse_problems(paths: ProjectPaths) -> list[str]:
    """warehouse_problems() of the warehouse at paths; empty when there is no warehouse (callers
    say that in their own words)."""
    provenance = read_provenance(paths)
    return [] if provenance is None else warehouse_problems(paths, provenance)
