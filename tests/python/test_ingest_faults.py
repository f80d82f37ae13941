"""Faults during `rater1001 ingest`: SIGKILL at random points, a disk that fills up, a source file
deleted or replaced while it is read. After each, the next command finds the table, its rejected
rows and its manifest row all from the old file or all from the new one, and no temporary file."""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import signal
import time
from collections import Counter

import pytest
from fakes.forked_cli import ForkedCli
from fakes.landing import landing_state, make_rating_project, mounted_tmpfs, temporaries, write_ratings
from rater1001 import landing
from rater1001.ingest import IngestError, ingest_file
from rater1001.lock import project_lock
from rater1001.paths import project

N_ROWS, BAD_SHARE = 72_000, 0.3
KILLS = 10  # each a process of its own; enough to land kills in every phase of the write


def _copy(template, root):
    shutil.copytree(template.root, root)
    return project(root)


def _wait_for_writing(paths, proc) -> float | None:
    """When the ingest process starts writing (its first temporary file appears); None if it ended first."""
    journal = paths.raw.parent / ".landing_commit.json"
    while proc.poll() is None:
        if temporaries(paths) or journal.exists():
            return time.monotonic()
        time.sleep(0.002)
    return None


def _next_start(paths) -> None:
    with project_lock(paths, "test"):  # what every writing command does first
        pass


@pytest.fixture(scope="module")
def forked():
    """Commands forked from one helper that has imported the CLI (the module's tests share it)."""
    with ForkedCli() as helper:
        yield helper


def test_sigkill_at_random_points_leaves_the_old_or_the_new_landing(tmp_path, forked):
    template = make_rating_project(tmp_path / "template")
    old = write_ratings(tmp_path / "old.csv", 20_000, 0.1, seed=1)
    new = write_ratings(tmp_path / "new.csv", N_ROWS, BAD_SHARE, seed=2)
    ingest_file(template, "human_ratings", old)
    before = landing_state(template)

    # One run that is not killed gives the new state and how long the writing phase lasts: from
    # the first temporary file to the new manifest in place. Every run is a process of its own,
    # forked from one that has imported the CLI already.
    work = _copy(template, tmp_path / "calibrate")
    manifest_before = work.manifest.stat().st_ino
    proc = forked.start(work, "ingest", "human_ratings", str(new))
    started = _wait_for_writing(work, proc)
    while proc.poll() is None and work.manifest.stat().st_ino == manifest_before:
        time.sleep(0.002)
    window = time.monotonic() - started if started else 0.5
    _, err = proc.communicate()
    assert proc.returncode == 3, err
    after = landing_state(work)
    assert after.manifest[1] == hashlib.sha256(new.read_bytes()).hexdigest()
    assert after.manifest[2] + after.manifest[3] == N_ROWS and after.manifest[3] > 0.25 * N_ROWS
    assert after.manifest[2] == after.landed.num_rows and after.manifest[3] == after.rejected.num_rows
    assert not before.same_as(after)

    rng = random.Random(13)
    outcomes: Counter = Counter()
    for i in range(KILLS):
        work = _copy(template, tmp_path / f"kill{i}")
        proc = forked.start(work, "ingest", "human_ratings", str(new))
        if _wait_for_writing(work, proc) is None:
            outcomes["ended before writing"] += 1
            continue
        time.sleep(rng.uniform(0, 1.5 * window))
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        if proc.returncode != -signal.SIGKILL:
            outcomes["ended before the kill"] += 1
        elif (work.raw.parent / ".landing_commit.json").exists():
            outcomes["killed after the commit point"] += 1
        _next_start(work)
        state = landing_state(work)
        outcomes["old" if state.same_as(before) else "new" if state.same_as(after) else "MIX"] += 1
        assert not temporaries(work), f"kill {i}: temporary files left after the next start"
    print(f"\n{KILLS} kills: {dict(outcomes)}")
    assert outcomes["MIX"] == 0, dict(outcomes)
    assert outcomes["old"] + outcomes["new"] == KILLS


# ------------------------------------------------------------------- interrupted commits, exactly


def test_a_commit_interrupted_after_its_commit_point_is_finished_by_the_next_start(tmp_path, monkeypatch):
    paths = make_rating_project(tmp_path / "p", n_raters=10, n_images=72)
    old = write_ratings(tmp_path / "old.csv", 200, 0.1, seed=1, n_raters=10, n_images=72)
    new = write_ratings(tmp_path / "new.csv", 500, 0.3, seed=2, n_raters=10, n_images=72)
    ingest_file(paths, "human_ratings", old)
    ref = make_rating_project(tmp_path / "ref", n_raters=10, n_images=72)
    ingest_file(ref, "human_ratings", new)
    expected = landing_state(ref)

    real_apply = landing._apply
    calls = []

    def killed_half_way(p, record):
        # the first rename happens, then the process "dies"
        first = dict(record, replace=record["replace"][:1], delete=[])
        calls.append(first)
        os.replace(p.root / first["replace"][0][0], p.root / first["replace"][0][1])
        raise KeyboardInterrupt

    monkeypatch.setattr(landing, "_apply", killed_half_way)
    with pytest.raises(KeyboardInterrupt):
        ingest_file(paths, "human_ratings", new)
    monkeypatch.setattr(landing, "_apply", real_apply)
    assert calls and not landing_state(paths).same_as(expected)  # a mix on disk until the next start

    _next_start(paths)
    assert landing_state(paths).same_as(expected) and not temporaries(paths)


