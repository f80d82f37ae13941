"""Helpers the tests need that no mart uses: reshaping a published reliability matrix, delta alpha
from a stats frame, a human's leave-one-out z in one call, the exact folded-normal mean the
S4 approximation is checked against, and random small studies with their brute-force leave-one-out
and alpha in exact arithmetic. The formulas themselves stay in rater1001.stats."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations

import numpy as np
import pandas as pd
from hypothesis import strategies as st
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


@st.composite
def studies(draw):
    """Long (image_id, rater, rating) frame; each image has 2-6 ratings on a 1-k scale, some
    constant, and raters are missing from some images (rater ids are not contiguous)."""
    k = draw(st.integers(2, 9))
    rows = []
    for image in range(draw(st.integers(1, 8))):
        n = draw(st.integers(2, 6))
        raters = draw(st.lists(st.integers(0, 7), min_size=n, max_size=n, unique=True))
        if draw(st.booleans()):
            values = [draw(st.integers(1, k))] * n  # a constant item
        else:
            values = draw(st.lists(st.integers(1, k), min_size=n, max_size=n))
        rows += [(image, r, v) for r, v in zip(raters, values)]
    return pd.DataFrame(rows, columns=["image_id", "rater", "rating"]).sort_values(
        ["image_id", "rater"], ignore_index=True
    )


def with_sums(df: pd.DataFrame) -> pd.DataFrame:
    """Each rating with its image's count n, sum and sum of squares (int_image_human_stats)."""
    g = df.groupby("image_id").rating
    return df.assign(
        n=g.transform("count"), total=g.transform("sum"), total_sq=(df.rating**2).groupby(df.image_id).transform("sum")
    )


def ragged_images(seed=0, n_images=40) -> pd.DataFrame:
    """Long (image_id, rater, rating) frame of 2-8 ratings per image; every 7th image has SD 0."""
    rng = np.random.default_rng(seed)
    rows = []
    for j in range(n_images):
        n = int(rng.integers(2, 9))
        vals = rng.integers(1, 10, n) if j % 7 else np.full(n, 5)  # every 7th image has SD 0
        rows += [{"image_id": j, "rater": h, "rating": int(v)} for h, v in enumerate(vals)]
    return pd.DataFrame(rows)


def brute_force_loo_z(df: pd.DataFrame) -> np.ndarray:
    """z of each rating against the other ratings of its image, by deleting it (NaN where SD is 0)."""
    out = []
    for _, g in df.groupby("image_id"):
        y = g.rating.to_numpy(float)
        for h in range(len(y)):
            rest = np.delete(y, h)
            sd = rest.std(ddof=1) if len(rest) >= 2 else np.nan
            out.append((y[h] - rest.mean()) / sd if sd > 0 else np.nan)
    return np.array(out)


def brute_loo(df: pd.DataFrame) -> pd.DataFrame:
    """Each rating against the other ratings of its image, mean and variance as exact fractions."""
    out = []
    for _, g in df.groupby("image_id", sort=True):
        ys = [int(v) for v in g.rating]
        for h, y in enumerate(ys):
            rest = ys[:h] + ys[h + 1 :]
            mean = Fraction(sum(rest), len(rest))
            var = sum((Fraction(v) - mean) ** 2 for v in rest) / (len(rest) - 1) if len(rest) >= 2 else None
            sd = math.sqrt(var) if var is not None else math.nan
            z = float((y - mean) / Fraction(sd)) if var else math.nan
            out.append((float(mean), sd, z))
    return pd.DataFrame(out, columns=["loo_mean", "loo_sd", "loo_z"])


def brute_alpha(df: pd.DataFrame) -> float:
    """Krippendorff's interval alpha from its definition: pairs within units over all pairs."""
    units = [[int(v) for v in g.rating] for _, g in df.groupby("image_id") if len(g) >= 2]
    values = [v for u in units for v in u]
    n = len(values)
    d_o = sum(Fraction(sum((a - b) ** 2 for a, b in combinations(u, 2)) * 2, len(u) - 1) for u in units) / n
    d_e = Fraction(sum((a - b) ** 2 for a, b in combinations(values, 2)) * 2, n * (n - 1))
    return math.nan if d_e == 0 else float(1 - d_o / d_e)


def assert_same(got, ref, what):
    """Equal to 1e-12 (relative or absolute), and NaN / NULL in the same places."""
    got, ref = np.asarray(got, dtype=float), np.asarray(ref, dtype=float)
    assert np.array_equal(np.isnan(got), np.isnan(ref)), what
    np.testing.assert_allclose(got[~np.isnan(ref)], ref[~np.isnan(ref)], rtol=1e-12, atol=1e-12, err_msg=what)


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
    p, m = zip(*(pairwise_terms(panel, model) for panel, model in zip(panels, models, strict=True)), strict=True)
    return k_star_of_terms(p, m)


def pairwise_terms(panel, model) -> tuple[float, float]:
    """One stimulus's (P_i, M_i) of pairwise_k_star, by enumerating every ordered pair of raters."""
    x = np.asarray(panel, dtype=float).reshape(len(panel), -1)
    n = len(x)
    diff = x[:, None, :] - x[None, :, :]
    p = (diff**2).sum() / (n * (n - 1))
    return p, ((np.asarray(model, dtype=float).reshape(1, -1) - x) ** 2).sum(axis=1).mean()


def k_star_of_terms(p, m) -> float:
    """pairwise_k_star from the stimuli's (P_i, M_i): mean(P/2) / (mean(M) - mean(P/2))."""
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
