"""models/marts/worth: what a model is worth in human raters (k*, stats.worth) and how many human
ratings it saves (PPI++ intervals and the budget curve, stats.prediction_powered). A study with or
without a category and with any number of audit factors: every scope is ('all', 'all') or a
filled slot under the study's own factor name and one of its levels."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats import ppi_budget, worth
from ..stats import prediction_powered as pp
from ..study import AUDIT_SLOTS, CATEGORY_SLOT
from ._shared import ALL, as_frame, config_list, finish, model_dimensions, slot_names

RATING, LABEL = "rating", "label"
SLOTS = (CATEGORY_SLOT, *AUDIT_SLOTS)


def _inputs(model_vs_human, image_stats, label_counts) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The three inputs of `measures` as frames, with only the columns it reads: the model's
    answers (not the per-condition comparisons, run ids and texts of int_model_vs_human)."""
    return (
        as_frame(
            model_vs_human,
            lambda c: c in ("condition_id", "image_id", "predicted_category") or c.startswith(("model_", "d_")),
            arrow=True,  # strings and doubles only
        ),
        as_frame(image_stats, ("image_id", "dimension", *SLOTS, "n_ratings", "human_mean", "human_ss")),
        as_frame(label_counts),
    )


def _scope_slots(names: dict[str, str], slots: pd.DataFrame) -> list[str]:
    return [s for s in SLOTS if s in names and s in slots]


def _stimuli(image_stats: pd.DataFrame, label_counts: pd.DataFrame) -> pd.DataFrame:
    """One row per stimulus with human answers: its slot levels (the category as `category`)."""
    # the slot columns the intermediate tables carry (a study may fill fewer; docs/study_shape.md)
    a = image_stats[["image_id", *(c for c in SLOTS if c in image_stats)]]
    b = label_counts.rename(columns={"true_category": CATEGORY_SLOT})
    b = b[["image_id", *(c for c in SLOTS if c in b)]]
    return pd.concat([a, b]).drop_duplicates("image_id").set_index("image_id")


class _Answers:
    """Each condition's answers per stimulus, from the model's rows coded once (the stimuli and
    conditions factorized a single time, not once per measure's reshape)."""

    def __init__(self, rows: pd.DataFrame):
        self.images, images = pd.factorize(rows["image_id"])
        self.condition, conditions = pd.factorize(rows["condition_id"], sort=True)
        self.conditions = list(conditions)
        self.index = pd.Index(images)
        cell = self.images.astype(np.int64) * len(conditions) + self.condition
        if len(cell) and np.bincount(cell).max() > 1:
            raise ValueError("int_model_vs_human has more than one row per (condition_id, image_id)")

    def __call__(self, values: np.ndarray, index: pd.Index, empty) -> pd.DataFrame:
        """Stimuli (index) x conditions (sorted): each condition's value (one per row of the
        model's rows), `empty` where the condition did not answer the stimulus."""
        wide = np.full((len(self.index) + 1, len(self.conditions)), empty, dtype=values.dtype)
        wide[self.images, self.condition] = values
        # a stimulus the model never answered: the last row, all empty
        at = self.index.get_indexer(index)
        return pd.DataFrame(wide[np.where(at < 0, len(self.index), at)], index=index, columns=self.conditions)


def measures(rows, image_stats, label_counts, names) -> list[dict]:
    """Per (condition, measure): the stimuli frame (index image_id) with the human answer `y`
    (mean rating, or label shares as a matrix), the model's answer `yhat` (NaN where missing), and
    k*'s terms s2, n, distance. Ratings per model dimension; labels under the category's name."""
    stimuli = _stimuli(image_stats, label_counts)
    answers_of = _Answers(rows)
    out = []
    for dim in model_dimensions(rows):
        # stimuli in image_id order: the seeded subsets draw positions, and a warehouse returns rows
        # in no fixed order
        st = image_stats[image_stats["dimension"] == dim].set_index("image_id").sort_index()
        slots = stimuli.reindex(st.index)
        y = st["human_mean"].to_numpy(float)
        answers = answers_of(rows[f"model_{dim}"].to_numpy(float), st.index, np.nan)
        for cond in answers.columns:
            m = answers[cond].to_numpy(float)
            if np.isnan(m).all():
                continue
            with np.errstate(divide="ignore", invalid="ignore"):  # s2 of a one-rating panel: unused
                s2, n, dist = worth.stimulus_terms_ratings(st["n_ratings"], st["human_mean"], st["human_ss"], m)
            out.append(_measure(cond, dim, RATING, slots, y, m, s2, n, dist))
    # the model's labels as integer codes (-1 missing): no per-row Python objects
    predicted, kinds = pd.factorize(rows["predicted_category"])
    if len(label_counts) and (predicted >= 0).any():
        counts = label_counts.pivot_table(
            index="image_id", columns="chosen_category", values="n_labels", aggfunc="sum", fill_value=0
        )
        labels = sorted(set(counts.columns) | set(kinds))
        position = {label: i for i, label in enumerate(labels)}
        coded = np.append([position[k] for k in kinds], -1)[predicted]  # code -1 indexes the -1
        counts = counts.reindex(columns=labels, fill_value=0)
        shares = counts.to_numpy(float) / counts.to_numpy(float).sum(axis=1, keepdims=True)
        name = names.get(CATEGORY_SLOT, LABEL)
        slots = stimuli.reindex(counts.index)
        answers = answers_of(coded, counts.index, -1)
        for cond in answers.columns:
            pred = answers[cond].to_numpy()
            missing = pred < 0
            if missing.all():
                continue
            onehot = (pred[:, None] == np.arange(len(labels))[None, :]).astype(float)
            onehot[missing] = np.nan
            with np.errstate(divide="ignore", invalid="ignore"):
                s2, n, dist = worth.stimulus_terms_labels(counts.to_numpy(float), onehot)
            out.append(_measure(cond, name, LABEL, slots, shares, onehot, s2, n, dist, labels))
    return out


