"""Model predictions that follow a condition's behaviour profile (docs/simulate.md, "Values").

Per condition: the emotion label (planted recall, confusions, race/gender accuracy gaps; see
classify.py), then valence and arousal answers on the 1-9 grid:

  answer = discretise(location[e, p] + shift[e, cell] + tracking * u_j + offset_e * S + sqrt(1 - s) * sigma_e * Z)

* e = intended emotion, p = predicted label, cell = race x gender of the face, u_j = the image's
  latent human deviation (the model tracks within-emotion differences a little), S = +-1,
  Z ~ N(0, 1).
* Context-carry coupling (weight w): a misclassified face answers w * typical(p) + (1 - w) * own
  value, typical(p) = the profile's mean answer for faces of p (human centroid - bias). The
  correctly classified faces' mean is solved so the mean over all faces of e is the profile's
  (human centroid of e - bias of e): Table 4a/5a's bias is per *intended* emotion.
* Table 4a/5a's SD_d is a variance budget spent on, in order: the human means' own spread and
  tracking, the label mixture (coupling is lowered where it would not fit), the race/gender
  shifts of Tables 7b/7c (scaled down where they would not fit), the model's own spread sigma_e.
  Stereotypy s moves sigma_e from the normal part onto the two points +- offset_e =
  sqrt(s) * sigma_e: same spread, fewer distinct answers.
* The latent locations are solved so that the expected *discretised* answer is the target; the
  exact expectations (per emotion and per cell) go to the truth tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .classify import accuracy_logits, draw_labels
from .discrete import discretise, discretised_moments, solve_location
from .humans import residual_sds
from .profiles import Profiles
from .responses import label_text, raw_responses, thinking

STEPS = {"context-carry": 3, "json-single": 1, "plain": 1}


@dataclass(frozen=True)
class ConditionResult:
    predictions: pd.DataFrame
    value_truth: pd.DataFrame  # per (dimension, emotion): targets, solved parameters, expected bias
    label_truth: pd.DataFrame  # per (emotion, race, gender): planted P(correct)
    cell_truth: pd.DataFrame  # per (dimension, emotion, race, gender): value shift, expected mean answer


def demographic_patterns(n_races: int, n_genders: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit-variance, zero-sum shift patterns over the race x gender cells for the race, gender
    and race x gender terms. Tables 7b/7c give effect sizes, not directions; we use a linear
    trend over the declared level order (Black +, Korean - on the race term; female + on gender)
    and, for the interaction, the gender sign times the quadratic contrast ([1, -2, 1] for three
    races), orthogonal to both main effects. Terms that cannot be formed (one level) are zero."""

    def standard(v: np.ndarray) -> np.ndarray:
        v = v - v.mean()
        sd = np.sqrt((v**2).mean())
        return v / sd if sd > 0 else np.zeros_like(v)

    race = standard(np.linspace(1, -1, n_races))
    gender = standard(np.linspace(1, -1, n_genders))
    quad = race**2 - (race**2).mean()
    quad = standard(quad - (quad @ race) / max(race @ race, 1e-12) * race) if n_races > 2 else np.zeros(n_races)
    return race, gender, standard(np.outer(quad, gender).ravel()).reshape(n_races, n_genders)


def cell_shifts(etas: dict[str, float], sd_d: float, patterns) -> np.ndarray:
    """Shift of the answer per (race, gender) cell (flattened) that gives each term the eta
    squared of the profile on a bias whose total SD is sd_d (balanced cells: SS_term / SS_total
    = variance of the term's cell means / sd_d^2)."""
    race, gender, inter = patterns
    shift = (
        np.sqrt(etas.get("race", 0.0)) * race[:, None]
        + np.sqrt(etas.get("gender", 0.0)) * gender[None, :]
        + np.sqrt(etas.get("race:gender", 0.0)) * inter
    )
    return sd_d * shift.ravel()


