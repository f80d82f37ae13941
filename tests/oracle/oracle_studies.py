"""Tiny hand-made studies of every shape the oracle checks, written as project folders (study.yml,
seeds/factor_labels.csv, CSV files). No project code: the oracle must not share code with what it
checks, and the generator is part of the oracle's side.

Names are deliberately not the paper's: the category is `topic`, the audit factors `source`,
`region`, `era`, the rater attributes `sex`, `age_band`, the dimensions `warmth`, `clarity`,
`energy`. Every study has two model conditions, each with some missing answers (a blank value)
and some stimuli it never answered (no row)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

TOPICS = ("alpha", "beta", "gamma")
AUDIT = {"source": ("web", "print"), "region": ("north", "south"), "era": ("old", "new")}
ATTRIBUTES = {"sex": ("f", "m"), "age_band": ("young", "older")}
DIMENSIONS = ("warmth", "clarity", "energy")
CENTRE = {"alpha": 4.0, "beta": 2.2, "gamma": 3.1}
CONDITIONS = {"model-a": 0.6, "model-b": 1.1}


@dataclass(frozen=True)
class OracleShape:
    content: str  # labels | ratings | both
    n_audit: int  # 0-3 audit factors
    n_attributes: int  # 0-2 rater attributes
    n_dims: int  # 1-3 dimensions (0 for labels only)
    balanced: bool
    many: bool  # 50 ratings per item (else 2-5)
    seed: int = 0

    @property
    def name(self) -> str:
        return (
            f"{self.content}-a{self.n_audit}-r{self.n_attributes}-d{self.n_dims}-"
            f"{'bal' if self.balanced else 'unb'}-{'k50' if self.many else 'k2_5'}"
        )

    @property
    def labels(self) -> bool:
        return self.content in ("labels", "both")

    @property
    def dims(self) -> tuple[str, ...]:
        return DIMENSIONS[: self.n_dims]

    @property
    def audit(self) -> tuple[str, ...]:
        return tuple(AUDIT)[: self.n_audit]

    @property
    def attributes(self) -> tuple[str, ...]:
        return tuple(ATTRIBUTES)[: self.n_attributes]


def _labels_csv(shape: OracleShape) -> str:
    rows = ["factor,label,label_ko,aliases,display_order"]
    if shape.labels:
        rows += [f"topic,{t},,,{i + 1}" for i, t in enumerate(TOPICS)]
    for f in shape.audit:
        rows += [f"{f},{v},,,{i + 1}" for i, v in enumerate(AUDIT[f])]
    for a in shape.attributes:
        rows += [f"{a},{v},,,{i + 1}" for i, v in enumerate(ATTRIBUTES[a])]
    return "\n".join(rows) + "\n"


def _study_yml(shape: OracleShape, n_items: int, k: int, per_cell: int) -> dict:
    factors = [{"name": f, "role": "audit"} for f in shape.audit]
    if shape.labels:
        factors.append({"name": "topic", "role": "category"})
    cfg = {
        "name": shape.name,
        "stimulus_kind": "text",
        "scale": {"min": 1, "max": 5},
        "dimensions": list(shape.dims),
        "model_dimensions": list(shape.dims),
        "factors": factors,
        "rater_attributes": list(shape.attributes),
    }
    if shape.balanced:
        cell = [*shape.audit, *(["topic"] if shape.labels else [])]
        cfg["design"] = {"ratings_per_image": k, "images_per_rater": n_items}
        if cell:
            cfg["design"]["cells"] = [{"factors": cell, "stimuli": per_cell}]
    return cfg


def write_study(root: Path, shape: OracleShape) -> dict[str, Path]:
    """Write the study into root; returns the CSV file of each table in load order."""
    rng = np.random.default_rng(shape.seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / "seeds").mkdir(exist_ok=True)
    (root / "seeds" / "factor_labels.csv").write_text(_labels_csv(shape), encoding="utf-8")

    levels = [AUDIT[f] for f in shape.audit] + ([TOPICS] if shape.labels else [("-",)])
    combos = list(itertools.product(*levels))
    per_cell = max(2, -(-12 // len(combos)))  # at least 12 stimuli in a balanced study
    stimuli = []
    for combo in combos:
        n = per_cell if shape.balanced else int(rng.integers(1, per_cell + 2))
        for _ in range(n):
            row = {
                "image_id": f"s{len(stimuli):03d}",
                "identity_id": f"id{len(stimuli) // 2:03d}",
                "text": f"item {len(stimuli)}",
            }
            row.update(dict(zip(shape.audit, combo[: shape.n_audit], strict=True)))
            topic = combo[-1] if shape.labels else TOPICS[len(stimuli) % 3]
            if shape.labels:
                row["topic"] = topic
            row["truth"] = topic
            stimuli.append(row)
    stimuli = pd.DataFrame(stimuli)
    n_items = len(stimuli)

    if shape.many:
        k_lo = k_hi = 50
    else:
        k_lo, k_hi = (3, 3) if shape.balanced else (2, 5)
    n_raters = k_hi if shape.balanced else k_hi + 4
    raters = pd.DataFrame({"rater_id": [f"r{j:03d}" for j in range(n_raters)]})
    for a in shape.attributes:
        raters[a] = [ATTRIBUTES[a][int(v)] for v in rng.integers(0, 2, n_raters)]
        raters.loc[0, a], raters.loc[1, a] = ATTRIBUTES[a]  # both levels present
    bias = rng.normal(0, 0.5, n_raters)

    ratings = []
    for item in stimuli.itertuples():
        k = int(rng.integers(k_lo, k_hi + 1))
        for j in sorted(rng.choice(n_raters, size=k, replace=False)):
            row = {"rater_id": raters.rater_id[j], "image_id": item.image_id}
            for d_i, d in enumerate(shape.dims):
                row[d] = int(np.clip(np.rint(CENTRE[item.truth] + 0.4 * d_i + bias[j] + rng.normal(0, 0.9)), 1, 5))
            if shape.labels:
                row["topic"] = item.truth if rng.random() < 0.7 else str(rng.choice(TOPICS))
            ratings.append(row)
    ratings = pd.DataFrame(ratings)

    conditions = pd.DataFrame([{"condition_id": c, "display_name": c.upper(), "kind": "llm"} for c in CONDITIONS])
    preds = []
    for c_i, (cond, noise) in enumerate(CONDITIONS.items()):
        skipped = set(rng.choice(n_items, size=max(1, n_items // 8), replace=False))
        first = len(preds)
        for i, item in enumerate(stimuli.itertuples()):
            if i in skipped:
                continue  # a stimulus this condition never answered
            row = {"condition_id": cond, "image_id": item.image_id, "run_id": "r1"}
            for d_i, d in enumerate(shape.dims):
                v = float(np.clip(CENTRE[item.truth] + 0.4 * d_i + 0.3 * c_i + rng.normal(0, noise), 1, 5))
                row[d] = round(v, 2) if rng.random() > 0.1 else None  # a missing answer
            if shape.labels:
                pick = item.truth if rng.random() < 0.75 else str(rng.choice(TOPICS))
                row["topic"] = pick if rng.random() > 0.1 else None
            if len(preds) == first:  # every condition has at least one answer left blank
                row.update({k: None for k in row if k not in ("condition_id", "image_id", "run_id")})
            preds.append(row)
    predictions = pd.DataFrame(preds)

    (root / "study.yml").write_text(
        yaml.safe_dump(_study_yml(shape, n_items, k_lo, per_cell), sort_keys=False), encoding="utf-8"
    )
    files = {}
    for name, frame in (
        ("stimuli", stimuli.drop(columns="truth")),
        ("raters", raters),
        ("model_conditions", conditions),
        ("human_ratings", ratings),
        ("model_predictions", predictions),
    ):
        files[name] = root / f"{name}.csv"
        frame.to_csv(files[name], index=False)
    return files


# The matrix: every content x audit-factor count (12 studies), and every pair of values of any two
# factors in some study. Labels only has no dimensions, so audit x dimensions needs three
# ratings-bearing studies per audit count: four more. Found by a hill-climbing search and checked by
# test_the_matrix_covers_every_pair (16 is the least: 4 labels-only + 4 x 3 audit x dimensions).
#            content    audit attrs dims balanced 50 ratings
MATRIX = [
    OracleShape("labels", 0, 1, 0, True, True, seed=1),
    OracleShape("labels", 1, 2, 0, True, True, seed=2),
    OracleShape("labels", 2, 0, 0, True, True, seed=3),
    OracleShape("labels", 3, 0, 0, False, False, seed=4),
    OracleShape("ratings", 0, 2, 3, False, False, seed=5),
    OracleShape("ratings", 1, 2, 1, False, False, seed=6),
    OracleShape("ratings", 2, 0, 1, False, True, seed=7),
    OracleShape("ratings", 3, 1, 3, True, False, seed=8),
    OracleShape("both", 0, 2, 1, False, True, seed=9),
    OracleShape("both", 1, 0, 3, True, True, seed=10),
    OracleShape("both", 2, 1, 3, False, False, seed=11),
    OracleShape("both", 3, 2, 2, False, False, seed=12),
    OracleShape("ratings", 0, 0, 2, True, True, seed=13),
    OracleShape("both", 1, 1, 2, True, True, seed=14),
    OracleShape("ratings", 2, 2, 2, True, True, seed=15),
    OracleShape("both", 3, 1, 1, True, True, seed=16),
]
