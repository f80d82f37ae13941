"""What an ingest did, and its printed summary (rejections grouped by column and rule, with examples)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .validate import Failure, LabelMapping

EXAMPLES_PER_REASON = 3


@dataclass(frozen=True)
class ReasonGroup:
    column: str
    rule: str
    rows: int
    examples: tuple[str, ...]  # "row N: message"


@dataclass(frozen=True)
class IngestResult:
    table: str
    source: Path
    rows_read: int
    rows_landed: int
    rows_rejected: int
    landed_path: Path
    rejected_path: Path | None  # None when nothing was rejected (any older rejected file is removed)
    reasons: tuple[ReasonGroup, ...] = ()
    label_mappings: tuple[LabelMapping, ...] = ()
    dropped_columns: tuple[str, ...] = ()
    absent_columns: tuple[str, ...] = ()
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def summary(self) -> str:
        lines = [
            f"{self.table}: {self.rows_read} rows read from {self.source}",
            f"  landed   {self.rows_landed:>8} rows -> {self.landed_path}",
        ]
        if self.rows_rejected:
            lines.append(f"  rejected {self.rows_rejected:>8} rows -> {self.rejected_path}")
            lines.append("  rejections by reason (a row with several problems counts under each):")
            for group in self.reasons:
                lines.append(f"    {group.column} [{group.rule}]: {_rows(group.rows)}")
                lines.extend(f"      e.g. {e}" for e in group.examples)
        else:
            lines.append("  rejected        0 rows")
        if self.label_mappings:
            lines.append("  labels mapped to their canonical spelling:")
            lines.extend(
                f"    {m.column}: {m.original!r} -> {m.canonical!r} ({_rows(m.rows)})" for m in self.label_mappings
            )
        if self.dropped_columns:
            lines.append(f"  dropped columns (--drop-columns): {', '.join(self.dropped_columns)}")
        if self.absent_columns:
            lines.append(f"  optional columns not in the file, landed as NULL: {', '.join(self.absent_columns)}")
        lines.extend(f"  warning: {w}" for w in self.warnings)
        return "\n".join(lines)


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


def group_reasons(failures: tuple[Failure, ...], row_numbers) -> tuple[ReasonGroup, ...]:
    groups: dict[tuple[str, str], list[Failure]] = {}
    for f in failures:
        groups.setdefault((f.column, f.rule), []).append(f)
    out = []
    for (column, rule), parts in groups.items():
        examples = [
            f"row {row_numbers[r]}: {m}"
            for part in parts
            for r, m in zip(part.rows[:EXAMPLES_PER_REASON], part.messages[:EXAMPLES_PER_REASON])
        ][:EXAMPLES_PER_REASON]
        out.append(ReasonGroup(column, rule, sum(len(p.rows) for p in parts), tuple(examples)))
    return tuple(out)
