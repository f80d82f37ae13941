"""The declared study: scale, dimensions, design counts (study.yml) and label sets
(seeds/factor_labels.csv). Code reads these instead of assuming the paper's numbers."""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import yaml

from .paths import ProjectPaths


@dataclass(frozen=True)
class FactorLabel:
    factor: str
    label: str  # canonical
    label_ko: str
    aliases: tuple[str, ...]
    display_order: int


@dataclass(frozen=True)
class Study:
    name: str
    scale_min: int
    scale_max: int
    dimensions: tuple[str, ...]
    model_dimensions: tuple[str, ...]
    images_per_cell: int
    ratings_per_image: int
    images_per_rater: int
    labels: tuple[FactorLabel, ...]

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
                label_ko=r["label_ko"],
                aliases=tuple(a for a in (r.get("aliases") or "").split("|") if a),
                display_order=int(r["display_order"]),
            )
            for r in csv.DictReader(fh)
        )


def load_study(paths: ProjectPaths) -> Study:
    with open(paths.study_file, encoding="utf-8") as fh:
        cfg = yaml.safe_load(fh)
    design = cfg["design"]
    return Study(
        name=cfg.get("name", "study"),
        scale_min=int(cfg["scale"]["min"]),
        scale_max=int(cfg["scale"]["max"]),
        dimensions=tuple(cfg["dimensions"]),
        model_dimensions=tuple(cfg.get("model_dimensions", ["valence", "arousal"])),
        images_per_cell=int(design["images_per_cell"]),
        ratings_per_image=int(design["ratings_per_image"]),
        images_per_rater=int(design["images_per_rater"]),
        labels=read_factor_labels(paths.seeds / "factor_labels.csv"),
    )
