"""The judge study's reference tables: the axes of the prompt (seeds/judge_axes.csv) and the
candidates (seeds/judge_candidate_catalog.csv). Read from the project's seeds folder."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

# The contract's judge_verdicts table has one column per axis: verdict_<axis_id>.
VERDICT_COLUMN = "verdict_{}"


@dataclass(frozen=True)
class Axis:
    axis_id: str
    display_order: int
    label_ko: str
    prompt_label: str
    label_en: str
    aliases: tuple[str, ...]
    is_overall: bool

    @property
    def column(self) -> str:
        return VERDICT_COLUMN.format(self.axis_id)


@dataclass(frozen=True)
class Candidate:
    candidate_id: str
    display_name: str
    is_anchor: bool
    variant_invariant: bool  # the same response for every input variant (the human reference P)
    display_order: int


def _bool(value: str, where: str) -> bool:
    v = (value or "").strip().lower()
    if v in ("true", "1", "yes"):
        return True
    if v in ("false", "0", "no", ""):
        return False
    raise ValueError(f"{where}: expected true/false, got {value!r}")


def load_axes(seeds: Path) -> list[Axis]:
    path = Path(seeds) / "judge_axes.csv"
    with open(path, newline="", encoding="utf-8") as fh:
        axes = [
            Axis(
                r["axis_id"],
                int(r["display_order"]),
                r["label_ko"],
                r["prompt_label"],
                r["label_en"],
                tuple(a for a in r["aliases"].split("|") if a),
                _bool(r["is_overall"], f"{path}: row {n}"),
            )
            for n, r in enumerate(csv.DictReader(fh), start=2)
        ]
    return sorted(axes, key=lambda a: a.display_order)


def load_candidates(seeds: Path) -> dict[str, Candidate]:
    path = Path(seeds) / "judge_candidate_catalog.csv"
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return {
        r["candidate_id"]: Candidate(
            r["candidate_id"],
            r["display_name"],
            _bool(r["is_anchor"], f"{path}: row {n}"),
            _bool(r["variant_invariant"], f"{path}: row {n}"),
            n,
        )
        for n, r in enumerate(rows, start=2)
    }
