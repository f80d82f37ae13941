"""One writer at a time per project folder: a second writer waits a bounded time, then stops with a
message naming the holder; concurrent ingests lose no manifest update; two `infer`s on one folder
pay for each call once; a killed holder never leaves the folder locked."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pandas as pd
import pytest
from fakes.forked_cli import ForkedCli
from fakes.landing import cli, landing_state, make_rating_project, mounted_tmpfs, write_ratings
from fakes.models import openai_parts, openai_server, step_of
from fakes.project import make_infer_project, truth
from rater1001.cli import EXIT_BUSY
from rater1001.landing import read_manifest
from rater1001.lock import ProjectBusy, ProjectLockError, project_lock


@pytest.fixture(scope="module")
def forked():
    """Commands run one at a time, forked from one helper instead of an interpreter each."""
    with ForkedCli() as helper:
        yield helper


def test_a_second_writer_waits_a_bounded_time_then_names_the_holder(tmp_path, forked):
    paths = make_rating_project(tmp_path, n_raters=10, n_images=72)
    source = write_ratings(tmp_path / "r.csv", 100, 0.0, seed=1, n_raters=10, n_images=72)
    with project_lock(paths, "test-holder"):
        busy = forked.run(paths, "--wait", "0.2", "ingest", "human_ratings", str(source))
        # in the same process the lock is re-entrant (the CLI takes it, ingest_file takes it again)
        with project_lock(paths, "nested", wait_s=0):
            pass
    assert busy.returncode == EXIT_BUSY, busy.stderr
    assert f"pid {os.getpid()}" in busy.stderr and "rater1001 test-holder" in busy.stderr
    assert "--wait SECONDS" in busy.stderr and "Traceback" not in busy.stderr
    assert landing_state(paths).manifest is None  # nothing landed while the folder was held

    negative = forked.run(paths, "--wait", "-1", "ingest", "human_ratings", str(source))
    assert negative.returncode == 2 and "--wait: '-1': must be at least 0" in negative.stderr
    assert landing_state(paths).manifest is None

    done = forked.run(paths, "--wait", "0", "ingest", "human_ratings", str(source))
    assert done.returncode == 0, done.stderr
    assert landing_state(paths).manifest[2] == 100


def test_a_second_run_gets_a_clear_message_not_a_duckdb_traceback(small_study, forked):
    with project_lock(small_study, "run"):
        second = forked.run(small_study, "--wait", "0", "run")
    assert second.returncode == EXIT_BUSY
    assert "another command is writing to this project folder" in second.stderr
    assert "Traceback" not in second.stderr and "duckdb" not in second.stderr.lower()
    assert not small_study.warehouse.exists()


def test_dry_runs_and_read_only_commands_do_not_wait_for_the_lock(small_study, forked):
    with project_lock(small_study, "test-holder"):
        summary = forked.run(small_study, "--wait", "0", "summary")
    assert summary.returncode == 2 and "another command" not in summary.stderr  # no warehouse yet, said so


def test_a_killed_holder_leaves_the_folder_free(tmp_path):
    paths = make_rating_project(tmp_path, n_raters=10, n_images=72)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom rater1001.lock import project_lock\nfrom rater1001.paths import project\n"
            f"with project_lock(project({str(paths.root)!r}), 'holder'):\n    print('held', flush=True)\n    time.sleep(600)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(ProjectBusy, match="rater1001 holder"):
            with project_lock(paths, "test", wait_s=0):
                pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    with project_lock(paths, "test", wait_s=30):
        pass


def _write_round(folder, r):
    """Both files change every round, so each round's manifest rows are recognisable."""
    pd.DataFrame({"rater_id": [f"r{i:03d}" for i in range(10 + r)], "gender": "male", "age": 30}).to_csv(
        folder / f"raters{r}.csv", index=False
    )
    pd.DataFrame(
        {
            "image_id": [f"img{i:04d}" for i in range(72 + r)],
            "identity_id": "p",
            "race": "Korean",
            "gender": "male",
            "emotion": "sad",
        }
    ).to_csv(folder / f"stimuli{r}.csv", index=False)


def _lost_updates(paths, r) -> list[str]:
    m = read_manifest(paths).set_index("table_name")
    return [f"{t} round {r}" for t, n in (("raters", 10 + r), ("stimuli", 72 + r)) if m.loc[t, "rows_landed"] != n]


def test_concurrent_ingests_lose_no_manifest_update(tmp_path):
    """Threads (cheap, so many rounds) share the lock file through the kernel like processes do;
    one round of two CLI processes checks the command line takes the same lock."""
    from concurrent.futures import ThreadPoolExecutor

    from rater1001.ingest import ingest_file

    paths = make_rating_project(tmp_path, n_raters=10, n_images=72)
    rounds, lost = 30, []
    with ThreadPoolExecutor(2) as pool:
        for r in range(rounds):
            _write_round(tmp_path, r)
            jobs = [pool.submit(ingest_file, paths, t, tmp_path / f"{t}{r}.csv") for t in ("raters", "stimuli")]
            assert all(j.result().rows_rejected == 0 for j in jobs)
            lost += _lost_updates(paths, r)
    _write_round(tmp_path, rounds)
    procs = [
        cli(paths, "--wait", "300", "ingest", t, str(tmp_path / f"{t}{rounds}.csv"), wait=False)
        for t in ("raters", "stimuli")
    ]
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    lost += _lost_updates(paths, rounds)
    assert lost == [], f"{len(lost)} of {2 * (rounds + 1)} manifest updates lost: {lost}"


def test_two_infers_on_one_folder_pay_for_each_call_once(tmp_path):
    n_images, steps = 10, 3
    paths, images = make_infer_project(tmp_path, n_images)

    def answer(image_id, step, prompt):
        return {
            "emotion": f'{{"emotion": "{truth(image_id)}"}}',
            "valence": '{"valence": 5}',
            "arousal": '{"arousal": 5}',
        }[step]

    env = {"OPENAI_API_KEY": "sk-test-lock-0123456789"}
    with openai_server(answer, latency_s=0.05) as srv:
        args = (
            "--wait",
            "300",
            "infer",
            "gpt-4o-mini",
            "--images",
            str(images),
            "--base-url",
            srv.url + "/v1",
            "--concurrency",
            "openai=2",
            "--no-progress",
        )
        procs = [cli(paths, *args, wait=False, env=env) for _ in range(2)]
        outs = [p.communicate(timeout=600) for p in procs]
        asked = [(openai_parts(r.body)[1], step_of(openai_parts(r.body)[0])) for r in srv.requests]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err
    assert len(asked) == len(set(asked)) == n_images * steps, f"{len(asked)} calls paid for {n_images * steps} keys"
    # one of the two made every call, the other found them all in the ledger
    assert sorted("calls made 0," in out for out, _ in outs) == [False, True]


@pytest.fixture
def read_only_folder(tmp_path):
    with mounted_tmpfs(tmp_path / "ro", "ro,size=1m", "a read-only tmpfs (root ignores folder permissions)") as mnt:
        yield mnt


def test_a_read_only_project_folder_is_a_message_not_a_traceback(read_only_folder, tmp_path, forked):
    from rater1001.paths import project

    source = tmp_path / "raters.csv"
    pd.DataFrame({"rater_id": ["r1"], "gender": ["male"]}).to_csv(source, index=False)
    with pytest.raises(ProjectLockError, match="writable project folder"):
        with project_lock(project(read_only_folder), "test"):
            pass
    proc = forked.run(project(read_only_folder), "ingest", "raters", str(source))
    assert proc.returncode == 2 and "Read-only file system" in proc.stderr and "Traceback" not in proc.stderr
