"""Simulated FER baselines (the paper's Supplement S1): labels with Table S1's accuracy, and for
the models Tables S2/S3 report, continuous valence / arousal with their Pearson r and MAE.

Labels: every emotion is recognised with the model's accuracy (S1 gives no per-emotion recall);
wrong answers go where the VLM profiles' wrong answers go (their pooled off-diagonal confusion).
With balanced classes and even predicted margins this gives kappa = (acc - 1/k) / (1 - 1/k),
within .015 of S1's printed kappas.

Values (S2/S3 give r and MAE only): the model answers
    m_j = clip(c + beta * (t_j - mean t) + s * Z_j, lo, hi),  t_j = centroid[e_j] + u_j
(t_j is the image's true human mean, u_j its latent image effect). Two numbers do not fix three
parameters; we take the model's spread to equal that of the observed human image means
(beta^2 V + s^2 = V + sigma_mean^2), which gives beta = r (V + sigma_mean^2) / V, and solve the
offset b = mean human - c so that the expected |human mean - m|, a mixture of folded normals
over the emotions, is the printed MAE. The sign of the offset is not printed: the model answers
below the humans (b > 0). Closed forms; docs/simulate.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize
from scipy.special import ndtr

from .classify import accuracy_logits, draw_labels
from .humans import residual_sds
from .models import ConditionResult
from .profiles import HUMAN, Profiles


def pooled_wrong_shape(profiles: Profiles, emotions: list[str], exclude: set[str]) -> np.ndarray:
    """Mean confusion of the VLM profiles with the diagonal removed, rows summing to 1 (uniform
    over the other labels for an emotion no VLM ever missed)."""
    ids = [c for c in profiles.confusion["condition_id"].unique() if c not in exclude | {HUMAN}]
    m = np.mean([profiles.confusion_matrix(c, emotions).to_numpy() for c in ids], axis=0)
    np.fill_diagonal(m, 0.0)
    uniform = (1 - np.eye(len(emotions))) / max(len(emotions) - 1, 1)
    totals = m.sum(axis=1, keepdims=True)
    return np.where(totals > 0, m / np.where(totals > 0, totals, 1.0), uniform)


def fer_confusion(accuracy: float, wrong_shape: np.ndarray) -> np.ndarray:
    conf = (1 - accuracy) * wrong_shape
    np.fill_diagonal(conf, accuracy)
    return conf


def folded_mean(mu: np.ndarray, sd: float) -> np.ndarray:
    """E|X| for X ~ N(mu, sd^2)."""
    return sd * np.sqrt(2 / np.pi) * np.exp(-(mu**2) / (2 * sd**2)) + mu * (1 - 2 * ndtr(-mu / sd))


@dataclass(frozen=True)
class FerValues:
    beta: float
    s: float
    offset: float  # b: human mean minus model, expected
    mae_expected: float
    r_expected: float


def solve_values(
    r: float, mae: float, centroids: np.ndarray, var_u: float, var_noise: float, hi_offset: float
) -> FerValues:
    """beta, s and offset b for target Pearson r and MAE (balanced emotions with `centroids`,
    image variance var_u, sampling variance of a human image mean var_noise)."""
    dev = centroids - centroids.mean()
    v = float(np.mean(dev**2)) + var_u
    vh = v + var_noise
    beta = min(r * vh / v, 1.0)
    s = float(np.sqrt(max(vh - beta**2 * v, 0.0)))
    sd_d = float(np.sqrt((1 - beta) ** 2 * var_u + var_noise + s**2))
    mae_at = lambda b: float(np.mean(folded_mean(b + (1 - beta) * dev, sd_d)))  # noqa: E731
    b = 0.0 if mae_at(0.0) >= mae else optimize.brentq(lambda b: mae_at(b) - mae, 0.0, hi_offset, xtol=1e-10)
    r_exp = beta * v / np.sqrt(vh * (beta**2 * v + s**2))
    return FerValues(beta, s, b, mae_at(b), float(r_exp))


def simulate_fer_condition(
    rng: np.random.Generator,
    catalog_row: pd.Series,
    profiles: Profiles,
    stimuli: pd.DataFrame,
    image_effects: pd.DataFrame,
    emotions: list[str],
    races: list[str],
    genders: list[str],
    model_dims: list[str],
    lo: int,
    hi: int,
    ratings_per_image: int,
    fer_ids: set[str],
) -> tuple[ConditionResult, pd.DataFrame]:
    """The condition's predictions and label truth, and its value truth (per dimension: targets,
    solved beta / sigma / offset, expected r and MAE)."""
    cid = catalog_row["condition_id"]
    prof = profiles.fer_condition(cid)
    n = len(stimuli)
    conf = fer_confusion(float(prof["accuracy"]), pooled_wrong_shape(profiles, emotions, fer_ids))
    logits = accuracy_logits(np.diag(conf), None, None, len(races), len(genders))
    e_idx = stimuli["emotion"].map({e: i for i, e in enumerate(emotions)}).to_numpy()
    r_idx = stimuli["race"].map({r: i for i, r in enumerate(races)}).to_numpy()
    g_idx = stimuli["gender"].map({g: i for i, g in enumerate(genders)}).to_numpy()
    pred, _ = draw_labels(rng, e_idx, r_idx, g_idx, logits, conf)
    labels = np.array(emotions, dtype=object)[pred]

    human = profiles.human
    values, truth_rows = {}, []
    for d in model_dims:
        r, mae = prof.get(f"{d}_r"), prof.get(f"{d}_mae")
        if pd.isna(r) or pd.isna(mae):
            values[d] = np.full(n, np.nan)  # S2/S3 do not report this model: no answer
            continue
        v = human["variance"][d]
        var_u = v["image_sd"] ** 2
        # one noise variance for the whole scale: the emotions' residual variances averaged
        var_noise = (v["rater_sd"] ** 2 + np.mean(residual_sds(human, d, emotions) ** 2) + 1 / 12) / ratings_per_image
        mu = np.array([human["emotions"][e][d] for e in emotions], dtype=float)
        sol = solve_values(float(r), float(mae), mu, var_u, var_noise, float(hi - lo))
        t = mu[e_idx] + image_effects[d].to_numpy()
        centre = mu.mean() - sol.offset
        values[d] = np.round(np.clip(centre + sol.beta * (t - mu.mean()) + sol.s * rng.standard_normal(n), lo, hi), 3)
        truth_rows.append(
            {
                "condition_id": cid,
                "dimension": d,
                "pearson_r_profile": float(r),
                "mae_profile": float(mae),
                "beta": sol.beta,
                "sigma": sol.s,
                "bias_expected": sol.offset,
                "pearson_r_expected": sol.r_expected,
                "mae_expected": sol.mae_expected,
            }
        )

    answers = [
        json.dumps(
            {"emotion": lab, **{d: (None if np.isnan(values[d][i]) else float(values[d][i])) for d in model_dims}}
        )
        for i, lab in enumerate(labels)
    ]
    preds = pd.DataFrame(
        {
            "condition_id": cid,
            "image_id": stimuli["image_id"].to_numpy(),
            "run_id": "run-1",
            "strategy": "fer",
            "emotion": labels,
            **{d: values[d] for d in model_dims},
            "raw_responses": [json.dumps([a]) for a in answers],
            "parse_path": "json",
            "thinking_text": None,
            "thinking_tokens": None,
            "latency_ms": np.nan,
            "input_tokens": None,
            "output_tokens": None,
        }
    )
    label_truth = pd.DataFrame(
        [
            {"condition_id": cid, "emotion": e, "race": rr, "gender": g, "p_correct": float(conf[i, i])}
            for i, e in enumerate(emotions)
            for rr in races
            for g in genders
        ]
    )
    return ConditionResult(preds, pd.DataFrame(), label_truth, pd.DataFrame()), pd.DataFrame(truth_rows)
