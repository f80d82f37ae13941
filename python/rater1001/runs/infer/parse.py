"""The parsing cascade of Supplement S2.4, per step, under a declared parse policy.

Order: (1) strict JSON (the whole answer is a JSON object), (2) JSON inside a markdown fence or a
JSON object embedded in prose ("fenced"), (3) regular-expression fallback ("regex"). Thinking
blocks (<think>...</think>) are split off first and kept as the thinking trace. Labels are matched
to the study's set by exact spelling (canonical, Korean, aliases; case-folded), then by the first
three letters. Anything that cannot be read is `failed` with a reason: a failed parse never becomes
a value.

Two policies differ only in the regex fallback and in clamping:
- `strict` (the default): the fallback accepts an answer only when the whole text *is* an answer
  (a bare label or number, `field: value` lines, or one of a few expected phrasings), and a number
  is clamped only when it lies at most one scale point outside the scale. A refusal or an error
  message ("I cannot see the image (error 502)") is therefore a failed parse, never a rating.
- `paper`: the cascade as S2.4 describes it (a label or number found anywhere in the prose, every
  number clamped to the scale), for exact reproduction of the paper's numbers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ...study import Study
from .prompts import label_field

PATH_ORDER = ("json", "fenced", "regex", "failed")  # best to worst
PARSE_POLICIES = ("strict", "paper")
DEFAULT_POLICY = "strict"
# Strict clamping: 0 or 10 on a 1-9 scale is a slip at the edge; 502 is not an answer on the scale.
CLAMP_TOLERANCE = 1.0

_THINK = re.compile(r"<think(?:ing)?>(.*?)</think(?:ing)?>", re.S | re.I)
_THINK_UNCLOSED = re.compile(r"^\s*<think(?:ing)?>(.*)$", re.S | re.I)
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.S)
_NUMBER = r"[-+]?\d+(?:\.\d+)?"
_MARKDOWN = re.compile(r"[*_`#>]+")
_KEYED_PIECE = re.compile(
    r"[\"']?([A-Za-z\uac00-\ud7a3][\w \uac00-\ud7a3]{0,30}?)[\"']?\s*[:=：]\s*[\"']?([^\"',;\n{}]+?)[\"']?\s*\.?"
)
# The phrasings a model uses to give the one answer asked for (strict policy, single-field steps).
_ASKED_LABEL = re.compile(
    r"(?:(?:the |this )?(?:facial )?(?:expression|emotion)(?: (?:shown |displayed |expressed )?(?:in|of|on) "
    r"(?:this|the) (?:image|face|picture|photo|person))? (?:is|appears to be|seems to be|looks)"
    r"|(?:this|the) (?:face|person) (?:is|looks|appears|shows|expresses)"
    r"|i would say|i'd say|answer)\s*:?\s*(?:an? )?(?:expression of |feeling of )?(?P<v>[^\s.!]+)",
    re.I,
)
_ASKED_NUMBER = re.compile(
    rf"(?:(?:i would|i'd) rate (?:it|this(?: face| image| expression)?)(?: as| at| a)?"
    rf"|(?:my )?(?:rating|score|answer)(?: is)?\s*:?"
    rf"|(?:the )?(?:valence|arousal|pleasantness|intensity|rating|score) (?:is|would be))?\s*"
    rf"(?P<v>{_NUMBER})(?:\s*(?:/|out of)\s*\d+)?",
    re.I,
)
_REFUSAL_WORDS = re.compile(
    r"sorry|cannot|can't|can not|unable|not able|error|fail|retry|policy|refuse|죄송|없습니다|오류", re.I
)


@dataclass
class StepParse:
    values: dict[str, Any] = field(default_factory=dict)
    path: str = "failed"
    field_paths: dict[str, str] = field(default_factory=dict)
    clamped: dict[str, float] = field(default_factory=dict)  # field -> raw value before clamping
    errors: dict[str, str] = field(default_factory=dict)  # field -> why it failed
    thinking: str | None = None
    policy: str = DEFAULT_POLICY

    @property
    def ok(self) -> bool:
        return not self.errors

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "values": self.values,
            "field_paths": self.field_paths,
            "clamped": self.clamped,
            "errors": self.errors,
            "policy": self.policy,
        }


def weakest(paths) -> str:
    return max(paths, key=PATH_ORDER.index, default="failed")


def split_thinking(text: str) -> tuple[str, str | None]:
    """Remove <think> blocks; an unclosed block (truncated generation) swallows the rest."""
    thoughts = [m.strip() for m in _THINK.findall(text)]
    rest = _THINK.sub("", text)
    m = _THINK_UNCLOSED.match(rest)
    if m:
        thoughts.append(m.group(1).strip())
        rest = ""
    return rest.strip(), ("\n\n".join(t for t in thoughts if t) or None)


class LabelMatcher:
    """Maps a model's spelling of a label onto the study's canonical label."""

    def __init__(self, study: Study, factor: str = "emotion"):
        self.exact = study.label_map(factor)
        self.canonical = study.levels(factor)
        by_prefix: dict[str, set[str]] = {}
        for spelling, label in self.exact.items():
            if spelling.isascii() and len(spelling) >= 3:
                by_prefix.setdefault(spelling[:3], set()).add(label)
        # A prefix shared by two labels is ambiguous and therefore not used.
        self.prefix = {p: next(iter(ls)) for p, ls in by_prefix.items() if len(ls) == 1}
        words = sorted(self.exact, key=len, reverse=True)
        self._mention = re.compile(r"(?<![\w])(" + "|".join(re.escape(w) for w in words) + r")(?![\w])", re.I)

    def match(self, raw: str) -> str | None:
        s = re.sub(r"[^\w\s-]", "", str(raw)).strip().casefold()
        if not s:
            return None
        if s in self.exact:
            return self.exact[s]
        word = s.split()[0] if s.split() else s
        if word in self.exact:
            return self.exact[word]
        if word.isascii() and len(word) >= 3:
            return self.prefix.get(word[:3])
        return None

    def mentioned(self, text: str) -> set[str]:
        """Every canonical label whose spelling (canonical, Korean, alias) appears as a word."""
        return {self.exact[m.group(1).casefold()] for m in self._mention.finditer(text)}


def _json_object(text: str) -> dict | None:
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


def _embedded_objects(text: str):
    """JSON objects embedded in prose: every balanced {...} that parses, first to last."""
    decoder = json.JSONDecoder()
    i = text.find("{")
    while i != -1:
        try:
            obj, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict):
            yield obj
        i = text.find("{", end)


def _find_key(obj: dict, name: str):
    for k, v in obj.items():
        if str(k).strip().casefold() == name:
            return True, v
    return False, None


def _keyed_only(text: str) -> dict[str, str] | None:
    """{key: value} when the whole text is `key: value` pieces (lines, or separated by , or ;)."""
    text = text.strip()
    pieces = [p.strip() for p in re.split(r"[\n,;]", text.strip("{}")) if p.strip()]
    if text.startswith("{") and not text.endswith("}") and pieces and not _KEYED_PIECE.fullmatch(pieces[-1]):
        pieces.pop()  # a JSON answer cut off mid-key: what came before it was still answered
    out = {}
    for p in pieces:
        m = _KEYED_PIECE.fullmatch(p)
        if not m:
            return None
        out.setdefault(m.group(1).strip().casefold(), m.group(2).strip())
    return out or None


def no_answer_reason(text: str) -> str:
    if _REFUSAL_WORDS.search(text):
        return "no answer: the response reads as a refusal or an error message (kept in raw_responses)"
    return "no answer in an accepted form (JSON, fenced JSON, a bare value or the expected phrasing)"


class StepParser:
    def __init__(self, study: Study, policy: str = DEFAULT_POLICY):
        if policy not in PARSE_POLICIES:
            raise ValueError(f"unknown parse policy {policy!r}; expected one of {', '.join(PARSE_POLICIES)}")
        self.study = study
        self.policy = policy
        # The label answer is named after the study's category factor (emotion in the paper).
        self.label_field = label_field(study)
        self.labels = LabelMatcher(study, self.label_field) if self.label_field else None
        self.lo, self.hi = float(study.scale_min), float(study.scale_max)

    # --- one field ------------------------------------------------------------------------
    def _read_label(self, raw) -> tuple[str | None, str | None]:
        if not isinstance(raw, str):
            return None, f"{self.label_field} is not text: {raw!r}"
        lab = self.labels.match(raw)
        return (lab, None) if lab else (None, f"{self.label_field} {raw!r} matches no label of the study")

    def _read_number(self, raw) -> tuple[float | None, str | None]:
        if isinstance(raw, bool):
            return None, f"not a number: {raw!r}"
        if isinstance(raw, (int, float)):
            return float(raw), None
        if isinstance(raw, str):
            m = re.fullmatch(rf"\s*({_NUMBER})\s*(?:/\s*\d+)?\s*", raw)
            if m:
                return float(m.group(1)), None
        return None, f"not a number: {raw!r}"

    def _accept(self, out: StepParse, name: str, raw, path: str) -> bool:
        if name == self.label_field:
            value, err = self._read_label(raw)
        else:
            value, err = self._read_number(raw)
            if value is not None and not (self.lo <= value <= self.hi):
                if self.policy == "strict" and not (self.lo - CLAMP_TOLERANCE <= value <= self.hi + CLAMP_TOLERANCE):
                    value, err = (
                        None,
                        (
                            f"{name} {raw!r} is more than {CLAMP_TOLERANCE:g} outside the scale "
                            f"{self.lo:g}-{self.hi:g}: not an answer on the scale, not clamped"
                        ),
                    )
                else:
                    out.clamped[name] = value
                    value = min(max(value, self.lo), self.hi)
        if err:
            out.errors[name] = err
            return False
        out.values[name] = value
        out.field_paths[name] = path
        out.errors.pop(name, None)
        return True

    # --- regex fallback -------------------------------------------------------------------
    def _strict_regex_field(self, text: str, name: str, single_field: bool):
        """Only a text that is an answer as a whole: never a label or number pulled out of prose."""
        plain = _MARKDOWN.sub("", text).strip()
        keyed = _keyed_only(plain)
        if keyed is not None and name in keyed:
            return keyed[name]
        for line in plain.splitlines():  # "Valence: 7" on a line of its own amid an explanation
            keyed = _keyed_only(line)
            if keyed is not None and name in keyed:
                return keyed[name]
        if not single_field:
            return None
        # The whole text, else its first line, else (labels only) its first sentence ("Sad. The brows
        # are drawn together."): an answer first and an explanation after it is still an answer. Not
        # a number's first sentence: "1. The valence is 7" is a numbered list, not a rating of 1.
        first_line = plain.splitlines()[0] if plain else ""
        parts = [plain, first_line]
        if name == self.label_field:
            parts.append(re.split(r"(?<=[.!。])\s+", first_line)[0])
        for part in dict.fromkeys(parts):
            value = self._bare_answer(re.sub(r"[.!。]+$", "", part).strip(), name)
            if value is not None:
                return value
        return None

    def _bare_answer(self, bare: str, name: str) -> str | None:
        if name == self.label_field:
            if bare.casefold() in self.labels.exact or (bare and len(bare.split()) == 1):
                return bare
            m = _ASKED_LABEL.fullmatch(bare)
            return m.group("v") if m else None
        m = _ASKED_NUMBER.fullmatch(bare)
        return m.group("v") if m else None

    def _regex_field(self, text: str, name: str, single_field: bool):
        if self.policy == "strict":
            return self._strict_regex_field(text, name, single_field)
        keyed = re.search(rf"[\"']?{name}[\"']?\s*[:=]\s*[\"']?([^\"',}}\n]+)", text, re.I)
        if keyed:
            return keyed.group(1).strip()
        if name == self.label_field:
            found = self.labels.mentioned(text)
            if len(found) == 1:
                return next(iter(found))
            if not found and len(text.split()) == 1:
                return text  # a one-word answer ("Happiness.") goes to the fuzzy matcher
            return None  # no label, or several: picking one would be a guess
        if single_field:
            # "7", "7/9", "I'd rate it 7 out of 9": the rating is the first number that is not
            # the scale's own bound quoted back ("out of 9", "/9", "1 to 9").
            text2 = re.sub(rf"(?:out of|/)\s*{_NUMBER}", " ", text)
            text2 = re.sub(rf"from\s+{_NUMBER}\s+to\s+{_NUMBER}", " ", text2, flags=re.I)
            nums = re.findall(rf"(?<![\w.]){_NUMBER}(?![\w])", text2)
            return nums[0] if nums else None
        return None

    # --- the cascade ----------------------------------------------------------------------
    def parse(self, text: str | None, fields: tuple[str, ...]) -> StepParse:
        out = StepParse(policy=self.policy)
        if text is None or not str(text).strip():
            out.errors = {f: "empty response" for f in fields}
            return out
        body, out.thinking = split_thinking(str(text))
        for f in fields:
            out.errors[f] = "not found"

        candidates: list[tuple[str, dict]] = []
        strict = _json_object(body)
        if strict is not None:
            candidates.append(("json", strict))
        for block in _FENCE.findall(body):
            obj = _json_object(block.strip())
            if obj is not None:
                candidates.append(("fenced", obj))
        if strict is None:
            candidates.extend(("fenced", obj) for obj in _embedded_objects(body))

        for f in fields:
            for path, obj in candidates:
                present, raw = _find_key(obj, f)
                if present and self._accept(out, f, raw, path):
                    break
        for f in fields:
            if f in out.values:
                continue
            raw = self._regex_field(body, f, single_field=len(fields) == 1)
            if raw is not None:
                self._accept(out, f, raw, "regex")
            elif not candidates and out.errors.get(f) == "not found":
                out.errors[f] = no_answer_reason(body)

        out.path = "failed" if out.errors else weakest(out.field_paths.values())
        return out
