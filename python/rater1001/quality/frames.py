"""Reading the landing zone and shaping it into the frames the quality gate validates.

The landed tables are read by DuckDB (quality/landed.py), never whole into pandas: the gate
validates small frames of aggregates instead: the landing zone and schema (one row per table or
column), the design counts (one row per cell, image, rater or condition) and, for each contract
check, the distinct values of what it checks (landed.py). Apart from `read_landing_zone` and
`assemble_frames`, pure pandas on those aggregates.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import product
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..contract import TABLES, Column, TableSpec, tables_for
from ..paths import ProjectPaths
from ..study import DesignCell, Study
from .landed import LandingDB, RowClass, key_exists

# A project holds a rating study, a pairwise judge study, or both (docs/judge.md, "Study shapes").
# The tables without which a study of that shape has nothing to check; the others may land later (a
# study is often checked before any model has run).
REQUIRED_TABLES = ("stimuli", "human_ratings")
JUDGE_REQUIRED_TABLES = ("dialogues", "candidates", "judge_verdicts")
# The rating study's tables: an absent one is reported (unless the project is a judge study only).
# The judge tables are checked when landed and not mentioned when absent.
STUDY_TABLES = ("stimuli", "raters", "human_ratings", "model_conditions", "model_predictions")


def study_shape(landed: dict[str, LandedTable]) -> str:
    """'ratings', 'judge' or 'both', from the tables landed; nothing landed reads as a rating study
    (so the gate asks for its tables)."""
    has = {name for name, t in landed.items() if t.problem != "missing"}
    judge = bool(has & set(JUDGE_REQUIRED_TABLES))
    ratings = bool(has & set(STUDY_TABLES))
    return "both" if judge and ratings else "judge" if judge else "ratings"


def required_tables(shape: str) -> tuple[str, ...]:
    return {
        "ratings": REQUIRED_TABLES,
        "judge": JUDGE_REQUIRED_TABLES,
        "both": REQUIRED_TABLES + JUDGE_REQUIRED_TABLES,
    }[shape]


@dataclass(frozen=True)
class LandedTable:
    name: str
    path: Path
    schema: pa.Schema | None  # None when the file is missing or unreadable
    problem: str | None  # why schema is None ("missing" or the reader's error)


def read_landing_zone(paths: ProjectPaths) -> dict[str, LandedTable]:
    """Every contract table's file and schema (the footer only; DuckDB reads the rows)."""
    out: dict[str, LandedTable] = {}
    for name in TABLES:
        path = paths.raw_table(name)
        if not path.exists():
            out[name] = LandedTable(name, path, None, "missing")
            continue
        try:
            schema = pq.ParquetFile(path).schema_arrow
        except Exception as exc:  # any reader error means the file is unusable; say which
            out[name] = LandedTable(name, path, None, f"unreadable ({exc})")
            continue
        out[name] = LandedTable(name, path, schema, None)
    return out


def landing_zone_frame(landed: dict[str, LandedTable], files: dict[str, str]) -> pd.DataFrame:
    """One row per contract table: is it there, and may it be absent."""
    rows = []
    shape = study_shape(landed)
    required_now = required_tables(shape)
    for name, t in landed.items():
        reported = name in required_now or (name in STUDY_TABLES and shape != "judge")
        if t.problem == "missing" and not reported:
            continue
        required = name in required_now
        if t.problem is None:
            status = "ok"
        elif t.problem == "missing" and not required:
            status = "not landed yet"
        else:
            status = t.problem
        rows.append({"table_name": name, "file": files[name], "required": required, "status": status})
    return pd.DataFrame(rows).set_index(pd.Index([r["table_name"] for r in rows], name="table"))


def _type_fits(declared: Column, found: pa.DataType) -> bool:
    if pa.types.is_dictionary(found):
        found = found.value_type
    if pa.types.is_null(found):  # an all-empty optional column written without a type
        return not declared.required
    return {
        "int": pa.types.is_integer(found),
        # Whole numbers are exact in a float column, so an int column satisfies "float".
        "float": pa.types.is_floating(found) or pa.types.is_integer(found),
        "string": pa.types.is_string(found) or pa.types.is_large_string(found) or pa.types.is_string_view(found),
        "bool": pa.types.is_boolean(found),
    }[declared.type]


