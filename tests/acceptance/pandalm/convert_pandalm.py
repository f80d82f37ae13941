"""PandaLM human-annotated test set -> the judge study's landing files.

Pair `idx` k of testset-v1.json is the dialogue `k` (its instruction and input as one user turn,
its `motivation_app` as the category, the file's name as its source): the release has no task id, and the same model's answer
to the same instruction differs between pairs, so a pair is a dialogue of its own. `cmp_key`
`<model_1>_<model_2>` names the candidates: response1 is model_1's answer, shown first (order AB).
Labels 1 / 2 / 0 are response 1 better / response 2 better / tie; the three human annotators are
`annotator1`-`annotator3`; the two LLM judges (gpt-3.5-turbo and PandaLM-7B) each answered that one
order. gpt-3.5-turbo's `Tie` is a tie and its `garbage` an unparsed answer (parse_status failed,
no verdict). One axis, `overall`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

RAW = Path(__file__).resolve().parent / "raw"
HUMANS = ("annotator1", "annotator2", "annotator3")
JUDGES = {
    "gpt-3.5-turbo": ("gpt-3.5-turbo-testset-v1.json", "gpt_result"),
    "pandalm-7b": ("pandalm-7b-testset-v1.json", "pandalm_result"),
}
VERDICT = {"1": "1", "2": "2", "0": "tie", "Tie": "tie"}


def sample(k: int) -> str:
    return str(k)


def models(cmp_key: str) -> tuple[str, str]:
    a, b = cmp_key.split("_")
    return a, b


def verdict_row(judge: str, kind: str, pair: dict, label) -> dict:
    a, b = models(pair["cmp_key"])
    v = VERDICT.get(str(label))
    return {
        "judge_id": judge,
        "judge_kind": kind,
        "judge_model": judge if kind == "llm" else None,
        "sample_id": sample(pair["idx"]),
        "variant": "text",
        "candidate_a": a,
        "candidate_b": b,
        "order": "AB",
        "verdict_overall": v,
        "raw_text": str(label),
        "parse_status": "ok" if v else "failed",
    }


def convert(out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    pairs = json.loads((RAW / "testset-v1.json").read_text(encoding="utf-8"))
    dialogues, candidates, verdicts = [], [], []
    for p in pairs:
        text = f"{p['instruction']}\n\n{p['input']}" if p["input"] else str(p["instruction"])
        dialogues.append(
            {
                "sample_id": sample(p["idx"]),
                "category": p["motivation_app"],
                "turns": json.dumps([{"speaker": "user", "text": text}], ensure_ascii=False),
                "next_speaker": "assistant",
                "source": "testset-v1.json",
            }
        )
        for model, key in zip(models(p["cmp_key"]), ("response1", "response2")):
            candidates.append(
                {
                    "sample_id": sample(p["idx"]),
                    "candidate_id": model,
                    "variant": "text",
                    # the file's own spelling: an answer published as the JSON value true is "true"
                    "response_text": p[key] if isinstance(p[key], str) else json.dumps(p[key]),
                    "status": "ok",
                    "model_id": model,
                }
            )
        verdicts += [verdict_row(h, "human", p, p[h]) for h in HUMANS]
    by_idx = {p["idx"]: p for p in pairs}
    for judge, (file, key) in JUDGES.items():
        for r in json.loads((RAW / file).read_text(encoding="utf-8")):
            verdicts.append(verdict_row(judge, "llm", by_idx[r["idx"]], r[key]))
    paths = {}
    for table, rows in (("dialogues", dialogues), ("candidates", candidates), ("judge_verdicts", verdicts)):
        paths[table] = out / f"{table}.csv"
        pd.DataFrame(rows).to_csv(paths[table], index=False)
    return paths
