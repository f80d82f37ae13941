"""Odd responses and odd requests: every response shape becomes a retried or a failed call of its
unit and the run goes on; the README's --base-url example runs against an OpenAI-compatible
server; nonsense options and read-only folders get a message, not a traceback."""

from __future__ import annotations

import json
import os

import pyarrow.parquet as pq
import pytest
from fakes.models import openai_error, openai_parts, openai_reply, openai_server
from fakes.project import make_infer_project, truth
from fakes.server import Reply, quick_default_backoff
from rater1001 import cli
from rater1001.runs.infer.run import InferOptions, ledger_path, run_infer
from rater1001.runs.runner import Ledger, RetryPolicy

KEY = "sk-test-faults-0123456789abcdef"
FAST = RetryPolicy(initial_backoff_s=0.01, max_backoff_s=0.05, max_retry_time_s=20)

HTML = b"<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>"
ODD = {
    "retry_after_soon": openai_error(429, "slow down", {"Retry-After": "soon"}),
    "retry_after_garbage_date": openai_error(503, "busy", {"Retry-After": "Mon, 99 Foo 2025 99:99:99 GMT"}),
    "html_200": Reply(200, HTML, {"Content-Type": "text/html"}),
    "empty_choice": Reply(200, {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [{}]}),
    "choice_without_content_type": Reply(
        200,
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": {"a": 1}}}],
        },
    ),
    "json_list": Reply(200, [1, 2, 3]),
    "plain_text_200": Reply(200, b"OK", {"Content-Type": "text/plain"}),
    "no_choices_key": Reply(200, {"id": "x", "object": "chat.completion"}),
}


def answer(image_id, step, prompt):
    return json.dumps({"emotion": truth(image_id), "valence": 4, "arousal": 6})


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return make_infer_project(tmp_path, n_images=4)


def opts(images, server, **kw):
    return InferOptions(
        ["gpt-4o-mini"],
        images,
        base_url=server.url + "/v1",
        progress=False,
        strategy="json-single",
        retry=kw.pop("retry", FAST),
        **kw,
    )


@pytest.mark.parametrize("shape", sorted(ODD))
def test_an_odd_response_is_retried_and_the_run_goes_on(proj, shape):
    paths, images = proj
    with openai_server(answer) as srv:
        srv.queue(ODD[shape])
        result = run_infer(paths, opts(images, srv))
    assert len(srv.requests) == 5 and result.retries == 1 and not result.incomplete
    assert sorted(result.rows["emotion"]) == sorted(truth(i) for i in result.rows["image_id"])


def test_a_unit_that_only_gets_odd_responses_fails_alone(proj, capsys, monkeypatch):
    paths, images = proj
    quick_default_backoff(monkeypatch)

    def respond(req):
        _, image_id, _ = openai_parts(req.body)
        if image_id == "img0002":
            return ODD["empty_choice"]
        return openai_reply(answer(image_id, "all", ""))

    from fakes.server import FakeServer

    with FakeServer(respond) as srv:
        rc = cli.main(
            [
                "--home",
                str(paths.root),
                "infer",
                "gpt-4o-mini",
                "--images",
                str(images),
                "--base-url",
                srv.url + "/v1",
                "--strategy",
                "json-single",
                "--max-attempts",
                "2",
                "--no-progress",
            ]
        )
    err = capsys.readouterr().err
    assert rc == 3 and "Traceback" not in err
    assert "img0002: bad_response" in err
    table = pq.read_table(paths.raw_table("model_predictions")).to_pandas()
    assert sorted(table["image_id"]) == ["img0000", "img0001", "img0003"]
    failed = [r for r in Ledger(ledger_path(paths, opts(images, srv))).records() if r["status"] == "failed"]
    assert [r["meta"]["image_id"] for r in failed] == ["img0002"] and failed[0]["attempts"] == 2


def test_an_exception_no_backend_foresaw_is_a_failed_call_not_a_crash(proj, monkeypatch):
    paths, images = proj
    from rater1001.runs.infer.backends import openai_backend

    calls = {"n": 0}
    real = openai_backend.OpenAIBackend.generate

    def flaky(self, request):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("the SDK tripped over something")
        return real(self, request)

    monkeypatch.setattr(openai_backend.OpenAIBackend, "generate", flaky)
    with openai_server(answer) as srv:
        result = run_infer(paths, opts(images, srv))
    assert len(result.rows) == 3 and len(result.incomplete) == 1
    assert "unexpected: RuntimeError: the SDK tripped over something" in result.incomplete[0][2]


