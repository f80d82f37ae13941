"""Helpers the tests need that no mart uses: reshaping a published reliability matrix, delta alpha
from a stats frame, a human's leave-one-out z in one call, and the exact folded-normal mean the
S4 approximation is checked against. The formulas themselves stay in rater1001.stats."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from rater1001.stats.alpha import DeltaAlpha, delta_alpha
from rater1001.stats.zscores import loo_mean, loo_sd, zscore
from scipy.optimize import minimize


def reliability_matrix_to_long(data) -> pd.DataFrame:
    """Rater x unit matrix (NaN = missing) -> long frame (rater, image_id, rating)."""
    arr = np.asarray(data, dtype=float)
    raters, units = np.nonzero(~np.isnan(arr))
    return pd.DataFrame({"rater": raters, "image_id": units, "rating": arr[raters, units]})


def delta_alpha_interval(stats: pd.DataFrame, extra: pd.Series) -> DeltaAlpha:
    """delta_alpha for a stats frame (index = unit) and the extra rater's values by unit; units the
    new rater rated but nobody else did are added."""
    extra = extra.dropna().astype(float)
    out = stats.reindex(stats.index.union(extra.index), fill_value=0.0).astype(float)
    return delta_alpha(out["m"], out["total"], out["total_sq"], extra.reindex(out.index))


def loo_z(n, total, total_sq, y) -> np.ndarray:
    """z of each human rating against the other ratings of its image (closed form)."""
    return zscore(y, loo_mean(n, total, y), loo_sd(n, total, total_sq, y))


def folded_normal_mae(bias: float, sd: float) -> float:
    """Exact E|D| for D ~ N(bias, sd^2), the mean of the folded normal."""
    if sd == 0:
        return abs(bias)
    return sd * math.sqrt(2 / math.pi) * math.exp(-(bias**2) / (2 * sd**2)) + bias * math.erf(
        bias / (sd * math.sqrt(2))
    )


def factor_levels(model_vs_human: pd.DataFrame, factors: dict[str, str]) -> pd.DataFrame:
    """Rows shaped like int_model_vs_human and {column: declared audit factor name} ->
    stg_stimulus_factor_levels (one row per stimulus and audit factor it has a level of)."""
    stimuli = model_vs_human.drop_duplicates("image_id")
    rows = [
        pd.DataFrame({"image_id": has["image_id"], "factor": name, "role": "audit", "position": i, "level": has[col]})
        for i, (col, name) in enumerate(factors.items(), start=1)
        for has in [stimuli[stimuli[col].notna()]]
    ]
    columns = ["image_id", "factor", "role", "position", "level"]
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=columns)


def audit_aggregates(model_vs_human: pd.DataFrame, factors: dict[str, str]) -> dict[str, pd.DataFrame]:
    """Rows shaped like int_model_vs_human and {column: declared audit factor name} ->
    int_audit_correct_counts, int_audit_bias_cells and int_audit_pair_cells as the SQL models make
    them (a stimulus without a level of a factor has no row for it; without a category every
    stimulus in the stratum 'all'), keyed by their names."""
    m = model_vs_human.rename(columns={"true_category": "category"})
    m = m.assign(category=m["category"].fillna("all"))  # no category: the one stratum (stg_stimuli)
    correct = (m["predicted_category"] == m["category"]).astype("boolean").fillna(False).astype(bool)
    m = m.assign(correct=correct.to_numpy())
    dims = [c[2:] for c in m.columns if c.startswith("d_")]
    long = (
        pd.concat([m.assign(dimension=dim, d=m[f"d_{dim}"].astype(float)) for dim in dims], ignore_index=True)
        if dims
        else m.assign(dimension="", d=0.0).iloc[0:0]
    )

    def cells(rows, keys):
        g = rows.groupby(keys)["d"]
        out = g.agg(n_rows="size", n_bias="count", bias_mean="mean")
        out["bias_ss"] = g.var(ddof=0) * out["n_bias"]
        return out.reset_index()

    counts, bias, pairs = [], [], []
    for col, name in factors.items():
        has = m[m[col].notna()].assign(factor=name, level=lambda f, col=col: f[col])
        counts.append(has.groupby(["condition_id", "factor", "level", "category", "correct"]).size().rename("n_images"))
        bias.append(
            cells(
                long[long[col].notna()].assign(factor=name, level=lambda f, col=col: f[col]),
                ["condition_id", "dimension", "category", "factor", "level"],
            )
        )
    names = list(factors.items())
    for i, (a, a_name) in enumerate(names):
        for b, b_name in names[i + 1 :]:
            both = long[long[a].notna() & long[b].notna()]
            both = both.assign(
                term=f"{a_name}:{b_name}",
                cell=both[a].astype(str) + ":" + both[b].astype(str),
                first_level=both[a],
                second_level=both[b],
            )
            pairs.append(
                cells(both, ["condition_id", "dimension", "category", "term", "cell", "first_level", "second_level"])
            )
    empty = pd.DataFrame(columns=["condition_id", "dimension", "category", "n_rows", "n_bias", "bias_mean", "bias_ss"])
    return {
        "int_audit_correct_counts": pd.concat(counts).reset_index().rename(columns={"category": "true_category"}),
        "int_audit_bias_cells": pd.concat(bias, ignore_index=True) if bias else empty,
        "int_audit_pair_cells": pd.concat(pairs, ignore_index=True) if pairs else empty,
    }


def pairwise_k_star(panels, models) -> float:
    """k* (stats.worth) by brute force from individual answers: P_i, the mean squared distance over
    every ordered pair of two different raters of stimulus i, and M_i, the model's mean squared
    distance to each rater, give k* = mean(P/2) / (mean(M) - mean(P/2)) (the identities at h = 1;
    docs/stats.md). A panel is raters x coordinates (one-hot rows for labels); inf beyond the panel."""
    p, m = [], []
    for panel, model in zip(panels, models, strict=True):
        x = np.asarray(panel, dtype=float).reshape(len(panel), -1)
        n = len(x)
        diff = x[:, None, :] - x[None, :, :]
        p.append((diff**2).sum() / (n * (n - 1)))
        m.append(((np.asarray(model, dtype=float).reshape(1, -1) - x) ** 2).sum(axis=1).mean())
    denominator = np.mean(m) - np.mean(p) / 2
    return float("inf") if denominator <= 0 else float(np.mean(p) / 2 / denominator)


def davidson_mle(comps: pd.DataFrame, reference: str) -> dict:
    """An independent Davidson (1970) fit: the log-likelihood written out and maximised by
    Nelder-Mead (no gradient), for comparison with the mart's BFGS fit."""
    items = sorted(set(comps["item_i"]) | set(comps["item_j"]))
    free = [x for x in items if x != reference]
    i = comps["item_i"].map({x: n for n, x in enumerate(items)}).to_numpy()
    j = comps["item_j"].map({x: n for n, x in enumerate(items)}).to_numpy()
    out = comps["outcome"].to_numpy()

    def nll(theta):
        beta = np.zeros(len(items))
        beta[[items.index(x) for x in free]] = theta[:-1]
        log_nu = theta[-1]
        bi, bj = beta[i], beta[j]
        tie = log_nu + (bi + bj) / 2
        denom = np.logaddexp(np.logaddexp(bi, bj), tie)
        num = np.where(out == "i", bi, np.where(out == "j", bj, tie))
        return -(num - denom).sum()

    res = minimize(
        nll,
        np.zeros(len(free) + 1),
        method="Nelder-Mead",
        options={"xatol": 1e-8, "fatol": 1e-10, "maxiter": 40000, "maxfev": 40000},
    )
    return dict(zip(free, res.x[:-1])) | {"nu": float(np.exp(res.x[-1]))}


