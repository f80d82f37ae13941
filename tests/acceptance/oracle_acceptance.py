"""The oracle (tests/oracle) on an acceptance study: the same comparisons as the shape matrix, one
test per check, the known wrong answers marked as there (oracle_known_bugs)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "oracle"))

import oracle_calc as oc  # noqa: E402
from oracle_checks import CHECKS  # noqa: E402
from oracle_known_bugs import oracle_check as _check  # noqa: E402


def oracle_check(root: Path, check: str, request) -> None:
    _check(root, oc.load(root), check, request)


__all__ = ["CHECKS", "oracle_check"]


PAPER_WORDS = ("emotion", "emotions", "race", "gender", "valence", "arousal", "naturalness")


def paper_words_shown(study, own: tuple[str, ...] = ()) -> list[str]:
    """Where the paper's vocabulary (less the study's own names) appears in what a person reads:
    the report, the data-quality report, the query views' columns and text values. A report that
    was not written is a finding too."""
    import re

    words = [w for w in PAPER_WORDS if w not in own]
    pattern = re.compile(r"\b(" + "|".join(words) + r")\b", re.IGNORECASE)
    found = []
    for page in ("report/index.html", "report/data_quality/index.html"):
        path = study.paths.root / page
        if not path.exists():
            found.append(f"{page}: not written")
            continue
        hits = sorted({m.lower() for m in pattern.findall(path.read_text(encoding="utf-8", errors="replace"))})
        found += [f"{page}: {w}" for w in hits]
    views = study.query("select table_name from information_schema.tables where table_name like 'query_%'")
    for view in views["table_name"]:
        frame = study.query(f"select * from {view}")
        found += [f"{view}.{c} (column)" for c in frame.columns if pattern.search(c)]
        for c in frame.select_dtypes(include="object").columns:
            values = {str(v) for v in frame[c].dropna().unique()}
            found += [f"{view}.{c}: {v}" for v in sorted(values) if pattern.search(v)][:3]
    return found