def test_the_readme_base_url_example_switches_to_the_openai_compatible_backend(proj, capsys, monkeypatch):
    paths, images = proj
    monkeypatch.delenv("OPENAI_API_KEY")
    with openai_server(answer) as srv:
        # gemma3-4b-it is an mlx condition in the catalog; --base-url sends it to a server instead
        rc = cli.main(
            [
                "--home",
                str(paths.root),
                "infer",
                "gemma3-4b-it",
                "--images",
                str(images),
                "--base-url",
                srv.url + "/v1",
                "--no-progress",
            ]
        )
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert len(srv.requests) == 4 and srv.requests[0].headers["authorization"] == "Bearer EMPTY"
    assert srv.requests[0].body["model"] == "mlx-community/gemma-3-4b-it-qat-4bit"
    cond = pq.read_table(paths.raw_table("model_conditions")).to_pandas()
    assert cond.loc[0, "backend"] == "openai-compatible" and cond.loc[0, "condition_id"] == "gemma3-4b-it"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--limit", "-1"], "--limit: '-1': must be greater than 0"),
        (["--limit", "0"], "--limit: '0': must be greater than 0"),
        (["--timeout", "0"], "--timeout: '0': must be greater than 0"),
        (["--timeout", "soon"], "--timeout: 'soon' is not a number"),
        (["--parse-policy", "lenient"], "--parse-policy: invalid choice: 'lenient'"),
    ],
)
def test_nonsense_options_are_refused_with_a_message(proj, capsys, argv, message):
    paths, images = proj
    with pytest.raises(SystemExit) as info:
        cli.main(["--home", str(paths.root), "infer", "gpt-4o-mini", "--images", str(images), *argv])
    assert info.value.code == 2 and message in capsys.readouterr().err


def test_judge_refuses_a_negative_limit_and_a_zero_timeout(capsys, tmp_path):
    for argv in (["--limit", "-1"], ["--timeout", "0"]):
        with pytest.raises(SystemExit) as info:
            cli.main(["--home", str(tmp_path), "judge", *argv])
        assert info.value.code == 2 and "must be greater than 0" in capsys.readouterr().err


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores folder permissions")
def test_a_dry_run_in_a_read_only_project_prints_its_plan_or_a_message(proj, capsys):
    paths, images = proj
    argv = ["--home", str(paths.root), "infer", "gpt-4o-mini", "--images", str(images), "--dry-run"]
    os.chmod(paths.root, 0o555)
    try:
        rc = cli.main(argv)  # no ledger yet: the dry run needs to write nothing
        out = capsys.readouterr()
        assert rc == 0 and "calls to make: 12" in out.out, out.err
        os.chmod(paths.root, 0o755)
        (paths.root / "data" / "ledger").mkdir(parents=True)
        (paths.root / "data" / "ledger" / "infer.jsonl").write_text("")
        os.chmod(paths.root / "data" / "ledger", 0o555)
        os.chmod(paths.root / "data" / "ledger" / "infer.jsonl", 0o444)
        rc = cli.main(argv)  # a read-only ledger is read, not opened for writing
        out = capsys.readouterr()
        assert rc == 0 and "calls to make: 12" in out.out, out.err
        rc = cli.main(argv[:-1] + ["--no-progress"])  # a real run cannot write its ledger
        err = capsys.readouterr().err
        assert rc == 2 and "Traceback" not in err and "infer.jsonl" in err and "Permission denied" in err
    finally:
        os.chmod(paths.root, 0o755)
        if (paths.root / "data" / "ledger").exists():
            os.chmod(paths.root / "data" / "ledger", 0o755)


