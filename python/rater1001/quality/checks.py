"""What the gate checks: one Great Expectations expectation per rule, plus how to say what a
failing row means in words.

Contract rules (keys, required columns, scale, label sets, foreign keys) are derived from
`contract.py`; design counts (images per cell, ratings per image, images per rater, model
coverage) come from `study.yml` via `Study`. Nothing here knows the paper's numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from ..contract import Column, TableSpec, tables_for
from ..study import Study
from .frames import GateFrames, cell_frame_name, cell_label, fk_flag
from .gx import great_expectations
from .landed import RowClass, quoted

if TYPE_CHECKING:
    import great_expectations as gx

Describe = Callable[[pd.DataFrame], list[str]]


def _expectations():
    """GX's expectation classes (GX is imported when the first check is built, not with this module)."""
    return great_expectations().expectations


@dataclass
class Check:
    key: str  # unique; travels in the expectation's meta so results map back to the check
    frame: str  # name of the frame it validates (GateFrames.frames, or its row class's frame)
    expectation: gx.expectations.Expectation
    describe: Describe  # failing rows -> one readable line per problem
    design: bool = False  # a design count: only a warning when the study is knowingly unbalanced
    # A contract check on a landed table validates the table's rows grouped by this class
    # (quality/landed.py); its failing rows are the table's rows in the rejected classes.
    rows: RowClass | None = None

    @property
    def shown_frame(self) -> str:
        """What the check reads, as the data-quality report names it: the landed table itself
        for a contract check."""
        return self.rows.table if self.rows else self.frame


def _on(rows: RowClass, key: str, expectation, describe: Describe) -> Check:
    return Check(key, rows.frame, expectation, describe, rows=rows)


def _values(table: str, column: str) -> RowClass:
    return RowClass(table, column, f"t.{quoted(column)}")


def fmt(value) -> str:
    """A value as a person would write it: 10 not 10.0, text quoted."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return repr(value)
    return str(value)


def count(n: int, noun: str) -> str:
    """'1 image', '39 images'."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def _row(file: str, index) -> str:
    # Landed frames are indexed by their row number in the file (frames.read_landing_zone).
    return f"{file} row {index}"


# --- contract checks ---------------------------------------------------------------------------


def _rule(col: Column, study: Study):
    """(expectation kwargs and class, phrase for a failing value) of a contract rule."""
    E = _expectations()
    lo, hi = study.scale_min, study.scale_max
    rule = col.rule or ""
    if rule == "scale":
        return (
            E.ExpectColumnValuesToBeBetween,
            dict(min_value=lo, max_value=hi),
            lambda v: f"is outside the scale {lo}-{hi}",
        )
    if rule == "scale_integer":
        # The schema check already holds the column to an integer type (a 7.5 fails there).
        return (
            E.ExpectColumnValuesToBeInSet,
            dict(value_set=list(range(lo, hi + 1))),
            lambda v: f"is outside the scale {lo}-{hi}",
        )
    if rule.startswith("factor:"):
        factor = rule.split(":", 1)[1]
        # A factor the study does not declare has no levels: any value in it fails.
        levels = study.levels(factor) if study.label_map(factor) else []
        return (
            E.ExpectColumnValuesToBeInSet,
            dict(value_set=levels),
            lambda v: f"is not a declared {factor} ({', '.join(levels)})",
        )
    if rule.startswith("enum:"):
        allowed = rule.split(":", 1)[1].split("|")
        return E.ExpectColumnValuesToBeInSet, dict(value_set=allowed), lambda v: f"is not one of {', '.join(allowed)}"
    if rule == "positive":
        return E.ExpectColumnValuesToBeBetween, dict(min_value=0, strict_min=True), lambda v: "must be greater than 0"
    if rule == "non_negative":
        return E.ExpectColumnValuesToBeBetween, dict(min_value=0), lambda v: "must not be negative"
    if rule == "age":
        return (
            E.ExpectColumnValuesToBeBetween,
            dict(min_value=0, max_value=130, strict_min=True, strict_max=True),
            lambda v: "is not an age in years (0 < age < 130)",
        )
    raise ValueError(f"contract column {col.name} has an unknown rule {col.rule!r}")


