"""Dry run arithmetic, conditions from the catalog / YAML, and compaction into the landing zone."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from fakes.models import openai_server
from fakes.project import make_infer_project, truth
from rater1001.contract import MODEL_CONDITIONS, MODEL_PREDICTIONS
from rater1001.landing import read_manifest
from rater1001.paths import REPO_ROOT
from rater1001.runs.infer.conditions import load_conditions
from rater1001.runs.infer.prompts import STRATEGIES, render
from rater1001.runs.infer.run import CHARS_PER_TOKEN, InferOptions, dry_run, run_infer
from rater1001.study import load_study

KEY = "sk-test-run-0123456789abcdef"


def answer(image_id, step, prompt):
    return {
        "emotion": f'{{"emotion": "{truth(image_id)}"}}',
        "valence": "7",
        "arousal": '{"arousal": 3}',
        "all": json.dumps({"emotion": truth(image_id), "valence": 7, "arousal": 3}),
    }[step]


def test_dry_run_counts_calls_and_prices_them_from_the_seed(tmp_path):
    paths, images = make_infer_project(tmp_path, 5)
    table = dry_run(paths, InferOptions(["gpt-4o-mini", "gemini-2.5-flash", "gemma3-4b-it"], images)).set_index(
        "condition_id"
    )
    assert table.loc["gpt-4o-mini", "calls_todo"] == 15 and table.loc["gemma3-4b-it", "calls_todo"] == 5
    # closed form for gpt-4o-mini: 15 calls x (mean prompt chars / 4 + 25501 image tokens) input,
    # 15 x 15 output, at $0.15 / $0.60 per million (seeds/api_prices.csv)
    study = load_study(paths)
    steps = STRATEGIES["context-carry"].steps
    ex = {"emotion": "happy", "valence": 9}
    chars = sum(len(render(s, study, {k: ex[k] for k in s.carries})) for s in steps) / len(steps)
    tin = 15 * (chars / CHARS_PER_TOKEN + 25501)
    assert table.loc["gpt-4o-mini", "est_cost_usd"] == pytest.approx(round((tin * 0.15 + 15 * 15 * 0.60) / 1e6, 4))
    # Gemini thinking: 500 thought tokens per call billed as output
    g = table.loc["gemini-2.5-flash"]
    assert g["est_thinking_tokens"] == 15 * 500
    assert table.loc["gemma3-4b-it", "est_cost_usd"] == 0.0


def test_dry_run_subtracts_calls_already_in_the_ledger(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    paths, images = make_infer_project(tmp_path, 4)
    with openai_server(answer) as srv:
        run_infer(paths, InferOptions(["gpt-4o-mini"], images, base_url=srv.url + "/v1", limit=2, progress=False))
        table = dry_run(paths, InferOptions(["gpt-4o-mini"], images, base_url=srv.url + "/v1"))
    assert table.loc[0, "calls_total"] == 12 and table.loc[0, "calls_todo"] == 6


def test_conditions_come_from_the_catalog_and_yaml(tmp_path):
    catalog = load_conditions(REPO_ROOT / "seeds")
    assert sum(c.kind == "vlm" for c in catalog.values()) == 8  # Table 1
    g = catalog["gemini-2.5-flash-nothink"]
    assert (g.backend, g.thinking_budget, g.include_thoughts, g.strategy) == ("gemini", 0, False, "context-carry")
    o = catalog["gpt-4o-mini"]
    assert (o.temperature, o.seed, o.image_detail) == (0.0, 42, "high")
    yml = tmp_path / "c.yml"
    yml.write_text(
        "conditions:\n  - condition_id: gemma3-12b-ollama\n    extends: gemma3-12b-it\n"
        "    backend: openai-compatible\n    base_url: http://localhost:11434/v1\n    model_id: gemma3:12b\n"
    )
    c = load_conditions(REPO_ROOT / "seeds", yml)["gemma3-12b-ollama"]
    assert (c.backend, c.model_id, c.strategy, c.size_b) == ("openai-compatible", "gemma3:12b", "json-single", 12.0)
    yml.write_text("conditions:\n  - condition_id: x\n    extends: gemma3-12b-it\n    temprature: 0\n")
    with pytest.raises(ValueError, match=r"conditions\[1\].*temprature"):
        load_conditions(REPO_ROOT / "seeds", yml)


def test_compaction_lands_contract_tables_and_keeps_other_conditions(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    paths, images = make_infer_project(tmp_path, 3)
    with openai_server(answer) as srv:
        o = dict(images_dir=images, base_url=srv.url + "/v1", progress=False)
        run_infer(paths, InferOptions(["gpt-4o-mini"], **o))
        run_infer(paths, InferOptions(["gpt-4o-mini"], run_id="r2", strategy="json-single", **o))
    pred = pq.read_table(paths.raw_table("model_predictions"))
    assert pred.schema == MODEL_PREDICTIONS.arrow_schema()
    df = pred.to_pandas()
    assert sorted(df.groupby("run_id").size().items()) == [("r1", 3), ("r2", 3)]
    r1 = df[df["run_id"] == "r1"].iloc[0]
    # "7" is a plain number -> regex path; the weakest step path is the row's path
    assert r1["parse_path"] == "regex" and r1["valence"] == 7.0 and r1["strategy"] == "context-carry"
    assert [s["path"] for s in json.loads(r1["parse_detail"])] == ["json", "regex", "json"]
    cond = pq.read_table(paths.raw_table("model_conditions"))
    assert cond.schema == MODEL_CONDITIONS.arrow_schema() and cond.num_rows == 1
    m = read_manifest(paths).set_index("table_name")
    assert m.loc["model_predictions", "rows_landed"] == 6 and not m.loc["model_predictions", "is_simulated"]


def test_a_missing_image_names_the_row_column_and_value(tmp_path):
    import re

    paths, images = make_infer_project(tmp_path, 3)
    (images / "img0001.png").unlink()
    table = dry_run(paths, InferOptions(["gpt-4o-mini"], images))
    assert table.loc[0, "units"] == 2  # the other stimuli are still planned
    [refusal] = table.attrs["refused"]
    assert re.match(r".*stimuli.parquet: image_id 'img0001': column file_path 'img0001.png': no file", refusal.message)
