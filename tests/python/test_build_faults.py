"""Faults during `rater1001 run`: SIGKILL in each of a run's stages, and a disk that fills up during
the build. After each, `summary`, `sql` and the report answer from the last complete
build, labelled with its landing, or refuse: never numbers of one landing under another's name.

A tiny study (36 images, 2 conditions) keeps each build short; every command is a process forked
from one helper that imported the CLI and dbt once (fakes/forked_cli.py)."""

from __future__ import annotations

import contextlib
import json
import os
import pkgutil
import random
import re
import shutil
import signal
import time
from collections import Counter

import pytest
import rater1001.marts
from fakes.forked_cli import ForkedCli
from fakes.landing import mounted_tmpfs
from rater1001.freshness import landing_fingerprint
from rater1001.paths import project
from rater1001.simulate import simulate_study

# A run's stages, as a reader of the project folder sees them (`_stage`): the quality gate, the dbt
# build into the staged warehouse, the docs (after dbt's run_results.json of the build), the
# report (the staged report folder). One kill in each, and a second one in the build (the longest
# stage, where the reads during a build happen), at a moment drawn within the stage.
KILLS = ("gate", "build", "build", "docs", "report")
TINY = dict(n_identities=1, ratings_per_image=5, images_per_rater=12, conditions=["gpt-4o-mini", "gemini-2.5-flash"])
QUERY = (
    "select condition_id, dimension, round(delta_alpha, 6) as d, round(w1sd, 6) as w "
    "from query_condition_headline order by all"
)
LABEL = re.compile(r"built from landing ([0-9a-f]{12})")
# what a command must never print for a user's mistake or a fault
TRACEBACK = "Traceback (most recent call last)"

pytestmark = pytest.mark.xdist_group("build_faults")


@pytest.fixture(scope="module")
def forked():
    # The Python models' modules too (statsmodels, scikit-learn, ppi_py, ...): ~1.6 s of CPU of
    # every run's build that reaches them, paid once in the helper instead.
    marts = tuple(f"rater1001.marts.{m.name}" for m in pkgutil.iter_modules(rater1001.marts.__path__))
    preload = ("rater1001.warehouse", "rater1001.quality", "rater1001.report", "rater1001.summary", "dbt.cli.main")
    with ForkedCli(preload=preload + marts) as helper:
        yield helper


def _numbers(out: str) -> list[str]:
    """The lines of an answer that carry numbers (not its labels)."""
    return [line.rstrip() for line in out.splitlines() if line.strip() and "landing" not in line]


def _label(text: str) -> str | None:
    found = set(LABEL.findall(text))
    assert len(found) <= 1, f"two landings named in one answer: {text}"
    return found.pop() if found else None


class Reads:
    """What summary, sql and the report said after one fault, judged once both landings' complete
    answers are known."""

    def __init__(self, forked, paths):
        self.summary = forked.run(paths, "summary")
        self.sql = forked.run(paths, "sql", QUERY)
        html = paths.report / "index.html"
        self.report = html.read_text(encoding="utf-8") if html.exists() else ""

    def verdicts(self, reference: dict[str, dict]) -> dict[str, str]:
        """Per reader: 'refused', 'answered <landing>', or what is wrong."""
        out = {}
        for name, run, key in (("summary", self.summary, "summary"), ("sql", self.sql, "sql")):
            text = run.stdout + run.stderr
            assert TRACEBACK not in text, text
            numbers = _numbers(run.stdout)
            if not numbers:
                out[name] = "refused" if run.returncode else "EMPTY ANSWER"
                continue
            label = _label(text)
            if label is None:
                out[name] = "UNLABELLED"
            elif label not in reference:
                out[name] = f"UNKNOWN LANDING {label}"
            else:
                out[name] = "answered " if numbers == reference[label][key] else "WRONG NUMBERS FOR "
                out[name] += label
        label = _label(self.report)
        body = _report_numbers(self.report)
        if not self.report:
            out["report"] = "absent"
        elif label not in reference:
            out["report"] = f"UNLABELLED OR UNKNOWN {label}"
        elif body != reference[label]["report"]:
            out["report"] = f"WRONG REPORT FOR {label}"
        else:
            out["report"] = f"answered {label}"
        # the report beside the warehouse: both of the same build
        if out["report"].startswith("answered") and out["summary"].startswith("answered"):
            if out["report"] != out["summary"]:
                out["report"] = "REPORT OF ANOTHER BUILD THAN THE WAREHOUSE"
        return out