def _measure(cond, measure, kind, slots, y, yhat, s2, n, dist, labels=None) -> dict:
    return {
        "condition_id": cond,
        "measure": measure,
        "measure_kind": kind,
        "slots": slots,
        "y": y,
        "yhat": yhat,
        "s2": np.asarray(s2, float),
        "n": np.asarray(n, float),
        "distance": np.asarray(dist, float),
        "labels": labels,
    }


def _answered(m: dict) -> tuple[np.ndarray, np.ndarray]:
    """(the condition answered the stimulus, and a human answer exists too) per stimulus."""
    first = lambda v: v if v.ndim == 1 else v[:, 0]  # noqa: E731  (a label vector is NaN as a whole)
    answered = ~np.isnan(first(m["yhat"]))
    return answered, answered & ~np.isnan(first(m["y"]))


def _scopes(m: dict, names: dict[str, str]):
    """('all', 'all', mask) and (factor name, level, mask) per filled slot level."""
    yield ALL, ALL, np.ones(len(m["n"]), dtype=bool)
    for slot in _scope_slots(names, m["slots"]):
        values = m["slots"][slot]
        plain = values.to_numpy(object)  # compared as plain objects, not per level on Arrow strings
        for level in sorted(values.dropna().unique()):
            yield names[slot], str(level), plain == level


# --- worth_k_star ----------------------------------------------------------------------------------


def _k_star_fields(r: worth.KStar) -> dict:
    """The columns every k* mart shares, from one stats.worth result."""
    return {
        "k_star": r.k_star,
        "lo": r.lo,
        "hi": r.hi,
        "beyond_panel": bool(np.isinf(r.k_star)),
        "panel_variance": r.panel_variance,
        "excess_distance": r.excess_distance,
        "replicates": r.replicates,
        "seed": r.seed,
        "confidence": r.level,
    }


def k_star_table(rows, image_stats, label_counts, names, replicates: int, seed: int) -> pd.DataFrame:
    keys, panels = [], []
    for m in measures(rows, image_stats, label_counts, names):
        paneled = m["n"] >= 2
        answered = ~np.isnan(m["distance"])
        for factor, level, mask in _scopes(m, names):
            use = mask & paneled & answered
            keys.append((m, factor, level, int((mask & paneled & ~answered).sum())))
            panels.append((m["s2"][use], m["n"][use], m["distance"][use]))
    out = []
    for (m, factor, level, n_missing), r in zip(keys, worth.k_stars(panels, replicates, seed), strict=True):
        out.append(
            {
                "condition_id": m["condition_id"],
                "measure": m["measure"],
                "measure_kind": m["measure_kind"],
                "factor": factor,
                "level": level,
                **_k_star_fields(r),
                "n_stimuli": r.n_stimuli,
                "n_missing": n_missing,
            }
        )
    return pd.DataFrame(out)


def worth_k_star(model_vs_human, image_stats, label_counts, study_factors, provenance, *, replicates=None, seed=None):
    names = slot_names(as_frame(study_factors))
    out = k_star_table(
        *_inputs(model_vs_human, image_stats, label_counts),
        names,
        int(replicates or 1000),
        int(seed or 42),
    )
    return finish(out, "worth_k_star", provenance)


# --- worth_ppi -------------------------------------------------------------------------------------


