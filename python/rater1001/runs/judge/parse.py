"""Reading a judge's answer: one verdict per axis ("1", "2" or "tie", by position) plus the reason.

Judges do not always write the requested format. Accepted: full-width colons and digits (NFKC),
bold/italic markers, bullets and numbering, extra spaces, Korean or English axis names or "N축",
"응답 1" / "1번" / "Response 1" / "1", and "tie" / "무승부" / "동점" / "비김" / "draw" / "동등".
A line that names both responses ("1 / 2 / tie" echoed from the template) is not a verdict. Every
axis that cannot be read is None and named in `problems`; nothing is guessed.

Strict about blocks: an answer with more than one verdict block (two runs of at least two verdict
lines, e.g. a quoted candidate's imitation of the output format and the judge's own) is
`ambiguous` and keeps no verdict. With a fenced template (judge_pairwise_ko.v2.txt) only the text
inside the one answer block (ANSWER_BLOCK) is read; none, or more than one, keeps no verdict.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from .catalog import Axis

TIE_WORDS = ("tie", "무승부", "동점", "비김", "비겼", "draw", "동등", "equal", "same", "둘 다", "차이 없", "우열 없")
REASON_KEYS = ("이유", "reason", "근거", "rationale", "설명")
_MARKUP = re.compile(r"[*_`#>]+")
_LEAD = re.compile(r"^\s*(?:[-•·]\s*|\d+[.)]\s+|\(\d+\)\s*)?")
_AXIS_NUMBER = re.compile(r"(?:^|\s)([1-9])\s*축|axis\s*([1-9])|criterion\s*([1-9])", re.IGNORECASE)
_CHOICE = re.compile(r"^(?:응답|response|후보|answer|candidate|option)?\s*#?\s*([12])(?![0-9.])\s*(?:번째|번)?")
_NAMED = re.compile(r"(?:응답|response|후보|answer|candidate)\s*#?\s*([12])(?![0-9])|(?<![0-9])([12])\s*번")
_ECHO = re.compile(r"^1\s*/\s*2\s*/\s*tie")
# The answer block of the fenced templates (after NFKC, so full-width brackets are the same marker).
ANSWER_BLOCK = ("<<<판정>>>", "<<<판정 끝>>>")
_BLOCK_START = re.compile(r"<<<\s*판정\s*>>>")
_BLOCK = re.compile(r"<<<\s*판정\s*>>>(.*?)<<<\s*판정\s*끝\s*>>>", re.DOTALL)


@dataclass
class ParsedVerdict:
    verdicts: dict[str, str | None]  # axis_id -> "1" / "2" / "tie" / None
    reason: str | None
    problems: list[str] = field(default_factory=list)
    ambiguous: bool = False  # more than one verdict block: nothing kept

    @property
    def status(self) -> str:
        if self.ambiguous:
            return "ambiguous"
        got = sum(v is not None for v in self.verdicts.values())
        if got == len(self.verdicts):
            return "ok"
        return "partial" if got else "failed"


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    return _MARKUP.sub("", text)


def read_choice(value: str) -> str | None:
    """'1', '2' or 'tie' from the value part of a verdict line, else None."""
    v = normalise(value).strip().casefold()
    v = v.strip(" .:;,-[]()\"'")
    if not v or _ECHO.match(v):
        return None
    for w in TIE_WORDS:
        if v.startswith(w):
            return "tie"
    named = {a or b for a, b in _NAMED.findall(v)}
    if len(named) > 1:
        return None  # names both responses: not a verdict
    m = _CHOICE.match(v)
    if m:
        return m.group(1)
    if len(named) == 1:
        return named.pop()
    if not named and any(w in v for w in TIE_WORDS):
        return "tie"
    return None


def _squash(s: str) -> str:
    return re.sub(r"\s+", "", s.casefold())


class VerdictParser:
    def __init__(self, axes: list[Axis]):
        self.axes = axes
        by_number = {a.display_order: a for a in axes if not a.is_overall}
        self._by_number = by_number
        names = []
        for a in axes:
            for s in (a.label_ko, a.prompt_label, a.label_en, a.axis_id, *a.aliases):
                if s:
                    names.append((_squash(s), a))
        # Longest names first so "한국어 자연스러움" wins over "자연스러움".
        self._names = sorted(names, key=lambda t: -len(t[0]))

    def axis_of(self, key: str) -> Axis | None:
        k = _squash(_LEAD.sub("", key))
        if not k:
            return None
        m = _AXIS_NUMBER.search(key.casefold())
        if m:
            number = int(next(g for g in m.groups() if g))
            if number in self._by_number:
                return self._by_number[number]
        for name, axis in self._names:
            if name and name in k:
                return axis
        return None

    def parse(self, text: str | None, *, fenced: bool = False) -> ParsedVerdict:
        """The verdicts of one answer; `fenced`: read only the answer block (ANSWER_BLOCK)."""
        verdicts: dict[str, str | None] = {a.axis_id: None for a in self.axes}
        out = ParsedVerdict(verdicts, None)
        if not text or not text.strip():
            out.problems.append("empty answer")
            return out
        if fenced:
            text = unicodedata.normalize("NFKC", text)  # not normalise(): it drops the '>' of the markers
            blocks = _BLOCK.findall(text)
            opened = len(_BLOCK_START.findall(text))
            if not blocks:
                out.problems.append(f"no answer block {ANSWER_BLOCK[0]} ... {ANSWER_BLOCK[1]}")
                return self._missing(out)
            if len(blocks) > 1 or opened > 1:
                return self._ambiguous(out, max(len(blocks), opened), "answer blocks")
            text = blocks[0]
        reason_lines: list[str] | None = None
        # verdict blocks: runs of verdict lines, a new one when an axis repeats or after a reason
        block_sizes: list[int] = []
        current: set[str] = set()
        after_reason = False
        for raw_line in normalise(text).splitlines():
            line = raw_line.strip()
            if not line:
                continue
            key, sep, value = line.partition(":")
            if not sep:
                if reason_lines is not None:
                    reason_lines.append(line)
                continue
            key_c = _squash(_LEAD.sub("", key))
            if any(key_c.startswith(_squash(r)) for r in REASON_KEYS):
                reason_lines = [value.strip()] if value.strip() else []
                after_reason = bool(current)
                continue
            axis = self.axis_of(key) if len(key) <= 60 else None
            choice = read_choice(value) if axis is not None else None
            if choice is not None:
                if axis.axis_id in current or after_reason:
                    block_sizes.append(len(current))
                    current, after_reason = set(), False
                current.add(axis.axis_id)
            # After the reason began, a line only counts as a verdict for an axis still without one.
            if axis is None or (reason_lines is not None and (choice is None or verdicts[axis.axis_id] is not None)):
                if reason_lines is not None:
                    reason_lines.append(line)
                continue
            if choice is None:
                out.problems.append(f"{axis.axis_id}: cannot read verdict {value.strip()[:40]!r}")
                continue
            if verdicts[axis.axis_id] is not None and verdicts[axis.axis_id] != choice:
                out.problems.append(f"{axis.axis_id}: contradictory verdicts")
                verdicts[axis.axis_id] = None
                continue
            verdicts[axis.axis_id] = choice
        block_sizes.append(len(current))
        n_blocks = sum(size >= 2 for size in block_sizes)
        if n_blocks > 1:
            return self._ambiguous(out, n_blocks, "verdict blocks")
        if reason_lines:
            out.reason = "\n".join(reason_lines).strip() or None
        for a in self.axes:
            if verdicts[a.axis_id] is None and not any(p.startswith(a.axis_id) for p in out.problems):
                out.problems.append(f"{a.axis_id}: no verdict line")
        return out

    def _missing(self, out: ParsedVerdict) -> ParsedVerdict:
        out.problems += [f"{a.axis_id}: no verdict line" for a in self.axes]
        return out

    def _ambiguous(self, out: ParsedVerdict, n: int, what: str) -> ParsedVerdict:
        """An answer that gives its verdict more than once: none of them is the judge's for sure
        (one may be a quoted candidate's imitation of the format), so none is kept."""
        out.verdicts.update(dict.fromkeys(out.verdicts))
        out.reason = None
        out.ambiguous = True
        out.problems.append(f"ambiguous: {n} {what} in one answer; no verdict kept")
        return out