def _report_numbers(html: str) -> list[str]:
    """The statistics a report shows (decimals of three or more places, in its tables and its
    figures' data), not its times, to six places and in sorted order: two builds of one landing
    differ in the order of rows no query sorts and in the last bits of DuckDB's parallel sums."""
    found = re.findall(r"(?<![\d:.])[-+]?\d+\.\d{3,}(?![\d:])", html)
    return sorted(f"{float(x):.6f}" for x in found)


def _reference(reads: Reads) -> dict:
    return {
        "summary": _numbers(reads.summary.stdout),
        "sql": _numbers(reads.sql.stdout),
        "report": _report_numbers(reads.report),
    }


@pytest.fixture(scope="module")
def reader():
    """A second helper, to read while the first one's command runs (a helper runs one at a time)."""
    with ForkedCli(preload=("rater1001.summary", "rater1001.adhoc")) as helper:
        yield helper


def _stage(paths, proc, started: float) -> str:
    """The stage a run started at `started` (time.time()) is in, from what it has written."""
    if proc.poll() is not None:
        return "ended"
    # before this run writes its build record, a killed run's record and staging folder may be there
    record = json.loads(paths.build_record.read_text()) if paths.build_record.exists() else {}
    if record.get("pid") != proc.pid:
        return "gate"
    if record.get("status") != "running":
        return "published"
    if (paths.staging / "report").exists():
        return "report"
    results = paths.root / "target" / "run_results.json"
    return "docs" if results.exists() and results.stat().st_mtime >= started else "build"


def _stages(paths, proc, started: float) -> dict[str, float]:
    """Follow a run to its end: how long it was in each stage, in seconds."""
    entered, stage = {"gate": time.monotonic()}, "gate"
    while stage != "ended":
        time.sleep(0.02)
        now = _stage(paths, proc, started)
        if now != stage:
            entered.setdefault(now, time.monotonic())
            stage = now
    order = sorted(entered, key=entered.get)
    return {s: entered[n] - entered[s] for s, n in zip(order, order[1:])}


@pytest.fixture(scope="module")
def built_a(tmp_path_factory, forked):
    """A tiny study (landing A) after one complete `rater1001 run` and its report with figure PNGs:
    the folder (tests work on copies), what summary, sql and the report said, and how long each
    stage of the run took. The run is timed as the tests run it, without PNGs, so that the kills'
    moments fall within their stages; the PNGs come from `rater1001 report` after it."""
    paths = project(tmp_path_factory.mktemp("build_faults") / "a")
    simulate_study(paths, seed=7, **TINY)
    started = time.time()
    first = forked.start(paths, "run", "--no-progress", "--no-png")
    stages = _stages(paths, first, started)
    out, err = first.communicate()
    assert first.returncode == 0, out + err
    assert set(KILLS) <= set(stages), stages  # every stage seen, so that each can be killed in
    report = forked.run(paths, "report")
    assert report.returncode == 0, report.stdout + report.stderr
    assert list((paths.report / "figures").glob("*.png"))
    return paths, {landing_fingerprint(paths)[:12]: _reference(Reads(forked, paths))}, stages


def _copy(template, root):
    shutil.copytree(template.root, root, symlinks=True)
    return project(root)


def _tally(seen, reference, a, b) -> Counter:
    counts: Counter = Counter()
    for reads in seen:
        for reader, verdict in reads.verdicts(reference).items():
            counts[f"{reader}: {verdict.replace(a, 'A').replace(b, 'B')}"] += 1
    return counts


def _wrong(counts: Counter) -> dict:
    return {k: n for k, n in counts.items() if not k.split(": ")[1].startswith(("answered", "refused", "absent"))}


def _reach(paths, proc, started: float, stage: str) -> str:
    """Wait until the run is in `stage` (or has ended): the stage it is in."""
    limit = time.monotonic() + 600
    while (now := _stage(paths, proc, started)) not in (stage, "ended"):
        assert time.monotonic() < limit, f"the run never reached its {stage} stage"
        time.sleep(0.01)
    return now


def _kill_in(paths, proc, started: float, stage: str, moment: float) -> str:
    """Wait until the run has been in `stage` for `moment` seconds (or has left it, or ended), then
    SIGKILL it: the stage it was in just before the kill."""
    now = _reach(paths, proc, started, stage)
    until = time.monotonic() + moment
    while now == stage and time.monotonic() < until:
        time.sleep(min(0.01, max(0.0, until - time.monotonic())))
        now = _stage(paths, proc, started)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    return now