def plant_values(
    confusion: np.ndarray,
    p_correct_cells: np.ndarray,
    shifts: np.ndarray,
    human_mean: np.ndarray,
    bias: np.ndarray,
    sd_d: np.ndarray,
    var_image_mean: float | np.ndarray,
    var_image_effect: float,
    coupling: float,
    stereotypy: float,
    tracking: float,
    lo: float,
    hi: float,
    step: float,
    constant: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Latent locations per (true, predicted) emotion and spread per true emotion that plant the
    profile's per-emotion bias; and the exactly expected mean answer per emotion and per
    (emotion, race x gender cell), given P(correct) per cell and the cells' shifts."""
    n = len(human_mean)
    target = human_mean - bias  # the model's mean answer for faces of each emotion
    diag = np.diag(confusion)
    off_mass = confusion @ target - diag * target  # sum_{p != e} C[e, p] target[p]
    # Spread Table 4a/5a's SD_d leaves for the model once the human means' own spread is counted.
    # It is spent in this order: label coupling, demographic cell shifts, the model's own spread.
    # Rounding the answer to the grid adds about step^2 / 12 (Sheppard), so the budget leaves it out.
    budget = np.maximum(sd_d**2 - var_image_mean + (2 * tracking - tracking**2) * var_image_effect - step**2 / 12, 0.0)

    # A one-value cell (paper 4.4: every happy face 9, every neutral face 5; Table 4b's SD-0 cells)
    # answers its constant on every face of the emotion, whatever the label, with no spread, shift
    # or tracking.
    fixed = np.full(n, np.nan) if constant is None else np.asarray(constant, dtype=float)
    is_fixed = ~np.isnan(fixed)

    def split(w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        own = np.where(is_fixed, fixed, (target - w * off_mass) / (1 - w * (1 - diag)))
        mean_ep = np.where(
            np.eye(n, dtype=bool), own[:, None], w[:, None] * target[None, :] + (1 - w[:, None]) * own[:, None]
        )
        mean_ep = np.where(is_fixed[:, None], fixed[:, None], mean_ep)
        return own, mean_ep, (confusion * (mean_ep - target[:, None]) ** 2).sum(axis=1)

    # Coupling spreads answers by label; where the paper's SD_d leaves no room for that spread the
    # coupling of that emotion is lowered until it fits (the profile's value is an upper bound).
    grid = np.linspace(0.0, 1.0, 101) * coupling
    fits = np.stack([(split(np.full(n, w))[2] <= budget + 1e-12) | is_fixed for w in grid])  # (grid, n)
    w_eff = np.array([grid[np.flatnonzero(fits[:, e])].max() for e in range(n)])
    own, mean_ep, mix_var = split(w_eff)
    # Demographic shifts get what is left; part of Table 7b/7c's effects in the paper may itself
    # come from label errors that differ by race / gender, which the coupling already produces.
    left = np.clip(budget - mix_var, 0.0, None)
    demo_var = shifts.var(axis=1)
    scale = np.where(
        demo_var > left, np.sqrt(np.divide(left, demo_var, out=np.ones_like(left), where=demo_var > 0)), 1.0
    )
    shifts = np.where(is_fixed[:, None], 0.0, shifts * scale[:, None])
    sigma = np.where(is_fixed, 0.0, np.sqrt(np.clip(left - shifts.var(axis=1), 0.0, None)))
    normal_sd = np.where(is_fixed, 0.0, np.sqrt((1 - stereotypy) * sigma**2 + tracking**2 * var_image_effect))
    offset = np.sqrt(stereotypy) * sigma

    n_cells = shifts.shape[1]
    off_rows = confusion - np.diag(diag)
    off_rows = np.divide(
        off_rows,
        off_rows.sum(axis=1, keepdims=True),
        out=np.zeros_like(off_rows),
        where=off_rows.sum(axis=1, keepdims=True) > 0,
    )
    loc = np.empty((n, n))
    cell_mean = np.zeros((n, n_cells))
    cell_m2 = np.zeros((n, n_cells))
    for e in range(n):
        # the answer's extra latent shifts: the cell's demographic shift and the two stereotyped points
        both = shifts[e][:, None] + np.array([-offset[e], offset[e]])[None, :]  # (cells, 2)
        for p in range(n):
            loc[e, p] = solve_location(mean_ep[e, p], normal_sd[e], lo, hi, step, both)
            moments = np.array(
                [discretised_moments(loc[e, p], normal_sd[e], lo, hi, step, both[c]) for c in range(n_cells)]
            )
            weight = np.where(p == e, p_correct_cells[e], (1 - p_correct_cells[e]) * off_rows[e, p])
            cell_mean[e] += weight * moments[:, 0]
            cell_m2[e] += weight * moments[:, 1]
    return {
        "target_mean": target,
        "own_mean": own,
        "coupling": w_eff,
        "shifts": shifts,
        "shift_scale": scale,
        "sigma": sigma,
        "normal_sd": normal_sd,
        "tracking": np.where(is_fixed, 0.0, tracking),
        "offset": offset,
        "location": loc,
        "expected_mean": cell_mean.mean(axis=1),
        "expected_cell_mean": cell_mean,
        # SD of the answer in a cell (labels, spread, tracking; the image effect counted as normal)
        "expected_cell_sd": np.sqrt(np.clip(cell_m2 - cell_mean**2, 0.0, None)),
    }


def label_model(profiles: Profiles, profile_id: str, emotions: list[str], races: list[str], genders: list[str]):
    """Confusion matrix, P(correct) logits per (emotion, race, gender) and their truth table for a
    condition (or the human raters). A factor without accuracy targets in the profile has no effect."""
    conf = profiles.confusion_matrix(profile_id, emotions).to_numpy()
    race_t = profiles.accuracy_targets(profile_id, "race")
    gender_t = profiles.accuracy_targets(profile_id, "gender")
    logits = accuracy_logits(
        np.diag(conf),
        np.array([race_t[r] for r in races]) if race_t and all(r in race_t for r in races) else None,
        np.array([gender_t[g] for g in genders]) if gender_t and all(g in gender_t for g in genders) else None,
        len(races),
        len(genders),
    )
    p_cell = 1 / (1 + np.exp(-logits))
    truth = pd.DataFrame(
        [
            {"condition_id": profile_id, "emotion": e, "race": r, "gender": g, "p_correct": p_cell[i, j, k]}
            for i, e in enumerate(emotions)
            for j, r in enumerate(races)
            for k, g in enumerate(genders)
        ]
    )
    return conf, logits, truth


def simulate_condition(
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
    aliases: dict[str, list[str]],
    difficulty: np.ndarray | None = None,
) -> ConditionResult:
    cid = catalog_row["condition_id"]
    prof = profiles.condition(cid)
    strategy = catalog_row.get("strategy") or "json-single"
    steps = STEPS.get(strategy, 1)
    n = len(stimuli)

    conf, logits, label_truth = label_model(profiles, cid, emotions, races, genders)
    recall = np.diag(conf)
    e_idx = stimuli["emotion"].map({e: i for i, e in enumerate(emotions)}).to_numpy()
    r_idx = stimuli["race"].map({r: i for i, r in enumerate(races)}).to_numpy()
    g_idx = stimuli["gender"].map({g: i for i, g in enumerate(genders)}).to_numpy()
    pred, p_correct = draw_labels(
        rng, e_idx, r_idx, g_idx, logits, conf, difficulty, float(prof.get("difficulty_weight", 0) or 0)
    )

    human = profiles.human
    n_g = len(genders)
    cell = r_idx * n_g + g_idx
    p_cells = (1 / (1 + np.exp(-logits))).reshape(len(emotions), -1)
    patterns = demographic_patterns(len(races), n_g)
    values, truth_rows, cell_rows = {}, [], []
    for d in model_dims:
        v = human["variance"][d]
        var_u = v["image_sd"] ** 2
        var_mean = var_u + (v["rater_sd"] ** 2 + residual_sds(human, d, emotions) ** 2 + 1 / 12) / ratings_per_image
        bt = profiles.bias_table(cid, d, emotions)
        mu = np.array([human["emotions"][e][d] for e in emotions], dtype=float)
        etas = [profiles.value_etas(cid, d, e) for e in emotions]
        shifts = np.stack([cell_shifts(etas[i], float(bt["sd_d"].iloc[i]), patterns) for i in range(len(emotions))])
        planted = plant_values(
            conf,
            p_cells,
            shifts,
            mu,
            bt["bias"].to_numpy(float),
            bt["sd_d"].to_numpy(float),
            var_mean,
            var_u,
            float(prof["coupling"]),
            float(prof["stereotypy"]),
            float(prof["tracking"]),
            lo,
            hi,
            float(prof["value_step"]),
            np.array([profiles.constant_answer(cid, d, e) for e in emotions], dtype=float),
        )
        sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        latent = (
            planted["location"][e_idx, pred]
            + planted["shifts"][e_idx, cell]
            + planted["tracking"][e_idx] * image_effects[d].to_numpy()
            + planted["offset"][e_idx] * sign
            + np.sqrt(1 - float(prof["stereotypy"])) * planted["sigma"][e_idx] * rng.standard_normal(n)
        )
        values[d] = discretise(latent, lo, hi, float(prof["value_step"]))
        for i, e in enumerate(emotions):
            truth_rows.append(
                {
                    "condition_id": cid,
                    "dimension": d,
                    "emotion": e,
                    "human_centroid": mu[i],
                    "bias_profile": bt["bias"].iloc[i],
                    "sd_d_profile": bt["sd_d"].iloc[i],
                    "bias_expected": mu[i] - planted["expected_mean"][i],
                    "model_mean_expected": planted["expected_mean"][i],
                    "own_mean": planted["own_mean"][i],
                    "coupling": planted["coupling"][i],
                    "sigma": planted["sigma"][i],
                    "normal_sd": planted["normal_sd"][i],
                    "two_point_offset": planted["offset"][i],
                    "constant_answer": profiles.constant_answer(cid, d, e),
                    "recall_profile": recall[i],
                    **{
                        f"eta2_{t.replace(':', '_x_')}": etas[i].get(t, 0.0) * planted["shift_scale"][i] ** 2
                        for t in ("race", "gender", "race:gender")
                    },
                    **{
                        f"eta2_{t.replace(':', '_x_')}_profile": etas[i].get(t, 0.0)
                        for t in ("race", "gender", "race:gender")
                    },
                }
            )
            for c in range(len(races) * n_g):
                cell_rows.append(
                    {
                        "condition_id": cid,
                        "dimension": d,
                        "emotion": e,
                        "race": races[c // n_g],
                        "gender": genders[c % n_g],
                        "shift": planted["shifts"][i, c],
                        "model_mean_expected": planted["expected_cell_mean"][i, c],
                        "model_sd_expected": planted["expected_cell_sd"][i, c],
                        "p_correct": p_cells[i, c],
                    }
                )

    # Parse paths, then what the parser would have recovered.
    roll = rng.random(n)
    f_rate, r_rate, x_rate = (float(prof.get(k, 0) or 0) for k in ("fenced_rate", "regex_rate", "failed_rate"))
    path = np.select(
        [roll < x_rate, roll < x_rate + r_rate, roll < x_rate + r_rate + f_rate], ["failed", "regex", "fenced"], "json"
    )
    failed = path == "failed"
    labels = np.array(emotions, dtype=object)[pred]
    val = values.get("valence", np.full(n, np.nan))
    aro = values.get("arousal", np.full(n, np.nan))
    raws = raw_responses(strategy, label_text(rng, labels, aliases), val, aro, path)

    thinking_tokens, thinking_text = thinking(
        rng, catalog_row, prof, profiles, cid, labels, stimuli["emotion"].to_numpy(), pred == e_idx, steps
    )
    lat = steps * float(prof["latency_ms_per_step"]) * np.exp(rng.normal(0, float(prof["latency_log_sd"]), n))
    if thinking_tokens is not None:
        lat = lat * (0.3 + 0.7 * thinking_tokens / max(np.mean(thinking_tokens), 1))
    in_tok = steps * int(prof["input_tokens_per_step"]) + (steps - 1) * steps * 12 + rng.integers(0, 6, n)
    out_tok = steps * int(prof["output_tokens_per_step"]) + rng.integers(0, 4, n)
    if thinking_tokens is not None and catalog_row.get("backend") == "mlx":
        out_tok = out_tok + thinking_tokens  # local thinking models emit the trace as output tokens

    preds = pd.DataFrame(
        {
            "condition_id": cid,
            "image_id": stimuli["image_id"].to_numpy(),
            "run_id": "run-1",
            "strategy": strategy,
            "emotion": np.where(failed, None, labels),
            **{d: np.where(failed, np.nan, values[d]) for d in model_dims},
            "raw_responses": raws,
            "parse_path": path,
            "thinking_text": thinking_text,
            "thinking_tokens": thinking_tokens,
            "latency_ms": np.round(lat, 1),
            "input_tokens": in_tok.astype("int64"),
            "output_tokens": np.asarray(out_tok).astype("int64"),
        }
    )
    return ConditionResult(preds, pd.DataFrame(truth_rows), label_truth, pd.DataFrame(cell_rows))
