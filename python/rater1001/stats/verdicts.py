"""Replaceability verdict matrix (paper sections 3.4.3 and 4.6, Table 8): one verdict per
emotion x measure (classification, valence, arousal) in replaceable / partial / calibratable /
not_replaceable, from per-condition inputs and the human leave-one-out baseline of the same
emotion. Thresholds and the order in which verdicts are tried are data (seeds/verdict_rules.csv).

Dimensions (valence, arousal), per condition:
  eligible   = delta alpha >= delta_alpha_min            (not checked when delta alpha is missing)
               where delta alpha is the condition's pooled delta alpha over all images of the
               dimension (delta_alpha_scope = pooled, the paper's Tables 4c/5c and default) or
               the emotion's own (delta_alpha_scope = per_category)
  passes     = eligible and W1SD >= human LOO W1SD + w1sd_margin   (full precision; ties pass)
  calibration candidate = eligible, not passing, |bias|/SD_d >= systematicity_min and
               2 * 1.96 * SD_d <= loa_width_max_human_sd * mean human SD of the emotion
  stereotyped (flag on a passing condition) = mean|z| < ratio * human LOO mean|z|, or
               n_unique <= stereotyped_max_unique
Cell, trying verdict_order (default: Table 8's legend):
  replaceable     share of passing conditions > replaceable_min_share (strict majority)
  partial         passing conditions >= partial_min_passing
  not_replaceable no passing condition (or no eligible condition: delta alpha < 0 everywhere)
  calibratable    at least one calibration candidate
With the default order a zero-pass cell is not_replaceable even if a calibration candidate
exists (Table 8 marks anger/fear/disgust valence so); candidates are still listed. Put
calibratable before not_replaceable in the seed to get the 3.4.3 text's sequential reading.

Classification, per condition: one-vs-rest Cohen kappa of the emotion; passes at kappa >= kappa_pass;
model_dependent when one condition passes and another is below kappa_fail (Table 8 note 1);
calibratable when a majority recall the emotion (recall >= kappa_pass) but the median precision
is below precision_calibration_max (the emotion absorbs others, as neutral does).
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from ..paths import REPO_ROOT
from .agreement import systematicity

VERDICTS = ("replaceable", "partial", "calibratable", "not_replaceable")


DELTA_ALPHA_SCOPES = ("pooled", "per_category")
# The input column each scope reads: pooled = the condition's delta alpha over all images of the
# dimension (one number per condition, as Tables 4c/5c print), per_category = the emotion's own.
SCOPE_COLUMN = {"pooled": "delta_alpha_pooled", "per_category": "delta_alpha"}
SEED_FILE = REPO_ROOT / "seeds" / "verdict_rules.csv"


@dataclass(frozen=True)
class VerdictRules:
    """The declared rules; their values live only in seeds/verdict_rules.csv (default_rules())."""
    verdict_order: tuple[str, ...]
    delta_alpha_min: float
    delta_alpha_scope: str
    w1sd_margin: float
    replaceable_min_share: float
    partial_min_passing: int
    systematicity_min: float
    loa_width_max_human_sd: float
    stereotyped_mean_abs_z_ratio: float
    stereotyped_max_unique: int
    kappa_pass: float
    kappa_fail: float
    precision_calibration_max: float


@lru_cache(maxsize=1)
def default_rules() -> VerdictRules:
    """The rules of the repository's seeds/verdict_rules.csv."""
    return load_rules(SEED_FILE)


def load_rules(path: Path) -> VerdictRules:
    """Read seeds/verdict_rules.csv (parameter,value,...) into VerdictRules; unknown parameters and
    bad values are errors naming the file, row and value."""
    with open(path, newline="", encoding="utf-8") as fh:
        return rules_from_records(list(csv.DictReader(fh)), source=str(path))


