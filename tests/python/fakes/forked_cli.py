"""`rater1001 ARGS` in processes forked from one helper that has already imported the CLI.

A test that starts the same command many times (the SIGKILL test kills ten ingests at random
points) paid the interpreter's start-up and ~0.4 s of imports (pandas, pyarrow, duckdb) for every
process. The helper is a fresh interpreter that imports them once, starts no thread of its own and
forks one child per command. The child is a real process that runs `cli.main` as
`python -m rater1001.cli` would, with its own stdout and stderr; the test signals it by pid, and
the helper, its parent, reports how it ended (the exit code, or minus the signal that ended it)."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from rater1001.paths import ProjectPaths

_HELPER = r"""
import importlib, json, os, sys, traceback
import rater1001.cli

for name in sys.argv[1:]:
    importlib.import_module(name)
for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            for fd, path in ((1, job["stdout"]), (2, job["stderr"])):
                os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
            try:
                code = rater1001.cli.main(job["args"])
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    print(pid, flush=True)
    _, status, usage = os.wait4(pid, 0)
    print(os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, flush=True)
"""


# CPU seconds (user + sys, with what they reaped) of the commands that have ended, and of those
# whose helper pytest has reaped since: only then does their CPU reach pytest's RUSAGE_CHILDREN.
# benchmarks/bench_suite.py adds the difference, so that a command counts in the test during which
# it ended, not all of a module's in the test whose teardown ends the helper.
CPU = {"ended": 0.0, "reaped": 0.0}


def _read_line(fd: int) -> str:
    # Byte by byte from the descriptor: a buffered reader could take the exit line along with the
    # pid line, and select() would then never see it arrive.
    line = b""
    while not line.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte:
            raise AssertionError("the forking helper died (its stderr is the test's)")
        line += byte
    return line.decode()


def _text(path: Path) -> str:
    # A child killed before it opened its output files leaves none.
    return path.read_text(errors="replace") if path.exists() else ""


class ForkedRun:
    """The part of subprocess.Popen a fault test uses: pid, poll, send_signal, communicate, returncode."""

    def __init__(self, status_fd: int, pid: int, out: Path, err: Path, cli: ForkedCli):
        self._fd, self.pid, self._out, self._err, self._cli = status_fd, pid, out, err, cli
        self.returncode: int | None = None
        self.stderr = None  # a text stream when started with stream_stderr

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self._fd], [], [], 0)[0]:
            self._ended()
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            self._ended()
        return self.returncode

    def _ended(self) -> None:
        code, cpu = _read_line(self._fd).split()
        self.returncode = int(code)
        CPU["ended"] += float(cpu)
        self._cli.cpu_ended += float(cpu)

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # it ended, and was reaped, just now
                os.kill(self.pid, sig)

    def communicate(self) -> tuple[str, str]:
        """stdout and (the rest of) stderr, once the command has ended."""
        err = ""
        if self.stderr is not None and not self.stderr.closed:
            with self.stderr:
                err = self.stderr.read()  # to the end first: a child blocked on a full FIFO never ends
        self.wait()
        if self.stderr is None:
            err = _text(self._err)
        return _text(self._out), err


class ForkedCli:
    """One helper process; `start(paths, *args)` runs one command at a time. The helper keeps no
    state between commands (each child starts from the helper as it was after its imports), so a
    module's tests can share one. It runs with os.environ plus `env` as they were when it started,
    and imports the CLI, ingest and the modules named in `preload` before its first fork."""

    PRELOAD = ("rater1001.ingest", "rater1001.landing", "rater1001.lock")

    def __init__(self, env: dict[str, str] | None = None, preload: tuple[str, ...] = ()):
        self._env, self._preload = {**os.environ, **(env or {})}, self.PRELOAD + preload

    def __enter__(self) -> ForkedCli:
        self._dir = tempfile.TemporaryDirectory(prefix="forked-cli-")
        self._helper = subprocess.Popen(
            [sys.executable, "-c", _HELPER, *self._preload],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=self._env,
        )
        self._runs, self._last, self.cpu_ended = 0, None, 0.0
        return self

    def start(self, paths: ProjectPaths, *args: str, stream_stderr: bool = False) -> ForkedRun:
        """With stream_stderr, the run's `stderr` is a text stream the test reads while it runs
        (a FIFO: the child blocks when the test stops reading, as with a pipe)."""
        if self._last is not None:
            # The helper runs one command at a time, and its next line must be the next pid: a
            # test that stopped early (a failed assertion) leaves its command running, unread.
            self._last.send_signal(signal.SIGKILL)
            self._last.communicate()
        self._runs += 1
        out, err = (Path(self._dir.name) / f"{self._runs}.{s}" for s in ("out", "err"))
        if stream_stderr:
            os.mkfifo(err)
        job = {"args": ["--home", str(paths.root), *args], "stdout": str(out), "stderr": str(err)}
        self._helper.stdin.write(json.dumps(job).encode() + b"\n")
        self._helper.stdin.flush()
        fd = self._helper.stdout.fileno()
        run = ForkedRun(fd, int(_read_line(fd)), out, err, self)
        if stream_stderr:
            run.stderr = open(err, encoding="utf-8", errors="replace")  # noqa: SIM115  (closed by communicate)
        self._last = run
        return run

    def run(self, paths: ProjectPaths, *args: str) -> subprocess.CompletedProcess:
        """Like fakes.landing.cli(paths, *args): the finished command's exit code and output."""
        proc = self.start(paths, *args)
        out, err = proc.communicate()
        return subprocess.CompletedProcess(list(args), proc.returncode, out, err)

    def __exit__(self, *exc) -> None:
        # Between commands the helper holds nothing: killing it skips an interpreter shutdown.
        self._helper.stdin.close()
        self._helper.kill()
        self._helper.wait()
        CPU["reaped"] += self.cpu_ended
        self._dir.cleanup()