def test_a_kill_before_the_commit_point_leaves_the_old_landing_and_its_temporaries_are_removed(tmp_path, monkeypatch):
    paths = make_rating_project(tmp_path / "p", n_raters=10, n_images=72)
    ingest_file(paths, "human_ratings", write_ratings(tmp_path / "old.csv", 200, 0.1, seed=1, n_raters=10, n_images=72))
    before = landing_state(paths)

    real_stage = landing._stage
    staged = []

    def dies_on_the_third_file(table, path):
        if len(staged) == 2:
            raise MemoryError("simulated death while staging")
        staged.append(real_stage(table, path))
        return staged[-1]

    monkeypatch.setattr(landing, "_stage", dies_on_the_third_file)
    with pytest.raises(MemoryError):
        ingest_file(
            paths, "human_ratings", write_ratings(tmp_path / "new.csv", 500, 0.3, seed=2, n_raters=10, n_images=72)
        )
    assert landing_state(paths).same_as(before) and not temporaries(paths)

    # a SIGKILL runs no cleanup: temporaries of a dead writer are deleted by the next start
    for tmp in staged:
        tmp.write_bytes(b"half a parquet file")
    assert temporaries(paths)
    _next_start(paths)
    assert landing_state(paths).same_as(before) and not temporaries(paths)


# ------------------------------------------------------------------------------ the source file


def test_the_checksum_is_of_the_bytes_parsed_even_if_the_source_is_deleted_mid_ingest(tmp_path, monkeypatch):
    import rater1001.ingest.land as ingest_module

    paths = make_rating_project(tmp_path / "p", n_raters=10, n_images=72)
    source = write_ratings(tmp_path / "r.csv", 300, 0.3, seed=3, n_raters=10, n_images=72)
    parsed = hashlib.sha256(source.read_bytes()).hexdigest()
    real_validate = ingest_module.validate

    def source_deleted_then_validate(*args, **kw):
        source.unlink()
        return real_validate(*args, **kw)

    monkeypatch.setattr(ingest_module, "validate", source_deleted_then_validate)
    result = ingest_file(paths, "human_ratings", source)
    state = landing_state(paths)
    assert state.manifest[1] == parsed
    assert (
        (state.manifest[2], state.manifest[3])
        == (result.rows_landed, result.rows_rejected)
        == (state.landed.num_rows, state.rejected.num_rows)
    )


def test_a_source_replaced_mid_ingest_records_the_checksum_of_what_landed(tmp_path, monkeypatch):
    import rater1001.ingest.land as ingest_module

    paths = make_rating_project(tmp_path / "p", n_raters=10, n_images=72)
    source = write_ratings(tmp_path / "r.csv", 300, 0.3, seed=3, n_raters=10, n_images=72)
    parsed = hashlib.sha256(source.read_bytes()).hexdigest()
    real_validate = ingest_module.validate

    def source_replaced_then_validate(*args, **kw):
        write_ratings(source, 50, 0.0, seed=4, n_raters=10, n_images=72)
        return real_validate(*args, **kw)

    monkeypatch.setattr(ingest_module, "validate", source_replaced_then_validate)
    ingest_file(paths, "human_ratings", source)
    assert landing_state(paths).manifest[1] == parsed != hashlib.sha256(source.read_bytes()).hexdigest()
    assert landing_state(paths).manifest[2] + landing_state(paths).manifest[3] == 300


# ------------------------------------------------------------------------------- a full disk


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MB tmpfs (needs root, or a system that lets this user mount)."""
    with mounted_tmpfs(tmp_path / "disk", "size=2m", "a 2 MB tmpfs to fill up (the full-disk test needs root)") as mnt:
        yield mnt


def _fill(folder, leave: int):
    """A filler file that leaves about `leave` bytes free on folder's file system."""
    filler = folder / "filler"
    filler.unlink(missing_ok=True)
    st = os.statvfs(folder)
    size = max(st.f_bavail * st.f_frsize - leave, 0)
    with open(filler, "wb") as fh:
        try:
            fh.write(b"\0" * size)
        except OSError:
            pass


def test_a_full_disk_refuses_the_ingest_and_keeps_the_old_landing(tmp_path, small_disk, forked):
    kw = dict(n_raters=40, n_images=360)
    paths = make_rating_project(small_disk / "p", **kw)
    ingest_file(paths, "human_ratings", write_ratings(tmp_path / "old.csv", 2_000, 0.1, seed=1, **kw))
    before = landing_state(paths)
    new = write_ratings(tmp_path / "new.csv", 12_000, BAD_SHARE, seed=2, **kw)
    ref = make_rating_project(tmp_path / "ref", **kw)
    ingest_file(ref, "human_ratings", new)
    after = landing_state(ref)

    refused = 0
    # full, then room for some of the files: before the one commit, 55-75 kB free let the new table
    # land while the rejected rows and the manifest failed (a mix)
    for leave in (0, 8_000, 40_000, 55_000, 65_000, 75_000, 95_000, 120_000, 250_000):
        _fill(small_disk, leave)
        try:
            ingest_file(paths, "human_ratings", new)
        except IngestError as exc:
            refused += 1
            assert "No space left on device" in str(exc) and "Nothing was changed" in str(exc)
            assert landing_state(paths).same_as(before), f"leaving {leave} bytes: the old landing changed"
        else:
            assert landing_state(paths).same_as(after)
            ingest_file(paths, "human_ratings", tmp_path / "old.csv")  # back to the old landing
            before = landing_state(paths)
        assert not temporaries(paths)
    assert refused >= 6

    _fill(small_disk, 0)
    proc = forked.run(paths, "ingest", "human_ratings", str(new))
    assert proc.returncode == 2, proc.stderr
    assert "No space left on device" in proc.stderr and "Traceback" not in proc.stderr
    assert landing_state(paths).same_as(before) and not temporaries(paths)
