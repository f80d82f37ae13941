"""EmoBank reader and writer ratings -> the rater1001 landing files of a ratings study with three
dimensions and no category.

    python convert_emobank.py OUT_DIR          # reads raw/ next to this file

Upstream format (EmoBank corpus/): `individual_reader_ratings.csv` has one row per annotator's
rating of a sentence from the reader's perspective (id, V, A, D on 1-5), `individual_writer_ratings.csv`
the same from the writer's perspective (other annotators), `raw.csv` the sentence texts and
`meta.tsv` each sentence's category (its genre: blog, essays, fiction, letters, newspaper,
travel-guides, or SemEval for the SemEval-2007 headlines).

The files do not say which annotator gave a rating, only its order within the sentence: rater_id
`rater<k>` is "the k-th reader rating of every sentence" (5 per sentence, 6 or 7 for a few), as
HANNA's positions. The reader ratings are the human pool; the mean of a sentence's writer-
perspective ratings is one condition of kind human-proxy (`writer-mean`): can the writer
perspective stand in for readers? That mean is the one table the files do not hold, so
`rater1001 init` leaves it to the user, who lands it with `rater1001 ingest`. The category is the
sentence's audit factor `genre` (as meta.tsv spells it); the study has no category factor.

Writes stimuli.csv, raters.csv, human_ratings.csv, model_conditions.csv and model_predictions.csv
into OUT_DIR.
"""

from __future__ import annotations

import csv
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = HERE / "raw"
DIMENSIONS = {"V": "valence", "A": "arousal", "D": "dominance"}


def _rows(name: str, raw: Path) -> list[dict]:
    with open(raw / name, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _write(path: Path, rows: list[dict], fields: list[str]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def convert(out_dir: Path, raw: Path = RAW) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    genre = {}
    for line in (raw / "meta.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        parts = line.split("\t")
        genre[parts[0]] = parts[2]
    text = {r["id"]: r["text"] for r in _rows("raw.csv", raw)}
    stimuli = [{"image_id": i, "genre": genre[i], "text": text[i]} for i in genre]

    ratings, position = [], defaultdict(int)
    for r in _rows("individual_reader_ratings.csv", raw):
        position[r["id"]] += 1
        ratings.append(
            {"rater_id": f"rater{position[r['id']]}", "image_id": r["id"]}
            | {DIMENSIONS[k]: int(r[k]) for k in DIMENSIONS}
        )
    raters = [{"rater_id": f"rater{k}"} for k in range(1, max(position.values()) + 1)]

    writers = defaultdict(list)
    for r in _rows("individual_writer_ratings.csv", raw):
        writers[r["id"]].append(r)
    predictions = [
        {"condition_id": "writer-mean", "image_id": i, "run_id": "1"}
        | {DIMENSIONS[k]: sum(float(w[k]) for w in rows) / len(rows) for k in DIMENSIONS}
        for i, rows in writers.items()
    ]
    conditions = [{"condition_id": "writer-mean", "display_name": "Writer-perspective mean", "kind": "human-proxy"}]
    dims = list(DIMENSIONS.values())
    return {
        "stimuli": _write(out_dir / "stimuli.csv", stimuli, ["image_id", "genre", "text"]),
        "raters": _write(out_dir / "raters.csv", raters, ["rater_id"]),
        "model_conditions": _write(
            out_dir / "model_conditions.csv", conditions, ["condition_id", "display_name", "kind"]
        ),
        "human_ratings": _write(out_dir / "human_ratings.csv", ratings, ["rater_id", "image_id", *dims]),
        "model_predictions": _write(
            out_dir / "model_predictions.csv", predictions, ["condition_id", "image_id", "run_id", *dims]
        ),
    }


if __name__ == "__main__":
    convert(Path(sys.argv[1]))
