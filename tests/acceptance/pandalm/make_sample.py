"""How raw/ was cut from the upstream files (not run by the tests). Upstream: the PandaLM repository
https://github.com/WeOpenML/PandaLM, folder data/ (commit 3871806e72b4832f815ecafd24d3503c73403f48,
Apache License 2.0). All 999 pairs are kept, in the upstream layout and key order:
testset-v1.json with instruction, input, response1 and response2 cut to their first CUT characters
(a non-string value, as upstream's six booleans, is kept as it is); gpt-3.5-turbo-testset-v1.json and
pandalm-7b-testset-v1.json keep `idx` and the verdict (`gpt_result`, `pandalm_result`) and leave out
the judge's reason and reference answer.

Usage: python make_sample.py UPSTREAM_DATA_FOLDER
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

CUT = 40
TEXTS = ("instruction", "input", "response1", "response2")
JUDGES = {"gpt-3.5-turbo-testset-v1.json": "gpt_result", "pandalm-7b-testset-v1.json": "pandalm_result"}
HERE = Path(__file__).resolve().parent


def cut(value):
    return value[:CUT] if isinstance(value, str) else value


def write(path: Path, rows: list[dict]) -> None:
    """A JSON list, one pair per line."""
    lines = ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows)
    path.write_text(f"[\n{lines}\n]\n", encoding="utf-8")


def main(upstream: Path) -> None:
    raw = HERE / "raw"
    raw.mkdir(exist_ok=True)
    pairs = json.loads((upstream / "testset-v1.json").read_text(encoding="utf-8"))
    write(raw / "testset-v1.json", [{k: cut(v) if k in TEXTS else v for k, v in p.items()} for p in pairs])
    for name, key in JUDGES.items():
        rows = json.loads((upstream / name).read_text(encoding="utf-8"))
        write(raw / name, [{"idx": r["idx"], key: r[key]} for r in rows])


if __name__ == "__main__":
    main(Path(sys.argv[1]))