def rules_from_records(records, source: str = "verdict rules") -> VerdictRules:
    """The same parsing as load_rules for rows already read (e.g. the verdict_rules seed table in
    the warehouse, which a dbt Python model receives as a frame). Row numbers count the CSV header."""
    fields = VerdictRules.__dataclass_fields__
    values: dict = {}
    for row_no, row in enumerate(records, start=2):
        name, raw = str(row["parameter"]).strip(), str(row["value"]).strip()
        if name not in fields:
            raise ValueError(f"{source}: row {row_no}: unknown parameter {name!r}")
        if name == "verdict_order":
            order = tuple(v.strip() for v in raw.split("|"))
            if sorted(order) != sorted(VERDICTS):
                raise ValueError(f"{source}: row {row_no}: verdict_order must list each of {VERDICTS} once, got {raw!r}")
            values[name] = order
            continue
        if name == "delta_alpha_scope":
            if raw not in DELTA_ALPHA_SCOPES:
                raise ValueError(f"{source}: row {row_no}: delta_alpha_scope must be one of {DELTA_ALPHA_SCOPES}, got {raw!r}")
            values[name] = raw
            continue
        try:
            values[name] = int(raw) if fields[name].type in (int, "int") else float(raw)
        except ValueError:
            raise ValueError(f"{source}: row {row_no}: parameter {name!r} needs a number, got {raw!r}") from None
    missing = [f for f in fields if f not in values]
    if missing:
        raise ValueError(f"{source}: parameter(s) {missing} are not declared")
    return VerdictRules(**values)


def _first(order, holds: dict[str, bool]) -> str:
    return next(v for v in order if holds[v])


def _names(frame: pd.DataFrame, mask, sort_by: str) -> str:
    sub = frame[mask].sort_values([sort_by, "condition_id"], ascending=[False, True])
    return ",".join(sub["condition_id"].astype(str))


def scoped_delta_alpha(conditions: pd.DataFrame, rules: VerdictRules) -> pd.Series:
    """The delta alpha the rules gate on (rules.delta_alpha_scope). A frame without any delta
    alpha is not checked (NaN); a frame with only the other scope's column is an error, so a
    scope is never swapped silently."""
    col = SCOPE_COLUMN[rules.delta_alpha_scope]
    if col in conditions:
        return conditions[col].astype(float)
    if any(c in conditions for c in SCOPE_COLUMN.values()):
        raise ValueError(f"the rules gate on the {rules.delta_alpha_scope} delta alpha ({col}) but the inputs "
                         f"carry only {[c for c in SCOPE_COLUMN.values() if c in conditions]}")
    return pd.Series(np.nan, index=conditions.index)


def condition_passes(w1sd, loo_w1sd, delta_alpha, rules: VerdictRules) -> tuple[np.ndarray, np.ndarray]:
    """The one home of the per-condition pass rule (Table 8): (eligible, passes) with
    eligible = delta alpha >= delta_alpha_min (missing delta alpha = not checked) and
    passes = eligible and W1SD >= human LOO W1SD + w1sd_margin (full precision; ties pass)."""
    w1sd, loo_w1sd, delta_alpha = (np.asarray(a, dtype=float) for a in (w1sd, loo_w1sd, delta_alpha))
    eligible = np.isnan(delta_alpha) | (delta_alpha >= rules.delta_alpha_min)
    return eligible, eligible & (w1sd >= loo_w1sd + rules.w1sd_margin)


def rule_text(rules: VerdictRules, loo_w1sd: float) -> str:
    return (f"pass: W1SD >= human LOO W1SD ({loo_w1sd:.3f}) + {rules.w1sd_margin:g} and "
            f"{rules.delta_alpha_scope} delta alpha >= {rules.delta_alpha_min:g}; replaceable if share passing > "
            f"{rules.replaceable_min_share:g}; order {'>'.join(rules.verdict_order)}")


