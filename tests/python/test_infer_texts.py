"""`rater1001 infer` on a study whose stimuli are texts (stimulus_kind: text), end to end through
the real openai, google-genai and anthropic SDKs against fake servers on 127.0.0.1: the prompt
carries the stimulus text, the study's label set and its model dimensions (no image part), the
answers land in the category column and one column per dimension, a rerun is served from the
ledger, an edited text is asked again. The studies have the shapes of two acceptance samples
(tests/acceptance/): MultiPICo (labels only) and HANNA (two dimensions on a 1-5 scale)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import yaml
from fakes.models import anthropic_reply, gemini_reply, openai_reply
from fakes.server import FakeServer, Reply, Request
from rater1001 import cli
from rater1001.contract import STIMULI, for_study
from rater1001.landing import to_arrow, write_parquet_atomic
from rater1001.paths import project
from rater1001.runs.infer.run import InferOptions, dry_run, run_infer
from rater1001.runs.runner import RetryPolicy
from rater1001.study import load_study

ACCEPTANCE = Path(__file__).resolve().parents[1] / "acceptance"
FAST = RetryPolicy(initial_backoff_s=0.01, max_backoff_s=0.05, max_retry_time_s=20)
KEYS = {
    "OPENAI_API_KEY": "sk-text-0123456789-abcdefghij",
    "GEMINI_API_KEY": "gm-text-0123456789-abcdefghij",
    "ANTHROPIC_API_KEY": "sk-ant-text-0123456789-abcdefghij",
}
CONDITIONS = """conditions:
  - {condition_id: gpt-text, display_name: GPT text, kind: llm, backend: openai, model_id: gpt-4o-mini, thinking: false, temperature: 0}
  - {condition_id: gemini-text, display_name: Gemini text, kind: llm, backend: gemini, model_id: gemini-2.5-flash, thinking: false}
  - {condition_id: claude-text, display_name: Claude text, kind: llm, backend: anthropic, model_id: claude-sonnet-4-6, thinking: false}
"""
TEXTS = {
    "t01": "Oh great, another Monday. Yeah right, I love those.",
    "t02": "The library opens at nine on weekdays.",
    "t03": "Wonderful, the train is late again. Yeah right, best day ever.",
    "t04": "She planted tomatoes and basil in the spring.",
}


def the_text(prompt: str) -> str:
    m = re.search(r"<<<\n(.*)\n>>>", prompt, re.S)
    assert m, "the prompt does not carry the stimulus text"
    return m.group(1)


def irony_answer(prompt: str) -> str:
    """The fake model: ironic ("1", as MultiPICo codes it) when the text says "yeah right"."""
    return json.dumps({"irony": "1" if "yeah right" in the_text(prompt).lower() else "0"})


def prompt_of(req: Request) -> tuple[str, bool]:
    """(the prompt, whether the request carried anything but the prompt) for each provider's body."""
    if req.path.endswith("/chat/completions"):
        content = req.body["messages"][0]["content"]
        return (content, False) if isinstance(content, str) else (content[0]["text"], True)
    if ":generateContent" in req.path:
        parts = req.body["contents"][0]["parts"]
        return parts[-1]["text"], len(parts) > 1
    content = req.body["messages"][0]["content"]
    return content[-1]["text"], len(content) > 1


def text_server() -> FakeServer:
    def respond(req: Request) -> Reply:
        prompt, has_more = prompt_of(req)
        if has_more:
            return Reply(400, {"error": {"message": "a text study sends the prompt alone"}})
        text = irony_answer(prompt)
        if req.path.endswith("/chat/completions"):
            return openai_reply(text, prompt_tokens=90)
        if ":generateContent" in req.path:
            return gemini_reply(text)
        return anthropic_reply(text)

    return FakeServer(respond)


def text_project(root: Path, sample: str, texts: dict[str, str], monkeypatch):
    """A project folder with the acceptance sample's study.yml and label seed, made a text study (the
    HANNA sample has no texts), and landed texts."""
    for name, key in KEYS.items():
        monkeypatch.setenv(name, key)
    shutil.copytree(ACCEPTANCE / sample / "project", root, dirs_exist_ok=True)
    spec = root / "study.yml"
    if yaml.safe_load(spec.read_text(encoding="utf-8")).get("stimulus_kind") != "text":
        spec.write_text(spec.read_text(encoding="utf-8") + "stimulus_kind: text\n", encoding="utf-8")
    paths = project(root)
    study = load_study(paths)
    # every declared stimulus factor gets a level, under the study's own name
    rows = [
        {
            "image_id": i,
            "text": t,
            **{f.name: study.levels(f.name)[n % len(study.levels(f.name))] for f in study.factors},
        }
        for n, (i, t) in enumerate(texts.items())
    ]
    write_parquet_atomic(to_arrow(pd.DataFrame(rows), for_study(STIMULI, study)), paths.raw_table("stimuli"))
    (root / "conditions.yml").write_text(CONDITIONS)
    return paths, study


def opts(paths, server, conditions, **kw):
    return InferOptions(
        conditions,
        None,
        conditions_file=paths.root / "conditions.yml",
        base_url=server.url,
        progress=False,
        retry=FAST,
        **kw,
    )