# The demo study's factors land under its own names (emotion, race, gender); the warehouse reads
# them into the role slots (docs/study_shape.md, "Factor names"). Tests that recompute a mart from
# the landed files read them under the slot names, so both sides name a column alike.
DEMO_SLOTS = {
    "emotion": "category",
    "race": "audit_1",
    "gender": "audit_2",
    "true_emotion": "true_category",
    "predicted_emotion": "predicted_category",
}
SLOTTED_TABLES = ("stimuli", "human_ratings", "model_predictions")


def slotted(frame: pd.DataFrame) -> pd.DataFrame:
    """A landed (simulation-truth, behaviour-profile) frame of the demo study with its factor
    columns under the slot names. Not for raters: `gender` is the demo's rater attribute there, not a slot."""
    return frame.rename(columns=DEMO_SLOTS)


def read_landed(paths, table: str) -> pd.DataFrame:
    """data/raw/<table>.parquet; the demo's factor columns under the slot names (`slotted`)."""
    frame = pd.read_parquet(paths.raw_table(table))
    return slotted(frame) if table in SLOTTED_TABLES else frame


# How the demo's marts spell a slot in a value (slice_type, factor, term): by the demo's names.
DEMO_NAMES = {"audit_1": "race", "audit_2": "gender", "category": "emotion"}


def demo_spelled(frame: pd.DataFrame, columns) -> pd.DataFrame:
    """A stats function's slot-spelled values ('audit_1', 'audit_1_audit_2', 'audit_2:category')
    in the demo's names, as its marts spell them ('race', 'race_gender', 'gender:emotion')."""
    import re

    spell = lambda v: re.sub(r"audit_1|audit_2|category", lambda m: DEMO_NAMES[m.group(0)], v)  # noqa: E731
    return frame.assign(**{c: frame[c].map(lambda v: spell(v) if isinstance(v, str) else v) for c in columns})
