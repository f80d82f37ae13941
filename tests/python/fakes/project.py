"""A minimal project for infer tests: a landed stimuli table and one tiny real PNG per image whose
bytes spell the image id in a text chunk (the fake servers read it back). The study (labels,
scale) is the repository's study.yml and seeds."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
from PIL import Image, PngImagePlugin
from rater1001.contract import STIMULI
from rater1001.landing import to_arrow, write_parquet_atomic
from rater1001.paths import ProjectPaths, project

EMOTIONS = ["happy", "sad", "angry", "fear", "disgust", "neutral"]


def make_infer_project(root: Path, n_images: int = 12) -> tuple[ProjectPaths, Path]:
    paths = project(root)
    images = root / "images"
    images.mkdir(parents=True, exist_ok=True)
    rows = []
    for i in range(n_images):
        image_id = f"img{i:04d}"
        (images / f"{image_id}.png").write_bytes(tiny_png(image_id))
        rows.append(
            {
                "image_id": image_id,
                "identity_id": f"id{i // 6:03d}",
                "race": "Korean",
                "gender": "female",
                "emotion": EMOTIONS[i % 6],
                "file_path": f"{image_id}.png",
            }
        )
    write_parquet_atomic(to_arrow(pd.DataFrame(rows), STIMULI), paths.raw_table("stimuli"))
    return paths, images


def tiny_png(image_id: str, size: tuple[int, int] = (4, 4), fmt: str = "PNG") -> bytes:
    """A decodable image whose bytes contain "IMG:<image_id> " (in a PNG text chunk)."""
    info = PngImagePlugin.PngInfo()
    info.add_text("rater1001", f"IMG:{image_id} ")
    buf = io.BytesIO()
    Image.new("RGB", size, (120, 80, 60)).save(buf, fmt, **({"pnginfo": info} if fmt == "PNG" else {}))
    return buf.getvalue()


def truth(image_id: str) -> str:
    return EMOTIONS[int(image_id[3:]) % 6]
