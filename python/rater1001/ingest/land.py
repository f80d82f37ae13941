"""`rater1001 ingest TABLE FILE`: validate a study file against the data contract and land it.

Good rows land as data/raw/TABLE.parquet (typed by the contract); bad rows go to
data/rejected/TABLE.parquet with their values as read, the source file, the row number and every
reason. Both and the manifest row are published as one commit (landing.commit) under the project
lock. Ingesting replaces the table, so re-ingesting the same file gives the same outputs.
Decisions (duplicates, '7.0', missing tokens, ...) are written down in docs/ingest.md.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .. import contract
from ..contract import TableSpec
from ..landing import ManifestEntry, commit, manifest_with, to_arrow
from ..lock import project_lock
from ..paths import ProjectPaths
from ..study import load_study
from .errors import IngestError
from .hints import column_hint
from .readers import MISSING_TOKENS, read_source
from .result import IngestResult, group_reasons
from .validate import Validation, validate

__all__ = ["ingest_file"]

# Columns added to every rejected file after the source columns.
REJECT_COLUMNS = ("_source_file", "_source_row", "_reason", "_rules")


def ingest_file(
    paths: ProjectPaths,
    table: str,
    file: str | os.PathLike,
    *,
    encoding: str | None = None,
    drop_columns: bool = False,
    sheet: str | None = None,
) -> IngestResult:
    study = load_study(paths)
    try:
        spec = contract.for_study(contract.table(table), study)
    except KeyError as exc:
        raise IngestError(exc.args[0]) from None
    source = Path(file).resolve()
    verbatim = frozenset(c.name for c in spec.columns if c.verbatim)
    with project_lock(paths, f"ingest {table}"):
        frame = read_source(
            source, encoding=encoding, sheet=sheet, verbatim=verbatim, labels=declared_missing_tokens(spec, study)
        )
        data, dropped, absent = _match_columns(source, frame.data, spec, drop_columns)
        references = _landed_references(paths, spec)
        validation = validate(data, spec, study, references, frame.row_numbers, frame.problems)
        rejected = validation.rejected
        landed = validation.typed.loc[~rejected]
        entry = ManifestEntry(
            table_name=table,
            source=str(source),
            source_sha256=frame.sha256,
            rows_landed=len(landed),
            rows_rejected=int(rejected.sum()),
            is_simulated=False,
        )
        files = {
            paths.raw_table(table): to_arrow(landed, spec),
            paths.rejected_table(table): _rejected_table(source, data, frame.row_numbers, validation),
            paths.manifest: manifest_with(paths, entry),
        }
        try:
            # table, rejected rows and manifest row change together or not at all
            commit(paths, files)
        except OSError as exc:
            raise IngestError(
                f"cannot write the landing zone under {paths.root / 'data'}: {exc.strerror or exc}"
                f"{f' ({exc.filename})' if exc.filename else ''}. Nothing was changed: the previous "
                f"landing of {table}, if any, is intact."
            ) from None
        warnings = [*frame.warnings, *_orphans_left_behind(paths, spec, landed)]
    return IngestResult(
        table=table,
        source=source,
        rows_read=len(data),
        rows_landed=len(landed),
        rows_rejected=int(rejected.sum()),
        landed_path=paths.raw_table(table),
        rejected_path=paths.rejected_table(table) if rejected.any() else None,
        reasons=group_reasons(validation.failures, frame.row_numbers),
        label_mappings=validation.mappings,
        dropped_columns=tuple(dropped),
        absent_columns=tuple(absent),
        warnings=tuple(warnings),
    )


def _match_columns(
    source: Path, data: pd.DataFrame, spec: TableSpec, drop_columns: bool
) -> tuple[pd.DataFrame, list[str], list[str]]:
    """Refuse a file whose header does not fit the contract. Unexpected columns are an error unless
    dropped on purpose: a misspelt optional column (rt_valence) would otherwise vanish unnoticed."""
    expected = spec.column_names
    present = list(data.columns)
    missing = [c.name for c in spec.columns if c.required and c.name not in present]
    unexpected = [c for c in present if c not in expected]
    unused = [c for c in expected if c not in present]
    problems = []
    if missing:
        problems.append(
            "missing required column(s): " + ", ".join(f"{m!r}{column_hint(m, unexpected)}" for m in missing)
        )
    if unexpected and not drop_columns:
        problems.append(
            "unexpected column(s): "
            + ", ".join(f"{u!r}{column_hint(u, unused)}" for u in unexpected)
            + " (rename them, or pass --drop-columns to ignore them)"
        )
    if problems:
        required = [c.name for c in spec.columns if c.required]
        optional = [c.name for c in spec.columns if not c.required]
        raise IngestError(
            f"{source}: the columns do not fit table {spec.name}: {'; '.join(problems)}. "
            f"Required: {', '.join(required)}. Optional: {', '.join(optional) or '-'}."
        )
    dropped = unexpected if drop_columns else []
    absent = [c for c in unused if c not in missing]
    return data.drop(columns=dropped), dropped, absent


def declared_missing_tokens(spec: contract.TableSpec, study) -> dict[str, frozenset[str]]:
    """Per factor column, the missing-value spellings (e.g. 'na') that its label set declares as
    labels: there they are values, not missing."""
    out = {}
    for c in spec.columns:
        if c.rule and c.rule.startswith("factor:"):
            try:
                spellings = study.label_map(c.rule.removeprefix("factor:"))
            except KeyError:
                continue
            kept = frozenset(spellings) & frozenset(MISSING_TOKENS)
            if kept:
                out[c.name] = kept
    return out


def _landed_references(paths: ProjectPaths, spec: TableSpec) -> dict[str, pd.DataFrame]:
    needed = {fk.table: fk.ref_columns for fk in spec.foreign_keys}
    missing = [t for t in contract.LOAD_ORDER if t in needed and not paths.raw_table(t).exists()]
    if missing:
        first = "; ".join(f"rater1001 ingest {t} FILE" for t in missing)
        raise IngestError(
            f"{spec.name} refers to {' and '.join(missing)}, which {'has' if len(missing) == 1 else 'have'} "
            f"not landed yet in {paths.raw}: ingest {'it' if len(missing) == 1 else 'them'} first ({first}), "
            f"then ingest {spec.name} again"
        )
    return {t: pq.read_table(paths.raw_table(t), columns=list(cols)).to_pandas() for t, cols in needed.items()}


def _rejected_table(
    source: Path, data: pd.DataFrame, row_numbers: np.ndarray, validation: Validation
) -> pa.Table | None:
    """The rejected rows as read, with where they came from and why; None when there are none (any
    older rejected file is then deleted: it would describe an earlier ingest)."""
    rejected = validation.rejected
    if not rejected.any():
        return None
    reasons = validation.reasons()
    out = data.loc[rejected].reset_index(drop=True)
    out["_source_file"] = str(source)
    out["_source_row"] = row_numbers[rejected]
    out["_reason"] = reasons["reason"].to_numpy()
    out["_rules"] = reasons["rules"].to_numpy()
    types = {"_source_row": pa.int64(), "_reason": pa.list_(pa.string())}
    schema = pa.schema([pa.field(c, types.get(c, pa.string())) for c in out.columns])
    return pa.Table.from_pandas(out, schema=schema, preserve_index=False)


def _orphans_left_behind(paths: ProjectPaths, spec: TableSpec, landed: pd.DataFrame) -> list[str]:
    """Re-ingesting a referenced table (e.g. stimuli) can orphan rows of tables already landed."""
    warnings = []
    for other in contract.TABLES.values():
        for fk in other.foreign_keys:
            if fk.table != spec.name or not paths.raw_table(other.name).exists():
                continue
            rows = pq.read_table(paths.raw_table(other.name), columns=list(fk.columns)).to_pandas()
            keys = landed[list(fk.ref_columns)].set_axis(list(fk.columns), axis=1)
            orphans = len(rows) - len(rows.merge(keys.drop_duplicates(), on=list(fk.columns)))
            if orphans:
                warnings.append(
                    f"{other.name} (already landed) has {orphans} rows whose {', '.join(fk.columns)} is not in "
                    f"the new {spec.name}; re-ingest {other.name} so they are checked again"
                )
    return warnings
