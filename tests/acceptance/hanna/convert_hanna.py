"""HANNA story ratings and LLM ratings -> the rater1001 landing files of a ratings study.

    python convert_hanna.py OUT_DIR          # reads raw/hanna_sample.csv next to this file

Upstream format (hanna_metric_scores_llm.csv): one row per story generator; each column holds a
list with one value per story of that generator. `Human j CH` is the j-th of the three human
Coherence ratings of each story (1-5), `<LLM> CH 1` the LLM's Coherence rating under the first
prompt (a mean of its sampled answers, so not always a whole number); EM = Empathy.

Only the file's own names are used (what a researcher holding this file has): a story is
`<generator>-<position>` (the generator as a name: lower case, `_` between words; position from 1),
since the file gives no story id; rater_id `Human <j>` is "the j-th rating of every story", the
combined annotator of the Alt-Test paper's FAQ (annotators of different items paired into one
column; alpha and leave-one-out statistics do not depend on it); a condition is `<LLM> 1`, the
LLM under prompt 1 (`beluga-13b-1`). The file has no story texts, so the study is not a text study.
The generator (as HANNA spells it; the label set's aliases map it) is the story's audit factor.

Writes stimuli.csv, raters.csv, human_ratings.csv, model_conditions.csv and
model_predictions.csv into OUT_DIR.
"""

from __future__ import annotations

import ast
import csv
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = HERE / "raw" / "hanna_sample.csv"
CRITERIA = {"CH": "coherence", "EM": "empathy"}


def story_id(generator: str, position: int) -> str:
    return re.sub(r"[^a-z0-9]+", "_", generator.lower()).strip("_") + f"-{position}"


def condition_id(llm: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", llm.lower()).strip("-")


def read_long(raw: Path = RAW) -> tuple[list[dict], list[dict]]:
    """(human rows: story, generator, rater, criterion, value), (LLM rows: story, llm, criterion, value)."""
    humans, llms = [], []
    with open(raw, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            for column, cell in row.items():
                if column == "Model":
                    continue
                parts = column.split()
                for k, value in enumerate(ast.literal_eval(cell)):
                    story = story_id(row["Model"], k + 1)
                    if parts[0] == "Human":
                        humans.append(
                            {
                                "story": story,
                                "generator": row["Model"],
                                "rater": f"Human {parts[1]}",
                                "criterion": CRITERIA[parts[2]],
                                "value": int(value),
                            }
                        )
                    else:
                        llms.append(
                            {
                                "story": story,
                                "llm": " ".join(parts[:-2] + parts[-1:]),
                                "criterion": CRITERIA[parts[-2]],
                                "value": float(value),
                            }
                        )
    return humans, llms


def convert(out_dir: Path, raw: Path = RAW) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    humans, llms = read_long(raw)
    generator_of = {h["story"]: h["generator"] for h in humans}
    raters = sorted({h["rater"] for h in humans})
    ratings: dict[tuple[str, str], dict] = {}
    for h in humans:
        ratings.setdefault((h["rater"], h["story"]), {"rater_id": h["rater"], "image_id": h["story"]})[
            h["criterion"]
        ] = h["value"]
    predictions: dict[tuple[str, str], dict] = {}
    for m in llms:
        condition = condition_id(m["llm"])
        row = predictions.setdefault(
            (condition, m["story"]), {"condition_id": condition, "image_id": m["story"], "run_id": "1"}
        )
        row[m["criterion"]] = repr(m["value"])
    llm_names = sorted({m["llm"] for m in llms})
    conditions = [{"condition_id": condition_id(name), "display_name": name, "kind": "llm"} for name in llm_names]
    tables = {
        "stimuli": [{"image_id": s, "generator": g} for s, g in sorted(generator_of.items())],
        "raters": [{"rater_id": r} for r in raters],
        "human_ratings": [ratings[k] for k in sorted(ratings)],
        "model_conditions": conditions,
        "model_predictions": [predictions[k] for k in sorted(predictions)],
    }
    return {name: _write(out_dir / f"{name}.csv", rows) for name, rows in tables.items()}


def _write(path: Path, rows: list[dict]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


if __name__ == "__main__":
    for table, path in convert(Path(sys.argv[1])).items():
        print(f"{table}: {path}")
