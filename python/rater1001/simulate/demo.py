"""The embedded demo study: a seeded, SIMULATED study with the paper's design that lands in the
landing zone exactly like real data (docs/simulate.md).

simulate_study writes the five landing tables (contract schemas), one manifest row per table with
is_simulated=True, the study.yml that declares the generated design, and the generating truth
(data/simulation_truth/*.parquet) for parameter-recovery tests.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ..contract import TABLES
from ..paths import ProjectPaths
from ..study import load_study
from .classify import draw_labels
from .design import Design, assign_images, build_raters, build_stimuli
from .fer import simulate_fer_condition
from .humans import simulate_ratings
from .models import label_model, simulate_condition
from .output import (
    human_alpha,
    human_parameters,
    land,
    land_parts,
    landed_part,
    read_catalog,
    typed_catalog,
    write_study_yml,
    write_truth,
)
from .profiles import HUMAN, ProfileError, Profiles, load_profiles

__all__ = ["simulate_study", "SimulationSummary"]


@dataclass(frozen=True)
class SimulationSummary:
    root: Path
    seed: int
    n_images: int
    n_raters: int
    n_ratings: int
    conditions: tuple[str, ...]
    n_predictions: int
    human_alpha: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0

    def __str__(self) -> str:
        alphas = ", ".join(f"{d} {a:.3f}" for d, a in self.human_alpha.items())
        return (
            f"SIMULATED demo study (seed {self.seed}) written to {self.root / 'data' / 'raw'}: "
            f"{self.n_images:,} images, {self.n_raters:,} raters, {self.n_ratings:,} human ratings, "
            f"{len(self.conditions)} model conditions ({self.n_predictions:,} predictions) in {self.seconds:.1f} s.\n"
            f"Human interval Krippendorff alpha: {alphas}."
        )


def simulate_study(
    paths: ProjectPaths,
    seed: int = 20251129,
    n_identities: int = 40,
    ratings_per_image: int = 50,
    images_per_rater: int = 72,
    conditions: list[str] | None = None,
    profiles: Profiles | str | Path | None = None,
    human_emotion_labels: bool | None = None,
) -> SimulationSummary:
    """Write the SIMULATED demo study into paths.raw. `conditions` picks catalog rows (default:
    the paper's, i.e. rows with a `paper_table`; a model to run yourself, such as
    fer-mini-xception, has none); `profiles` replaces the built-in behaviour profiles (a Profiles or a folder);
    `human_emotion_labels` overrides human.yml's emotion_labels (forced-choice labels by raters)."""
    started = time.perf_counter()
    study = load_study(paths)
    emotions, races, genders = study.levels("emotion"), study.levels("race"), study.levels("gender")
    design = Design(tuple(races), tuple(genders), tuple(emotions), n_identities, ratings_per_image, images_per_rater)
    design.validate()
    prof = profiles if isinstance(profiles, Profiles) else load_profiles(profiles)
    calibrated = prof.human.get("scale", {"min": study.scale_min, "max": study.scale_max})
    if (int(calibrated["min"]), int(calibrated["max"])) != (study.scale_min, study.scale_max):
        raise ProfileError(
            f"the behaviour profiles ({prof.source}) are calibrated for a {calibrated['min']}-{calibrated['max']} "
            f"scale but {paths.study_file} declares {study.scale_min}-{study.scale_max}; pass profiles= made for that scale"
        )
    missing = [e for e in emotions if e not in prof.human["emotions"]]
    if missing:
        raise ProfileError(f"human.yml ({prof.source}) has no centroid for emotion(s) {missing}")

    catalog = read_catalog(paths)
    if conditions is not None:
        unknown = [c for c in conditions if c not in set(catalog["condition_id"])]
        if unknown:
            raise ValueError(
                f"unknown condition(s) {unknown}; {paths.seeds / 'model_condition_catalog.csv'} has "
                f"{', '.join(catalog['condition_id'])}"
            )
        catalog = catalog[catalog["condition_id"].isin(conditions)].reset_index(drop=True)
    else:
        catalog = catalog[catalog["paper_table"].str.strip() != ""].reset_index(drop=True)
    is_fer = catalog["kind"] == "fer"
    for cid, fer in zip(catalog["condition_id"], is_fer):
        (prof.fer_condition if fer else prof.condition)(cid)  # fail before writing anything

    lo, hi = study.scale_min, study.scale_max
    root_rng = np.random.default_rng(seed)
    # spawn keys are sequential: the fourth child leaves the first three streams as they were
    rng_design, rng_humans, rng_labels, rng_difficulty = (np.random.default_rng(s) for s in root_rng.spawn(4))

    stimuli = build_stimuli(design)
    difficulty = rng_difficulty.standard_normal(len(stimuli))  # per image, shared by the model conditions (classify.py)
    raters = build_raters(design, rng_design, prof.human["raters"])
    assignment = assign_images(design, stimuli, rng_design)
    dims = list(study.dimensions)
    ratings, htruth = simulate_ratings(rng_humans, prof.human, stimuli, design.n_raters, assignment, dims, lo, hi)
    ratings.insert(0, "image_id", stimuli["image_id"].to_numpy()[ratings["image_row"]])
    ratings.insert(0, "rater_id", raters["rater_id"].to_numpy()[ratings["rater_index"]])

    labels_on = prof.human.get("emotion_labels", True) if human_emotion_labels is None else human_emotion_labels
    label_truth = []
    if labels_on:
        conf, logits, human_labels = label_model(prof, HUMAN, emotions, races, genders)
        label_truth.append(human_labels)
        img = ratings["image_row"].to_numpy()
        pick = lambda col, levels: stimuli[col].map({v: i for i, v in enumerate(levels)}).to_numpy()[img]  # noqa: E731
        pred, _ = draw_labels(
            rng_labels, pick("emotion", emotions), pick("race", races), pick("gender", genders), logits, conf
        )
        ratings["emotion"] = np.array(emotions, dtype=object)[pred]
    else:
        ratings["emotion"] = None

    # The tables that do not depend on the model conditions land first, so the 7.2 million
    # ratings of a 100x study are written and freed before the predictions are made.
    paths.raw.mkdir(parents=True, exist_ok=True)
    write_study_yml(paths, design)
    # Rater ids are zero-padded in rater order, so this is the (rater_id, trial_index) order
    # without sorting strings.
    ordered_ratings = ratings.iloc[
        np.lexsort((ratings["trial_index"].to_numpy(), ratings["rater_index"].to_numpy()))
    ].reset_index(drop=True)
    n_ratings = len(ratings)
    del ratings
    for name, df in (
        ("stimuli", stimuli),
        ("raters", raters),
        ("model_conditions", typed_catalog(catalog)),
        ("human_ratings", ordered_ratings),
    ):
        land(paths, name, df)
    alpha = human_alpha(ordered_ratings, dims)
    del ordered_ratings

    aliases = {l.label: [a for a in l.aliases if a.isascii()] for l in study.labels if l.factor == "emotion"}
    results, fer_truth, parts = [], [], []
    fer_ids = set(catalog.loc[is_fer, "condition_id"]) | set(prof.fer["condition_id"])
    for _, row in catalog.iterrows():
        cond_rng = np.random.default_rng([seed, *row["condition_id"].encode()])  # stable per condition
        args = (
            cond_rng,
            row,
            prof,
            stimuli,
            htruth.image_effects,
            emotions,
            races,
            genders,
            list(study.model_dimensions),
            lo,
            hi,
            ratings_per_image,
        )
        if row["kind"] == "fer":
            result, truth = simulate_fer_condition(*args, fer_ids)
            fer_truth.append(truth)
        else:
            result = simulate_condition(*args, aliases, difficulty)
        # Each condition's rows go to Arrow at once (compact text); the frame is kept empty, for
        # the column types the landed file records.
        parts.append(landed_part(paths, "model_predictions", result.predictions))
        results.append(replace(result, predictions=result.predictions.iloc[:0]))
    n_predictions = sum(p.num_rows for p in parts)
    if results:
        land_parts(paths, "model_predictions", parts, [r.predictions for r in results])
    else:
        land(paths, "model_predictions", pd.DataFrame(columns=TABLES["model_predictions"].column_names))
    del parts

    write_truth(
        paths,
        {
            "images": pd.concat(
                [stimuli[["image_id", "emotion", "race", "gender"]], htruth.image_effects.add_prefix("image_effect_")],
                axis=1,
            ),
            "raters": pd.concat([raters[["rater_id"]], htruth.rater_effects.add_prefix("rater_effect_")], axis=1),
            "human_parameters": human_parameters(prof.human, emotions, dims, htruth.locations),
            "model_values": pd.concat([r.value_truth for r in results], ignore_index=True)
            if results
            else pd.DataFrame(),
            "model_cells": pd.concat([r.cell_truth for r in results], ignore_index=True) if results else pd.DataFrame(),
            "fer_values": pd.concat(fer_truth, ignore_index=True) if fer_truth else pd.DataFrame(),
            "labels": pd.concat(label_truth + [r.label_truth for r in results], ignore_index=True)
            if label_truth or results
            else pd.DataFrame(),
            "confusion": prof.confusion[prof.confusion["condition_id"].isin(list(catalog["condition_id"]) + [HUMAN])],
        },
    )
    return SimulationSummary(
        root=paths.root,
        seed=seed,
        n_images=len(stimuli),
        n_raters=len(raters),
        n_ratings=n_ratings,
        conditions=tuple(catalog["condition_id"]),
        n_predictions=n_predictions,
        human_alpha=alpha,
        seconds=time.perf_counter() - started,
    )