def _key_check(spec: TableSpec, file: str) -> Check:
    key = list(spec.key)
    # Validated on how many rows share each key (one class per multiplicity): unique keys are
    # the ones whose count is 1, and a failing count leads back to every row of those keys.
    multiplicity = RowClass(spec.name, f"rows_per_{'_'.join(key)}", per_key=spec.key)
    exp = _expectations().ExpectColumnValuesToBeBetween(
        column=multiplicity.column,
        min_value=1,
        max_value=1,
        notes=f"Each ({', '.join(key)}) appears once in {file} (the table's key).",
    )

    def describe(bad: pd.DataFrame) -> list[str]:
        lines = []
        for values, rows in bad.groupby(key, sort=False, dropna=False):
            values = values if isinstance(values, tuple) else (values,)
            shown = ", ".join(f"{k}={fmt(v)}" for k, v in zip(key, values))
            numbers = ", ".join(str(i) for i in rows.index[:10])
            lines.append(f"{file}: key ({shown}) appears {len(rows)} times (rows {numbers})")
        return lines

    return _on(multiplicity, f"{spec.name}.key", exp, describe)


def _not_null_check(spec: TableSpec, col: Column, file: str) -> Check:
    exp = _expectations().ExpectColumnValuesToNotBeNull(column=col.name, notes=f"{col.name} is required in {file}.")
    # A column with a rule shares its distinct values with the rule's check; an id column has
    # (nearly) as many distinct values as rows, so only whether each value is there is grouped.
    rows = (
        _values(spec.name, col.name)
        if col.rule
        else RowClass(
            spec.name,
            col.name,
            f"case when t.{quoted(col.name)} is null then null else true end",
            name=f"{col.name} present",
        )
    )
    return _on(
        rows,
        f"{spec.name}.{col.name}.not_null",
        exp,
        lambda bad: [f"{_row(file, i)}: {col.name} is empty (the contract requires a value)" for i in bad.index],
    )


def _rule_check(spec: TableSpec, col: Column, study: Study, file: str) -> Check:
    kind, kwargs, phrase = _rule(col, study)
    exp = kind(
        column=col.name,
        notes=f"{col.name} satisfies rule {col.rule!r} "
        f"(study scale {study.scale_min}-{study.scale_max}; label sets from "
        "seeds/factor_labels.csv).",
        **kwargs,
    )
    return _on(
        _values(spec.name, col.name),
        f"{spec.name}.{col.name}.{col.rule}",
        exp,
        lambda bad: [f"{_row(file, i)}: {col.name} = {fmt(v)} {phrase(v)}" for i, v in bad[col.name].items()],
    )


def _fk_check(spec: TableSpec, columns: tuple[str, ...], ref_table: str, file: str) -> Check:
    flag = fk_flag(columns, ref_table)
    exp = _expectations().ExpectColumnValuesToBeInSet(
        column=flag,
        value_set=[True],
        notes=f"Every {', '.join(columns)} of {file} exists in {ref_table} ({flag} is computed by the gate).",
    )

    def describe(bad: pd.DataFrame) -> list[str]:
        # One line per unknown id: an orphan image usually brings all of its ratings along.
        lines = []
        for values, rows in bad.groupby(list(columns), sort=False, dropna=False):
            values = values if isinstance(values, tuple) else (values,)
            shown = ", ".join(f"{k} = {fmt(v)}" for k, v in zip(columns, values))
            numbers = ", ".join(str(i) for i in rows.index[:5]) + (", ..." if len(rows) > 5 else "")
            lines.append(f"{file}: {shown} does not exist in {ref_table} ({count(len(rows), 'row')}: {numbers})")
        return lines

    return _on(_values(spec.name, flag), f"{spec.name}.{'_'.join(columns)}.exists_in.{ref_table}", exp, describe)


def contract_checks(spec: TableSpec, flags: list[str], usable: set[str], study: Study, file: str) -> list[Check]:
    checks = []
    if set(spec.key) <= usable:
        checks.append(_key_check(spec, file))
    for col in spec.columns:
        if col.name not in usable:
            continue
        if col.required:
            checks.append(_not_null_check(spec, col, file))
        if col.rule:
            checks.append(_rule_check(spec, col, study, file))
    for fk in spec.foreign_keys:
        if fk_flag(fk.columns, fk.table) in flags:
            checks.append(_fk_check(spec, fk.columns, fk.table, file))
    return checks


# --- landing zone and schema -------------------------------------------------------------------


