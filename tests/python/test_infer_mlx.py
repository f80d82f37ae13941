"""mlx-vlm in-process. mlx cannot run on this Linux box, so these tests check two things only:
(1) without mlx the backend fails with a clear, actionable error while everything else works;
(2) with a stand-in module that has mlx-vlm's documented call surface (load, utils.load_config,
prompt_utils.apply_chat_template, generate -> GenerationResult or str), our adapter passes the
right arguments and reads the result. They do NOT show that real mlx-vlm accepts these arguments
(e.g. thinking_budget needs a recent release) or that a model loads: see docs/infer.md."""

from __future__ import annotations

import json
import sys
import types
from dataclasses import dataclass

import pandas as pd
import pytest
from fakes.models import image_id_of
from fakes.project import make_infer_project, truth
from rater1001.runs.infer.backends.mlx_backend import MlxBackend, MlxUnavailable
from rater1001.runs.infer.run import InferOptions, dry_run, run_infer


@dataclass
class GenerationResult:  # the fields mlx_vlm.generate.GenerationResult has
    text: str = ""
    prompt_tokens: int = 0
    generation_tokens: int = 0


class StandIn:
    """Records every call; answers from the image file's bytes like the fake servers."""

    def __init__(self, return_str: bool = False):
        self.calls = []
        self.loaded = []
        self.return_str = return_str

    def modules(self):
        root = types.ModuleType("mlx_vlm")
        root.load = lambda path: (self.loaded.append(path), (f"model:{path}", f"processor:{path}"))[1]
        root.generate = self.generate
        utils = types.ModuleType("mlx_vlm.utils")
        utils.load_config = lambda path: {"model_type": "qwen3_vl", "path": path}
        pu = types.ModuleType("mlx_vlm.prompt_utils")
        pu.apply_chat_template = lambda processor, config, prompt, num_images=0: f"<chat n={num_images}>{prompt}</chat>"
        return {"mlx_vlm": root, "mlx_vlm.utils": utils, "mlx_vlm.prompt_utils": pu}

    def generate(self, model, processor, prompt, image, **kwargs):
        self.calls.append({"model": model, "processor": processor, "prompt": prompt, "image": image, **kwargs})
        image_id = image_id_of(open(image[0], "rb").read())
        text = "<think>Corners of the mouth are raised.</think>" + json.dumps(
            {"emotion": truth(image_id), "valence": 8, "arousal": 6}
        )
        return text if self.return_str else GenerationResult(text, 1100, 40)


def test_without_mlx_the_error_says_what_to_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "mlx_vlm", None)  # makes `import mlx_vlm` raise ImportError
    with pytest.raises(MlxUnavailable, match="mlx-vlm.*openai-compatible"):
        MlxBackend()


def test_without_mlx_a_dry_run_still_works(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mlx_vlm", None)
    paths, images = make_infer_project(tmp_path, 4)
    table = dry_run(paths, InferOptions(["gemma3-4b-it", "llama-3.2-11b-vision"], images))
    assert list(table["calls_todo"]) == [4, 12] and list(table["est_cost_usd"]) == [0.0, 0.0]


@pytest.mark.parametrize("return_str", [False, True])
def test_adapter_against_the_api_surface(tmp_path, monkeypatch, return_str):
    stand_in = StandIn(return_str)
    for name, mod in stand_in.modules().items():
        monkeypatch.setitem(sys.modules, name, mod)
    paths, images = make_infer_project(tmp_path, 3)
    result = run_infer(paths, InferOptions(["qwen3-vl-4b-thinking"], images, progress=False))
    assert stand_in.loaded == ["mlx-community/Qwen3-VL-4B-Thinking-4bit"]  # loaded once, reused
    assert len(stand_in.calls) == 3
    call = stand_in.calls[0]
    assert call["prompt"].startswith("<chat n=1>Analyze the facial expression")
    assert call["image"] == [str(images / "img0000.png")]
    # Table 1: temp=0, rep_penalty=1.5, thinking budget 1024 per step (+ room for the answer)
    assert call["temperature"] == 0 and call["repetition_penalty"] == 1.5
    assert call["thinking_budget"] == 1024 and call["max_tokens"] == 1024 + 256
    row = result.rows.set_index("image_id").loc["img0002"]
    assert row["emotion"] == truth("img0002") and row["parse_path"] == "json"
    assert row["thinking_text"] == "[all] Corners of the mouth are raised."
    if return_str:
        assert pd.isna(row["input_tokens"])  # an old mlx-vlm returns a bare string: no counts
    else:
        assert row["input_tokens"] == 1100 and row["output_tokens"] == 40
