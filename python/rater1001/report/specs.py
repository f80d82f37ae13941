"""What a report section is: a table or a figure, the warehouse tables it reads, and the paper's
number next to ours. Specs are data; reading the warehouse and rendering happen elsewhere."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import pandas as pd


@dataclass(frozen=True)
class Pivot:
    """Reshape a long query result into the paper's layout (rows x columns). Reshaping only: a
    duplicated (row, column) pair is an error, never silently aggregated."""
    index: tuple[str, ...]
    columns: str
    values: str


@dataclass(frozen=True)
class ReportTable:
    ours: str                      # our number, e.g. "T4a"
    paper: str | None              # the paper's number, e.g. "Table 4a" (None = beyond the paper)
    title: str
    reads: tuple[str, ...]         # warehouse tables the query needs; absent -> a visible note
    sql: str
    pivot: Pivot | None = None
    caption: str = ""
    show_if: str | None = None     # SQL returning one boolean: render only when true (e.g. S1)
    show_if_note: str = ""


@dataclass(frozen=True)
class Source:
    """One dataset of a figure: exactly `SELECT columns FROM table [WHERE where]`, no computation."""
    table: str
    columns: tuple[str, ...]
    where: str = ""

    def sql(self) -> str:
        cols = ", ".join(f'"{c}"' for c in self.columns)
        where = f" WHERE {self.where}" if self.where else ""
        return f"SELECT {cols} FROM {self.table}{where}"


@dataclass(frozen=True)
class ReportFigure:
    """One Altair chart drawn from the rows of its sources, as stored in the warehouse."""
    ours: str
    paper: str | None
    title: str
    sources: tuple[Source, ...]
    chart: Callable[[list[pd.DataFrame], "ReportContext"], object]
    caption: str = ""

    @property
    def slug(self) -> str:
        return "fig-" + "".join(ch if ch.isalnum() else "-" for ch in self.ours.lower())


@dataclass(frozen=True)
class FolderTables:
    """Every mart in a models/marts/<folder> shown as stored (for marts whose layout has no paper
    counterpart, or that land after this code was written)."""
    folder: str
    title: str
    paper: str | None = None
    caption: str = ""
    paper_numbers: tuple[tuple[str, str], ...] = ()   # (mart name, the paper's number) where known
    skip: tuple[str, ...] = ()                        # marts of the folder shown in another section


@dataclass(frozen=True)
class Note:
    """A block that does not apply to this study, with the reason shown in its place."""
    ours: str
    paper: str | None
    title: str
    note: str


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    items: tuple = ()
    intro: str = ""
    question: str = ""   # the title for a study that is not the paper's design


@dataclass
class ReportContext:
    """Orderings and labels read once from the warehouse so every chart sorts the same way."""
    categories: list[str] = field(default_factory=list)
    conditions: list[str] = field(default_factory=list)
    data_origin: str = "unknown"
    # a figure's Vega-Lite spec -> the same with its titles in the study's words (vocabulary.py)
    words: Callable[[dict], dict] = lambda spec: spec
