"""The declared study (study.yml, format in docs/study_shape.md) and its label sets
(seeds/factor_labels.csv). Code reads these instead of assuming the paper's shape or numbers.

A study.yml written before factors and roles existed (scale, dimensions, model_dimensions and a
design with images_per_cell) still reads: it declares the paper's shape.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

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
# factors. The category fills `emotion`; the first two audit factors fill `race` and `gender`.
CATEGORY_SLOT = "emotion"
AUDIT_SLOTS = ("race", "gender")
# A factor or attribute becomes a column of its landing table: a plain SQL identifier, and not a
# column the contract already names there.
NAME = re.compile(r"^[a-z][a-z0-9_]*$")
RESERVED_STIMULUS = ("image_id", "identity_id", "file_path", "text")
RESERVED_RATER = ("rater_id", "age")


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
    def unanalysed_audit_factors(self) -> tuple[str, ...]:
        """Audit factors beyond the slots: declared and landed, but not in the audit marts."""
        return tuple(f.name for f in self.audit_factors[len(AUDIT_SLOTS) :])

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


def _names(value, where: str, source: Path) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise StudyError(f"{source}: {where} must be a list of names, got {value!r}")
    return tuple(value)


def _count(value, where: str, source: Path) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise StudyError(f"{source}: {where} must be a whole number >= 1, got {value!r}")
    return value


def _factors(cfg: dict, source: Path) -> tuple[Factor, ...]:
    raw = cfg.get("factors", list(PAPER_FACTORS))
    if not isinstance(raw, list):
        raise StudyError(f"{source}: factors must be a list of {{name, role}}, got {raw!r}")
    out = []
    for i, f in enumerate(raw):
        if not isinstance(f, dict) or f.get("role") not in FACTOR_ROLES:
            raise StudyError(f"{source}: factors[{i}] = {f!r}: needs a name and a role ({' or '.join(FACTOR_ROLES)})")
        out.append(Factor(str(f["name"]), f["role"]))
    names = [f.name for f in out]
    for f in out:
        if not NAME.match(f.name) or f.name in RESERVED_STIMULUS:
            raise StudyError(
                f"{source}: factor name {f.name!r} must be lower-case letters, digits and "
                f"_ (a column name), and not one of {', '.join(RESERVED_STIMULUS)}"
            )
    if len(set(names)) < len(names):
        raise StudyError(f"{source}: factors {names}: a name is declared twice")
    categories = [f.name for f in out if f.role == "category"]
    if len(categories) > 1:
        raise StudyError(
            f"{source}: factors declares {len(categories)} category factors "
            f"({', '.join(categories)}); a study has at most one"
        )
    return tuple(out)


def _design(cfg: dict, factors: tuple[Factor, ...], source: Path):
    design = cfg.get("design") or {}
    if not isinstance(design, dict):
        raise StudyError(f"{source}: design must be a mapping, got {design!r}")
    names = tuple(f.name for f in factors)
    cells = []
    per_cell = _count(design.get("images_per_cell"), "design.images_per_cell", source)
    if per_cell is not None:
        cells.append(DesignCell(names, per_cell))
    for i, c in enumerate(design.get("cells") or []):
        if not isinstance(c, dict):
            raise StudyError(f"{source}: design.cells[{i}] must be {{factors: [...], stimuli: N}}, got {c!r}")
        fs = _names(c.get("factors"), f"design.cells[{i}].factors", source)
        unknown = [f for f in fs if f not in names]
        if not fs or unknown:
            raise StudyError(
                f"{source}: design.cells[{i}].factors {list(fs)}: "
                f"not declared stimulus factors ({', '.join(names) or 'none declared'})"
            )
        cells.append(DesignCell(fs, _count(c.get("stimuli"), f"design.cells[{i}].stimuli", source)))
    return (
        tuple(cells),
        _count(design.get("ratings_per_image"), "design.ratings_per_image", source),
        _count(design.get("images_per_rater"), "design.images_per_rater", source),
    )


def parse_study(cfg: dict, labels: tuple[FactorLabel, ...], source: Path) -> Study:
    if not isinstance(cfg, dict):
        raise StudyError(f"{source}: expected a mapping of settings, got {cfg!r}")
    try:
        scale_min, scale_max = int(cfg["scale"]["min"]), int(cfg["scale"]["max"])
    except (KeyError, TypeError, ValueError):
        raise StudyError(f"{source}: scale must be {{min: INT, max: INT}}, got {cfg.get('scale')!r}") from None
    if scale_min >= scale_max:
        raise StudyError(f"{source}: scale min {scale_min} must be below max {scale_max}")
    kind = cfg.get("stimulus_kind", "image")
    if kind not in STIMULUS_KINDS:
        raise StudyError(f"{source}: stimulus_kind {kind!r} must be one of {', '.join(STIMULUS_KINDS)}")
    dimensions = _names(cfg.get("dimensions", []), "dimensions", source)
    model_dims = _names(
        cfg.get("model_dimensions", [d for d in ("valence", "arousal") if d in dimensions]), "model_dimensions", source
    )
    if not set(model_dims) <= set(dimensions):
        raise StudyError(f"{source}: model_dimensions {list(model_dims)} must be among dimensions {list(dimensions)}")
    factors = _factors(cfg, source)
    declared = {l.factor for l in labels}
    attrs = tuple(
        a["name"] if isinstance(a, dict) else a for a in cfg.get("rater_attributes", list(PAPER_RATER_ATTRIBUTES))
    )
    bad_attrs = [a for a in attrs if not isinstance(a, str) or not NAME.match(a) or a in RESERVED_RATER]
    if bad_attrs:
        raise StudyError(
            f"{source}: rater_attributes {bad_attrs}: a name must be lower-case letters, "
            f"digits and _ (a column name), and not one of {', '.join(RESERVED_RATER)} "
            "(age in years is a column of its own; declare an age band instead)"
        )
    category = next((f.name for f in factors if f.role == "category"), None)
    if category in dimensions:
        raise StudyError(
            f"{source}: the category factor {category!r} is also a dimension: the "
            "human_ratings file would need two columns of that name"
        )
    missing = [f.name for f in factors if f.name not in declared] + [a for a in attrs if a not in declared]
    if missing:
        raise StudyError(
            f"{source}: no levels for {', '.join(sorted(set(missing)))} in "
            "seeds/factor_labels.csv (add rows with that factor name)"
        )
    cells, per_image, per_rater = _design(cfg, factors, source)
    judge_axes, judge_orders = _judge(cfg, source)
    return Study(
        name=str(cfg.get("name", "study")),
        scale_min=scale_min,
        scale_max=scale_max,
        dimensions=dimensions,
        model_dimensions=model_dims,
        labels=labels,
        factors=factors,
        rater_attributes=attrs,
        stimulus_kind=kind,
        cells=cells,
        ratings_per_image=per_image,
        images_per_rater=per_rater,
        judge_axes=judge_axes,
        judge_orders=judge_orders,
    )


def _judge(cfg: dict, source: Path) -> tuple[tuple[str, ...], str]:
    """study.yml `judge: {axes: [...], orders: both | one}` (docs/judge.md, "Study shapes")."""
    judge = cfg.get("judge") or {}
    if not isinstance(judge, dict) or set(judge) - {"axes", "orders"}:
        raise StudyError(f"{source}: judge must be a mapping with axes and/or orders, got {judge!r}")
    axes = _names(judge.get("axes", list(JUDGE_AXES)), "judge.axes", source)
    unknown = [a for a in axes if a not in JUDGE_AXES]
    if unknown or not axes:
        raise StudyError(f"{source}: judge.axes {list(axes)}: each must be one of {', '.join(JUDGE_AXES)}")
    orders = judge.get("orders", "both")
    if orders not in JUDGE_ORDERS:
        raise StudyError(f"{source}: judge.orders {orders!r} must be one of {', '.join(JUDGE_ORDERS)}")
    return axes, orders


def load_study(paths: ProjectPaths) -> Study:
    source = paths.study_file
    with open(source, encoding="utf-8") as fh:
        cfg = yaml.safe_load(fh)
    return parse_study(cfg, read_factor_labels(paths.seed_file("factor_labels.csv")), source)
