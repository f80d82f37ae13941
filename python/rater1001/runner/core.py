"""Running many calls: ledger first, then a bounded, retried call, then the ledger again.

A *unit* of work (one image for one condition, one pair for a judge) may make several dependent
calls; each call goes through `Runner.call`, which returns the ledger's answer if the call's key
already finished, so a resumed run redoes only calls that were in flight when it was stopped.
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, TypeVar

from .errors import CallError, CallFailed, NotInLedger
from .ledger import Ledger
from .progress import Progress
from .retry import RetryPolicy, call_with_retry

U = TypeVar("U")
R = TypeVar("R")


@dataclass(frozen=True)
class CallSpec:
    key: str  # runner.keys.call_key of the call's determinants
    group: str  # concurrency group (provider / server)
    meta: dict[str, Any] = field(default_factory=dict)  # stored for people and compaction


@dataclass
class RunStats:
    calls_made: int = 0
    calls_cached: int = 0
    calls_failed: int = 0
    retries: int = 0
    units_done: int = 0
    units_failed: int = 0


class Runner:
    def __init__(
        self,
        ledger: Ledger,
        limits: dict[str, int] | None = None,
        policy: RetryPolicy = RetryPolicy(),
        *,
        default_limit: int = 4,
        offline: bool = False,
        progress: Progress | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.ledger = ledger
        self.limits = dict(limits or {})
        self.default_limit = default_limit
        self.policy = policy
        self.offline = offline
        self.progress = progress or Progress(total=0, enabled=False)
        self.stats = RunStats()
        self._sleep = sleep
        self._semaphores: dict[str, threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()

    def _semaphore(self, group: str) -> threading.BoundedSemaphore:
        with self._lock:
            if group not in self._semaphores:
                self._semaphores[group] = threading.BoundedSemaphore(self.limits.get(group, self.default_limit))
            return self._semaphores[group]

    def _count(self, attr: str, n: int = 1) -> None:
        with self._lock:
            setattr(self.stats, attr, getattr(self.stats, attr) + n)

    def call(self, spec: CallSpec, fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """The call's result (a JSON-able dict), from the ledger if it already finished."""
        done = self.ledger.get_ok(spec.key)
        if done is not None:
            self._count("calls_cached")
            return done["result"]
        if self.offline:
            raise NotInLedger(spec.key)

        with self._semaphore(spec.group):
            started = time.perf_counter()
            try:
                result, attempts = call_with_retry(fn, self.policy, on_retry=self._on_retry, sleep=self._tracked_sleep)
            except CallError as exc:
                attempts = getattr(exc, "attempts", 1)
                self.ledger.append({"key": spec.key, "status": "failed", "meta": spec.meta,
                                    "error": {"kind": exc.kind, "status": exc.status, "message": str(exc)},
                                    "attempts": attempts})
                self._count("calls_failed")
                self.progress.failed_call()
                raise CallFailed(spec.key, exc, attempts) from None
            wall_ms = (time.perf_counter() - started) * 1000.0
        self.ledger.append({"key": spec.key, "status": "ok", "meta": spec.meta, "result": result,
                            "attempts": attempts, "wall_ms": wall_ms})
        self._count("calls_made")
        return result

    def _on_retry(self, exc: CallError, wait: float, attempt: int) -> None:
        self._count("retries")

    def _tracked_sleep(self, seconds: float) -> None:
        # Shown as "retrying" in the progress bar for as long as the backoff lasts.
        self.progress.retrying(+1)
        try:
            self._sleep(seconds)
        finally:
            self.progress.retrying(-1)

    def run_units(
        self,
        units: Iterable[U],
        work: Callable[[U, "Runner"], R],
        *,
        workers: int | None = None,
    ) -> list[tuple[U, R | None, BaseException | None]]:
        """Run work(unit, runner) for every unit on a thread pool; the per-group semaphores bound
        the calls in flight. Returns (unit, result, error) per unit; a unit whose call failed has
        error=CallFailed and is retried on the next run."""
        units = list(units)
        n_workers = workers or max(1, sum(self.limits.values()) or self.default_limit)
        out: list[tuple[U, R | None, BaseException | None]] = []
        pool = ThreadPoolExecutor(max_workers=n_workers, thread_name_prefix="runner")
        try:
            futures = {pool.submit(work, u, self): u for u in units}
            for fut in as_completed(futures):
                unit = futures[fut]
                try:
                    res = fut.result()
                except (CallFailed, NotInLedger) as exc:
                    self._count("units_failed")
                    self.progress.unit_done(ok=False)
                    out.append((unit, None, exc))
                else:
                    self._count("units_done")
                    self.progress.unit_done(ok=True)
                    out.append((unit, res, None))
        except BaseException:
            # Ctrl-C: stop handing out new units; finished calls are already in the ledger.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return out
