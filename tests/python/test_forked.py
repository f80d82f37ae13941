"""forked.Forked: a function in a child process beside the caller (the gate beside dbt's parse in
`rater1001 run`): its answer, its exception with the child's traceback, a child that dies, a child
the caller no longer waits for, and a child whose parent is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from rater1001.forked import ChildDied, ChildTraceback, Forked
from rater1001.study import StudyError


def _pid_and(x):
    return os.getpid(), x * 2


def _raise_study_error(text):
    raise StudyError(text)


def _die():
    os._exit(7)


def _sleep(seconds):
    time.sleep(seconds)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (ended, not yet reaped by its parent) is gone for our purpose
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ", 1)[1].startswith("Z"))


def test_the_answer_comes_from_another_process():
    pid, doubled = Forked(_pid_and, 21).result()
    assert doubled == 42 and pid != os.getpid()


def test_inline_runs_in_the_caller():
    pid, doubled = Forked(_pid_and, 4, inline=True).result()
    assert doubled == 8 and pid == os.getpid()


def test_an_exception_is_raised_in_the_caller_with_the_childs_traceback():
    # the CLI tells a user's mistake (StudyError) from a bug by the exception's type: it must survive
    with pytest.raises(StudyError, match="no such dimension") as raised:
        Forked(_raise_study_error, "no such dimension").result()
    assert isinstance(raised.value.__cause__, ChildTraceback)
    assert "_raise_study_error" in str(raised.value.__cause__)


def test_a_child_that_dies_is_said_not_waited_for():
    with pytest.raises(ChildDied, match="the gate .process [0-9]+. exited 7 before it answered"):
        Forked(_die, what="the gate").result()


def test_leaving_the_block_early_kills_the_child():
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="the caller failed"):
        with Forked(_sleep, 60) as job:
            child = job._proc.pid
            raise RuntimeError("the caller failed")
    assert not _alive(child) and time.monotonic() - started < 30


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_the_child_dies_with_its_killed_parent(tmp_path):
    # a `rater1001 run` killed during its gate must leave no gate writing into the folder
    code = textwrap.dedent(
        f"""
        import sys, time
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from rater1001.forked import Forked
        from test_forked import _sleep
        job = Forked(_sleep, 60)
        print(job._proc.pid, flush=True)
        time.sleep(60)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    assert _alive(child)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def _killed_gate(paths, allow_unbalanced=False):
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_run_whose_gate_process_is_killed_says_so_in_one_line(small_study, monkeypatch, capsys):
    import rater1001.quality
    from rater1001 import cli

    monkeypatch.setattr(rater1001.quality, "run_quality_gate", _killed_gate)  # the forked child runs it
    rc = cli.main(["--home", str(small_study.root), "run", "--no-progress", "--no-png"])
    err = capsys.readouterr().err
    assert rc == cli.EXIT_FAILED, err
    assert "error: the quality gate (process" in err and "was killed by SIGKILL before it answered" in err, err
    assert "Traceback" not in err and not small_study.warehouse.exists()
