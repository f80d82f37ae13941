"""MultiPICo (LeWiDi 2025 release) -> the rater1001 landing files of a text study with rater
demographics.

    python convert_multipico.py OUT_DIR      # reads raw/MP_*_sample.json next to this file

Upstream format: MP_dev.json maps an item id to a record with the post and reply texts and
`annotations` {"Ann<n>": "0" | "1"} (1 = the reply is ironic); MP_annotators_meta.json maps the
annotator number to self-reported demographics (Age, Gender, ...). Only the files' own names and
values are used: a text is its item id, a label "0" or "1", an annotator `Ann<n>` with their age
and gender (the label set maps `Female` to `female`). Each text's category `irony` is its majority
label (the sample holds items with a strict majority); its audit factors are the record's `source`
and `language_variety`. A text is shown as the post, a line '---', then the reply.

The majority label is also landed as the predictions of a human-proxy condition, `crowd-majority`,
for the audit by rater attribute (tests/acceptance/README.md): the one table the files do not
hold, so `rater1001 init` leaves it to the user, who lands it with `rater1001 ingest`.

Writes stimuli.csv, raters.csv, human_ratings.csv, model_conditions.csv and
model_predictions.csv into OUT_DIR.
"""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW_ITEMS = HERE / "raw" / "MP_dev_en_sample.json"
RAW_ANNOTATORS = HERE / "raw" / "MP_annotators_meta_sample.json"


def read(items: Path = RAW_ITEMS, annotators: Path = RAW_ANNOTATORS) -> tuple[dict, dict]:
    return (json.loads(items.read_text(encoding="utf-8")), json.loads(annotators.read_text(encoding="utf-8")))


def majority(annotations: dict[str, str]) -> str:
    ironic = sum(1 for v in annotations.values() if v == "1")
    return "1" if 2 * ironic > len(annotations) else "0"


def convert(out_dir: Path, items: Path = RAW_ITEMS, annotators: Path = RAW_ANNOTATORS) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    records, people = read(items, annotators)
    stimuli = [
        {
            "image_id": k,
            "irony": majority(v["annotations"]),
            "source": v["other_info"]["source"],
            "language_variety": v["other_info"]["language_variety"],
            "text": f"{v['text']['post']}\n---\n{v['text']['reply']}",
        }
        for k, v in records.items()
    ]
    raters = []
    for number, person in people.items():
        age = person["Age"]
        raters.append(
            {
                "rater_id": f"Ann{number}",
                "gender": person["Gender"],
                "age": "" if not isinstance(age, (int, float)) or math.isnan(age) else int(age),
            }
        )
    ratings = [
        {"rater_id": a, "image_id": k, "irony": label}
        for k, v in records.items()
        for a, label in v["annotations"].items()
    ]
    conditions = [
        {"condition_id": "crowd-majority", "display_name": "Majority label of the annotators", "kind": "human-proxy"}
    ]
    predictions = [
        {"condition_id": "crowd-majority", "image_id": s["image_id"], "run_id": "1", "irony": s["irony"]}
        for s in stimuli
    ]
    return {
        name: _write(out_dir / f"{name}.csv", rows)
        for name, rows in (
            ("stimuli", stimuli),
            ("raters", raters),
            ("human_ratings", ratings),
            ("model_conditions", conditions),
            ("model_predictions", predictions),
        )
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
