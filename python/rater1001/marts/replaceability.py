"""models/marts/replaceability: the Table 8 verdict of every (category, measure) cell. The rule is
rater1001.stats.verdicts.verdict_matrix, its parameters the verdict_rules seed."""

from __future__ import annotations

import json

import pandas as pd

from ..stats import verdict_rules, verdicts
from ._shared import as_frame, declared, typed, with_origin


def rules_from_seed(seed) -> verdict_rules.VerdictRules:
    """The verdict_rules seed as VerdictRules (replaceability and calibration read the same rules)."""
    return verdict_rules.rules_from_records(
        as_frame(seed)[["parameter", "value"]].astype(str).to_dict("records"), source="seed verdict_rules"
    )


def verdict_table(
    dimension_inputs: pd.DataFrame,
    human_baseline: pd.DataFrame,
    classification_inputs: pd.DataFrame,
    rules: verdict_rules.VerdictRules,
) -> pd.DataFrame:
    """dimension_inputs / human_baseline / classification_inputs as verdicts.verdict_matrix takes
    them (one row per category x measure x condition). The per-condition inputs of each cell are
    attached as JSON (rule_inputs) so every verdict can be checked by hand."""
    if dimension_inputs.empty and classification_inputs.empty:
        return typed([], declared("replaceability_verdicts"))
    base_keys = set(zip(human_baseline["category"], human_baseline["measure"]))
    # .loc with a boolean list: plain [] with an empty list would select no *columns*.
    dims = dimension_inputs.loc[
        [k in base_keys for k in zip(dimension_inputs["category"], dimension_inputs["measure"])]
    ]
    matrix = verdicts.verdict_matrix(
        dims, human_baseline, classification_inputs if len(classification_inputs) else None, rules
    )
    inputs = pd.concat([dims, classification_inputs.assign(measure="classification")], ignore_index=True)
    rows = []
    for r in matrix.to_dict("records"):
        cell = inputs[(inputs["category"] == r["category"]) & (inputs["measure"] == r["measure"])]
        # by condition, not by the input's row order (which SQL does not promise)
        cell = cell.drop(columns=["category", "measure"]).dropna(axis=1, how="all").sort_values("condition_id")
        r["rule_inputs"] = json.dumps(json.loads(cell.to_json(orient="records", double_precision=6)))
        rows.append(r)
    return typed(rows, declared("replaceability_verdicts"))


def verdicts_from_inputs(inputs: pd.DataFrame, rules: verdict_rules.VerdictRules) -> pd.DataFrame:
    """Split the replaceability_inputs mart into the three frames verdicts.verdict_matrix takes."""
    dim = inputs[inputs["measure"] != "classification"]
    dimension_inputs = dim[
        [
            "category",
            "measure",
            "condition_id",
            "w1sd",
            "mean_abs_z",
            "delta_alpha",
            "delta_alpha_pooled",
            "bias",
            "sd_d",
            "n_unique",
        ]
    ].astype({"n_unique": "float64"})
    baseline = (
        dim.dropna(subset=["human_loo_w1sd"])
        .groupby(["category", "measure"], as_index=False, sort=False)[
            ["human_loo_w1sd", "human_loo_mean_abs_z", "human_sd"]
        ]
        .first()
        .rename(columns={"human_loo_w1sd": "loo_w1sd", "human_loo_mean_abs_z": "loo_mean_abs_z"})
    )
    cls = inputs[inputs["measure"] == "classification"][
        ["category", "condition_id", "kappa", "kappa_within", "recall", "precision"]
    ]
    return verdict_table(dimension_inputs, baseline, cls, rules)


# --- the dbt Python model (models/marts/replaceability/replaceability_verdicts.py) ------------------


def replaceability_verdicts(inputs, verdict_rules, provenance) -> pd.DataFrame:
    return with_origin(verdicts_from_inputs(as_frame(inputs), rules_from_seed(verdict_rules)), provenance)
