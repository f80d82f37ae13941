"""One function run in a forked child process while the caller goes on: `rater1001 run` checks the
landing (the quality gate) while dbt parses the project, on two cores and in two interpreters, since
both are mostly Python (docs/performance.md, "Stages beside each other").

Linux only (elsewhere, or when a test asks, the function runs in the caller, at once): forking a
process that has loaded system frameworks is unsafe on macOS, and the child must die with its
parent (the kernel's parent-death signal), so that a killed run leaves no gate writing into the
project folder behind it."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import traceback

PR_SET_PDEATHSIG = 1  # linux/prctl.h


class ChildTraceback(Exception):
    """The child's traceback of an exception re-raised in the parent (its __cause__)."""


class ChildDied(RuntimeError):
    """The child ended without an answer (killed, or out of memory)."""


def _die_with_parent(parent: int) -> None:
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(1)


def _serve(conn, parent: int, fn, args, kwargs) -> None:
    _die_with_parent(parent)
    try:
        answer = ("ok", fn(*args, **kwargs), "")
    except BaseException as exc:  # a KeyboardInterrupt too: the parent decides what it means
        answer = ("raised", exc, traceback.format_exc())
    try:
        conn.send(answer)
    except (pickle.PicklingError, TypeError, AttributeError):  # an answer that cannot travel: said
        kind = "result" if answer[0] == "ok" else "exception"
        conn.send(("raised", RuntimeError(f"the child's {kind} could not be sent: {answer[1]!r}"), answer[2]))
    conn.close()


class Forked:
    """`Forked(fn, *args, **kwargs)` starts fn in a child; `result()` is its return value or raises
    its exception (the child's traceback as __cause__), or ChildDied naming `what` when the child
    ended without answering. Used as a context manager, a child not yet
    asked for its result when the block ends (the caller failed) is killed."""

    def __init__(self, fn, *args, inline: bool = False, what: str = "the child process", **kwargs):
        self._proc, self.what = None, what
        if inline or not sys.platform.startswith("linux"):
            self._call = (fn, args, kwargs)
            return
        ctx = multiprocessing.get_context("fork")
        self._conn, child = ctx.Pipe(duplex=False)
        # what the parent has buffered would otherwise be written a second time by the child
        sys.stdout.flush()
        sys.stderr.flush()
        self._proc = ctx.Process(target=_serve, args=(child, os.getpid(), fn, args, kwargs), daemon=True)
        self._proc.start()
        child.close()

    def result(self):
        if self._proc is None:
            fn, args, kwargs = self._call
            return fn(*args, **kwargs)
        try:
            status, value, trace = self._conn.recv()
        except EOFError:
            self._proc.join()
            code = self._proc.exitcode
            how = f"was killed by {signal.Signals(-code).name}" if code is not None and code < 0 else f"exited {code}"
            raise ChildDied(f"{self.what} (process {self._proc.pid}) {how} before it answered") from None
        finally:
            self._conn.close()
        self._proc.join()
        if status == "ok":
            return value
        raise value from ChildTraceback(trace)

    def kill(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            self._proc.kill()
            self._proc.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.kill()
