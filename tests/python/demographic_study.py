"""Simulated demographic-audit studies shared by the tests of the audit's statistics (slices, ANOVA,
stratified ANOVA, Tukey, omnibus): the paper's 3 x 2 x 6 x n design with planted effects, and
small unbalanced strata with their cell sums."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special

EMOTIONS = ("happy", "sad", "angry", "fear", "disgust", "neutral")


RACES = ("Black", "Caucasian", "Korean")


GENDERS = ("female", "male")


def simulate_predictions(seed, conditions, n_identities=40):
    """One row per (condition, image) in the paper's 3 x 2 x 6 x n_identities design.

    conditions: {condition_id: dict(acc_logit={audit_1: shift}, valence={audit_1 or "audit_1:audit_2": shift},
    category=optional category the valence shifts apply to)}. Baseline accuracy varies by category."""
    rng = np.random.default_rng(seed)
    images = pd.DataFrame(
        [(r, g, e, i) for r in RACES for g in GENDERS for e in EMOTIONS for i in range(n_identities)],
        columns=["audit_1", "audit_2", "category", "identity"],
    )
    images["image_id"] = [f"img{i:05d}" for i in range(len(images))]
    base = dict(zip(EMOTIONS, (3.0, -0.3, 1.0, 1.5, 0.5, 2.5)))
    frames = []
    for condition, spec in conditions.items():
        d = images.copy()
        d["condition_id"] = condition
        logit = d["category"].map(base) + d["audit_1"].map(spec.get("acc_logit", {})).fillna(0.0)
        d["correct"] = rng.random(len(d)) < special.expit(logit)
        wrong = rng.choice(EMOTIONS, len(d))
        d["predicted_category"] = np.where(d["correct"], d["category"], wrong)
        d["correct"] = d["predicted_category"] == d["category"]
        cell = d["audit_1"] + ":" + d["audit_2"]
        shift = d["audit_1"].map(spec.get("valence", {})).fillna(0.0) + cell.map(spec.get("valence", {})).fillna(0.0)
        if "category" in spec:
            shift = shift.where(d["category"] == spec["category"], 0.0)
        d["d_valence"] = rng.normal(0.3, 0.6, len(d)) + shift
        d["d_arousal"] = rng.normal(-0.2, 0.8, len(d))
        frames.append(d)
    return pd.concat(frames, ignore_index=True)


def unbalanced_stratum(sizes, seed):
    """One stratum's rows: sizes[i] images in audit_1 x audit_2 cell i (0 = an empty cell)."""
    rng = np.random.default_rng(seed)
    cells = [(r, g) for r in RACES for g in GENDERS][: len(sizes)]
    rows = [(r, g) for (r, g), k in zip(cells, sizes) for _ in range(k)]
    frame = pd.DataFrame(rows, columns=["audit_1", "audit_2"])
    shift = frame["audit_1"].map({"Black": 0.0, "Caucasian": 0.4, "Korean": -0.3})
    return frame.assign(b=np.round(shift + rng.normal(0, 1, len(frame)), 3))


def cells_of(frame):
    g = frame.groupby(["audit_1", "audit_2"])["b"]
    return pd.DataFrame(
        {"n_bias": g.count(), "bias_mean": g.mean(), "bias_ss": g.apply(lambda b: float(((b - b.mean()) ** 2).sum()))}
    ).reset_index()


def planted_study() -> pd.DataFrame:
    """An accuracy and a valence gap planted against Caucasian, a Korean:female valence interaction
    in fear only, and a clean condition."""
    return simulate_predictions(
        1,
        {
            "planted": dict(acc_logit={"Caucasian": -1.0}, valence={"Caucasian": 0.5}),
            "interaction": dict(valence={"Korean:female": 0.9}, category="fear"),
            "clean": dict(),
        },
    )
