"""What an in-process dbt run did, gathered from its structured events instead of its console text.

dbt runs with console logging off (the full log goes to logs/dbt.log); a `BuildEvents` callback
counts the nodes as they finish, reports each one to an optional `on_node(done, total, name)`
(the CLI's progress bar) and keeps the failures, so the caller can print one summary line per
stage and the failing nodes with their messages.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

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

    def __bool__(self) -> bool:
        return self.success

    def summary(self, stage: str = "dbt build", max_failures: int = 10) -> str:
        head = (f"{stage}: {'ok' if self.success else 'FAILED'}, {self.total} nodes in {self.seconds:.0f} s: "
                f"{self.passed} passed, {self.warned} warnings, {self.failed} errors, {self.skipped} skipped "
                f"(full log: {self.log_file})")
        lines = [head]
        if self.empty_tables:
            lines.append(f"  not landed, built as empty tables: {', '.join(self.empty_tables)}")
        for f in self.failures[:max_failures]:
            lines.append(f"  {f.status}: {f.node}: {f.message}")
        if len(self.failures) > max_failures:
            lines.append(f"  ... and {len(self.failures) - max_failures} more (see the log)")
        return "\n".join(lines)


@dataclass
class BuildEvents:
    """dbtRunner callback. dbt calls it from its worker threads, hence the lock."""

    on_node: OnNode | None = None
    total: int = 0
    done: int = 0
    statuses: dict[str, str] = field(default_factory=dict)
    messages: dict[str, str] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, event) -> None:
        name = event.info.name
        if name not in ("LogStartLine", "NodeFinished", "LogSkipBecauseError"):
            return
        data = event.data
        with self._lock:
            if name == "LogStartLine":
                self.total = max(self.total, int(data.total))
                return
            node = data.node_info.unique_id
            if not node or node in self.statuses:
                return
            if name == "NodeFinished":
                status = (data.run_result.status or data.node_info.node_status or "").lower()
                self.messages[node] = (data.run_result.message or "").strip()
            else:
                status = "skipped"
                self.total = max(self.total, int(data.total))
            self.statuses[node] = status
            self.done += 1
            done, total = self.done, max(self.total, self.done)
        if self.on_node is not None:
            self.on_node(done, total, node.split(".")[-1])

    def summary(self, success: bool, log_file: Path, empty_tables: tuple[str, ...] = (),
                error: str | None = None) -> BuildSummary:
        """error: what stopped dbt before or outside the nodes (a parse or compile error)."""
        statuses = list(self.statuses.values())
        failures = tuple(
            NodeFailure(_short(node), status, _first_line(self.messages.get(node, "")))
            for node, status in sorted(self.statuses.items()) if status in FAILED
        )
        if error:
            failures = (NodeFailure("dbt", "error", _first_line(error)), *failures)
        failed = sum(s in FAILED for s in statuses)
        warned = sum(s in WARNED for s in statuses)
        skipped = sum(s in SKIPPED for s in statuses)
        return BuildSummary(
            success=success, total=len(statuses), passed=len(statuses) - failed - warned - skipped,
            warned=warned, failed=failed, skipped=skipped, seconds=time.monotonic() - self.started,
            log_file=log_file, failures=failures, empty_tables=empty_tables,
        )


def _short(unique_id: str) -> str:
    parts = unique_id.split(".")
    return ".".join([parts[0], *parts[2:]]) if len(parts) > 2 else unique_id


def _first_line(message: str) -> str:
    line = next((l.strip() for l in message.splitlines() if l.strip()), "")
    return line if len(line) <= 200 else line[:197] + "..."