def dimension_verdict(conditions: pd.DataFrame, loo_w1sd: float, loo_mean_abs_z: float = np.nan,
                      human_sd: float = np.nan, rules: VerdictRules | None = None) -> dict:
    """One emotion x dimension cell. `conditions`: one row per condition with condition_id, w1sd
    and optionally mean_abs_z, delta_alpha (the emotion's), delta_alpha_pooled (the condition's
    over all images), bias, sd_d, n_unique (missing columns = not checked)."""
    rules = rules or default_rules()
    c = conditions.copy()
    for col in ("mean_abs_z", "bias", "sd_d", "n_unique"):
        if col not in c:
            c[col] = np.nan
    c = c.dropna(subset=["w1sd"])
    eligible, passes = condition_passes(c["w1sd"], loo_w1sd, scoped_delta_alpha(c, rules), rules)
    eligible, passes = pd.Series(eligible, index=c.index), pd.Series(passes, index=c.index)
    syst = pd.Series(systematicity(c["bias"], c["sd_d"]), index=c.index)
    narrow = (2 * 1.96 * c["sd_d"]) <= rules.loa_width_max_human_sd * human_sd
    candidate = eligible & ~passes & (syst >= rules.systematicity_min) & narrow
    stereo = passes & ((c["mean_abs_z"] < rules.stereotyped_mean_abs_z_ratio * loo_mean_abs_z)
                       | (c["n_unique"] <= rules.stereotyped_max_unique))
    n, n_pass = len(c), int(passes.sum())
    holds = {
        "replaceable": n > 0 and n_pass / n > rules.replaceable_min_share,
        "partial": n_pass >= rules.partial_min_passing,
        "calibratable": bool(candidate.any()),
        "not_replaceable": True,
    }
    verdict = _first(rules.verdict_order, holds)
    return {
        "verdict": verdict,
        "n_conditions": n,
        "n_conditions_passing": n_pass,
        "passing_conditions": _names(c, passes, "w1sd"),
        "stereotyped": bool(stereo.any()),
        "stereotyped_conditions": _names(c, stereo, "w1sd"),
        "calibration_candidates": _names(c.assign(_s=syst), candidate, "_s"),
        "n_conditions_delta_alpha_below_min": int((~eligible).sum()),
        "delta_alpha_scope": rules.delta_alpha_scope,
        "human_loo_w1sd": loo_w1sd,
        "human_loo_mean_abs_z": loo_mean_abs_z,
        "rule": rule_text(rules, loo_w1sd),
    }


def classification_verdict(conditions: pd.DataFrame, rules: VerdictRules | None = None) -> dict:
    """One emotion's classification cell. `conditions`: condition_id, kappa (one-vs-rest for the
    emotion), recall, precision."""
    rules = rules or default_rules()
    c = conditions.dropna(subset=["kappa"])
    passes = c["kappa"] >= rules.kappa_pass
    n, n_pass = len(c), int(passes.sum())
    recalls = (c["recall"] >= rules.kappa_pass).mean() > 0.5 if n else False
    absorbs = recalls and c["precision"].median() < rules.precision_calibration_max
    holds = {
        "replaceable": n > 0 and n_pass / n > rules.replaceable_min_share and not absorbs,
        "partial": n_pass >= rules.partial_min_passing,
        "calibratable": bool(absorbs),
        "not_replaceable": True,
    }
    # Over-absorption is a calibration problem even when kappa is high: try it before 'partial'.
    order = tuple(v for v in rules.verdict_order if v != "calibratable")
    order = order[:1] + ("calibratable",) + order[1:]
    return {
        "verdict": _first(order, holds),
        "n_conditions": n,
        "n_conditions_passing": n_pass,
        "passing_conditions": _names(c, passes, "kappa"),
        "model_dependent": bool(n_pass > 0 and (c["kappa"] < rules.kappa_fail).any()),
        "rule": (f"pass: one-vs-rest kappa >= {rules.kappa_pass:g}; model dependent if another < "
                 f"{rules.kappa_fail:g}; calibratable if most recall >= {rules.kappa_pass:g} but median "
                 f"precision < {rules.precision_calibration_max:g}"),
    }


def verdict_matrix(dimension_inputs: pd.DataFrame, human_baseline: pd.DataFrame,
                   classification_inputs: pd.DataFrame | None = None,
                   rules: VerdictRules | None = None) -> pd.DataFrame:
    """All cells. dimension_inputs: emotion, measure, condition_id, w1sd [, mean_abs_z, delta_alpha,
    delta_alpha_pooled, bias, sd_d, n_unique]. human_baseline: emotion, measure, loo_w1sd [, loo_mean_abs_z, human_sd].
    classification_inputs: emotion, condition_id, kappa, recall, precision."""
    rules = rules or default_rules()
    base = human_baseline.set_index(["emotion", "measure"])
    rows = []
    for (emotion, measure), cell in dimension_inputs.groupby(["emotion", "measure"], sort=False):
        if (emotion, measure) not in base.index:
            raise ValueError(f"no human LOO baseline for emotion {emotion!r}, measure {measure!r}")
        b = base.loc[(emotion, measure)]
        rows.append({"emotion": emotion, "measure": measure, **dimension_verdict(
            cell, float(b["loo_w1sd"]), float(b.get("loo_mean_abs_z", np.nan)),
            float(b.get("human_sd", np.nan)), rules)})
    if classification_inputs is not None:
        for emotion, cell in classification_inputs.groupby("emotion", sort=False):
            rows.append({"emotion": emotion, "measure": "classification", **classification_verdict(cell, rules)})
    return pd.DataFrame(rows)