def schema_frame(landed: dict[str, LandedTable], files: dict[str, str], specs: dict[str, TableSpec]) -> pd.DataFrame:
    """One row per contract column of every landed table: present, and of a compatible type. An
    optional column the file does not have ('absent') is no failure: a file landed before the
    contract grew that column (a stimulus text) still checks."""
    rows = []
    for name, t in landed.items():
        if t.schema is None:
            continue
        for col in specs[name].columns:
            idx = t.schema.get_field_index(col.name)
            found = str(t.schema.field(idx).type) if idx >= 0 else None
            if found is None:
                status = "missing" if col.required else "absent"
            elif _type_fits(col, t.schema.field(idx).type):
                status = "ok"
            else:
                status = "wrong type"
            rows.append(
                {
                    "table_name": name,
                    "file": files[name],
                    "column": col.name,
                    "declared_type": col.type,
                    "found_type": found,
                    "status": status,
                }
            )
    out = pd.DataFrame(rows, columns=["table_name", "file", "column", "declared_type", "found_type", "status"])
    out.index = pd.Index(out["table_name"] + "." + out["column"], name="column")
    return out


def usable_columns(spec: TableSpec, schema_rows: pd.DataFrame) -> set[str]:
    """Contract columns present with a fitting type: the only ones value checks can read."""
    mine = schema_rows[(schema_rows["table_name"] == spec.name) & (schema_rows["status"] == "ok")]
    return set(mine["column"])


def cell_label(row, factors) -> str:
    """'race=Korean, gender=female, emotion=sad' for any row with those factors."""
    return ", ".join(f"{f}={getattr(row, f)}" for f in factors)


def cell_frame_name(cell: DesignCell, study: Study) -> str:
    """The gate frame of a declared cell (as the data-quality report names it); the full cross keeps the name
    design_cells."""
    full = {f.name for f in study.factors}
    return "design_cells" if set(cell.factors) == full else "design_cells_" + "_".join(cell.factors)


def design_cells(stimuli: pd.DataFrame, study: Study, cell: DesignCell) -> pd.DataFrame:
    """Every combination of the cell's factors' declared levels with its image count (0 for an
    empty combination)."""
    factors = list(cell.factors)
    levels = [study.levels(f) for f in factors]
    cells = pd.DataFrame(list(product(*levels)), columns=factors)
    counts = stimuli.drop_duplicates("image_id").groupby(factors, dropna=False).size().rename("n_images").reset_index()
    cells = cells.merge(counts, on=factors, how="left")
    cells["n_images"] = cells["n_images"].fillna(0).astype("int64")
    # A readable index: the data-quality report lists failing rows by index.
    cells.index = pd.Index([cell_label(r, factors) for r in cells.itertuples()], name="cell")
    return cells


def image_rating_counts(stimuli: pd.DataFrame, counts: pd.Series, factors: list[str]) -> pd.DataFrame:
    """Every image with its number of human ratings (0 for an image nobody rated); `counts` holds
    the distinct raters per image, so a duplicated (rater, image) row is reported once, by the
    key check."""
    images = stimuli.drop_duplicates("image_id")[["image_id", *factors]].reset_index(drop=True)
    images["n_ratings"] = images["image_id"].map(counts).fillna(0).astype("int64")
    return images.set_index(pd.Index(images["image_id"], name="image"))


def rater_image_counts(counts: pd.Series, ids: list) -> pd.DataFrame:
    """Every rater of `ids` (the raters table's, then any other that rated) with the number of
    distinct images rated (`counts`)."""
    out = pd.DataFrame({"rater_id": pd.Series(ids, dtype=object)})
    out["n_images"] = out["rater_id"].map(counts).fillna(0).astype("int64")
    return out.set_index(pd.Index(out["rater_id"], name="rater"))


def condition_coverage(coverage: pd.DataFrame) -> pd.DataFrame:
    """Every model condition (declared or predicted) with how many of the stimuli it predicted and
    which it missed, indexed by condition (LandingDB.condition_coverage counts them)."""
    out = coverage.copy()
    out["missing_images"] = out["missing_images"].map(list)
    return out.set_index(pd.Index(out["condition_id"], name="condition"))


def fk_flag(columns: tuple[str, ...], table: str) -> str:
    """Name of the boolean column saying that `columns` exist as a key of `table`."""
    return f"{'_'.join(columns)}_exists_in_{table}"


