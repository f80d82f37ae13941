"""Glue for the dbt Python marts (models/marts/{classification,agreement,diversity,
zscores,replaceability}): group per-image / per-cell frames and call rater1001.stats. No
statistic is computed here; every number comes from a rater1001.stats function. Each function
takes plain pandas frames (what dbt.ref(...).df() returns) and returns a frame with fixed columns
and dtypes, so an empty input builds an empty table instead of failing.
"""
from __future__ import annotations

import json
from dataclasses import asdict

import numpy as np
import pandas as pd

from .stats import bootstrap, classification, diversity, lmm, verdicts

ALL = "all"  # the emotion scope that pools every emotion


def emotion_labels(factor_labels: pd.DataFrame, study_factors: pd.DataFrame | None = None) -> list[str]:
    """The labels of the study's category factor (the `emotion` slot; stg_study_factors says which
    factor fills it, docs/study_shape.md) in display order, from the factor_labels seed; empty
    without a category."""
    category = "emotion"
    if study_factors is not None:
        filled = study_factors.loc[study_factors["slot"] == "emotion", "factor"]
        category = filled.iloc[0] if len(filled) else None
    e = factor_labels[factor_labels["factor"] == category].sort_values("display_order")
    return e["label"].astype(str).tolist()


def in_pool(frame: pd.DataFrame, pools: pd.DataFrame, pool: str) -> pd.DataFrame:
    """The rows of the conditions in `pool` (int_condition_pools; seeds/condition_pools.csv)."""
    return frame[frame["condition_id"].isin(pools.loc[pools["pool"] == pool, "condition_id"])]


def data_origin(provenance: pd.DataFrame) -> str:
    return str(provenance["data_origin"].iloc[0]) if len(provenance) else "observed"


def typed(rows: list[dict], columns: dict[str, str], origin: str) -> pd.DataFrame:
    """Rows -> frame with exactly `columns` (name -> pandas dtype) plus data_origin; typed even when
    empty so DuckDB gets proper column types."""
    frame = pd.DataFrame(rows, columns=list(columns))
    for name, dtype in columns.items():
        frame[name] = frame[name].astype(dtype)
    frame["data_origin"] = pd.Series([origin] * len(frame), dtype="string")
    return frame


def with_scopes(frame: pd.DataFrame, emotion: str = "emotion") -> pd.DataFrame:
    """Each row once under its own emotion and once under 'all'."""
    return pd.concat([frame, frame.assign(**{emotion: ALL})], ignore_index=True)


# --- classification (Tables 2, 3, 3a) -----------------------------------------------------------

SUMMARY_COLUMNS = {"condition_id": "string", "n": "Int64", "n_missing": "Int64", "accuracy": "float64",
                   "accuracy_answered_only": "float64", "f1_macro": "float64", "kappa": "float64",
                   "landis_koch_band": "string"}


def classification_summary(predictions: pd.DataFrame, labels: list[str], origin: str) -> pd.DataFrame:
    rows = []
    for cond, g in predictions.groupby("condition_id", sort=True):
        s = classification.summary(g["true_emotion"], g["predicted_emotion"], labels)
        rows.append({"condition_id": cond, "n": s.n, "n_missing": s.n_missing, "accuracy": s.accuracy,
                     "accuracy_answered_only": s.accuracy_answered_only, "f1_macro": s.f1_macro, "kappa": s.kappa, "landis_koch_band": s.band})
    return typed(rows, SUMMARY_COLUMNS, origin)


BY_EMOTION_COLUMNS = {"condition_id": "string", "emotion": "string", "precision": "float64", "recall": "float64",
                      "f1": "float64", "support": "Int64", "n_predicted": "Int64", "kappa_one_vs_rest": "float64"}


def classification_by_emotion(predictions: pd.DataFrame, labels: list[str], origin: str) -> pd.DataFrame:
    rows = []
    for cond, g in predictions.groupby("condition_id", sort=True):
        t = classification.by_label(g["true_emotion"], g["predicted_emotion"], labels)
        for r in t.itertuples(index=False):
            rows.append({"condition_id": cond, "emotion": r.emotion, "precision": r.precision, "recall": r.recall,
                         "f1": r.f1, "support": r.support, "n_predicted": r.n_predicted, "kappa_one_vs_rest": r.kappa})
    return typed(rows, BY_EMOTION_COLUMNS, origin)


