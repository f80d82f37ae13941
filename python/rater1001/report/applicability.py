"""Why a mart is empty for this study: the reason the report gives as "not applicable to this
study", read from the study's declared shape (study.yml) and from what landed. A mart that the
study's shape cannot support builds empty (docs/study_shape.md); this says which shape it lacks."""
from __future__ import annotations

from ..study import Study
from .reader import WarehouseReader

CLASSIFICATION_FOLDERS = ("classification",)
AUDIT_FOLDERS = ("demographics",)


def _count(reader: WarehouseReader, table: str, where: str = "true") -> int:
    if not reader.has(table):
        return 0
    return int(reader.query(f"SELECT count(*) FROM {table} WHERE {where}").iloc[0, 0])


def shape_reasons(study: Study, reader: WarehouseReader) -> dict[str, str]:
    """What the study cannot support, by need: 'dimensions', 'labels', 'audit', 'models', 'judge'."""
    out = {}
    if not study.dimensions:
        out["dimensions"] = "the study declares no rating dimensions (study.yml dimensions: [])"
    elif not study.model_dimensions:
        out["dimensions"] = "the study declares no dimensions that models rate (study.yml model_dimensions)"
    if study.category is None:
        out["labels"] = "the study declares no category factor (study.yml factors, role category)"
    elif _count(reader, "stg_model_predictions", "predicted_emotion IS NOT NULL") == 0:
        out["labels"] = "no model condition gave a category label"
    if not study.audit_factors:
        out["audit"] = "the study declares no audit factors (study.yml factors, role audit)"
    if _count(reader, "stg_model_predictions") == 0:
        out["models"] = "no model predictions have landed"
    if _count(reader, "stg_judge_verdicts") == 0:
        out["judge"] = "no judge study has landed"
    return out


def not_applicable(reasons: dict[str, str], reader: WarehouseReader, tables) -> str | None:
    """The reason an empty block's first table does not apply to this study, or None."""
    if not tables:
        return None
    table = tables[0]
    docs = reader.docs.get(table)
    folder = docs.folder if docs else None
    columns = reader.columns.get(table, [])
    needs = []
    if folder == "judge" or table.startswith("judge_"):
        needs.append("judge")
    else:
        needs.append("models")
        if folder in AUDIT_FOLDERS:
            needs.append("audit")
        if folder in CLASSIFICATION_FOLDERS:
            needs.append("labels")
        if "dimension" in columns or "measure" in columns:
            needs.append("dimensions")
    found = [reasons[n] for n in needs if n in reasons]
    return f"not applicable to this study: {'; '.join(found)}" if found else None
