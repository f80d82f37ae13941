"""The docs say what is true now; how the work went stays in git. A small list of words that only a
diary uses (who worked on it, which branch or session, what was tried, what the code used to do)
must not appear in the docs, the READMEs or a module's docstring."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_WORDS = [
    "engineer",
    "engineers",
    "this branch",
    "branches of",
    "this session",
    "an earlier session",
    "parallel sessions",
    "this round",
    "we tried",
    "tried first",
    "used to be",
    "used to run",
    "used to print",
    "no longer",
    "was removed",
    "the old code",
    "before this design",
    "before this change",
]
DIARY = re.compile(r"\b(" + "|".join(r"\s+".join(map(re.escape, w.split())) for w in _WORDS) + r")\b", re.IGNORECASE)


def documents() -> dict[str, str]:
    paths = [*ROOT.glob("docs/*.md"), ROOT / "README.md", *ROOT.glob("CONTRIBUTING*"), *ROOT.glob("tests/**/README.md")]
    texts = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in paths if p.is_file()}
    for module in (ROOT / "python").rglob("*.py"):
        doc = ast.get_docstring(ast.parse(module.read_text(encoding="utf-8")))
        if doc:
            texts[module.relative_to(ROOT).as_posix()] = doc
    return texts


def test_no_doc_tells_how_the_work_went():
    found = [
        f"{name}: {' '.join(match.group(0).split())!r} in ...{' '.join(text[max(0, match.start() - 60) : match.end() + 40].split())}..."
        for name, text in sorted(documents().items())
        for match in DIARY.finditer(text)
    ]
    assert not found, "say what is true now (the history is in git):\n" + "\n".join(found)


def test_the_scan_reads_the_docs_and_catches_a_diary():
    docs = documents()
    assert {"README.md", "docs/architecture.md", "docs/stats.md", "tests/reference/README.md"} <= docs.keys()
    assert any(name.startswith("python/rater1001/") for name in docs)
    for diary in ("Two engineers finishing the judge", "on this\nbranch it passed", "the gate used to print 90 lines"):
        assert DIARY.search(diary), diary
    assert not DIARY.search("an engineering trade-off the session fixtures share; the branch of the if")