def _tree(root):
    return sorted((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in root.rglob("*"))


def test_a_dry_run_writes_nothing_and_an_unwritable_ledger_is_a_message(proj, capsys):
    """Whoever runs the tests (root ignores permissions): the dry run must not write at all, which
    is what lets it work in a read-only folder; a ledger that cannot be created is exit 2."""
    paths, images = proj
    argv = ["--home", str(paths.root), "infer", "gpt-4o-mini", "--images", str(images)]
    for ledger_text in (None, '{"key": "k", "status": "ok", "result": {}}\n{"key": "torn", "sta'):
        if ledger_text is not None:
            (paths.root / "data" / "ledger").mkdir(parents=True, exist_ok=True)
            (paths.root / "data" / "ledger" / "infer.jsonl").write_text(ledger_text)
        before = _tree(paths.root)
        assert cli.main(argv + ["--dry-run"]) == 0
        assert _tree(paths.root) == before
    (paths.root / "data" / "ledger" / "infer.jsonl").unlink()
    (paths.root / "data" / "ledger").rmdir()
    (paths.root / "data" / "ledger").write_text("a file where the ledger folder belongs")
    capsys.readouterr()
    rc = cli.main(argv + ["--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err and "data/ledger" in err


def test_a_corrupt_ledger_line_is_a_warning_and_the_rest_is_reused(proj, capsys):
    paths, images = proj
    with openai_server(answer) as srv:
        argv = [
            "--home",
            str(paths.root),
            "infer",
            "gpt-4o-mini",
            "--images",
            str(images),
            "--base-url",
            srv.url + "/v1",
            "--strategy",
            "json-single",
            "--no-progress",
        ]
        assert cli.main(argv + ["--limit", "2"]) == 0
        ledger = paths.root / "data" / "ledger" / "infer.jsonl"
        with open(ledger, "a") as fh:
            fh.write("this line was typed by hand\n")
        capsys.readouterr()
        assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert "line 4 (not valid JSON" in err and "skipped" in err and "Traceback" not in err
    assert "calls made 2, reused from the ledger 2" in out
    assert "this line was typed by hand\n" in ledger.read_text()


@pytest.mark.parametrize(
    "odd",
    [
        Reply(200, HTML, {"Content-Type": "text/html"}),
        Reply(200, [1, 2, 3]),
        Reply(200, {"candidates": "not a list"}),
        Reply(503, {"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE"}}, {"Retry-After": "soon"}),
    ],
    ids=["html_200", "json_list", "candidates_not_a_list", "retry_after_soon"],
)
def test_gemini_odd_responses_are_retried_and_the_run_goes_on(tmp_path, monkeypatch, odd):
    from fakes.models import gemini_server

    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    paths, images = make_infer_project(tmp_path, n_images=3)
    with gemini_server(lambda image_id, step, prompt: answer(image_id, step, prompt)) as srv:
        srv.queue(odd)
        result = run_infer(
            paths,
            InferOptions(
                ["gemini-2.5-flash"], images, base_url=srv.url, progress=False, strategy="json-single", retry=FAST
            ),
        )
    assert len(srv.requests) == 4 and result.retries == 1 and not result.incomplete
    assert sorted(result.rows["emotion"]) == sorted(truth(i) for i in result.rows["image_id"])


def test_an_endpoint_that_answers_with_an_error_message_gives_no_ratings(proj, capsys):
    """An endpoint that answers every prompt with an error text: strict lands failed rows with the
    text kept; the paper policy (re-using the first steps from the ledger) reproduces S2.4's reading
    of it — emotion fear, valence and arousal 9 (502 clamped) — and records that policy."""
    paths, images = proj
    text = "I cannot see any image. I fear the upload failed (error 502)."
    with openai_server(lambda image_id, step, prompt: text) as srv:
        argv = [
            "--home",
            str(paths.root),
            "infer",
            "gpt-4o-mini",
            "--images",
            str(images),
            "--base-url",
            srv.url + "/v1",
            "--no-progress",
        ]
        assert cli.main(argv) == 0
        assert 'warning: no answer of gpt-4o-mini could be parsed (the first: ["I cannot see' in capsys.readouterr().err
        strict = pq.read_table(paths.raw_table("model_predictions")).to_pandas()
        n_calls = len(srv.requests)
        assert cli.main(argv + ["--parse-policy", "paper"]) == 0
        paper = pq.read_table(paths.raw_table("model_predictions")).to_pandas()
    assert n_calls == 4  # context carry stops after the failed first step
    assert len(srv.requests) == 12  # paper: the 4 first steps from the ledger, then 8 new calls
    assert (strict["parse_path"] == "failed").all() and strict[["emotion", "valence", "arousal"]].isna().all().all()
    assert all(json.loads(r) == [text] for r in strict["raw_responses"])
    detail = json.loads(strict.loc[0, "parse_detail"])[0]
    assert detail["policy"] == "strict" and "refusal or an error message" in detail["errors"]["emotion"]
    # the paper's cascade reads the same text as an answer: emotion fear (the word "fear")
    assert set(paper["emotion"]) == {"fear"} and set(paper["valence"]) == set(paper["arousal"]) == {9.0}
    assert json.loads(paper.loc[0, "parse_detail"])[0]["policy"] == "paper"
    runs = [r for r in Ledger(ledger_path(paths, opts(images, srv))).records() if r["status"] == "run"]
    assert [r["parse_policy"] for r in runs] == ["strict", "paper"]
    from rater1001.landing import read_manifest

    assert "parse policy paper" in read_manifest(paths).set_index("table_name").loc["model_predictions", "source"]


def test_a_full_disk_stops_the_run_instead_of_paying_for_calls_it_cannot_record(tmp_path, monkeypatch, capsys):
    import errno

    from rater1001.runs.runner import ledger as ledger_module

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    paths, images = make_infer_project(tmp_path, n_images=12)
    real_fsync, synced = os.fsync, []

    def fsync_until_full(fd):
        # os.fsync is one function for every module: count only the ledger's own syncs (the lock
        # and landing files sync too), so the disk fills after the run record and 3 answers.
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".jsonl"):
            if len(synced) >= 4:
                raise OSError(errno.ENOSPC, "No space left on device")
            synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(ledger_module.os, "fsync", fsync_until_full)
    with openai_server(answer) as srv:
        rc = cli.main(
            [
                "--home",
                str(paths.root),
                "infer",
                "gpt-4o-mini",
                "--images",
                str(images),
                "--base-url",
                srv.url + "/v1",
                "--strategy",
                "json-single",
                "--concurrency",
                "openai=1",
                "--no-progress",
            ]
        )
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    assert "No space left on device" in err and "cannot append to the ledger" in err
    # 3 recorded and 1 that could not be; the one worker (concurrency 1) may already have started
    # the next call while that append failed, but no call starts after it: 4 or 5 of 12, never more.
    assert 4 <= len(srv.requests) <= 5
    monkeypatch.setattr(ledger_module.os, "fsync", real_fsync)
    oks = [r for r in Ledger(ledger_path(paths, opts(images, srv))).records() if r["status"] == "ok"]
    # what was recorded before the disk filled is kept (the 4th line was written but not synced)
    assert len(oks) >= 3


def test_unreadable_ledger_lines_are_one_warning_on_stderr_and_retries_stay_off_the_terminal(proj, capsys, monkeypatch):
    """The ledger logs (logging, not print); the command shows the warning once although the plan,
    the run and the landing each open the ledger, and keeps the INFO lines about retries to itself."""
    paths, images = proj
    quick_default_backoff(monkeypatch)
    path = paths.root / "data" / "ledger" / "infer.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("typed by hand\n")
    with openai_server(answer) as srv:
        srv.queue(openai_error(429, "slow down", {"Retry-After": "0.01"}))
        rc = cli.main(
            [
                "--home",
                str(paths.root),
                "infer",
                "gpt-4o-mini",
                "--images",
                str(images),
                "--no-progress",
                "--base-url",
                srv.url + "/v1",
                "--strategy",
                "json-single",
                "--limit",
                "1",
            ]
        )
    out = capsys.readouterr()
    assert rc == 0, out.err
    warned = [line for line in out.err.splitlines() if "not ledger records" in line]
    assert warned == [
        f"warning: {path}: 1 line(s) are not ledger records and were skipped: line 1 (not valid JSON: "
        "Expecting value). They stay in the file; a call they may have recorded is made again."
    ]
    assert "retrying" not in out.err and "retries 1" in out.out
    assert [r["status"] for r in Ledger(path).records()] == ["run", "retry", "ok"]
