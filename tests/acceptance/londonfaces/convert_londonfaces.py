"""London Face Set attractiveness ratings -> the rater1001 landing files of a ratings study of
faces by raters whose demographics are given.

    python convert_londonfaces.py OUT_DIR          # reads raw/ next to this file

Upstream format (the faux R package's data-raw/): `london_faces_ratings.csv` has one row per
rater (rater_sex, rater_sexpref, rater_age, then the rater's 1-7 attractiveness rating of each face
in columns X001 ... X173; lines end in a carriage return); `london_faces_info.csv` has each face's
age, sex and ethnic group.

Only the files' own names are used. Raters are known by their row: rater_id `r<row>` (row in the
sample, from 1, as many digits as the last row's number), with two attributes, `rater_sex` and
`rater_sexpref`; their ages (in years with decimals) are not landed (the contract's age is whole
years). The faces carry two audit factors, `face_sex` and `face_eth`; one cell of the two is empty
(no female east_asian/white face). Each face is its own identity (identity_id = its face_id). The
face images are not part of the sample.

The mean of every sixth rater's ratings of a face is one condition of kind human-proxy
(`panel-mean`): how close does a 12-rater panel's mean come to the whole pool's (those raters
stay in the pool, as the file has them)? That mean is the one table the files do not hold, so
`rater1001 init` leaves it to the user, who lands it with `rater1001 ingest`.

Writes stimuli.csv, raters.csv, human_ratings.csv, model_conditions.csv and model_predictions.csv
into OUT_DIR.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = HERE / "raw"
PANEL_EVERY = 6


def read_ratings(raw: Path = RAW) -> tuple[list[str], list[list[str]]]:
    """(face columns, rows as lists of strings) of the upstream ratings file."""
    lines = [line for line in (raw / "london_faces_ratings.csv").read_bytes().decode("utf-8").split("\r") if line]
    header = lines[0].split(",")
    return header[3:], [line.split(",") for line in lines[1:]]


def _write(path: Path, rows: list[dict], fields: list[str]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def convert(out_dir: Path, raw: Path = RAW) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(raw / "london_faces_info.csv", newline="", encoding="utf-8") as fh:
        info = list(csv.DictReader(fh))
    stimuli = [
        {"image_id": f["face_id"], "identity_id": f["face_id"], "face_sex": f["face_sex"], "face_eth": f["face_eth"]}
        for f in info
    ]
    faces, rows = read_ratings(raw)
    raters, ratings, panel = [], [], {face: [] for face in faces}
    width = len(str(len(rows)))
    for k, row in enumerate(rows, start=1):
        values = dict(zip(faces, row[3:], strict=True))
        if k % PANEL_EVERY == 0:
            for face, v in values.items():
                if v not in ("", "NA"):
                    panel[face].append(int(v))
        rid = f"r{k:0{width}d}"
        raters.append({"rater_id": rid, "rater_sex": row[0], "rater_sexpref": row[1]})
        ratings += [
            {"rater_id": rid, "image_id": face, "attractiveness": int(v)}
            for face, v in values.items()
            if v not in ("", "NA")
        ]
    predictions = [
        {"condition_id": "panel-mean", "image_id": face, "run_id": "1", "attractiveness": sum(v) / len(v)}
        for face, v in panel.items()
        if v
    ]
    conditions = [{"condition_id": "panel-mean", "display_name": "Mean of a 12-rater panel", "kind": "human-proxy"}]
    return {
        "stimuli": _write(out_dir / "stimuli.csv", stimuli, ["image_id", "identity_id", "face_sex", "face_eth"]),
        "raters": _write(out_dir / "raters.csv", raters, ["rater_id", "rater_sex", "rater_sexpref"]),
        "model_conditions": _write(
            out_dir / "model_conditions.csv", conditions, ["condition_id", "display_name", "kind"]
        ),
        "human_ratings": _write(out_dir / "human_ratings.csv", ratings, ["rater_id", "image_id", "attractiveness"]),
        "model_predictions": _write(
            out_dir / "model_predictions.csv", predictions, ["condition_id", "image_id", "run_id", "attractiveness"]
        ),
    }


if __name__ == "__main__":
    convert(Path(sys.argv[1]))