CONFUSION_COLUMNS = {"condition_id": "string", "true_emotion": "string", "predicted_emotion": "string",
                     "n": "Int64", "row_share": "float64"}


def confusion_matrix(predictions: pd.DataFrame, labels: list[str], origin: str) -> pd.DataFrame:
    parts = []
    for cond, g in predictions.groupby("condition_id", sort=True):
        c = classification.confusion(g["true_emotion"], g["predicted_emotion"], labels)
        total = c.groupby("true_emotion")["n"].transform("sum")
        parts.append(c.assign(condition_id=cond, row_share=c["n"] / total.where(total > 0)))
    rows = pd.concat(parts).to_dict("records") if parts else []
    return typed(rows, CONFUSION_COLUMNS, origin)


# --- response diversity (section 4.4, Table 6) --------------------------------------------------

DIVERSITY_COLUMNS = {"condition_id": "string", "dimension": "string", "emotion": "string", "n": "Int64",
                     "n_unique": "Int64", "sd": "float64", "modal_share": "float64", "modal_value": "float64"}


def response_diversity(model_long: pd.DataFrame, origin: str) -> pd.DataFrame:
    scoped = with_scopes(model_long[["condition_id", "dimension", "emotion", "model_value"]])
    if scoped.empty:
        return typed([], DIVERSITY_COLUMNS, origin)
    t = diversity.diversity_table(scoped, ["condition_id", "dimension", "emotion"], "model_value")
    return typed(t.to_dict("records"), DIVERSITY_COLUMNS, origin)


K_HUMAN_COLUMNS = {"dimension": "string", "emotion": "string", "k": "Int64", "conditions": "string",
                   "model_sd": "float64", "human_sd": "float64", "model_to_human_sd_ratio": "float64",
                   "human_sd_ci_low": "float64", "human_sd_ci_high": "float64",
                   "share_human_sd_at_or_below_model": "float64", "model_variance": "float64",
                   "human_variance": "float64", "replicates": "Int64", "seed": "Int64", "n_images": "Int64",
                   "n_excluded_images": "Int64"}


def _padded(lists: pd.Series) -> np.ndarray:
    """Series of per-image lists -> images x max_len array padded with NaN (one concatenation,
    not one row assignment per image)."""
    seqs = [np.asarray(v if v is not None else [], dtype=float) for v in lists]
    lengths = np.array([len(v) for v in seqs], dtype=int)
    out = np.full((len(seqs), int(lengths.max(initial=0))), np.nan)
    if lengths.sum():
        rows = np.repeat(np.arange(len(seqs)), lengths)
        out[rows, np.arange(len(rows)) - np.repeat(np.cumsum(lengths) - lengths, lengths)] = np.concatenate(seqs)
    return out


def _k_human_cells(model_long: pd.DataFrame, human_lists: pd.DataFrame):
    """Per (dimension, emotion): the image rows with their human ratings and one column per
    condition with values on the dimension (k = their number, >= 2). Images in image_id order,
    which is the bootstrap's draw order; a missing prediction leaves NaN (the image is excluded and
    counted by the statistic). Per emotion only: Table 6 has no pooled row."""
    for dim, g in model_long.groupby("dimension", sort=True):
        wide = g.pivot_table(index="image_id", columns="condition_id", values="model_value", aggfunc="first")
        conds = sorted(wide.columns)
        if len(conds) < 2:
            continue
        h = human_lists[human_lists["dimension"] == dim].set_index("image_id").sort_index()
        frame = h[["emotion", "ratings"]].join(wide[conds])
        for emotion, cell in frame.reset_index().groupby("emotion", sort=True):
            yield dim, emotion, conds, cell[conds].to_numpy(float), _padded(cell["ratings"]), cell["image_id"]


def k_human_diversity(model_long: pd.DataFrame, human_lists: pd.DataFrame, origin: str,
                      replicates: int = 1000, seed: int = bootstrap.SEED) -> pd.DataFrame:
    """Table 6: inter-model spread per image vs k humans drawn without replacement, k = the number
    of conditions with predictions on the dimension."""
    rows = []
    for dim, emotion, conds, models, humans, _ in _k_human_cells(model_long, human_lists):
        r = bootstrap.k_human_variance(models, humans, replicates=replicates, seed=seed)
        rows.append({"dimension": dim, "emotion": emotion, "conditions": ",".join(conds),
                     "model_to_human_sd_ratio": r.model_sd / r.human_sd if r.human_sd else np.nan,
                     **asdict(r)})
    return typed(rows, K_HUMAN_COLUMNS, origin)


