"""Images per second of `rater1001 infer fer-mini-xception` (ledger with fsync, progress off,
compaction included) against the floor: a plain Python loop over the same files that reads each
image, runs the face detector and one interpreter call, and keeps nothing.

    .venv/bin/python benchmarks/bench_fer.py [--images 200] [--concurrency 1 2]

The photos are scikit-image's astronaut portrait (one face) and chelsea (no face), alternated,
written as PNG files of their original 512 x 512 / 451 x 300 size.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import cv2
import pandas as pd
import skimage.data
from rater1001.contract import STIMULI
from rater1001.landing import to_arrow, write_parquet_atomic
from rater1001.paths import project
from rater1001.runs.infer.fer_model import FerClassifier
from rater1001.runs.infer.run import InferOptions, run_infer


def make_project(root: Path, n: int):
    paths, images = project(root), root / "photos"
    images.mkdir()
    photos = [
        cv2.cvtColor(skimage.data.astronaut(), cv2.COLOR_RGB2BGR),
        cv2.cvtColor(skimage.data.chelsea(), cv2.COLOR_RGB2BGR),
    ]
    rows = []
    for i in range(n):
        f = f"p{i:05d}.png"
        cv2.imwrite(str(images / f), photos[i % 2])
        rows.append(
            {
                "image_id": f"p{i:05d}",
                "identity_id": "x",
                "race": "Korean",
                "gender": "female",
                "emotion": "happy",
                "file_path": f,
            }
        )
    write_parquet_atomic(to_arrow(pd.DataFrame(rows), STIMULI), paths.raw_table("stimuli"))
    return paths, images


def floor(images: Path) -> float:
    clf = FerClassifier()
    files = sorted(images.glob("*.png"))
    clf.classify_file(files[0])  # load the interpreter outside the timing, as the run does once
    started = time.perf_counter()
    for f in files:
        clf.classify_file(f)
    return len(files) / (time.perf_counter() - started)


def tool(n: int, concurrency: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        paths, images = make_project(Path(tmp), n)
        started = time.perf_counter()
        run_infer(paths, InferOptions(["fer-mini-xception"], images, progress=False, concurrency={"fer": concurrency}))
        return n / (time.perf_counter() - started)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--images", type=int, default=200)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        _, images = make_project(Path(tmp), args.images)
        base = floor(images)
    print(f"floor (plain loop: imread + detect + classify): {base:.1f} images/s")
    for c in args.concurrency:
        rate = tool(args.images, c)
        print(f"rater1001 infer, concurrency {c}: {rate:.1f} images/s ({rate / base:.2f} x the floor)")


if __name__ == "__main__":
    main()