def _landing_check() -> Check:
    exp = _expectations().ExpectColumnValuesToBeInSet(
        column="status",
        value_set=["ok", "not landed yet"],
        notes=(
            "The study's required tables are landed (a rating study: stimuli, human_ratings; a judge "
            "study: dialogues, candidates, judge_verdicts) and every landed file is readable."
        ),
    )

    def describe(bad: pd.DataFrame) -> list[str]:
        return [
            f"required table {r.table_name} is missing: there is no {r.file} "
            f"(land it with `rater1001 ingest {r.table_name} FILE`)"
            if r.status == "missing"
            else f"{r.file} cannot be read: {r.status}"
            for r in bad.itertuples()
        ]

    return Check("landing_zone.tables", "landing_zone", exp, describe)


def _schema_check() -> Check:
    exp = _expectations().ExpectColumnValuesToBeInSet(
        column="status",
        value_set=["ok", "absent"],
        notes="Every landed file has the contract's columns with compatible types (contract.py).",
    )

    def describe(bad: pd.DataFrame) -> list[str]:
        return [
            f"{r.file} has no column {r.column} (the contract declares {r.declared_type})"
            if r.status == "missing"
            else f"{r.file} column {r.column} holds {r.found_type}; the contract declares {r.declared_type}"
            for r in bad.itertuples()
        ]

    return Check("landing_zone.schema", "schema", exp, describe)


# --- design counts -----------------------------------------------------------------------------


def _count_check(key: str, frame: str, column: str, expected: int, notes: str, describe: Describe) -> Check:
    exp = _expectations().ExpectColumnValuesToBeBetween(
        column=column, min_value=expected, max_value=expected, notes=notes
    )
    return Check(key, frame, exp, describe, design=True)


def cell_check_key(cell, study: Study) -> str:
    name = cell_frame_name(cell, study)
    return "design.images_per_cell" if name == "design_cells" else f"design.cells.{'_'.join(cell.factors)}"


def _cell_check(cell, study: Study) -> Check:
    n = cell.stimuli
    return _count_check(
        cell_check_key(cell, study),
        cell_frame_name(cell, study),
        "n_images",
        n,
        f"Every {cell.label} cell holds {n} images (study.yml design).",
        lambda bad: [
            f"cell {cell_label(r, cell.factors)} holds {count(r.n_images, 'image')}; the design declares {n}"
            for r in bad.itertuples()
        ],
    )


def design_checks(frames: dict[str, pd.DataFrame], study: Study) -> list[Check]:
    checks = [_cell_check(c, study) for c in study.cells if cell_frame_name(c, study) in frames]
    per_image, per_rater = study.ratings_per_image, study.images_per_rater
    factors = [f.name for f in study.factors]
    if "image_ratings" in frames:
        checks.append(
            _count_check(
                "design.ratings_per_image",
                "image_ratings",
                "n_ratings",
                per_image,
                f"Every image has {per_image} human ratings (study.yml design.ratings_per_image).",
                lambda bad: [
                    f"image {r.image_id} ({cell_label(r, factors)}) has {count(r.n_ratings, 'human rating')}; "
                    f"the design declares {per_image}"
                    for r in bad.itertuples()
                ],
            )
        )
    if "rater_images" in frames:
        checks.append(
            _count_check(
                "design.images_per_rater",
                "rater_images",
                "n_images",
                per_rater,
                f"Every rater rated {per_rater} images (study.yml design.images_per_rater).",
                lambda bad: [
                    f"rater {r.rater_id} rated {count(r.n_images, 'image')}; the design declares {per_rater}"
                    for r in bad.itertuples()
                ],
            )
        )
    if "condition_coverage" in frames:
        coverage = frames["condition_coverage"]
        n_images = int(coverage["n_images"].iloc[0]) if len(coverage) else 0

        def describe(bad: pd.DataFrame) -> list[str]:
            lines = []
            for r in bad.itertuples():
                missing = list(r.missing_images)
                shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5:,} more" if len(missing) > 5 else "")
                lines.append(
                    f"condition {r.condition_id} predicted {r.n_images_predicted:,} of "
                    f"{count(n_images, 'image')}; missing: {shown}"
                )
            return lines

        checks.append(
            _count_check(
                "design.condition_coverage",
                "condition_coverage",
                "n_images_predicted",
                n_images,
                f"Every model condition predicted every one of the {n_images} stimuli.",
                describe,
            )
        )
    return checks


def build_checks(gate: GateFrames, study: Study) -> list[Check]:
    checks = [_landing_check(), _schema_check()]
    for name, spec in tables_for(study).items():
        if name in gate.usable:
            checks += contract_checks(spec, gate.flags[name], gate.usable[name], study, gate.files[name])
    return checks + design_checks(gate.frames, study)
