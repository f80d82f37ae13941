"""Small hand-made studies of any shape the study.yml declaration accepts, written as a project
folder of its own (study.yml, seeds/factor_labels.csv, CSV files), for the shape-matrix tests.

The study has its own label set: three categories (pos, neg and `na`, a declared label that ingest
must not read as missing) and audit factors `race` (two levels) and `gender` (two levels), on a 1-5
scale. Ratings follow the category with rater noise; model conditions answer like a noisy rater.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

CATEGORIES = ("pos", "neg", "na")
RACES = ("east", "west")
GENDERS = ("female", "male")
CENTRES = {"pos": 4.2, "neg": 1.8, "na": 3.0}
LABELS_CSV = """factor,label,label_ko,aliases,display_order
emotion,pos,,positive,1
emotion,neg,,negative,2
emotion,na,,not applicable,3
race,east,,,1
race,west,,,2
gender,female,,f,1
gender,male,,m,2
"""


@dataclass(frozen=True)
class Shape:
    name: str
    labels: bool  # raters give a forced-choice category and models predict one
    dimensions: tuple[str, ...]  # rating dimensions (empty: labels only)
    balanced: bool  # equal cells and ratings per item, declared in study.yml; else no design
    ratings: tuple[int, int]  # ratings per item, min and max (equal: every item the same)
    per_cell: int = 2  # items per race x gender x category cell (balanced)
    text: bool = True  # text stimuli (else image file paths)
    seed: int = 0
    audit: bool = True  # declare the audit factors and rater gender (else the category only)


def _study_yml(shape: Shape) -> dict:
    cfg = {
        "name": shape.name,
        "stimulus_kind": "text" if shape.text else "image",
        "scale": {"min": 1, "max": 5},
        "dimensions": list(shape.dimensions),
        "model_dimensions": list(shape.dimensions[:2]),
        "factors": [{"name": "race", "role": "audit"}, {"name": "gender", "role": "audit"}],
        "rater_attributes": ["gender"],
    }
    if not shape.audit:
        cfg["factors"], cfg["rater_attributes"] = [], []
    # The category factor: what a model classifies and what the ratings' centres follow.
    cfg["factors"].append({"name": "emotion", "role": "category"})
    if shape.balanced:
        n_items = len(RACES) * len(GENDERS) * len(CATEGORIES) * shape.per_cell
        cfg["design"] = {
            "cells": [
                {"factors": ["race", "gender", "emotion"], "stimuli": shape.per_cell},
                {"factors": ["race", "emotion"], "stimuli": shape.per_cell * len(GENDERS)},
            ],
            "ratings_per_image": shape.ratings[0],
            "images_per_rater": n_items,
        }
    return cfg


def write_shape(root: Path, shape: Shape) -> dict[str, Path]:
    """Write the study into root; returns the CSV file of each table, to ingest in LOAD_ORDER."""
    rng = np.random.default_rng(shape.seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / "seeds").mkdir(exist_ok=True)
    (root / "seeds" / "factor_labels.csv").write_text(LABELS_CSV, encoding="utf-8")
    (root / "study.yml").write_text(yaml.safe_dump(_study_yml(shape), sort_keys=False), encoding="utf-8")

    stimuli = []
    for r in RACES:
        for g in GENDERS:
            for c in CATEGORIES:
                n = shape.per_cell if shape.balanced else int(rng.integers(1, shape.per_cell + 2))
                for i in range(n):
                    sid = f"s-{r}-{g}-{c}-{i}"
                    stimuli.append(
                        {
                            "image_id": sid,
                            "race": r,
                            "gender": g,
                            "emotion": c,
                            "text": f"a {c} sentence number {i}" if shape.text else None,
                            "file_path": None if shape.text else f"{sid}.png",
                        }
                    )
    stimuli = pd.DataFrame(stimuli)
    k_max = shape.ratings[1]
    n_raters = k_max if shape.balanced else k_max + 3
    raters = pd.DataFrame(
        {"rater_id": [f"r{j:03d}" for j in range(n_raters)], "gender": [GENDERS[j % 2] for j in range(n_raters)]}
    )
    rater_bias = rng.normal(0, 0.4, n_raters)

    rows = []
    for item in stimuli.itertuples():
        k = int(rng.integers(shape.ratings[0], shape.ratings[1] + 1))
        for j in rng.choice(n_raters, size=k, replace=False):
            row = {"rater_id": raters.rater_id[j], "image_id": item.image_id}
            for d_i, d in enumerate(shape.dimensions):
                centre = CENTRES[item.emotion] + 0.3 * d_i + rater_bias[j]
                row[d] = int(np.clip(np.rint(centre + rng.normal(0, 0.8)), 1, 5))
            if shape.labels:
                row["emotion"] = item.emotion if rng.random() < 0.75 else str(rng.choice(CATEGORIES))
            rows.append(row)
    ratings = pd.DataFrame(rows)

    conditions = pd.DataFrame(
        [
            {"condition_id": "text-llm", "display_name": "A text LLM", "kind": "llm"},
            {"condition_id": "proxy", "display_name": "Crowd proxy", "kind": "human-proxy"},
        ]
    )
    preds = []
    for cond, noise in (("text-llm", 0.6), ("proxy", 1.0)):
        for item in stimuli.itertuples():
            row = {"condition_id": cond, "image_id": item.image_id, "run_id": "r1"}
            for d_i, d in enumerate(shape.dimensions[:2]):
                row[d] = float(np.clip(CENTRES[item.emotion] + 0.3 * d_i + rng.normal(0, noise), 1, 5))
            if shape.labels:
                row["emotion"] = item.emotion if rng.random() < 0.8 else str(rng.choice(CATEGORIES))
            preds.append(row)
    predictions = pd.DataFrame(preds)

    if not shape.audit:
        stimuli = stimuli.drop(columns=["race", "gender"])
        raters = raters.drop(columns=["gender"])
    files = {}
    for name, frame in (
        ("stimuli", stimuli),
        ("raters", raters),
        ("model_conditions", conditions),
        ("human_ratings", ratings),
        ("model_predictions", predictions),
    ):
        files[name] = root / f"{name}.csv"
        frame.to_csv(files[name], index=False)
    return files
