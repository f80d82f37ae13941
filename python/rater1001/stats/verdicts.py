"""Replaceability verdict matrix (paper sections 3.4.3 and 4.6, Table 8): one verdict per
emotion x measure (classification, valence, arousal) in replaceable / partial / calibratable /
not_replaceable, from per-condition inputs and the human leave-one-out baseline of the same
emotion. Thresholds and the order in which verdicts are tried are data (seeds/verdict_rules.csv).

Dimensions (valence, arousal), per condition:
  eligible   = delta_alpha >= delta_alpha_min            (not checked when delta_alpha is missing)
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
from pathlib import Path

import numpy as np
import pandas as pd

VERDICTS = ("replaceable", "partial", "calibratable", "not_replaceable")


@dataclass(frozen=True)
class VerdictRules:
    verdict_order: tuple[str, ...] = ("replaceable", "partial", "not_replaceable", "calibratable")
    delta_alpha_min: float = 0.0
    w1sd_margin: float = 0.0
    replaceable_min_share: float = 0.5
    partial_min_passing: int = 1
    systematicity_min: float = 2.0
    loa_width_max_human_sd: float = 2.0
    stereotyped_mean_abs_z_ratio: float = 0.6
    stereotyped_max_unique: int = 2
    kappa_pass: float = 0.80
    kappa_fail: float = 0.40
    precision_calibration_max: float = 0.80


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
        try:
            values[name] = int(raw) if fields[name].type in (int, "int") else float(raw)
        except ValueError:
            raise ValueError(f"{source}: row {row_no}: parameter {name!r} needs a number, got {raw!r}") from None
    return VerdictRules(**values)


def _first(order, holds: dict[str, bool]) -> str:
    return next(v for v in order if holds[v])


def _names(frame: pd.DataFrame, mask, sort_by: str) -> str:
    sub = frame[mask].sort_values([sort_by, "condition_id"], ascending=[False, True])
    return ",".join(sub["condition_id"].astype(str))


def dimension_verdict(conditions: pd.DataFrame, loo_w1sd: float, loo_mean_abs_z: float = np.nan,
                      human_sd: float = np.nan, rules: VerdictRules = VerdictRules()) -> dict:
    """One emotion x dimension cell. `conditions`: one row per condition with condition_id, w1sd
    and optionally mean_abs_z, delta_alpha, bias, sd_d, n_unique (missing columns = not checked)."""
    c = conditions.copy()
    for col in ("mean_abs_z", "delta_alpha", "bias", "sd_d", "n_unique"):
        if col not in c:
            c[col] = np.nan
    c = c.dropna(subset=["w1sd"])
    eligible = c["delta_alpha"].isna() | (c["delta_alpha"] >= rules.delta_alpha_min)
    passes = eligible & (c["w1sd"] >= loo_w1sd + rules.w1sd_margin)
    syst = c["bias"].abs() / c["sd_d"]
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
        "human_loo_w1sd": loo_w1sd,
        "human_loo_mean_abs_z": loo_mean_abs_z,
        "rule": (f"pass: W1SD >= human LOO W1SD ({loo_w1sd:.3f}) + {rules.w1sd_margin:g} and delta alpha >= "
                 f"{rules.delta_alpha_min:g}; replaceable if share passing > {rules.replaceable_min_share:g}; "
                 f"order {'>'.join(rules.verdict_order)}"),
    }


def classification_verdict(conditions: pd.DataFrame, rules: VerdictRules = VerdictRules()) -> dict:
    """One emotion's classification cell. `conditions`: condition_id, kappa (one-vs-rest for the
    emotion), recall, precision."""
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
                   rules: VerdictRules = VerdictRules()) -> pd.DataFrame:
    """All cells. dimension_inputs: emotion, measure, condition_id, w1sd [, mean_abs_z, delta_alpha,
    bias, sd_d, n_unique]. human_baseline: emotion, measure, loo_w1sd [, loo_mean_abs_z, human_sd].
    classification_inputs: emotion, condition_id, kappa, recall, precision."""
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
