"""The study design: images (race x gender x emotion x identity), the rater panel, and which rater
sees which image in which order. Pure functions of a numpy Generator and the design counts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize


class DesignError(ValueError):
    """The requested design cannot be built (counts that do not divide, empty factors, ...)."""


@dataclass(frozen=True)
class Design:
    races: tuple[str, ...]
    genders: tuple[str, ...]
    emotions: tuple[str, ...]
    n_identities: int  # per race x gender cell; each identity shows every emotion once
    ratings_per_image: int
    images_per_rater: int

    @property
    def n_cells(self) -> int:
        return len(self.races) * len(self.genders) * len(self.emotions)

    @property
    def n_images(self) -> int:
        return self.n_cells * self.n_identities

    @property
    def n_raters(self) -> int:
        return self.n_images * self.ratings_per_image // self.images_per_rater

    def validate(self) -> None:
        for name in ("n_identities", "ratings_per_image", "images_per_rater"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise DesignError(f"{name} must be a positive integer, got {value!r}")
        for name in ("races", "genders", "emotions"):
            if not getattr(self, name):
                raise DesignError(f"no {name} declared in seeds/factor_labels.csv")
        if self.images_per_rater > self.n_images:
            raise DesignError(
                f"images_per_rater={self.images_per_rater} exceeds the {self.n_images} images of the "
                "design; a rater cannot rate an image twice"
            )
        if self.n_images % self.images_per_rater:
            raise DesignError(
                f"the design has {self.n_images} images ({len(self.races)} races x {len(self.genders)} "
                f"genders x {len(self.emotions)} emotions x {self.n_identities} identities), which "
                f"is not a multiple of images_per_rater={self.images_per_rater}; every rater must "
                "see a full block of distinct images so each image gets exactly ratings_per_image "
                f"ratings (try images_per_rater in {divisors(self.n_images)})"
            )


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def build_stimuli(design: Design) -> pd.DataFrame:
    """One row per image, ordered race, gender, identity, emotion; readable ids."""
    rows = []
    for race in design.races:
        for gender in design.genders:
            for k in range(1, design.n_identities + 1):
                identity = f"{race.lower()}-{gender.lower()}-{k:02d}"
                for emotion in design.emotions:
                    image_id = f"{identity}-{emotion.lower()}"
                    rows.append((image_id, identity, race, gender, emotion, f"images/{image_id}.png"))
    return pd.DataFrame(rows, columns=["image_id", "identity_id", "race", "gender", "emotion", "file_path"])


def _cohort_offset_probs(theta: float, weights: np.ndarray, width: int) -> np.ndarray:
    k = np.arange(width) - (width - 1) / 2
    p = np.exp(theta * weights[:, None] * k[None, :])
    return p / p.sum(axis=1, keepdims=True)


def _age_distribution(cohorts: list[list[int]], target_sd: float) -> tuple[np.ndarray, np.ndarray]:
    """Ages and their per-cohort probabilities: outer cohorts lean inward by a tilt solved so the
    balanced panel's SD is target_sd (uniform decades give 14.4, the paper reports 13.7)."""
    lows = np.array([c[0] for c in cohorts])
    width = int(cohorts[0][1] - cohorts[0][0] + 1)
    centre = (len(cohorts) - 1) / 2
    weights = (centre - np.arange(len(cohorts))) / max(centre, 1)  # +1 youngest .. -1 oldest
    ages = lows[:, None] + np.arange(width)[None, :]

    def sd(theta: float) -> float:
        p = _cohort_offset_probs(theta, weights, width) / len(cohorts)
        m = (p * ages).sum()
        return float(np.sqrt((p * (ages - m) ** 2).sum()))

    theta = 0.0
    if sd(0.0) > target_sd > sd(3.0):
        theta = optimize.brentq(lambda t: sd(t) - target_sd, 0.0, 3.0)
    return ages, _cohort_offset_probs(theta, weights, width)


def build_raters(design: Design, rng: np.random.Generator, panel: dict) -> pd.DataFrame:
    """Gender balanced, age cohorts balanced within gender. Ages within a cohort are spread over
    the cohort's age distribution by stratified quantiles (not independent draws), so the panel's
    mean and SD sit on their targets rather than scattering around them."""
    n = design.n_raters
    cohorts = panel["age_cohorts"]
    ages_grid, probs = _age_distribution(cohorts, float(panel["age_target_sd"]))
    slot = np.arange(n)
    genders = np.array(design.genders)[slot % len(design.genders)]
    cohort = (slot // len(design.genders)) % len(cohorts)
    ages = np.empty(n, dtype=np.int64)
    for g in range(len(design.genders)):
        for c in range(len(cohorts)):
            members = np.flatnonzero((slot % len(design.genders) == g) & (cohort == c))
            if len(members) == 0:
                continue
            q = (np.arange(len(members)) + rng.random()) / len(members)  # one random phase per group
            idx = np.minimum(np.searchsorted(np.cumsum(probs[c]), q, side="right"), ages_grid.shape[1] - 1)
            ages[members] = ages_grid[c, idx]
    order = rng.permutation(n)
    width = max(len(str(n)), 4)
    return pd.DataFrame(
        {
            "rater_id": [f"R{i + 1:0{width}d}" for i in range(n)],
            "gender": genders[order],
            "age": ages[order],
        }
    )


def assign_images(design: Design, stimuli: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Which rater rates which image, and in which position.

    Each of ratings_per_image rounds deals every image exactly once: the images of each
    race x gender x emotion cell are shuffled and dealt round-robin over the cells (in a shuffled
    cell order), and the resulting sequence is cut into blocks of images_per_rater, one per rater.
    So every image gets exactly ratings_per_image ratings, a rater never sees an image twice, and
    each rater's block spreads as evenly over the cells as the block size allows (72 images over
    36 cells = 2 per cell at paper scale). trial_index is a random order within each block.
    """
    n_cells, n_id = design.n_cells, design.n_identities
    # stimuli are ordered race, gender, identity, emotion -> cell index and rank within cell.
    cell = (
        stimuli["race"].map({r: i for i, r in enumerate(design.races)}).to_numpy() * len(design.genders)
        + stimuli["gender"].map({g: i for i, g in enumerate(design.genders)}).to_numpy()
    ) * len(design.emotions) + stimuli["emotion"].map({e: i for i, e in enumerate(design.emotions)}).to_numpy()
    by_cell = np.argsort(cell, kind="stable").reshape(n_cells, n_id)  # image rows per cell

    blocks_per_round = design.n_images // design.images_per_rater
    image_rows = np.empty((design.ratings_per_image, design.n_images), dtype=np.int64)
    for rnd in range(design.ratings_per_image):
        shuffled = rng.permuted(by_cell, axis=1)  # identities shuffled within each cell
        cell_order = np.argsort(rng.random((n_id, n_cells)), axis=1)  # cell order per deal
        dealt = shuffled[cell_order, np.arange(n_id)[:, None]]  # (deal, cell position)
        image_rows[rnd] = dealt.reshape(-1)
    rater_index = np.repeat(np.arange(design.n_raters), design.images_per_rater)
    trial = np.argsort(rng.random((design.n_raters, design.images_per_rater)), axis=1) + 1
    assert blocks_per_round * design.ratings_per_image == design.n_raters
    return pd.DataFrame(
        {"rater_index": rater_index, "image_row": image_rows.reshape(-1), "trial_index": trial.reshape(-1)}
    )
