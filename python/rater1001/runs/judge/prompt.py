"""Rendering the judge prompt of the log from a versioned template file."""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sys
import unicodedata
from importlib import resources
from string import Template

DEFAULT_TEMPLATE = "judge_pairwise_ko.v2.txt"


def template_text(name: str = DEFAULT_TEMPLATE) -> str:
    return resources.files("rater1001.runs.judge").joinpath("templates", name).read_text(encoding="utf-8").rstrip("\n")


def template_id(name: str = DEFAULT_TEMPLATE) -> str:
    """File name (version included) plus a hash of the text, so an edited file changes every key."""
    digest = hashlib.sha256(template_text(name).encode("utf-8")).hexdigest()[:12]
    return f"{name}@{digest}"


def parse_turns(turns_json: str, *, where: str = "turns") -> list[tuple[str, str]]:
    """The dialogues.turns column: a JSON list of {"speaker", "text"} objects."""
    try:
        turns = json.loads(turns_json)
    except (TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{where}: not a JSON list of turns ({exc})") from None
    if not isinstance(turns, list) or not all(isinstance(t, dict) and "speaker" in t and "text" in t for t in turns):
        raise ValueError(f'{where}: expected a JSON list of {{"speaker": ..., "text": ...}} objects')
    return [(str(t["speaker"]), str(t["text"])) for t in turns]


def render_dialogue(turns: list[tuple[str, str]]) -> str:
    return "\n".join(f"{speaker}: {text}" for speaker, text in turns)


def is_fenced(name: str = DEFAULT_TEMPLATE) -> bool:
    """Does the template fence its data and ask for one answer block (v2 on), so the parser reads
    only that block?"""
    return "<<<판정>>>" in template_text(name)


@functools.cache
def _angle_brackets() -> dict[int, str]:
    """Every character NFKC folds into '<' or '>' (full-width, small forms, ...) -> a look-alike
    that folds into neither: data then cannot spell a fence or the answer block, even in a
    variant a judge might copy back."""
    out = {}
    for code in range(sys.maxunicode + 1):
        folded = unicodedata.normalize("NFKC", chr(code))
        if folded in ("<", ">"):
            out[code] = "‹" if folded == "<" else "›"
    return out


_SECTION = re.compile(r"[\[［]\s*(출력\s*형식|평가\s*기준)\s*[\]］]")


def neutralise(text: str) -> str:
    """Data text (situation, turns, candidate responses) made unable to pose as the prompt's own
    markup: angle brackets become look-alikes (no <<<...>>> fence or answer block can be written)
    and the template's section headers ([출력 형식], [평가 기준]) get other brackets."""
    return _SECTION.sub(lambda m: f"⟦{m.group(1)}⟧", text.translate(_angle_brackets()))


def render(
    *,
    next_speaker: str,
    situation: str | None,
    turns: list[tuple[str, str]],
    response_1: str,
    response_2: str,
    template: str = DEFAULT_TEMPLATE,
) -> str:
    data = {
        "next_speaker": next_speaker,
        "situation": situation or "",
        "dialogue": render_dialogue(turns),
        "response_1": response_1,
        "response_2": response_2,
    }
    if is_fenced(template):
        data = {k: neutralise(v) for k, v in data.items()}
    return Template(template_text(template)).substitute(**data)