IMAGE_SD_COLUMNS = {"dimension": "string", "emotion": "string", "image_id": "string", "source": "string",
                    "sd": "float64", "k": "Int64", "replicates": "Int64", "seed": "Int64"}


def k_human_image_sd(model_long: pd.DataFrame, human_lists: pd.DataFrame, origin: str,
                     replicates: int = 1000, seed: int = bootstrap.SEED) -> pd.DataFrame:
    """Figure 6: per image, the SD of the k conditions' values ('models') and the mean SD of k
    random humans ('k_humans'), with the draws of the Table 6 comparison (same seed, per emotion)."""
    rows = []
    for dim, emotion, conds, models, humans, image_ids in _k_human_cells(model_long, human_lists):
        model_sd, human_sd, kept = bootstrap.k_human_image_sd(models, humans, replicates=replicates, seed=seed)
        for source, sd in (("models", model_sd), ("k_humans", human_sd)):
            rows += [{"dimension": dim, "emotion": emotion, "image_id": i, "source": source, "sd": v,
                      "k": len(conds), "replicates": replicates, "seed": seed}
                     for i, v, ok in zip(image_ids, sd, kept) if ok]
    return typed(rows, IMAGE_SD_COLUMNS, origin)


# --- bootstrap p_sig (Discussion 5.1) -----------------------------------------------------------

PSIG_COLUMNS = {"condition_id": "string", "dimension": "string", "emotion": "string", "p_sig": "float64",
                "replicates": "Int64", "seed": "Int64", "alpha": "float64", "test": "string",
                "n_images": "Int64", "n_excluded_images": "Int64"}


def bootstrap_psig(model_long: pd.DataFrame, human_lists: pd.DataFrame, origin: str,
                   replicates: int = 2000, seed: int = bootstrap.SEED) -> pd.DataFrame:
    # One padded |z| matrix per dimension, built once, with a last all-NaN row for images without
    # human lists (get_indexer's -1): p_sig excludes and counts them.
    humans = {dim: (pd.Index(h["image_id"]), _padded(pd.concat([h["loo_abs_z"], pd.Series([[]])])))
              for dim, h in human_lists.groupby("dimension", sort=True)}
    # resampling draws by position: fix the order (image_id) so the result does not depend on
    # the order DuckDB returned the rows in; only the columns used, and the 'all' scope as the
    # whole group rather than a second copy of every row (with_scopes), which at 100x held GBs
    model_long = model_long[["condition_id", "dimension", "emotion", "image_id", "z"]].sort_values(
        ["condition_id", "dimension", "image_id"], kind="stable")
    rows = []
    for (cond, dim), g in model_long.groupby(["condition_id", "dimension"], sort=True):
        index, matrix = humans.get(dim, (pd.Index([]), np.full((1, 0), np.nan)))
        scopes = sorted([(ALL, g), *g.groupby("emotion", sort=True)], key=lambda scope: scope[0])
        for emotion, part in scopes:
            human = matrix[index.get_indexer(part["image_id"])]
            res = bootstrap.p_sig(part["z"].abs().to_numpy(float), human, replicates=replicates, seed=seed)
            rows.append({"condition_id": cond, "dimension": dim, "emotion": emotion, **asdict(res)})
    return typed(rows, PSIG_COLUMNS, origin)


# --- LMM rating ~ rater_type * emotion + (1 | image_id) ------------------------------------------

LMM_COLUMNS = {"condition_id": "string", "dimension": "string", "term": "string", "estimate": "float64",
               "se": "float64", "df": "float64", "t": "float64", "p": "float64", "df_method": "string",
               "image_variance": "float64", "residual_variance": "float64", "n_images": "Int64",
               "n_obs": "Int64", "n_excluded_images": "Int64", "interaction_lr_chi2": "float64",
               "interaction_df": "Int64", "interaction_p": "float64", "singular": "boolean",
               "fit_error": "string"}