def _interval_row(m, statistic, factor, level, share_of, fraction, ppi, classical, n_stimuli, n_missing, i=0):
    width = classical.hi[i] - classical.lo[i]
    return {
        "condition_id": m["condition_id"],
        "measure": m["measure"],
        "measure_kind": m["measure_kind"],
        "statistic": statistic,
        "factor": factor,
        "level": level,
        "share_of": share_of,
        "fraction": fraction,
        "estimate": ppi.estimate[i],
        "lo": ppi.lo[i],
        "hi": ppi.hi[i],
        "human_estimate": classical.estimate[i],
        "human_lo": classical.lo[i],
        "human_hi": classical.hi[i],
        "width_ratio": (ppi.hi[i] - ppi.lo[i]) / width if width > 0 else np.nan,
        "n_human_rated": ppi.n_labelled,
        "n_stimuli": n_stimuli,
        "n_missing": n_missing,
    }


def _ppi_or_classical(y, yhat, labelled, level):
    if labelled.sum() < 2:
        return None
    if labelled.all():
        return pp.classical_mean(y, level)
    return pp.ppi_mean(y[labelled], yhat[labelled], yhat[~labelled], level)


def _estimands(m: dict, names: dict[str, str], keep: np.ndarray, level: float) -> list[tuple]:
    """(statistic, factor, level, stimuli, other stimuli of a gap or None, classical interval)."""
    if m["measure_kind"] == LABEL:
        return [("share", ALL, ALL, keep, None, pp.classical_mean(m["y"][keep], level))]
    out = []
    for factor, lev, mask in _scopes(m, names):
        mask = mask & keep
        if mask.sum() < 2:
            continue
        if factor == ALL or factor == names.get(CATEGORY_SLOT):
            out.append(("mean", factor, lev, mask, None, pp.classical_mean(m["y"][mask], level)))
        elif (keep & ~mask).sum() >= 2:
            rest = keep & ~mask
            classical = pp.difference(
                pp.classical_mean(m["y"][mask], level), pp.classical_mean(m["y"][rest], level), level
            )
            out.append(("gap", factor, lev, mask, rest, classical))
    return out


def ppi_table(rows, image_stats, label_counts, names, fractions, seed: int, level: float) -> pd.DataFrame:
    out = []
    for m in measures(rows, image_stats, label_counts, names):
        y, yhat = m["y"], m["yhat"]
        answered, keep = _answered(m)
        n_missing = int((~answered).sum())
        estimands = _estimands(m, names, keep, level)
        for fraction in fractions:
            labelled = np.zeros(len(keep), dtype=bool)
            labelled[np.flatnonzero(keep)] = pp.human_subset(int(keep.sum()), fraction, np.random.default_rng(seed))
            for statistic, factor, lev, mask, rest, classical in estimands:
                ppi = _ppi_or_classical(y[mask], yhat[mask], labelled[mask], level)
                if rest is not None:
                    other = _ppi_or_classical(y[rest], yhat[rest], labelled[rest], level)
                    ppi = None if ppi is None or other is None else pp.difference(ppi, other, level)
                if ppi is None:
                    continue
                n = int(mask.sum() + (0 if rest is None else rest.sum()))
                shares_of = m["labels"] if statistic == "share" else [ALL]
                for i, share_of in enumerate(shares_of):
                    out.append(
                        _interval_row(m, statistic, factor, lev, share_of, fraction, ppi, classical, n, n_missing, i)
                    )
    return pd.DataFrame(out)


def worth_ppi(
    model_vs_human, image_stats, label_counts, study_factors, provenance, *, fractions=None, seed=None, level=None
):
    names = slot_names(as_frame(study_factors))
    out = ppi_table(
        *_inputs(model_vs_human, image_stats, label_counts),
        names,
        config_list(fractions, "0.1,0.5"),
        int(seed or 42),
        float(level or pp.LEVEL),
    ).assign(seed=int(seed or 42), confidence=float(level or pp.LEVEL))
    return finish(out, "worth_ppi", provenance)


# --- worth_budget ----------------------------------------------------------------------------------