def test_a_labels_only_text_study_runs_on_three_backends_and_resumes(tmp_path, monkeypatch):
    paths, study = text_project(tmp_path, "multipico", TEXTS, monkeypatch)
    assert study.stimulus_kind == "text" and study.model_dimensions == ()
    conditions = ["gpt-text", "gemini-text", "claude-text"]
    with text_server() as srv:
        est = dry_run(paths, opts(paths, srv, conditions))
        first = run_infer(paths, opts(paths, srv, conditions))
        n_first = len(srv.requests)
        again = run_infer(paths, opts(paths, srv, conditions))
    assert n_first == 3 * 4 and len(srv.requests) == n_first  # the rerun made no call
    assert again.calls_made == 0 and again.calls_cached == 12 and not first.incomplete
    for req in srv.requests:
        prompt, _ = prompt_of(req)
        assert the_text(prompt) in TEXTS.values()
        assert '"irony": "<one of: 0, 1>"' in prompt and "integer" not in prompt
    assert set(est["calls_todo"]) == {4} and (est["est_input_tokens"] < 4 * 200).all()  # no image tokens
    landed = pq.read_table(paths.raw_table("model_predictions")).to_pandas()
    assert "valence" not in landed.columns and len(landed) == 12 and set(landed["parse_path"]) == {"json"}
    truth = {i: ("1" if "yeah right" in t.lower() else "0") for i, t in TEXTS.items()}
    assert "emotion" not in landed.columns and all(landed["irony"] == landed["image_id"].map(truth))
    assert set(landed["strategy"]) == {"json-single"}


def test_a_rated_text_study_lands_each_dimension_and_an_edited_text_is_asked_again(tmp_path, monkeypatch):
    paths, study = text_project(tmp_path, "hanna", TEXTS, monkeypatch)
    dims = study.model_dimensions
    assert dims == ("coherence", "empathy")
    assert study.category is None  # ratings only: the prompt asks for no label

    def hanna_answer(prompt):
        text = the_text(prompt)
        return json.dumps({d: (len(text.split()) + i) % 5 + 1 for i, d in enumerate(dims)})

    def respond(req):
        prompt, _ = prompt_of(req)
        return (
            anthropic_reply(hanna_answer(prompt))
            if req.path.endswith("/v1/messages")
            else openai_reply(hanna_answer(prompt))
        )

    with FakeServer(respond) as srv:
        run_infer(paths, opts(paths, srv, ["claude-text"]))
        prompts = [prompt_of(r)[0] for r in srv.requests]
        edited = {**TEXTS, "t02": "The library opens at ten on Sundays, and closes early."}
        stim = pq.read_table(paths.raw_table("stimuli")).to_pandas()
        stim["text"] = stim["image_id"].map(edited)
        write_parquet_atomic(to_arrow(stim, for_study(STIMULI, study)), paths.raw_table("stimuli"))
        second = run_infer(paths, opts(paths, srv, ["claude-text"]))
    assert len(prompts) == 4 and second.calls_made == 1 and second.calls_cached == 3
    assert the_text(prompt_of(srv.requests[-1])[0]) == edited["t02"]
    for p in prompts:
        assert '"coherence": <integer 1-5' in p and '"empathy": <integer 1-5' in p and "one of:" not in p
    landed = pq.read_table(paths.raw_table("model_predictions")).to_pandas().set_index("image_id")
    assert {"coherence", "empathy"} <= set(landed.columns) and not {"arousal", "emotion"} & set(landed.columns)
    assert set(landed["parse_path"]) == {"json"}
    for image_id, text in edited.items():
        assert landed.loc[image_id, "coherence"] == (len(text.split())) % 5 + 1
        assert landed.loc[image_id, "empathy"] == (len(text.split()) + 1) % 5 + 1
    # Each call's ledger line names its text by id and digest (the edited t02 by its new digest),
    # never by the text itself.
    ledger = paths.root / "data" / "ledger" / "infer.jsonl"
    oks = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    oks = [r for r in oks if r["status"] == "ok"]
    digests = {(r["inputs"]["stimulus_id"], r["inputs"]["text_sha256"]) for r in oks}
    texts = {**TEXTS, **{f"{k} (edited)": v for k, v in edited.items() if v != TEXTS[k]}}
    assert digests == {(k.split()[0], hashlib.sha256(v.encode("utf-8")).hexdigest()) for k, v in texts.items()}
    assert not any(text in ledger.read_text(encoding="utf-8") for text in texts.values())


def test_cli_infer_on_texts_needs_no_images_folder_and_refuses_image_only_backends(tmp_path, monkeypatch, capsys):
    paths, _ = text_project(tmp_path, "multipico", {**TEXTS, "t05": "   "}, monkeypatch)
    with text_server() as srv:
        rc = cli.main(
            [
                "--home",
                str(paths.root),
                "infer",
                "gpt-text",
                "--conditions-file",
                str(paths.root / "conditions.yml"),
                "--base-url",
                srv.url,
                "--no-progress",
            ]
        )
    err = capsys.readouterr().err
    assert rc == cli.EXIT_PARTIAL and len(srv.requests) == 4  # the empty text is refused, the others run
    assert "image_id 't05': column text is empty" in err
    rc = cli.main(["--home", str(paths.root), "infer", "fer-mini-xception", "--dry-run"])
    assert rc == cli.EXIT_UNREADABLE and "stimuli are texts" in capsys.readouterr().err
