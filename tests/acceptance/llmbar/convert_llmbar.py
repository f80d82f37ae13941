"""LLMBar Natural sample -> the judge study's landing files.

Instance k (1-based: the file has no id) of dataset.json is the dialogue `k` (its `input` as one user
turn, the file's name as its category and source) with two candidates, `output_1` and `output_2`
(the instance's two outputs; no model names are published). The human side is the gold label, one
annotator named as its column (`label`, order AB). Each evaluator
answered both orders: `swap = False` shows output_1 first (order AB), `swap = True` shows output_2
first (order BA); `winner` names the output in the dataset's own numbering, so in order BA the
position verdict is the other number. An evaluator is named as its folder (`GPT-4` -> `gpt-4`);
the raw text is the `winner` value. One axis, `overall`; both orders (the default design).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

RAW = Path(__file__).resolve().parent / "raw"
EVALUATORS = {"GPT-4": "gpt-4", "ChatGPT": "chatgpt"}


def sample(k: int) -> str:
    return str(k + 1)


def position(winner: str, order: str) -> str | None:
    if winner not in ("1", "2"):
        return None
    return winner if order == "AB" else {"1": "2", "2": "1"}[winner]


def convert(out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    data = json.loads((RAW / "dataset.json").read_text(encoding="utf-8"))
    dialogues, candidates, verdicts = [], [], []
    for k, row in enumerate(data):
        dialogues.append(
            {
                "sample_id": sample(k),
                "category": "dataset",
                "turns": json.dumps([{"speaker": "user", "text": row["input"]}], ensure_ascii=False),
                "next_speaker": "assistant",
                "source": "dataset.json",
            }
        )
        for c in ("output_1", "output_2"):
            candidates.append(
                {"sample_id": sample(k), "candidate_id": c, "variant": "text", "response_text": row[c], "status": "ok"}
            )
        verdicts.append(
            {
                "judge_id": "label",
                "judge_kind": "human",
                "sample_id": sample(k),
                "variant": "text",
                "candidate_a": "output_1",
                "candidate_b": "output_2",
                "order": "AB",
                "verdict_overall": str(row["label"]),
                "raw_text": str(row["label"]),
                "parse_status": "ok",
            }
        )
    for folder, judge in EVALUATORS.items():
        results = json.loads((RAW / "evaluators" / folder / "Vanilla" / "result.json").read_text(encoding="utf-8"))
        for k, r in enumerate(results):
            both = r["results"][0]
            for key, order in (("swap = False", "AB"), ("swap = True", "BA")):
                v = position(str(both[key]["winner"]), order)
                verdicts.append(
                    {
                        "judge_id": judge,
                        "judge_kind": "llm",
                        "judge_model": folder,
                        "sample_id": sample(k),
                        "variant": "text",
                        "candidate_a": "output_1",
                        "candidate_b": "output_2",
                        "order": order,
                        "verdict_overall": v,
                        "raw_text": str(both[key]["winner"]),
                        "parse_status": "ok" if v else "failed",
                    }
                )
    paths = {}
    for table, rows in (("dialogues", dialogues), ("candidates", candidates), ("judge_verdicts", verdicts)):
        paths[table] = out / f"{table}.csv"
        pd.DataFrame(rows).to_csv(paths[table], index=False)
    return paths
