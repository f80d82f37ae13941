"""`rater1001 init RATINGS`'s reading, writing and ingesting: read the user's files, write study.yml,
seeds/factor_labels.csv and the five landing files (data/init/*.csv), and with --yes ingest them.
Guessing is pure (guess.py, shape.py). Rules: docs/init.md."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .. import contract
from ..ingest import IngestError, IngestResult, ingest_file
from ..ingest.readers import cell_text, read_source
from ..paths import ProjectPaths
from .guess import Guess, InitError, Options
from .render import labels_csv, study_yaml, why_table
from .shape import Proposal, propose


@dataclass
class InitResult:
    proposal: Proposal  # or a judge study's JudgeProposal (init/judge.py)
    written: list[Path]
    landing_files: dict[str, Path]
    ingested: dict[str, IngestResult] = field(default_factory=dict)

    def table(self) -> str:
        return why_table(self.proposal.shape.guesses)

    @property
    def notes(self) -> list[str]:
        return self.proposal.shape.notes


def _read(path: str | Path | None, sheet: str | None = None) -> tuple[pd.DataFrame, str] | None:
    if path is None:
        return None
    path = Path(path)
    try:
        if path.suffix.lower() == ".json":
            return read_json_records(path), path.name
        return read_source(path, sheet=sheet).data, path.name
    except IngestError as exc:
        raise InitError(str(exc)) from None


def read_json_records(path: Path) -> pd.DataFrame:
    """A JSON file of records: an array of objects, or an object mapping each record's id to it
    (the id becomes the column `id`). Nested objects become dotted columns (`other_info.source`,
    `annotations.Ann7`), every value text as the ingest readers give it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InitError(f"{path}: cannot read as JSON: {exc}") from None
    if isinstance(data, dict) and data and all(isinstance(v, dict) for v in data.values()):
        records = [{"id": key, **value} for key, value in data.items()]
    elif isinstance(data, list) and data and all(isinstance(v, dict) for v in data):
        records = data
    else:
        raise InitError(f"{path}: expected an array of objects, or an object of objects (one per record)")
    return records_frame(records)


def records_frame(records: list[dict]) -> pd.DataFrame:
    """Records as a frame of text, nested objects as dotted columns."""
    frame = pd.json_normalize(records, sep=".")
    return frame.apply(lambda column: column.map(cell_text)).astype("str").mask(lambda f: f.isna())


def init_study(
    paths: ProjectPaths,
    ratings: str | Path,
    options: Options,
    *,
    stimuli: str | Path | list[str | Path] | None = None,
    raters: str | Path | None = None,
    predictions: str | Path | list[str | Path] | None = None,
    ingest: bool = False,
    overwrite: bool = False,
    sheet: str | None = None,
) -> InitResult:
    """Guess, then write; nothing is written when a guess fails (InitError), or when study.yml or
    the label seed already exist with other contents and overwrite is False (FileExistsError)."""
    frame, source = _read(ratings, sheet)
    sheets = [stimuli] if isinstance(stimuli, (str, Path)) else list(stimuli or [])
    answers = [predictions] if isinstance(predictions, (str, Path)) else list(predictions or [])
    proposal = propose(frame, source, options, [_read(s) for s in sheets], _read(raters), [_read(p) for p in answers])
    sources = [str(p) for p in (ratings, *sheets, raters, *answers) if p is not None]
    files = {
        paths.root / "study.yml": study_yaml(proposal, options.name, sources),
        paths.root / "seeds" / "factor_labels.csv": labels_csv(proposal.labels),
    }
    landing, ingested = write_study(paths, files, proposal.tables, ingest=ingest, overwrite=overwrite)
    return InitResult(proposal, list(files), landing, ingested)


def write_study(
    paths: ProjectPaths, files: dict[Path, str], tables: dict[str, pd.DataFrame], *, ingest: bool, overwrite: bool
) -> tuple[dict[str, Path], dict[str, IngestResult]]:
    """Write the study's files and landing files (data/init/<table>.csv), then ingest them when
    asked; FileExistsError (nothing written) when a file exists with other contents."""
    clashing = [p for p, text in files.items() if p.exists() and p.read_text(encoding="utf-8") != text]
    if clashing and not overwrite:
        raise FileExistsError(", ".join(str(p) for p in clashing))
    landing = {}
    out = paths.root / "data" / "init"
    out.mkdir(parents=True, exist_ok=True)
    for table, rows in tables.items():
        landing[table] = out / f"{table}.csv"
        rows.to_csv(landing[table], index=False, lineterminator="\n")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    ingested = {}
    if ingest:
        for table in contract.LOAD_ORDER:
            if table in landing:
                ingested[table] = ingest_file(paths, table, landing[table])
    return landing, ingested


def describe(guesses: list[Guess]) -> str:
    return why_table(guesses)
