"""The oracle (tests/oracle) on an acceptance study: the same comparisons as the shape matrix, one
test per check, the known wrong answers marked as there (oracle_known_bugs). Each acceptance
module imports `test_the_oracle_agrees_with_the_warehouse`; pytest collects it there, with that
module's `study` fixture."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "oracle"))

from oracle_checks import CHECKS  # noqa: E402
from oracle_known_bugs import landed_once, oracle_check  # noqa: E402


@pytest.mark.parametrize("check", list(CHECKS))
def test_the_oracle_agrees_with_the_warehouse(study, request, check):
    """The oracle (no project code) recomputes every mart it knows from the landed Parquet; a
    check with nothing to compare in this study is skipped with that reason."""
    oracle_check(study.paths.root, landed_once(study.paths.root), check, request)


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