def lmm_rater_type(model_long: pd.DataFrame, labels: list[str], origin: str) -> pd.DataFrame:
    rows = []
    for (cond, dim), g in model_long.groupby(["condition_id", "dimension"], sort=True):
        try:
            res = lmm.fit_rater_type_lmm(g["human_mean"], g["model_value"], g["emotion"], g["image_id"], labels)
        except Exception as exc:  # a degenerate cell (e.g. no usable images) is reported, not fatal
            rows.append({"condition_id": cond, "dimension": dim, "fit_error": f"{type(exc).__name__}: {exc}"[:500]})
            continue
        common = {"condition_id": cond, "dimension": dim, "image_variance": res.image_variance,
                  "residual_variance": res.residual_variance, "n_images": res.n_images, "n_obs": res.n_obs,
                  "n_excluded_images": res.n_excluded_images, "interaction_lr_chi2": res.interaction_lr_chi2,
                  "interaction_df": res.interaction_df, "interaction_p": res.interaction_p,
                  "singular": res.singular}
        for fe in res.fixed_effects.to_dict("records"):
            rows.append({**common, **fe})
    return typed(rows, LMM_COLUMNS, origin)


# --- replaceability verdicts (Table 8) -----------------------------------------------------------

VERDICT_COLUMNS = {"emotion": "string", "measure": "string", "verdict": "string", "n_conditions": "Int64",
                   "n_conditions_passing": "Int64", "passing_conditions": "string", "stereotyped": "boolean",
                   "stereotyped_conditions": "string", "calibration_candidates": "string",
                   "model_dependent": "boolean", "n_conditions_delta_alpha_below_min": "Int64",
                   "delta_alpha_scope": "string",
                   "human_loo_w1sd": "float64", "human_loo_mean_abs_z": "float64", "rule": "string",
                   "rule_inputs": "string"}


def rules_from_seed(seed: pd.DataFrame) -> verdicts.VerdictRules:
    return verdicts.rules_from_records(seed[["parameter", "value"]].astype(str).to_dict("records"),
                                       source="seed verdict_rules")


def replaceability_verdicts(dimension_inputs: pd.DataFrame, human_baseline: pd.DataFrame,
                            classification_inputs: pd.DataFrame, rules: verdicts.VerdictRules,
                            origin: str) -> pd.DataFrame:
    """dimension_inputs / human_baseline / classification_inputs as verdicts.verdict_matrix takes
    them (one row per emotion x measure x condition). The per-condition inputs of each cell are
    attached as JSON (rule_inputs) so every verdict can be checked by hand."""
    if dimension_inputs.empty and classification_inputs.empty:
        return typed([], VERDICT_COLUMNS, origin)
    base_keys = set(zip(human_baseline["emotion"], human_baseline["measure"]))
    # .loc with a boolean list: plain [] with an empty list would select no *columns*.
    dims = dimension_inputs.loc[[k in base_keys for k in zip(dimension_inputs["emotion"], dimension_inputs["measure"])]]
    matrix = verdicts.verdict_matrix(dims, human_baseline, classification_inputs if len(classification_inputs) else None,
                                     rules)
    inputs = pd.concat([dims, classification_inputs.assign(measure="classification")], ignore_index=True)
    rows = []
    for r in matrix.to_dict("records"):
        cell = inputs[(inputs["emotion"] == r["emotion"]) & (inputs["measure"] == r["measure"])]
        # by condition, not by the input's row order (which SQL does not promise)
        cell = cell.drop(columns=["emotion", "measure"]).dropna(axis=1, how="all").sort_values("condition_id")
        r["rule_inputs"] = json.dumps(json.loads(cell.to_json(orient="records", double_precision=6)))
        rows.append(r)
    return typed(rows, VERDICT_COLUMNS, origin)


def verdicts_from_inputs(inputs: pd.DataFrame, rules: verdicts.VerdictRules, origin: str) -> pd.DataFrame:
    """Split the replaceability_inputs mart into the three frames verdicts.verdict_matrix takes."""
    dim = inputs[inputs["measure"] != "classification"]
    dimension_inputs = dim[["emotion", "measure", "condition_id", "w1sd", "mean_abs_z", "delta_alpha",
                            "delta_alpha_pooled", "bias", "sd_d", "n_unique"]].astype({"n_unique": "float64"})
    baseline = (dim.dropna(subset=["human_loo_w1sd"])
                .groupby(["emotion", "measure"], as_index=False, sort=False)
                [["human_loo_w1sd", "human_loo_mean_abs_z", "human_sd"]].first()
                .rename(columns={"human_loo_w1sd": "loo_w1sd", "human_loo_mean_abs_z": "loo_mean_abs_z"}))
    cls = inputs[inputs["measure"] == "classification"][["emotion", "condition_id", "kappa", "recall", "precision"]]
    return replaceability_verdicts(dimension_inputs, baseline, cls, rules, origin)
