"""FER+ vote counts -> the rater1001 landing files of a labels-only study.

    python convert_ferplus.py OUT_DIR        # reads raw/fer2013new_sample.csv next to this file

Upstream format (fer2013new.csv): one row per FER2013 image with the number of the ten crowd
taggers who chose each of eight emotions, 'unknown' or NF (not a face). The file carries counts,
not who voted: each vote becomes one rating by a rater known only as "vote k of image i"
(rater_id = <image>-v<k>), which Krippendorff's alpha does not need to tell apart. The image's
category is its most-voted emotion (the FER+ 'majority' label; the sample holds images with a
unique leader).

Writes stimuli.csv, raters.csv and human_ratings.csv into OUT_DIR.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = HERE / "raw" / "fer2013new_sample.csv"
# The forced-choice options in upstream column order ('unknown' is an option a tagger could pick).
LABELS = ("neutral", "happiness", "surprise", "sadness", "anger", "disgust", "fear", "contempt", "unknown")


def read_votes(raw: Path = RAW) -> list[tuple[str, dict[str, int]]]:
    with open(raw, newline="", encoding="utf-8") as fh:
        return [
            (row["Image name"].removesuffix(".png"), {k: int(row[k]) for k in LABELS}) for row in csv.DictReader(fh)
        ]


def plurality(votes: dict[str, int]) -> str:
    top = max(votes.values())
    (label,) = [k for k, v in votes.items() if v == top]
    return label


def convert(out_dir: Path, raw: Path = RAW) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    stimuli, raters, ratings = [], [], []
    for image, votes in read_votes(raw):
        stimuli.append({"image_id": image, "emotion": plurality(votes), "file_path": f"{image}.png"})
        k = 0
        for label in LABELS:
            for _ in range(votes[label]):
                k += 1
                rater = f"{image}-v{k:02d}"
                raters.append({"rater_id": rater})
                ratings.append({"rater_id": rater, "image_id": image, "emotion": label})
    return {
        name: _write(out_dir / f"{name}.csv", rows)
        for name, rows in (("stimuli", stimuli), ("raters", raters), ("human_ratings", ratings))
    }


def _write(path: Path, rows: list[dict]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


if __name__ == "__main__":
    for table, path in convert(Path(sys.argv[1])).items():
        print(f"{table}: {path}")
