"""The declared study (study.yml, format in docs/study_shape.md) and its label sets
(seeds/factor_labels.csv). Code reads these instead of assuming the paper's shape or numbers.

A study.yml written before factors and roles existed (scale, dimensions, model_dimensions and a
design with images_per_cell) still reads: it declares the paper's shape.
"""

from __future__ import annotations

import csv
import difflib
import re
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    ValidationError,
    model_validator,
)

from .paths import ProjectPaths

FACTOR_ROLES = ("category", "audit")
STIMULUS_KINDS = ("image", "text")
# The paper's shape, used for whatever an older study.yml does not declare.
PAPER_FACTORS = (
    {"name": "race", "role": "audit"},
    {"name": "gender", "role": "audit"},
    {"name": "emotion", "role": "category"},
)
PAPER_RATER_ATTRIBUTES = ({"name": "gender"},)
# The warehouse's role slots (docs/study_shape.md, "Factor names"): staging fills these columns
# from the declared factors, so the marts read one set of columns whatever a study names its
# factors. The category fills `category`; the first two audit factors fill `audit_1` and `audit_2`.
CATEGORY_SLOT = "category"
AUDIT_SLOTS = ("audit_1", "audit_2")
# A factor or attribute becomes a column of its landing table: a plain SQL identifier, and not a
# column the contract already names there.
NAME = re.compile(r"^[a-z][a-z0-9_]*$")
RESERVED_STIMULUS = ("image_id", "identity_id", "file_path", "text")
RESERVED_RATER = ("rater_id", "age")
# A dimension becomes a column of human_ratings (with rt_<dimension>_ms) and of model_predictions.
RESERVED_DIMENSION = ("rater_id", "image_id", "trial_index", "condition_id", "run_id", "raw_responses", "strategy")


# The judge verdicts' axes (contract.JUDGE_VERDICTS' verdict_<axis> columns) and order designs.
JUDGE_AXES = ("empathy", "naturalness", "coherence", "overall")
JUDGE_ORDERS = ("both", "one")


class StudyError(ValueError):
    """study.yml does not fit the declaration format; the message names the file and the key."""


@dataclass(frozen=True)
class FactorLabel:
    factor: str
    label: str  # canonical
    label_ko: str
    aliases: tuple[str, ...]
    display_order: int


@dataclass(frozen=True)
class Factor:
    name: str  # the stimuli column, and the factor of seeds/factor_labels.csv holding its levels
    role: str  # category | audit


@dataclass(frozen=True)
class DesignCell:
    """'Every combination of these factors' levels holds this many stimuli.'"""

    factors: tuple[str, ...]
    stimuli: int

    @property
    def label(self) -> str:
        return " x ".join(self.factors)


@dataclass(frozen=True)
class Study:
    name: str
    scale_min: int
    scale_max: int
    dimensions: tuple[str, ...]
    model_dimensions: tuple[str, ...]
    labels: tuple[FactorLabel, ...]
    factors: tuple[Factor, ...] = tuple(Factor(**f) for f in PAPER_FACTORS)
    rater_attributes: tuple[str, ...] = ("gender",)
    stimulus_kind: str = "image"
    cells: tuple[DesignCell, ...] = ()
    ratings_per_image: int | None = None
    images_per_rater: int | None = None
    judge_axes: tuple[str, ...] = JUDGE_AXES  # the verdict axes the judge study declares
    judge_orders: str = "both"  # both (the lab log's design) or one order per pair

    @property
    def category(self) -> Factor | None:
        return next((f for f in self.factors if f.role == "category"), None)

    @property
    def audit_factors(self) -> tuple[Factor, ...]:
        return tuple(f for f in self.factors if f.role == "audit")

    @property
    def factor_slots(self) -> dict[str, str]:
        """Warehouse slot -> the declared factor that fills it (only the slots in use)."""
        slots = dict(zip(AUDIT_SLOTS, (f.name for f in self.audit_factors)))
        if self.category is not None:
            slots[CATEGORY_SLOT] = self.category.name
        return slots

    @property
    def factor_rows(self) -> list[dict]:
        """Every declared factor with its role and slot (None beyond the slots), in order."""
        slot_of = {name: slot for slot, name in self.factor_slots.items()}
        return [{"name": f.name, "role": f.role, "slot": slot_of.get(f.name)} for f in self.factors]

    @property
    def design_declared(self) -> bool:
        return bool(self.cells) or self.ratings_per_image is not None or self.images_per_rater is not None

    @property
    def images_per_cell(self) -> int | None:
        """Stimuli per cell of the full cross of every factor, where the design declares it."""
        full = tuple(f.name for f in self.factors)
        return next((c.stimuli for c in self.cells if set(c.factors) == set(full)), None)

    def levels(self, factor: str) -> list[str]:
        rows = sorted((l for l in self.labels if l.factor == factor), key=lambda l: l.display_order)
        if not rows:
            raise KeyError(f"no labels declared for factor {factor!r} in seeds/factor_labels.csv")
        return [l.label for l in rows]

    def label_map(self, factor: str) -> dict[str, str]:
        """Every accepted spelling (canonical, Korean, aliases; case-folded) -> canonical label."""
        out: dict[str, str] = {}
        for l in self.labels:
            if l.factor != factor:
                continue
            for s in (l.label, l.label_ko, *l.aliases):
                if s:
                    out[s.strip().casefold()] = l.label
        return out


