"""How the raw MultiPICo sample was cut from the LeWiDi 2025 release of MultiPICo (kept for
provenance; the tests do not run it).

    python make_sample.py MP_dev.json MP_annotators_meta.json raw/

Items: the first 200 English items of MP_dev.json (in file order) with at least four
annotators and a strict majority label (more 'ironic' than 'not ironic' votes or the reverse), so
that each text has one majority label to serve as its category. Annotators: the metadata records of every annotator of those items. Both files keep
the upstream JSON layout (item id -> record; annotator number -> record).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

N_ITEMS = 200
MIN_ANNOTATORS = 4


def has_majority(annotations: dict) -> bool:
    ironic = sum(1 for label in annotations.values() if label == "1")
    return 2 * ironic != len(annotations)


def main(dev: str, meta: str, target: str) -> None:
    items = json.loads(Path(dev).read_text(encoding="utf-8"))
    chosen = {
        k: v
        for k, v in items.items()
        if v["lang"] == "en" and len(v["annotations"]) >= MIN_ANNOTATORS and has_majority(v["annotations"])
    }
    chosen = dict(list(chosen.items())[:N_ITEMS])
    annotators = {a.removeprefix("Ann") for v in chosen.values() for a in v["annotations"]}
    records = json.loads(Path(meta).read_text(encoding="utf-8"))
    out = Path(target)
    (out / "MP_dev_en_sample.json").write_text(json.dumps(chosen, ensure_ascii=False, indent=1), encoding="utf-8")
    (out / "MP_annotators_meta_sample.json").write_text(
        json.dumps({k: records[k] for k in sorted(records, key=int) if k in annotators}, ensure_ascii=False, indent=1),
        encoding="utf-8",
    )


if __name__ == "__main__":
    main(*sys.argv[1:4])