def budget_table(rows, image_stats, label_counts, names, repeats: int, seed: int, level: float) -> pd.DataFrame:
    out = []
    for m in measures(rows, image_stats, label_counts, names):
        y, yhat = m["y"], m["yhat"]
        keep = _answered(m)[1]
        groups = None
        if m["measure_kind"] == RATING and CATEGORY_SLOT in names and CATEGORY_SLOT in m["slots"]:
            # integer codes in the levels' sorted order (the estimands' order), not strings to sort
            groups = pd.factorize(m["slots"][CATEGORY_SLOT].fillna(""), sort=True)[0][keep]
        curve = ppi_budget.budget_curve(y[keep], yhat[keep], groups, ppi_budget.FRACTIONS, repeats, seed, level)
        enough = ppi_budget.budget_fraction(curve.fractions, curve.width_ratio)
        for f, r in zip(curve.fractions, curve.width_ratio, strict=True):
            out.append(
                {
                    "condition_id": m["condition_id"],
                    "measure": m["measure"],
                    "measure_kind": m["measure_kind"],
                    "fraction": f,
                    "width_ratio": r,
                    "budget_fraction": enough,
                    "n_stimuli": int(keep.sum()),
                    "n_missing": int((~keep).sum()),
                    "repeats": repeats,
                    "seed": seed,
                    "confidence": level,
                }
            )
    return pd.DataFrame(out)


def worth_budget(
    model_vs_human, image_stats, label_counts, study_factors, provenance, *, repeats=None, seed=None, level=None
):
    names = slot_names(as_frame(study_factors))
    out = budget_table(
        *_inputs(model_vs_human, image_stats, label_counts),
        names,
        int(repeats or ppi_budget.REPEATS),
        int(seed or 42),
        float(level or pp.LEVEL),
    )
    return finish(out, "worth_budget", provenance)


# --- worth_judge_k_star ----------------------------------------------------------------------------

JUDGE_OUTCOMES = ("first", "second", "tie")  # the pair's candidates in sorted order, or a tie


def _judge_outcomes(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Each consolidated verdict as an outcome of the pair regardless of presentation order:
    the sorted pair's first or second candidate wins, or a tie; NULL when incomplete."""
    v = verdicts.assign(
        first=np.minimum(verdicts["candidate_a"].astype(str), verdicts["candidate_b"].astype(str)),
        second=np.maximum(verdicts["candidate_a"].astype(str), verdicts["candidate_b"].astype(str)),
    )
    w = v["winner_candidate"]
    v["outcome"] = np.select([w == "tie", w == v["first"], w == v["second"]], list(JUDGE_OUTCOMES), default=None)
    v.loc[w.isna(), "outcome"] = None
    return v


def judge_k_star_table(pair_verdicts: pd.DataFrame, replicates: int, seed: int) -> pd.DataFrame:
    """k* of each LLM judge per axis: the human judges' verdicts on a pair are the panel (win /
    loss / tie one-hot), the LLM's consolidated verdict the model's answer; over all pairs and per
    variant. Pairs need two human verdicts; pairs the LLM left incomplete are counted (n_missing)."""
    if pair_verdicts.empty:
        return pd.DataFrame()
    v = _judge_outcomes(pair_verdicts)
    key = ["sample_id", "variant", "first", "second", "axis"]
    human = v[(v["judge_kind"] == "human") & v["outcome"].notna()]
    counts = pd.crosstab([human[k] for k in key], human["outcome"]).reindex(columns=list(JUDGE_OUTCOMES), fill_value=0)
    counts = counts[counts.sum(axis=1) >= 2].sort_index()
    keys, panels = [], []
    for judge, mine in v[v["judge_kind"] != "human"].groupby("judge_id", sort=True):
        answer = mine.drop_duplicates(key).set_index(key)["outcome"].reindex(counts.index)
        onehot = (answer.to_numpy(object)[:, None] == np.asarray(JUDGE_OUTCOMES, dtype=object)[None, :]).astype(float)
        answered = answer.notna().to_numpy()
        with np.errstate(divide="ignore", invalid="ignore"):
            s2, n, dist = worth.stimulus_terms_labels(counts.to_numpy(float), onehot)
        axes = counts.index.get_level_values("axis")
        variants = counts.index.get_level_values("variant")
        for axis in sorted(set(axes)):
            on_axis = axes == axis
            for variant in [ALL, *sorted(set(variants[on_axis]))]:
                mask = on_axis & ((variants == variant) if variant != ALL else True)
                use = mask & answered
                keys.append((judge, axis, variant, int((mask & ~answered).sum())))
                panels.append((s2[use], n[use], dist[use]))
    out = []
    for (judge, axis, variant, n_missing), r in zip(keys, worth.k_stars(panels, replicates, seed), strict=True):
        out.append(
            {
                "judge_id": judge,
                "axis": axis,
                "variant": variant,
                **_k_star_fields(r),
                "n_pairs": r.n_stimuli,
                "n_missing": n_missing,
            }
        )
    return pd.DataFrame(out)


def worth_judge_k_star(pair_verdicts, provenance, *, replicates=None, seed=None):
    out = judge_k_star_table(as_frame(pair_verdicts), int(replicates or 1000), int(seed or 42))
    return finish(out, "worth_judge_k_star", provenance)