@dataclass(frozen=True)
class GateFrames:
    """The frames to validate, by name, and warnings about checks that could not run."""

    frames: dict[str, pd.DataFrame]
    files: dict[str, str]  # table name -> file path as shown in messages
    usable: dict[str, set[str]]  # landed table -> contract columns present with a fitting type
    skipped: list[str]
    flags: dict[str, list[str]]  # landed table -> its foreign-key flag columns (fk_flag)


def assemble_frames(landed: dict[str, LandedTable], study: Study, root: Path, db: LandingDB) -> GateFrames:
    """Everything the gate validates apart from the contract checks' class frames, built from
    whatever landed: the landing-zone and schema frames and the design-count aggregates; each
    usable table becomes a view of `db` (with its foreign-key flags)."""
    landed = {n: _viewed(t, db) for n, t in landed.items()}
    files = {n: _shown(t.path, root) for n, t in landed.items()}
    frames: dict[str, pd.DataFrame] = {"landing_zone": landing_zone_frame(landed, files)}
    skipped: list[str] = []
    specs = tables_for(study)
    schema = schema_frame(landed, files, specs)
    frames["schema"] = schema
    usable = {n: usable_columns(specs[n], schema) for n, t in landed.items() if t.schema is not None}

    flags: dict[str, list[str]] = {}
    for name in usable:
        exprs = {}
        for fk in TABLES[name].foreign_keys:
            if not set(fk.columns) <= usable[name]:
                continue
            if fk.table in usable and set(fk.ref_columns) <= usable[fk.table]:
                exprs[fk_flag(fk.columns, fk.table)] = key_exists(fk.columns, fk.table, fk.ref_columns)
            else:
                skipped.append(
                    f"{files[name]}: {', '.join(fk.columns)} not checked against "
                    f"{fk.table} ({files[fk.table]} is not available)"
                )
        db.add_flags(name, exprs)
        flags[name] = list(exprs)

    def have(table: str, *cols: str) -> bool:
        return table in usable and set(cols) <= usable[table]

    @cache
    def ratings_unique() -> bool:
        """Whether each (rater_id, image_id) rating appears once (the table's key)."""
        key = RowClass("human_ratings", "n", per_key=("rater_id", "image_id"))
        return bool((db.multiplicity(key)["n"] <= 1).all())

    factors = [f.name for f in study.factors]
    stimuli = (
        db.frame("stimuli", ["image_id", *(f for f in factors if have("stimuli", f))])
        if have("stimuli", "image_id")
        else None
    )
    for cell in study.cells:
        if have("stimuli", "image_id", *cell.factors):
            frames[cell_frame_name(cell, study)] = design_cells(stimuli, study, cell)
    if (
        study.ratings_per_image is not None
        and have("stimuli", "image_id", *factors)
        and have("human_ratings", "rater_id", "image_id")
    ):
        counts = db.distinct_counts("human_ratings", "image_id", "rater_id", ratings_unique())
        frames["image_ratings"] = image_rating_counts(stimuli, counts, factors)
    if study.images_per_rater is not None and have("human_ratings", "rater_id", "image_id"):
        ids = db.ids("raters", "rater_id") if have("raters", "rater_id") else []
        seen = set(ids)
        ids += [i for i in db.ids("human_ratings", "rater_id") if i not in seen]
        frames["rater_images"] = rater_image_counts(
            db.distinct_counts("human_ratings", "rater_id", "image_id", ratings_unique()), ids
        )
    if have("stimuli", "image_id") and have("model_predictions", "condition_id", "image_id"):
        frames["condition_coverage"] = condition_coverage(
            db.condition_coverage(have("model_conditions", "condition_id"))
        )
    elif "model_predictions" not in usable and "model_conditions" in usable:
        skipped.append(
            f"no model predictions yet ({files['model_predictions']} is not landed): "
            "whether every condition predicted every image is not checked"
        )
    return GateFrames(frames, files, usable, skipped, flags)


def _viewed(table: LandedTable, db: LandingDB) -> LandedTable:
    """The table as a view of `db`; a file DuckDB cannot read is unreadable like any other."""
    if table.schema is None:
        return table
    try:
        db.add_table(table.name, table.path)
    except duckdb.Error as exc:
        return LandedTable(table.name, table.path, None, f"unreadable ({exc})")
    return table


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
