"""What an in-process dbt run did, gathered from its structured events instead of its console text.

dbt runs with console logging off (the full log goes to logs/dbt.log); a `BuildEvents` callback
counts the nodes as they finish, reports each one to an optional `on_node(done, total, name)`
(the CLI's progress bar) and keeps the failures, so the caller can print one summary line per
stage and the failing nodes with their messages.
"""

from __future__ import annotations

import logging
import threading
import time
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

OnNode = Callable[[int, int, str], None]

# Node statuses dbt reports (run results): which count as failures, which as warnings.
FAILED = frozenset({"error", "fail", "runtime error"})
WARNED = frozenset({"warn"})
SKIPPED = frozenset({"skipped"})


@dataclass(frozen=True)
class NodeFailure:
    node: str  # dbt unique_id without the project prefix, e.g. model.stg_stimuli
    status: str
    message: str


@dataclass(frozen=True)
class BuildSummary:
    """Truthy when dbt succeeded, so `if not dbt_build(paths)` keeps working."""

    success: bool
    total: int
    passed: int
    warned: int
    failed: int
    skipped: int
    seconds: float
    log_file: Path
    failures: tuple[NodeFailure, ...] = ()
    empty_tables: tuple[str, ...] = ()
    python_warnings: int = 0  # warnings raised by Python models, written to the log, not the console
    skipped_models: tuple[str, ...] = ()  # models dbt did not build because one upstream failed

    def record(self) -> dict:
        """What a report needs to know of this build (warehouse/_build.json): whether it failed,
        which models failed and why, and which were skipped, so no failure hides."""
        return {
            "success": self.success,
            "failures": [{"node": f.node, "status": f.status, "message": f.message} for f in self.failures],
            "skipped_models": list(self.skipped_models),
        }

    def __bool__(self) -> bool:
        return self.success

    def summary(self, stage: str = "dbt build", max_failures: int = 10) -> str:
        head = (
            f"{stage}: {'ok' if self.success else 'FAILED'}, {self.total} nodes in {self.seconds:.0f} s: "
            f"{self.passed} passed, {self.warned} warnings, {self.failed} errors, {self.skipped} skipped "
            f"(full log: {self.log_file})"
        )
        lines = [head]
        if self.empty_tables:
            lines.append(f"  not landed, built as empty tables: {', '.join(self.empty_tables)}")
        if self.python_warnings:
            lines.append(f"  {self.python_warnings} Python warning(s) from the models, in the log")
        for f in self.failures[:max_failures]:
            lines.append(f"  {f.status}: {f.node}: {f.message}")
        if len(self.failures) > max_failures:
            lines.append(f"  ... and {len(self.failures) - max_failures} more (see the log)")
        return "\n".join(lines)


@dataclass
class BuildEvents:
    """dbtRunner callback. dbt calls it from its worker threads, hence the lock."""

    # The only events it reads. NodeFinished reports every node, a skipped one too (status
    # "skipped"); dbt's LogSkipBecauseError, fired besides it for a skip an ephemeral model caused,
    # names no node.
    READS: ClassVar[frozenset[str]] = frozenset({"LogStartLine", "NodeFinished"})
    on_node: OnNode | None = None
    total: int = 0
    done: int = 0
    statuses: dict[str, str] = field(default_factory=dict)
    messages: dict[str, str] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, event) -> None:
        name = event.info.name
        if name not in self.READS:
            return
        data = event.data
        with self._lock:
            if name == "LogStartLine":
                self.total = max(self.total, int(data.total))
                return
            node = data.node_info.unique_id
            if not node or node in self.statuses:
                return
            self.statuses[node] = (data.run_result.status or data.node_info.node_status or "").lower()
            self.messages[node] = (data.run_result.message or "").strip()
            self.done += 1
            done, total = self.done, max(self.total, self.done)
        if self.on_node is not None:
            self.on_node(done, total, node.split(".")[2] if node.count(".") >= 2 else node)  # type.project.name[.hash]

    def summary(
        self,
        success: bool,
        log_file: Path,
        empty_tables: tuple[str, ...] = (),
        error: str | None = None,
        python_warnings: int = 0,
    ) -> BuildSummary:
        """error: what stopped dbt before or outside the nodes (a parse or compile error)."""
        statuses = list(self.statuses.values())
        failures = tuple(
            NodeFailure(_short(node), status, _first_line(self.messages.get(node, "")))
            for node, status in sorted(self.statuses.items())
            if status in FAILED
        )
        if error:
            failures = (NodeFailure("dbt", "error", _first_line(error)), *failures)
        failed = sum(s in FAILED for s in statuses)
        warned = sum(s in WARNED for s in statuses)
        skipped = sum(s in SKIPPED for s in statuses)
        return BuildSummary(
            success=success,
            total=len(statuses),
            passed=len(statuses) - failed - warned - skipped,
            warned=warned,
            failed=failed,
            skipped=skipped,
            seconds=time.monotonic() - self.started,
            log_file=log_file,
            failures=failures,
            empty_tables=empty_tables,
            python_warnings=python_warnings,
            skipped_models=tuple(
                _short(node)
                for node, status in sorted(self.statuses.items())
                if status in SKIPPED and node.startswith("model.")
            ),
        )


class _Count(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.n = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.n += 1


@contextmanager
def warnings_to_log(log_file: Path):
    """During a build, a Python warning that a model did not handle goes to the log file and is
    counted (the summary says how many) instead of printing on the console. Warnings that a
    degenerate slice would raise are decided where they arise (e.g. stats.classification's kappa);
    this is the net under them. Yields the counter (`.n`)."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    logger = logging.getLogger("py.warnings")
    to_file = logging.FileHandler(log_file, encoding="utf-8")
    to_file.setFormatter(logging.Formatter("%(asctime)s [python warning] %(message)s"))
    count = _Count()
    # dbt configures logging in-process (levels, disabled loggers): set what this needs, then restore
    saved = (warnings.showwarning, logger.propagate, logger.handlers[:], logger.level, logger.disabled)

    def to_logger(message, category, filename, lineno, file=None, line=None):
        logger.warning("%s", warnings.formatwarning(message, category, filename, lineno, line))

    # the same route as logging.captureWarnings, which dbt may already have switched on
    warnings.showwarning = to_logger
    logger.handlers[:] = [to_file, count]
    logger.propagate, logger.disabled = False, False
    logger.setLevel(logging.WARNING)
    try:
        yield count
    finally:
        warnings.showwarning = saved[0]
        logger.propagate, logger.handlers[:], logger.disabled = saved[1], saved[2], saved[4]
        logger.setLevel(saved[3])
        to_file.close()


def _short(unique_id: str) -> str:
    parts = unique_id.split(".")
    return ".".join([parts[0], *parts[2:]]) if len(parts) > 2 else unique_id


def _first_line(message: str) -> str:
    """The message's first line; for a Python model's error (dbt's first line only names the
    model) its last line too, which is the exception itself."""
    lines = [l.strip() for l in message.splitlines() if l.strip()]
    line = lines[0] if lines else ""
    if len(lines) > 1 and line.lower().startswith(("runtime error", "python model")):
        line = f"{line}: {lines[-1]}"
    return line if len(line) <= 200 else line[:197] + "..."
