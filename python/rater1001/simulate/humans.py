"""Human ratings: image, rater and residual variance on a latent scale, rounded to the study's
integer scale; log-normal response times; optional forced-choice emotion labels."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .discrete import discretise, solve_location


@dataclass(frozen=True)
class HumanTruth:
    locations: pd.DataFrame  # emotion x dimension: latent location solved from the centroid
    image_effects: pd.DataFrame  # image rows x dimension: latent image deviation u_j
    rater_effects: pd.DataFrame  # rater rows x dimension (+ log speed)


def per_emotion(human: dict, dim: str, key: str, emotions: list[str], default: float | None = None) -> np.ndarray:
    """A residual parameter of each emotion on one dimension: human.yml's `variance.<dim>.<key>`
    is one number for every emotion or a mapping emotion -> number (the paper's Table 6 gives each
    emotion its own human spread; docs/simulate.md). Absent: `default`."""
    r = human["variance"][dim].get(key, default)
    if not isinstance(r, dict):
        return np.full(len(emotions), float(r))
    missing = [e for e in emotions if e not in r]
    if missing:
        raise ValueError(f"human.yml: variance.{dim}.{key} has no value for emotion(s) {missing}")
    return np.array([float(r[e]) for e in emotions])


def residual_sds(human: dict, dim: str, emotions: list[str]) -> np.ndarray:
    """The residual SD of each emotion on one dimension (:func:`per_emotion` of `residual_sd`)."""
    return per_emotion(human, dim, "residual_sd", emotions)


def residual_draws(rng: np.random.Generator, sd: np.ndarray, df: np.ndarray) -> np.ndarray:
    """Residuals with SD `sd` each: normal where `df` is infinite, else Student t with `df`
    degrees of freedom (> 2) scaled to that SD (heavier tails and a sharper peak at the same
    variance: more raters close to the panel and a few far off, which is what the paper's human
    leave-one-out W1SD above .683 on sad and neutral faces says, Tables 4e/5e)."""
    # The chi-square draws come from a child stream (gamma sampling takes a varying number of
    # draws), so the rest of the stream does not depend on `df`.
    z, child = rng.standard_normal(len(sd)), np.random.default_rng(rng.integers(0, 2**63))
    chi = child.chisquare(np.where(np.isfinite(df), df, 3.0))
    heavy = np.isfinite(df)
    if (df[heavy] <= 2).any():
        raise ValueError(f"human.yml: residual_df must be > 2 (a finite variance), got {sorted(set(df[heavy]))}")
    nu = np.where(heavy, df, 3.0)
    t = z / np.sqrt(chi / nu) * np.sqrt((nu - 2) / nu)
    return sd * np.where(heavy, t, z)


def latent_locations(human: dict, emotions: list[str], dims: list[str], lo: int, hi: int) -> pd.DataFrame:
    """Latent location per (emotion, dimension) whose expected integer rating is the centroid."""
    out = pd.DataFrame(index=emotions, columns=dims, dtype=float)
    for d in dims:
        v = human["variance"][d]
        for e, res in zip(emotions, residual_sds(human, d, emotions), strict=True):
            sd = float(np.sqrt(v["image_sd"] ** 2 + v["rater_sd"] ** 2 + res**2))
            out.loc[e, d] = solve_location(float(human["emotions"][e][d]), sd, lo, hi)
    return out


def simulate_ratings(
    rng: np.random.Generator,
    human: dict,
    stimuli: pd.DataFrame,
    n_raters: int,
    assignment: pd.DataFrame,
    dims: list[str],
    lo: int,
    hi: int,
) -> tuple[pd.DataFrame, HumanTruth]:
    emotions = list(dict.fromkeys(stimuli["emotion"]))
    loc = latent_locations(human, emotions, dims, lo, hi)
    img = assignment["image_row"].to_numpy()
    rat = assignment["rater_index"].to_numpy()
    # Per rating, the emotion's position in `emotions` (not its label: 7.2 million labels at 100x)
    emo = stimuli["emotion"].map({e: i for i, e in enumerate(emotions)}).to_numpy()[img]
    n_img = len(stimuli)

    values, u_all, b_all = {}, {}, {}
    for d in dims:
        v = human["variance"][d]
        u = rng.normal(0.0, v["image_sd"], n_img)
        b = rng.normal(0.0, v["rater_sd"], n_raters)
        eps = residual_draws(
            rng, residual_sds(human, d, emotions)[emo], per_emotion(human, d, "residual_df", emotions, np.inf)[emo]
        )
        latent = loc[d].to_numpy(float)[emo] + u[img] + b[rat] + eps
        values[d] = discretise(latent, lo, hi).astype("int64")
        u_all[d], b_all[d] = u, b

    rt = human["response_time"]
    speed = rng.normal(0.0, rt["rater_log_sd"], n_raters)
    speed -= speed.mean()  # keep the pooled median on the planted one (speed is relative to the panel)
    out = pd.DataFrame(
        {"rater_index": rat, "image_row": img, **values, "trial_index": assignment["trial_index"].to_numpy()}
    )
    for d in dims:
        median = np.array([human["emotions"][e][f"rt_{d}_ms"] for e in emotions], dtype=float)[emo]
        log_rt = np.log(median) + speed[rat] + rng.normal(0.0, rt["residual_log_sd"], len(img))
        out[f"rt_{d}_ms"] = np.round(np.exp(log_rt), 1)

    truth = HumanTruth(
        locations=loc,
        image_effects=pd.DataFrame(u_all),
        rater_effects=pd.DataFrame({**b_all, "log_speed": speed}),
    )
    return out, truth
