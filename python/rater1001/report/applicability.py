"""Why a mart is empty for this study: the reason the report gives as "not applicable to this
study", read from the study's declared shape (study.yml) and from what landed. A mart that the
study's shape cannot support builds empty (docs/study_shape.md); this says which shape it lacks."""
from __future__ import annotations

from ..study import AUDIT_SLOTS, CATEGORY_SLOT, Study
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
        out["category"] = (f"{out['labels']}, so no table per category: its numbers are the pooled "
                           "('all') rows of the tables beside it")
    elif _count(reader, "stg_model_predictions", "predicted_category IS NOT NULL") == 0:
        out["labels"] = "no model condition gave a category label"
    if not study.audit_factors:
        out["audit"] = "the study declares no audit factors (study.yml factors, role audit)"
    if _count(reader, "stg_model_predictions") == 0:
        out["models"] = "no model predictions have landed"
    if _count(reader, "stg_judge_verdicts") == 0:
        out["judge"] = "no judge study has landed"
    return out


# Report columns that carry a role slot (docs/study_shape.md, "Factor names"), by slot.
SLOT_COLUMNS = {"category": ("category", "true_category", "predicted_category", "chosen_category"),
                "audit_1": ("audit_1",), "audit_2": ("audit_2",)}


def slot_headers(study: Study) -> dict[str, str]:
    """Report column -> its header in this study's names: the slots' columns are shown under the
    declared factor names (true_category -> true_topic); the paper's study keeps its headers."""
    out = {}
    # a slot the study leaves empty is named by its role (true_category -> true_category)
    names = {"category": "category", "audit_1": "audit_1", "audit_2": "audit_2", **study.factor_slots}
    for slot, name in names.items():
        for column in SLOT_COLUMNS[slot]:
            header = column.replace(slot, name)
            if header != column:
                out[column] = header
    return out


def study_spelling(value: str) -> str:
    """SQL for how the audit marts spell a slot-spelled value in this study ('audit_1' -> 'source',
    'audit_1:audit_2' -> 'source:language_variety'; docs/study_shape.md, "Factor names"), read from
    stg_study_factors, so a report query can filter the marts by the paper's slot names."""
    slots = (CATEGORY_SLOT, *AUDIT_SLOTS)
    # a pair joins two slots with ':' or '_' (a slot name holds '_' itself)
    sep, parts = next(((c, [value[:i], value[i + 1 :]]) for i, c in enumerate(value)
                       if c in ":_" and value[:i] in slots and value[i + 1 :] in slots), (None, [value]))
    names = [f"coalesce(max(factor) FILTER (WHERE slot = '{p}'), '{p}')" for p in parts]
    joined = f" || '{sep}' || ".join(names)
    return f"(SELECT {joined} FROM stg_study_factors)"


def audit_limits(study: Study) -> list[str]:
    """What the audit marts leave out for this study's audit factors (docs/study_shape.md): every
    mart takes every factor and pair, so only a single factor leaves something out."""
    audit = [f.name for f in study.audit_factors]
    out = []
    if len(audit) == 1:
        out.append(f"one audit factor ({audit[0]}): its slices, its GLMM and F tests; no second "
                   "factor, so no interaction term and no Tukey cells")
    return out


# how a block's SQL keeps the per-category rows only (macros/all_scope.sql: without a category
# every mart has its pooled rows only, docs/study_shape.md, "The grain")
PER_CATEGORY = "category <> 'all'"


def not_applicable(reasons: dict[str, str], reader: WarehouseReader, tables, sql: str = "") -> str | None:
    """The reason an empty block's first table does not apply to this study, or None."""
    if not tables:
        return None
    if PER_CATEGORY in sql and "category" in reasons:
        return f"not applicable to this study: {reasons['category']}"
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


def audit_note(limits: list[str], reader: WarehouseReader, tables) -> str | None:
    """The audit's limits for this study (audit_limits), on a shown table of the audit marts."""
    docs = reader.docs.get(tables[0]) if tables else None
    if limits and docs and docs.folder in AUDIT_FOLDERS:
        return "for this study's audit factors: " + "; ".join(limits)
    return None
