"""How long `rater1001 ingest human_ratings` takes for 72,000 and 720,000 ratings, against a baseline
measured in the same run on the same file: plain pandas read_csv + to_parquet (no validation).

    .venv/bin/python benchmarks/bench_ingest.py [--sizes 72000 720000] [--repeat 3]

The ratio is what validation costs on top of reading and writing; the acceptance target is that
72,000 ratings ingest in a couple of seconds.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from rater1001.ingest import ingest_file
from rater1001.paths import project

IMAGES = 1440
IMAGES_PER_RATER = 72


def write_study(folder: Path, n_ratings: int, seed: int = 1) -> Path:
    """stimuli.csv, raters.csv and ratings.csv for n_ratings ratings in the paper's layout."""
    rng = np.random.default_rng(seed)
    races, genders = ["Black", "Caucasian", "Korean"], ["female", "male"]
    emotions = ["happy", "sad", "angry", "fear", "disgust", "neutral"]
    image = np.arange(IMAGES)
    pd.DataFrame(
        {
            "image_id": [f"img{i:04d}" for i in image],
            "identity_id": [f"id{i // 6:03d}" for i in image],
            "race": np.array(races)[image % 3],
            "gender": np.array(genders)[(image // 3) % 2],
            "emotion": np.array(emotions)[image % 6],
            "file_path": [f"faces/img{i:04d}.png" for i in image],
        }
    ).to_csv(folder / "stimuli.csv", index=False)
    n_raters = n_ratings // IMAGES_PER_RATER
    pd.DataFrame(
        {
            "rater_id": [f"r{i:06d}" for i in range(n_raters)],
            "gender": rng.choice(genders, n_raters),
            "age": rng.integers(18, 70, n_raters),
        }
    ).to_csv(folder / "raters.csv", index=False)
    rater = np.repeat(np.arange(n_raters), IMAGES_PER_RATER)
    trial = np.tile(np.arange(IMAGES_PER_RATER), n_raters)
    image_of = (rater * IMAGES_PER_RATER + trial) % IMAGES  # each rater sees 72 distinct images
    n = len(rater)
    ratings = pd.DataFrame(
        {
            "rater_id": np.char.add("r", np.char.zfill(rater.astype(str), 6)),
            "image_id": np.char.add("img", np.char.zfill(image_of.astype(str), 4)),
            "valence": rng.integers(1, 10, n),
            "arousal": rng.integers(1, 10, n),
            "naturalness": rng.integers(1, 10, n),
            "rt_valence_ms": rng.gamma(4, 400, n).round(1),
            "rt_arousal_ms": rng.gamma(4, 400, n).round(1),
            "rt_naturalness_ms": rng.gamma(4, 400, n).round(1),
            "trial_index": trial + 1,
        }
    )
    path = folder / "ratings.csv"
    ratings.to_csv(path, index=False)
    return path


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[72_000, 720_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'ratings':>9} {'baseline s':>11} {'ingest s':>9} {'ratio':>6}  rows landed")
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            paths = project(folder)
            ratings = write_study(folder, size)
            ingest_file(paths, "stimuli", folder / "stimuli.csv")
            ingest_file(paths, "raters", folder / "raters.csv")
            baseline = best_of(
                args.repeat, lambda: pd.read_csv(ratings).to_parquet(folder / "baseline.parquet", index=False)
            )
            results = []
            ours = best_of(args.repeat, lambda: results.append(ingest_file(paths, "human_ratings", ratings)))
            landed = results[-1].rows_landed
            print(f"{size:>9,} {baseline:>11.2f} {ours:>9.2f} {ours / baseline:>6.1f}  {landed:,}")


if __name__ == "__main__":
    main()
