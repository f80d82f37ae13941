"""HANNA story ratings and LLM ratings -> the rater1001 landing files of a ratings study.

    python convert_hanna.py OUT_DIR          # reads raw/hanna_sample.csv next to this file

Upstream format (hanna_metric_scores_llm.csv): one row per story generator; each column holds a
list with one value per story of that generator, stories in Story ID order (generator row r,
position k -> Story ID 96 r + k). `Human j CH` is the j-th of the three human Coherence ratings
of each story (1-5), `<LLM> CH 1` the LLM's Coherence rating under the first prompt (a mean of
its sampled answers, so not always a whole number); EM = Empathy.

The file does not say which crowd worker gave a rating, only its position j: rater_id `h<j>` is
"the j-th rating of every story", the combined annotator of the Alt-Test paper's FAQ (annotators
of different items paired into one column). Alpha and leave-one-out statistics do not depend on it.

That file has no story texts (they are in the upstream hanna_stories_annotations.csv, not in the
sample), so a stimulus's text names the story instead: its HANNA Story ID and generator. The generator
(as HANNA spells it; the label set's aliases map it) is the story's audit factor `generator`.

Writes stimuli.csv, raters.csv, human_ratings.csv, model_conditions.csv and
model_predictions.csv into OUT_DIR.
"""

from __future__ import annotations

import ast
import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = HERE / "raw" / "hanna_sample.csv"
STORIES_PER_GENERATOR = 96  # in the full file; Story IDs keep their upstream numbers
CRITERIA = {"CH": "coherence", "EM": "empathy"}
# Upstream column prefix -> condition_id (the names as HANNA prints them).
LLMS = {
    "Beluga-13B": "beluga-13b",
    "OrcaPlatypus": "orcaplatypus",
    "Mistral-7B": "mistral-7b",
    "Llama-13B": "llama-13b",
    "ChatGPT": "chatgpt",
}


def read_long(raw: Path = RAW) -> tuple[list[dict], list[dict]]:
    """(human rows: story, generator, rater, criterion, value), (LLM rows: story, llm, criterion, value)."""
    humans, llms = [], []
    with open(raw, newline="", encoding="utf-8") as fh:
        for r, row in enumerate(csv.DictReader(fh)):
            for column, cell in row.items():
                if column == "Model":
                    continue
                parts = column.split()
                for k, value in enumerate(ast.literal_eval(cell)):
                    story = f"story{STORIES_PER_GENERATOR * r + k:04d}"
                    if parts[0] == "Human":
                        humans.append(
                            {
                                "story": story,
                                "generator": row["Model"],
                                "rater": f"h{parts[1]}",
                                "criterion": CRITERIA[parts[2]],
                                "value": int(value),
                            }
                        )
                    else:
                        llms.append(
                            {
                                "story": story,
                                "llm": " ".join(parts[:-2]),
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
        condition = LLMS[m["llm"]]
        row = predictions.setdefault(
            (condition, m["story"]), {"condition_id": condition, "image_id": m["story"], "run_id": "prompt1"}
        )
        row[m["criterion"]] = repr(m["value"])
    conditions = [{"condition_id": cid, "display_name": name, "kind": "llm"} for name, cid in LLMS.items()]
    tables = {
        "stimuli": [
            {
                "image_id": s,
                "generator": g,
                "text": f"[HANNA Story ID {int(s[5:])}, generator {g}; text not in the sample]",
            }
            for s, g in sorted(generator_of.items())
        ],
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
