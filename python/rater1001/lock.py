"""One writer at a time per project folder.

Every command that writes into a project folder (ingest, simulate, check, build, run, demo, report,
infer, judge) holds an OS file lock on `<project>/.rater1001.lock` while it runs. Without it two
writers interleave their read-modify-write of the manifest (one update lost), two `infer`s pay for
the same calls, and a second `run` dies inside DuckDB's own lock. A second writer waits up to a
bounded time, then stops with a message naming the holder. The kernel drops the lock when its
holder dies, so a killed command never leaves the folder locked.

The lock is re-entrant within a process (the CLI takes it, and `ingest_file` takes it again when
called as a library). Whoever takes it first also finishes an interrupted landing commit and clears
temporary files left by a killed writer (`landing.recover`).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock, Timeout

from .landing import recover
from .paths import ProjectPaths

LOCK_NAME = ".rater1001.lock"
HOLDER_NAME = ".rater1001.lock.json"  # who holds the lock, for the waiting writer's message
DEFAULT_WAIT_S = 30.0

_registry: dict[Path, FileLock] = {}
_registry_guard = threading.Lock()


class ProjectBusy(Exception):
    """Another writer held the project folder for longer than we were willing to wait."""


class ProjectLockError(Exception):
    """The lock file cannot be created (read-only folder, no such folder, disk full)."""


def _lock_for(root: Path) -> FileLock:
    # One FileLock object per folder per process: re-entrancy is counted on the object, and a second
    # object would ask the kernel again and wait on ourselves.
    with _registry_guard:
        lock = _registry.get(root)
        if lock is None:
            lock = _registry[root] = FileLock(root / LOCK_NAME, preserve_lock_file=True)
        return lock


def holder(paths: ProjectPaths) -> str:
    """A description of who holds the lock, as its holder wrote it (may be stale once released)."""
    try:
        info = json.loads((paths.root / HOLDER_NAME).read_text(encoding="utf-8"))
        return f"pid {info['pid']}, `rater1001 {info['command']}`, since {info['since']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "another rater1001 process"


@contextmanager
def project_lock(paths: ProjectPaths, command: str = "", wait_s: float = DEFAULT_WAIT_S) -> Iterator[None]:
    """Hold the project folder's writer lock; wait at most wait_s seconds for another writer."""
    root = paths.root
    if wait_s < 0:
        raise ValueError(f"the lock wait must be >= 0 seconds, got {wait_s}")
    lock = _lock_for(root)
    try:
        root.mkdir(parents=True, exist_ok=True)
        lock.acquire(timeout=wait_s)
    except Timeout:
        raise ProjectBusy(
            f"{root}: another command is writing to this project folder ({holder(paths)}); waited "
            f"{wait_s:g} s. Run this command again when it has finished, or give it longer with --wait SECONDS."
        ) from None
    except OSError as exc:
        raise ProjectLockError(
            f"{root}: cannot take the project lock {root / LOCK_NAME}: {exc.strerror or exc}. "
            "Commands that write need a writable project folder."
        ) from None
    try:
        if lock.lock_counter == 1:
            _write_holder(paths, command)
            recover(paths)
        yield
    finally:
        lock.release()


def _write_holder(paths: ProjectPaths, command: str) -> None:
    info = {"pid": os.getpid(), "command": command or "?", "since": datetime.now(UTC).isoformat(timespec="seconds")}
    try:
        (paths.root / HOLDER_NAME).write_text(json.dumps(info), encoding="utf-8")
    except OSError:
        pass  # only feeds a message; the lock itself is what protects the folder


def lock_held(root: Path) -> bool:
    """Whether some process holds the project lock of `root` now (asked without taking it for longer
    than the question: a writer that tries meanwhile retries, as it does while waiting)."""
    import fcntl

    try:
        fd = os.open(root / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)
