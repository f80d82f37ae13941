"""How raw/hanna_sample.csv was cut from the upstream HANNA file hanna_metric_scores_llm.csv
(kept for provenance; the tests do not run it).

    python make_sample.py path/to/hanna_metric_scores_llm.csv raw/hanna_sample.csv

The upstream file has one row per story generator (11 rows) and, per column, a Python-style list
with one value per story of that generator (96 stories each). The sample keeps that layout: the
same 11 rows, the `Model` column, the three human raters' Coherence and Empathy scores
(`Human k CH`, `Human k EM`) and the five LLMs' scores for the same criteria under the first
prompt (`<LLM> CH 1`, `<LLM> EM 1`), each list cut to its first 20 stories (220 stories in all).
The 72 automatic metrics and the other prompts are left out to keep the sample small.
"""

from __future__ import annotations

import ast
import csv
import sys

N_STORIES = 20
CRITERIA = ("CH", "EM")
LLMS = ("Beluga-13B", "OrcaPlatypus", "Mistral-7B", "Llama-13B", "ChatGPT")


def columns() -> list[str]:
    humans = [f"Human {k} {c}" for k in (1, 2, 3) for c in CRITERIA]
    llms = [f"{m} {c} 1" for m in LLMS for c in CRITERIA]
    return ["Model", *humans, *llms]


def main(source: str, target: str) -> None:
    csv.field_size_limit(1 << 30)
    keep = columns()
    with open(source, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    with open(target, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=keep, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            out = {"Model": row["Model"]}
            for col in keep[1:]:
                values = ast.literal_eval(row[col])[:N_STORIES]
                out[col] = "[" + ", ".join(repr(v) for v in values) + "]"
            writer.writerow(out)


if __name__ == "__main__":
    main(*sys.argv[1:3])
