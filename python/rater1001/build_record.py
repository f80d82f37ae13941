"""What the last build did, kept beside the warehouse (warehouse/last_build.json).

A build stages a new warehouse and publishes it only when every node passed (warehouse.py), so the
published warehouse is always a complete one. This record says what happened since: a build
running now, one that was killed (its record still says running, and no process holds the project
lock), or one that failed and why. Readers (`summary`, `sql`, `report`) print it under their
answer, which still comes from the published warehouse.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from .freshness import landing_fingerprint
from .paths import ProjectPaths


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def started(paths: ProjectPaths, select: str | None) -> dict:
    return {
        "status": "running",
        "pid": os.getpid(),
        "started_at": _now(),
        "landing_sha256": landing_fingerprint(paths),
        "select": select,
    }


def finished(paths: ProjectPaths, status: str, cause: str | None = None) -> dict:
    return {**(read(paths) or {}), "status": status, "finished_at": _now(), "cause": cause}


def write(paths: ProjectPaths, record: dict) -> None:
    """Written whole, then renamed: a reader sees the old record or the new one."""
    target = paths.build_record
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(record, fh)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide it from other readers of the folder
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read(paths: ProjectPaths) -> dict | None:
    try:
        return json.loads(paths.build_record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _running(record: dict) -> bool:
    """The recording process is alive and still holds the project lock (a killed one holds nothing)."""
    from .lock import lock_held

    pid = record.get("pid")
    if not isinstance(pid, int) or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return lock_held(Path(record.get("root", "")))


def notes(paths: ProjectPaths) -> list[str]:
    """What a reader says about builds after the published one; empty when the last one published."""
    record = read(paths)
    if not record or record.get("status") == "published":
        return []
    landing = str(record.get("landing_sha256") or "unknown")[:12]
    what = f"a build of landing {landing} started {record.get('started_at', '?')}"
    kept = "this answer is from the last complete build"
    if record.get("status") == "running":
        if _running({**record, "root": str(paths.root)}):
            return [f"{what} is running (pid {record['pid']}); {kept}"]
        return [f"{what} did not finish (it was killed); {kept}"]
    return [f"{what} FAILED ({record.get('cause') or 'see logs/dbt.log'}); {kept}"]
