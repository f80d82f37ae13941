"""Running many calls: ledger first, then a bounded, retried call, then the ledger again.

A *unit* of work (one image for one condition, one pair for a judge) may make several dependent
calls; each call goes through `Runner.call`, which returns the ledger's answer if the call's key
already finished, so a resumed run redoes only calls that were in flight when it was stopped.

Whatever a call raises becomes a failed call of that unit (an SDK surprise included), so one odd
response never ends a run. On Ctrl-C no new call starts and the calls in flight are waited for
(up to `drain_s`) so that what the provider finished, and billed, reaches the ledger before it is
closed; `Interrupted` says how many were recorded and how many abandoned.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .errors import CallError, CallFailed, FatalCallError, Interrupted, NotInLedger, RunStopped
from .ledger import Ledger, LedgerWriteError
from .progress import Progress
from .retry import RetryPolicy, call_with_retry

U = TypeVar("U")
R = TypeVar("R")
T = TypeVar("T")

log = logging.getLogger(__name__)

# How long Ctrl-C waits for calls in flight: long enough for a normal call to come back, short
# enough to feel like an answer to Ctrl-C. A second Ctrl-C stops the wait at once.
DRAIN_S = 30.0


@dataclass(frozen=True)
class CallSpec:
    key: str  # runner.keys.call_key of the call's determinants
    group: str  # concurrency group (provider / server)
    meta: dict[str, Any] = field(default_factory=dict)  # stored for people and compaction
    # What the prompt was made of (template id, variables, stimulus id, image digest), kept on the
    # call's final ledger line so a reader can see what was asked without the bytes that were sent.
    inputs: dict[str, Any] = field(default_factory=dict)


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
        sleep: Callable[[float], None] | None = None,
        drain_s: float = DRAIN_S,
        on_drain: Callable[[int, float], None] | None = None,
    ):
        """on_drain(calls in flight, seconds it will wait) is called when Ctrl-C starts the wait
        for calls in flight, so the command can say why it has not stopped yet."""
        self.ledger = ledger
        self.limits = dict(limits or {})
        self.default_limit = default_limit
        self.policy = policy
        self.offline = offline
        self.progress = progress or Progress(total=0, enabled=False)
        self.stats = RunStats()
        self._stopping = threading.Event()
        # Backoffs wait on the stop event, so Ctrl-C ends a wait (a Retry-After: 60) at once.
        self._sleep = sleep or self._stopping.wait
        self._semaphores: dict[str, threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()
        self.drain_s = drain_s
        self._on_drain = on_drain
        self._in_flight = 0

    def _semaphore(self, group: str) -> threading.BoundedSemaphore:
        with self._lock:
            if group not in self._semaphores:
                self._semaphores[group] = threading.BoundedSemaphore(self.limits.get(group, self.default_limit))
            return self._semaphores[group]

    def _count(self, attr: str, n: int = 1) -> None:
        with self._lock:
            setattr(self.stats, attr, getattr(self.stats, attr) + n)

    def _flight(self, n: int) -> None:
        with self._lock:
            self._in_flight += n

    def call(self, spec: CallSpec, fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """The call's result (a JSON-able dict), from the ledger if it already finished."""
        done = self.ledger.get_ok(spec.key)
        if done is not None:
            self._count("calls_cached")
            return done["result"]
        if self.offline:
            raise NotInLedger(spec.key)

        with self._semaphore(spec.group):
            if self._stopping.is_set():
                raise RunStopped(spec.key)
            self._flight(+1)
            try:
                return self._call_and_record(spec, fn)
            finally:
                self._flight(-1)

    def _call_and_record(self, spec: CallSpec, fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        started = time.perf_counter()
        try:
            result, attempts = call_with_retry(
                lambda: _guarded(fn),
                self.policy,
                on_retry=functools.partial(self._on_retry, spec),
                sleep=self._tracked_sleep,
            )
        except CallError as exc:
            attempts = getattr(exc, "attempts", 1)
            self.ledger.append(
                {
                    "key": spec.key,
                    "status": "failed",
                    "meta": spec.meta,
                    **_inputs(spec),
                    "error": _error(exc),
                    "attempts": attempts,
                }
            )
            self._count("calls_failed")
            self.progress.failed_call()
            log.info(
                "call %s %s failed after %d attempt(s): %s",
                spec.key[:12],
                spec.meta,
                attempts,
                self.ledger.secrets.scrub(str(exc)),
            )
            raise CallFailed(spec.key, exc, attempts) from None
        wall_ms = (time.perf_counter() - started) * 1000.0
        self.ledger.append(
            {
                "key": spec.key,
                "status": "ok",
                "meta": spec.meta,
                **_inputs(spec),
                "result": result,
                "attempts": attempts,
                "wall_ms": wall_ms,
            }
        )
        self._count("calls_made")
        return result

    def _on_retry(self, spec: CallSpec, exc: CallError, wait: float, attempt: int) -> None:
        # Written before the backoff starts, so a run killed while waiting still shows why it waited.
        self.ledger.append(
            {
                "key": spec.key,
                "status": "retry",
                "meta": spec.meta,
                "attempt": attempt,
                "error": _error(exc),
                "wait_s": wait,
            }
        )
        self._count("retries")
        log.info(
            "call %s %s attempt %d failed (%s): retrying in %.1f s",
            spec.key[:12],
            spec.meta,
            attempt,
            self.ledger.secrets.scrub(str(exc)),
            wait,
        )

    def _tracked_sleep(self, seconds: float) -> None:
        # Shown as "retrying" in the progress bar for as long as the backoff lasts.
        if self._stopping.is_set():
            raise RunStopped("backoff")
        self.progress.retrying(+1)
        try:
            self._sleep(seconds)
        finally:
            self.progress.retrying(-1)
        if self._stopping.is_set():
            raise RunStopped("backoff")

    def run_units(
        self,
        units: Iterable[U],
        work: Callable[[U, Runner], R],
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
                except LedgerWriteError:
                    raise  # nothing more can be recorded: stop (below) rather than pay for lost calls
                except Exception as exc:  # noqa: BLE001 - a unit's failure is its own, the run goes on
                    self._count("units_failed")
                    self.progress.unit_done(ok=False)
                    out.append((unit, None, exc))
                else:
                    self._count("units_done")
                    self.progress.unit_done(ok=True)
                    out.append((unit, res, None))
        except BaseException as exc:
            # Ctrl-C (or a failure of the loop itself): stop handing out units and calls, and let
            # the calls in flight land in the ledger before the caller closes it.
            self._stopping.set()
            pool.shutdown(wait=False, cancel_futures=True)
            report = self._drain()
            if isinstance(exc, KeyboardInterrupt) and not isinstance(exc, Interrupted):
                raise report from exc
            raise
        pool.shutdown(wait=True)
        return out

    def run_and_land(self, units: Iterable[U], work: Callable[[U, Runner], R], land: Callable[[], T]) -> T:
        """run_units, then land(): also after Ctrl-C or a failure, so what finished is landed. When
        landing fails too (a full disk fails both), the run's own error is raised, with a note."""
        try:
            self.run_units(units, work)
        except BaseException as exc:
            self.progress.close()
            try:
                land()
            except Exception as land_exc:  # noqa: BLE001 - reported on the error that matters
                exc.add_note(f"landing the finished calls failed too: {land_exc}")
            raise
        self.progress.close()
        return land()

    def _drain(self) -> Interrupted:
        with self._lock:
            in_flight = self._in_flight
            finished_before = self.stats.calls_made + self.stats.calls_failed
        started = time.monotonic()
        try:
            if in_flight and self._on_drain is not None:
                self._on_drain(in_flight, self.drain_s)
            while self._in_flight and time.monotonic() - started < self.drain_s:
                time.sleep(0.02)
        except KeyboardInterrupt:
            pass  # a second Ctrl-C: stop waiting
        with self._lock:
            recorded = self.stats.calls_made + self.stats.calls_failed - finished_before
            return Interrupted(in_flight, recorded, self._in_flight, time.monotonic() - started)


def _error(exc: CallError) -> dict[str, Any]:
    return {"kind": exc.kind, "status": exc.status, "message": str(exc)}


def _inputs(spec: CallSpec) -> dict[str, Any]:
    return {"inputs": spec.inputs} if spec.inputs else {}


def _guarded(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A backend is meant to raise only CallErrors; anything else it lets through (an SDK that
    chokes on a response shape nobody foresaw) is a failed call of this unit, not a crash of the run."""
    try:
        return fn()
    except CallError:
        raise
    except Exception as exc:  # noqa: BLE001 - turned into a recorded failure
        raise FatalCallError("unexpected", f"{type(exc).__name__}: {str(exc)[:300]}") from exc
