"""What can go wrong with one call, in the words the retry loop needs.

Backends translate their SDK's exceptions into these; the runner never sees an SDK type. The
message is built by the backend from status code and a short excerpt, never from request headers,
so a key cannot leak through an exception."""

from __future__ import annotations


class CallError(Exception):
    """One attempt failed. `kind` is a short machine word (rate_limit, server, timeout, connection,
    bad_request, auth, not_found, truncated, ...)."""

    retryable = False

    def __init__(self, kind: str, message: str, *, status: int | None = None, retry_after: float | None = None):
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.status = status
        self.retry_after = retry_after


class RetryableCallError(CallError):
    """Rate limits (429), server errors (5xx), timeouts, dropped connections, truncated bodies."""

    retryable = True


class FatalCallError(CallError):
    """Bad requests (400), authentication, unknown model: retrying cannot help."""


class CallFailed(Exception):
    """A call gave up (fatal error or retries exhausted). It is recorded in the ledger as failed
    and retried on the next run; it is never stored as an answer."""

    def __init__(self, key: str, error: CallError, attempts: int):
        super().__init__(f"call {key[:12]} failed after {attempts} attempt(s): {error}")
        self.key = key
        self.error = error
        self.attempts = attempts


class NotInLedger(Exception):
    """Offline (compaction) mode asked for a call the ledger has no answer for."""

    def __init__(self, key: str):
        super().__init__(f"no finished call with key {key[:12]} in the ledger")
        self.key = key


class RunStopped(Exception):
    """The run is stopping (Ctrl-C): no new call is started and no backoff is waited out."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run, after waiting (briefly) for the calls that were in flight.
    `in_flight` calls were running; `recorded` of them finished and are in the ledger (answers or
    failures); `abandoned` were still running when the wait ended; `stopped` were waiting to retry
    and were not retried. The last two are redone by the next run."""

    def __init__(self, in_flight: int, recorded: int, abandoned: int, waited_s: float):
        self.in_flight, self.recorded, self.abandoned, self.waited_s = in_flight, recorded, abandoned, waited_s
        self.stopped = max(0, in_flight - recorded - abandoned)
        super().__init__(
            f"interrupted with {in_flight} call(s) in flight: {recorded} finished and recorded, "
            f"{abandoned} abandoned, {self.stopped} stopped before a retry"
        )