def read_factor_labels(path: Path) -> tuple[FactorLabel, ...]:
    with open(path, newline="", encoding="utf-8") as fh:
        return tuple(
            FactorLabel(
                factor=r["factor"],
                label=r["label"],
                label_ko=r.get("label_ko") or "",
                aliases=tuple(a for a in (r.get("aliases") or "").split("|") if a),
                display_order=int(r["display_order"]),
            )
            for r in csv.DictReader(fh)
        )


# The schema of study.yml (docs/study_shape.md). Every mapping refuses keys it does not know, so a
# misspelt key is an error naming the key it resembles instead of a setting silently left out. A
# new key is one field on the class of its mapping.
class _Mapping(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _column_name(kind: str, reserved: tuple[str, ...]):
    """A declared name becomes a column: a plain SQL identifier, and not a column the table has."""

    def check(value: str) -> str:
        if not NAME.match(value) or value in reserved:
            raise ValueError(
                f"{kind} name {value!r} must be lower-case letters, digits and _ (a column name), "
                f"and not one of {', '.join(reserved)}"
            )
        return value

    return AfterValidator(check)


Count = Annotated[StrictInt, Field(ge=1)]
FactorName = Annotated[str, _column_name("factor", RESERVED_STIMULUS)]
DimensionName = Annotated[str, _column_name("dimension", RESERVED_DIMENSION)]


class ScaleSpec(_Mapping):
    min: int
    max: int

    @model_validator(mode="after")
    def _ordered(self):
        if self.min >= self.max:
            raise ValueError(f"scale min {self.min} must be below max {self.max}")
        return self


class FactorSpec(_Mapping):
    name: FactorName
    role: Literal[FACTOR_ROLES]


class AttributeSpec(_Mapping):
    name: str


class CellSpec(_Mapping):
    factors: list[str] = Field(min_length=1)
    stimuli: Count


class DesignSpec(_Mapping):
    images_per_cell: Count | None = None  # the older format's cell over every factor
    cells: list[CellSpec] | None = None
    ratings_per_image: Count | None = None
    images_per_rater: Count | None = None


class JudgeSpec(_Mapping):
    """`judge: {axes: [...], orders: both | one}` (docs/judge.md, "Study shapes")."""

    axes: list[Literal[JUDGE_AXES]] = Field(default=list(JUDGE_AXES), min_length=1)
    orders: Literal[JUDGE_ORDERS] = "both"


class StudySpec(_Mapping):
    name: Annotated[str, BeforeValidator(str)] = "study"
    stimulus_kind: Literal[STIMULUS_KINDS] = "image"
    scale: ScaleSpec
    dimensions: list[DimensionName] | None = None
    model_dimensions: list[DimensionName] | None = None
    factors: list[FactorSpec] = Field(default_factory=lambda: [FactorSpec(**f) for f in PAPER_FACTORS])
    rater_attributes: list[str | AttributeSpec] | None = Field(
        default_factory=lambda: [a["name"] for a in PAPER_RATER_ATTRIBUTES]
    )
    design: DesignSpec | None = None
    judge: JudgeSpec | None = None


def _key(loc) -> str:
    """('design', 'cells', 0, 'factors') -> design.cells[0].factors"""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else str(part)
    return out


def _yaml_line(root, loc) -> int | None:
    """The line of the key (or list item) at `loc` in the composed YAML document, or of the deepest
    part of it that is there."""
    node, line = root, None
    for part in loc:
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            pair = next(((k, v) for k, v in node.value if k.value == part), None)
            if pair is None:
                break
            line, node = pair[0].start_mark.line + 1, pair[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


class _Errors:
    """Formats a finding as `FILE:LINE: KEY: what` (the line where the YAML was read from text)."""

    def __init__(self, source: Path, document=None):
        self.source, self.document = source, document

    def __call__(self, loc: tuple, message: str) -> StudyError:
        line = _yaml_line(self.document, loc) if self.document is not None else None
        where = f"{self.source}:{line}" if line else str(self.source)
        return StudyError(f"{where}: {_key(loc)}: {message}" if loc else f"{where}: {message}")

    def from_pydantic(self, cfg: dict, exc: ValidationError) -> StudyError:
        """The first finding of pydantic's, in the study's words."""
        errors = exc.errors(include_url=False)
        # where a union's branches both failed (a name, or {name: ...}), the mapping's finding
        err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        # a union's branches add their type to the location (str | AttributeSpec): drop those
        loc = tuple(p for p in err["loc"] if isinstance(p, int) or not (p[:1].isupper() or "[" in p or p == "str"))
        if err["type"] == "extra_forbidden":
            known = _fields_at(loc[:-1])
            near = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
            hint = f"did you mean {near[0]!r}?" if near else f"known keys: {', '.join(known)}"
            return self(loc, f"unknown key; {hint}")
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "value_error":
            return self(loc, message)
        return self(loc, f"{err['input']!r}: {message}" if err["type"] != "missing" else "required key missing")


def _fields_at(loc: tuple) -> list[str]:
    """The keys the mapping at `loc` accepts."""
    model = StudySpec
    for part in loc:
        if isinstance(part, int):
            continue
        annotation = model.model_fields[part].annotation
        model = next((t for t in _flatten(annotation) if isinstance(t, type) and issubclass(t, BaseModel)), None)
        if model is None:
            return []
    return list(model.model_fields)


def _flatten(annotation):
    args = typing.get_args(annotation)
    return [t for a in args for t in _flatten(a)] if args else [annotation]


def parse_study(cfg, labels: tuple[FactorLabel, ...], source: Path, document=None) -> Study:
    """The Study `cfg` (study.yml as read) declares; `document` (its composed YAML) gives errors
    their line."""
    error = _Errors(source, document)
    if not isinstance(cfg, dict):
        raise error((), f"expected a mapping of settings, got {cfg!r}")
    try:
        spec = StudySpec.model_validate(cfg)
    except ValidationError as exc:
        raise error.from_pydantic(cfg, exc) from None
    dimensions = tuple(spec.dimensions or ())
    model_dims = tuple(
        spec.model_dimensions
        if spec.model_dimensions is not None
        else [d for d in ("valence", "arousal") if d in dimensions]
    )
    if not set(model_dims) <= set(dimensions):
        raise error(("model_dimensions",), f"{list(model_dims)} must be among dimensions {list(dimensions)}")
    factors = tuple(Factor(f.name, f.role) for f in spec.factors)
    names = [f.name for f in factors]
    twice = [n for i, n in enumerate(names) if n in names[:i]]
    if twice:
        raise error(
            ("factors", names.index(twice[0], names.index(twice[0]) + 1)), f"factor {twice[0]!r} is declared twice"
        )
    categories = [f.name for f in factors if f.role == "category"]
    if len(categories) > 1:
        raise error(
            ("factors",),
            f"declares {len(categories)} category factors ({', '.join(categories)}); a study has at most one",
        )
    attrs = tuple(a.name if isinstance(a, AttributeSpec) else a for a in spec.rater_attributes or ())
    for i, a in enumerate(attrs):
        if not NAME.match(a) or a in RESERVED_RATER:
            raise error(
                ("rater_attributes", i),
                f"rater attribute name {a!r} must be lower-case letters, digits and _ (a column name), and not one "
                f"of {', '.join(RESERVED_RATER)} (age in years is a column of its own; declare an age band instead)",
            )
    category = categories[0] if categories else None
    if category in dimensions:
        raise error(
            ("dimensions", dimensions.index(category)),
            f"the category factor {category!r} is also a dimension: the human_ratings file would need two "
            "columns of that name",
        )
    declared = {l.factor for l in labels}
    for i, f in enumerate(factors):
        if f.name not in declared:
            raise error(
                ("factors", i), f"no levels for {f.name!r} in seeds/factor_labels.csv (add rows with that factor name)"
            )
    for i, a in enumerate(attrs):
        if a not in declared:
            raise error(
                ("rater_attributes", i),
                f"no levels for {a!r} in seeds/factor_labels.csv (add rows with that factor name)",
            )
    design = spec.design or DesignSpec()
    cells = [DesignCell(tuple(names), design.images_per_cell)] if design.images_per_cell is not None else []
    for i, c in enumerate(design.cells or ()):
        unknown = [f for f in c.factors if f not in names]
        if unknown:
            raise error(
                ("design", "cells", i, "factors"),
                f"{list(c.factors)}: not declared stimulus factors ({', '.join(names) or 'none declared'})",
            )
        cells.append(DesignCell(tuple(c.factors), c.stimuli))
    judge = spec.judge or JudgeSpec()
    return Study(
        name=str(spec.name),
        scale_min=spec.scale.min,
        scale_max=spec.scale.max,
        dimensions=dimensions,
        model_dimensions=model_dims,
        labels=labels,
        factors=factors,
        rater_attributes=attrs,
        stimulus_kind=spec.stimulus_kind,
        cells=tuple(cells),
        ratings_per_image=design.ratings_per_image,
        images_per_rater=design.images_per_rater,
        judge_axes=tuple(judge.axes),
        judge_orders=judge.orders,
    )


def load_study(paths: ProjectPaths) -> Study:
    source = paths.study_file
    text = source.read_text(encoding="utf-8")
    try:
        cfg, document = yaml.safe_load(text), yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark else str(source)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise StudyError(f"{where}: not valid YAML: {problem}") from None
    return parse_study(cfg, read_factor_labels(paths.seed_file("factor_labels.csv")), source, document)
