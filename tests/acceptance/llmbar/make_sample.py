"""How raw/ was cut from the upstream files (not run by the tests). Upstream: LLMBar,
https://github.com/princeton-nlp/LLMBar (commit 900616bff90b6c6c8e1681f7d079250637c55992), folder
Dataset/LLMBar/Natural: dataset.json (100 instances) and, for the evaluators GPT-4 and ChatGPT
with the Vanilla strategy, evaluators/<model>/Vanilla/result.json and statistics.json. Kept in the
same layout; every text cut to its first CUT characters, and result.json keeps label and results
only (its input and outputs repeat dataset.json). statistics.json is copied whole.

Usage: python make_sample.py UPSTREAM_NATURAL_FOLDER
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

CUT = 300
EVALUATORS = ("GPT-4", "ChatGPT")
HERE = Path(__file__).resolve().parent


def main(upstream: Path) -> None:
    raw = HERE / "raw"
    data = json.loads((upstream / "dataset.json").read_text(encoding="utf-8"))
    cut = [{k: (v[:CUT] if k != "label" else v) for k, v in row.items()} for row in data]
    raw.mkdir(exist_ok=True)
    (raw / "dataset.json").write_text(json.dumps(cut, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for model in EVALUATORS:
        src = upstream / "evaluators" / model / "Vanilla"
        dst = raw / "evaluators" / model / "Vanilla"
        dst.mkdir(parents=True, exist_ok=True)
        results = json.loads((src / "result.json").read_text(encoding="utf-8"))
        kept = [{"label": r["label"], "results": r["results"]} for r in results]
        (dst / "result.json").write_text(json.dumps(kept, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        shutil.copyfile(src / "statistics.json", dst / "statistics.json")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