def test_sigkill_anywhere_in_a_run_never_shows_old_numbers_as_new(tmp_path, forked, reader, built_a):
    template, reference, stages = built_a
    reference = dict(reference)
    (a,) = reference
    paths = _copy(template, tmp_path / "p")
    simulate_study(paths, seed=8, **TINY)  # landing B, not built yet
    b = landing_fingerprint(paths)[:12]
    rng = random.Random(32)
    seen, killed = [], []
    for i, stage in enumerate(KILLS):
        # a moment in the first half of the stage as the first run took it: this run may be
        # quicker, and a kill after the stage ended would be one in the next
        moment = round(stages[stage] * rng.uniform(0, 1 / 2), 2)
        started = time.time()
        proc = forked.start(paths, "run", "--no-progress", "--no-png")
        if i == 1:  # read while the build runs: the last complete build, and a note saying so
            assert _reach(paths, proc, started, "build") == "build", "the run ended before its build"
            while not paths.staged_warehouse.exists() and _stage(paths, proc, started) == "build":
                time.sleep(0.01)  # dbt writes the staged warehouse
            during = Reads(reader, paths)
            for run in (during.summary, during.sql):
                assert f"a build of landing {b} started" in run.stderr and "is running" in run.stderr, run.stderr
            seen.append(during)
        landed = _kill_in(paths, proc, started, stage, moment)
        killed.append((stage, moment, landed))
        seen.append(Reads(reader, paths))
        if landed != stage and landed != "ended":  # this run's stage ended sooner: again, at its start
            started = time.time()
            proc = forked.start(paths, "run", "--no-progress", "--no-png")
            killed.append((stage, 0.0, _kill_in(paths, proc, started, stage, 0.0)))
            seen.append(Reads(reader, paths))

    last = forked.run(paths, "run", "--no-progress", "--no-png")
    assert last.returncode == 0, last.stdout + last.stderr
    assert not list((paths.report / "figures").glob("*.png")), "figures of the old build beside the new report"
    reference[b] = _reference(Reads(forked, paths))
    assert reference[b]["summary"] != reference[a]["summary"], "the two landings must give different numbers"
    counts = _tally(seen, reference, a, b)
    print(f"\nkills (stage, s into it, stage when killed): {killed}; stages of the first run {stages}")
    print(f"reads after each kill and during one build: {dict(sorted(counts.items()))}")
    assert not _wrong(counts), dict(counts)
    assert {k[2] for k in killed} == set(KILLS), killed  # a kill in every stage


def _fill(folder, leave: int):
    """A filler file that leaves about `leave` bytes free on folder's file system."""
    st = os.statvfs(folder)
    with open(folder / "filler", "wb") as fh, contextlib.suppress(OSError):
        fh.write(b"\0" * max(st.f_bavail * st.f_frsize - leave, 0))


def test_a_disk_that_fills_during_the_build_keeps_the_last_build_and_says_so_briefly(tmp_path, forked, built_a):
    template, reference, _ = built_a
    (a,) = reference
    with mounted_tmpfs(tmp_path / "disk", "size=90m", "a 90 MB tmpfs to fill (the full-disk test needs root)") as mnt:
        paths = _copy(template, mnt / "p")
        simulate_study(paths, seed=8, **TINY)
        b = landing_fingerprint(paths)[:12]
        # room for the gate and the first nodes, not for a second warehouse beside the first
        _fill(mnt, leave=int(os.environ.get("I32_LEAVE", 2 << 20)))
        run = forked.run(paths, "run", "--no-progress", "--no-png")
        said = run.stdout + run.stderr
        lines = said.splitlines()
        print(f"\nfull disk: exit {run.returncode}, {len(lines)} lines, {said.count('Logging error')} logging errors")
        print(said)
        assert run.returncode != 0
        assert "Logging error" not in said and TRACEBACK not in said
        assert len(lines) <= 25, said
        # one line names the cause and what was kept (multiprocessing may add its shutdown warning)
        assert [line for line in lines if "disk" in line and "full" in line and "kept" in line], said
        reads = Reads(forked, paths)
        counts = _tally([reads], reference, a, b)
        assert not _wrong(counts), dict(counts)
        assert counts["summary: answered A"] == 1, dict(counts)
