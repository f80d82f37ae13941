"""The judge marts as functions of frames (the dbt Python models in models/marts/judge/ are thin
wrappers around these). Every statistic comes from rater1001.stats.judge / stats.alt_test.

Inputs are the warehouse relations: verdicts_long (int_judge_verdicts_long: one row per call and axis),
pair_verdicts (this module's consolidate -> judge_pair_verdicts), candidates (stg_judge_candidates)
and the candidate catalog seed. Every output has a fixed schema, also when the inputs are empty.
"""
from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pandas as pd

from ..stats import judge as js
from ..stats.agreement import pearson
from ..stats.alt_test import alt_test

ALL = "all"


def with_origin(frame: pd.DataFrame, provenance: pd.DataFrame) -> pd.DataFrame:
    """The mart plus data_origin from int_study_provenance (SIMULATED for the demo judge study)."""
    origin = provenance["data_origin"].iloc[0] if len(provenance) else None
    return frame.assign(data_origin=pd.Series(origin, index=frame.index, dtype="string"))


def typed(rows, schema: dict[str, str]) -> pd.DataFrame:
    """A frame with exactly `schema`'s columns and dtypes (so DuckDB gets types for empty tables)."""
    frame = pd.DataFrame(rows, columns=list(schema)) if not isinstance(rows, pd.DataFrame) else rows
    frame = frame.reindex(columns=list(schema))
    out = {}
    for col, dtype in schema.items():
        s = frame[col]
        if dtype == "string":
            out[col] = s.astype("string")
        elif dtype == "bool":
            out[col] = s.astype("boolean")
        elif dtype == "int":
            out[col] = pd.to_numeric(s).astype("Int64")
        else:
            out[col] = pd.to_numeric(s).astype("float64")
    return pd.DataFrame(out, index=range(len(frame)))


# --- consistency ----------------------------------------------------------------------------------

PAIR_SCHEMA = {
    "judge_id": "string", "judge_kind": "string", "sample_id": "string", "category": "string",
    "variant": "string", "candidate_a": "string", "candidate_b": "string", "axis": "string",
    "winner_ab": "string", "winner_ba": "string", "n_orders_parsed": "int", "is_complete": "bool",
    "is_consistent": "bool", "final_verdict": "string", "winner_candidate": "string", "score_a": "float",
}


def pair_verdicts(verdicts_long: pd.DataFrame, dialogues: pd.DataFrame) -> pd.DataFrame:
    pairs = js.consolidate_orders(verdicts_long)
    pairs["category"] = pairs["sample_id"].map(dict(zip(dialogues["sample_id"], dialogues["category"])))
    pairs["is_complete"] = pairs["final_verdict"].notna()
    pairs["winner_candidate"] = np.select(
        [pairs["final_verdict"].eq("a"), pairs["final_verdict"].eq("b"), pairs["final_verdict"].eq("tie")],
        [pairs["candidate_a"], pairs["candidate_b"], "tie"], default=None) if len(pairs) else []
    return typed(pairs, PAIR_SCHEMA)


# --- win rates against the anchor -----------------------------------------------------------------

WIN_SCHEMA = {
    "judge_id": "string", "judge_kind": "string", "candidate_id": "string", "anchor_id": "string",
    "variant": "string", "category": "string", "axis": "string", "wins": "int", "ties": "int",
    "losses": "int", "n_pairs": "int", "win_rate": "float", "win_rate_ci_low": "float",
    "win_rate_ci_high": "float", "n_incomplete": "int", "win_rate_answered_only": "float",
}


def anchor_outcomes(pairs: pd.DataFrame, anchor: str) -> pd.DataFrame:
    """Pairs with the anchor, from the other candidate's side: outcome win / tie / loss."""
    p = pairs[(pairs["candidate_a"] == anchor) ^ (pairs["candidate_b"] == anchor)].copy()
    model_is_a = p["candidate_b"] == anchor
    p["candidate_id"] = np.where(model_is_a, p["candidate_a"], p["candidate_b"])
    verdict = p["final_verdict"].astype("object")
    model_side = np.where(model_is_a, "a", "b")
    p["outcome"] = np.select([verdict.isna(), verdict.eq("tie"), verdict.eq(model_side)],
                             [None, "tie", "win"], default="loss") if len(p) else []
    return p


def win_rates(pairs: pd.DataFrame, anchor: str, *, by_category: bool = False) -> pd.DataFrame:
    o = anchor_outcomes(pairs, anchor)
    rows = []
    if len(o):
        # Per variant and pooled ('all'); by category, the category x variant split of the log's
        # per-category and per-variant patterns.
        o = pd.concat([o, o.assign(variant=ALL)], ignore_index=True)
        if not by_category:
            o["category"] = ALL
        for (judge_id, kind, cid, variant, category, axis), g in o.groupby(
                ["judge_id", "judge_kind", "candidate_id", "variant", "category", "axis"], dropna=False):
            rows.append({"judge_id": judge_id, "judge_kind": kind, "candidate_id": cid, "anchor_id": anchor,
                         "variant": variant, "category": category, "axis": axis,
                         **js.win_rate_summary(g["outcome"])})
    return typed(rows, WIN_SCHEMA)


# --- Bradley-Terry --------------------------------------------------------------------------------

BT_SCHEMA = {
    "judge_id": "string", "design": "string", "variant": "string", "axis": "string", "candidate_id": "string",
    "log_strength": "float", "se": "float", "ci_low": "float", "ci_high": "float", "n_comparisons": "int",
    "tie_parameter": "float", "reference_id": "string", "tie_model": "string", "note": "string",
}


def bradley_terry(pairs: pd.DataFrame, anchor: str) -> pd.DataFrame:
    complete = pairs[pairs["is_complete"].fillna(False).astype(bool)]
    rows = []
    if len(complete):
        with_all = pd.concat([complete, complete.assign(variant=ALL)], ignore_index=True)
        for (judge_id, variant, axis), g in with_all.groupby(["judge_id", "variant", "axis"]):
            touches_anchor = (g["candidate_a"] == anchor) | (g["candidate_b"] == anchor)
            designs = [("anchor_only", g[touches_anchor])]
            if (~touches_anchor).any():
                designs.append(("round_robin", g))
            for design, d in designs:
                if d.empty:
                    continue
                comps = pd.DataFrame({"item_i": d["candidate_a"], "item_j": d["candidate_b"],
                                      "outcome": d["final_verdict"].map({"a": "i", "b": "j", "tie": "tie"})})
                fit = js.bradley_terry_davidson(comps, reference=anchor)
                for r in fit.strengths.itertuples(index=False):
                    rows.append({"judge_id": judge_id, "design": design, "variant": variant, "axis": axis,
                                 "candidate_id": r.item, "log_strength": r.log_strength, "se": r.se,
                                 "ci_low": r.ci_low, "ci_high": r.ci_high, "n_comparisons": r.n_comparisons,
                                 "tie_parameter": fit.tie_parameter, "reference_id": anchor,
                                 "tie_model": "davidson", "note": r.note})
    return typed(rows, BT_SCHEMA)


# --- bias checks ----------------------------------------------------------------------------------

BIAS_SCHEMA = {
    "judge_id": "string", "check_name": "string", "variant": "string", "axis": "string", "statistic": "string",
    "estimate": "float", "ci_low": "float", "ci_high": "float", "p_value": "float", "n": "int", "note": "string",
}


def candidate_contrasts(first: pd.Series, second: pd.Series) -> np.ndarray | None:
    """Bradley-Terry design columns I[c shown first] - I[c shown second], one per candidate but the
    first in sort order (the reference), so a length effect is not confounded with who is compared."""
    ids = sorted(set(first) | set(second))
    cols = [(first.to_numpy() == c).astype(float) - (second.to_numpy() == c).astype(float) for c in ids[1:]]
    cols = [c for c in cols if np.any(c != 0)]
    return np.column_stack(cols) if cols else None


def bias_checks(verdicts_long: pd.DataFrame, pairs: pd.DataFrame, candidates: pd.DataFrame) -> pd.DataFrame:
    rows = []
    llm = verdicts_long[verdicts_long["judge_kind"] == "llm"].copy()
    length = {(s, c, v): n for s, c, v, n in zip(candidates["sample_id"], candidates["candidate_id"],
                                                 candidates["variant"], candidates["response_chars"])}
    by_sample_cand = {}
    for (s, c, v), n in length.items():
        if v == "text" or (s, c) not in by_sample_cand:
            by_sample_cand[(s, c)] = n

    def chars(s, c, v):
        return length.get((s, c, v), by_sample_cand.get((s, c)))

    if len(llm):
        first = np.where(llm["presentation_order"] == "AB", llm["candidate_a"], llm["candidate_b"])
        second = np.where(llm["presentation_order"] == "AB", llm["candidate_b"], llm["candidate_a"])
        llm["first"], llm["second"] = first, second
        llm["len_first"] = [chars(s, c, v) for s, c, v in zip(llm["sample_id"], first, llm["variant"])]
        llm["len_second"] = [chars(s, c, v) for s, c, v in zip(llm["sample_id"], second, llm["variant"])]
        scoped = pd.concat([llm.assign(variant=ALL), llm], ignore_index=True)
        for (judge_id, variant, axis), g in scoped.groupby(["judge_id", "variant", "axis"]):
            decisive = g[g["position_verdict"].isin(["1", "2"])]
            n_first = int((decisive["position_verdict"] == "1").sum())
            pb = js.position_bias_test(n_first, len(decisive) - n_first)
            n_ties = int((g["position_verdict"] == "tie").sum())
            rows.append({"judge_id": judge_id, "check_name": "position_bias", "variant": variant, "axis": axis,
                         "statistic": "share of decisive single-order verdicts choosing 응답 1 (binomial test vs 0.5)",
                         "estimate": pb["share_first"], "ci_low": pb["ci_low"], "ci_high": pb["ci_high"],
                         "p_value": pb["p_value"], "n": pb["n_decisive"], "note": f"{n_ties} tie verdicts not counted"})
            d = decisive.dropna(subset=["len_first", "len_second"])
            fit = js.logistic_slope((d["position_verdict"] == "1").to_numpy(float),
                                    (d["len_first"] - d["len_second"]).to_numpy(float) / 100.0,
                                    candidate_contrasts(d["first"], d["second"]))
            rows.append({"judge_id": judge_id, "check_name": "verbosity", "variant": variant, "axis": axis,
                         "statistic": ("logit slope of choosing 응답 1 per 100 characters of length advantage, "
                                       "controlling for which candidates were compared (Bradley-Terry terms)"),
                         "estimate": fit["slope"], "ci_low": fit["ci_low"], "ci_high": fit["ci_high"],
                         "p_value": fit["p_value"], "n": fit["n"],
                         "note": fit["note"] or f"intercept (position log-odds at equal length) = {fit['intercept']:.3f}"})
    llm_pairs = pairs[(pairs["judge_kind"] == "llm") & pairs["is_complete"].fillna(False).astype(bool)]
    if len(llm_pairs):
        scoped = pd.concat([llm_pairs.assign(variant=ALL), llm_pairs], ignore_index=True)
        for (judge_id, variant, axis), g in scoped.groupby(["judge_id", "variant", "axis"]):
            n = len(g)
            k = int((~g["is_consistent"].astype(bool)).sum())
            lo, hi = js.wilson_interval(k, n)
            rows.append({"judge_id": judge_id, "check_name": "inconsistency", "variant": variant, "axis": axis,
                         "statistic": "share of pairs whose two orders disagree (scored as tie)",
                         "estimate": k / n if n else np.nan, "ci_low": lo, "ci_high": hi, "p_value": np.nan,
                         "n": n, "note": None})
        keys = ["judge_id", "variant", "sample_id", "candidate_a", "candidate_b"]
        for (judge_id, variant), g in scoped.groupby(["judge_id", "variant"]):
            wide = g.pivot_table(index=keys, columns="axis", values="score_a", aggfunc="first")
            for x, y in combinations(sorted(wide.columns), 2):
                both = wide[[x, y]].dropna()
                r = pearson(both[x], both[y])
                rows.append({"judge_id": judge_id, "check_name": "axis_correlation", "variant": variant,
                             "axis": f"{x}~{y}", "statistic": "Pearson r of pair scores (1 / 0.5 / 0) between axes",
                             "estimate": r.r, "ci_low": np.nan, "ci_high": np.nan, "p_value": r.p_value,
                             "n": r.n, "note": r.reason})
    return typed(rows, BIAS_SCHEMA)


# --- agreement and the alt-test -------------------------------------------------------------------

AGREEMENT_SCHEMA = {
    "judge_1": "string", "judge_2": "string", "comparison": "string", "axis": "string", "n_pairs": "int",
    "agreement": "float", "kappa": "float",
}
PAIR_KEY = ["sample_id", "variant", "candidate_a", "candidate_b"]


def _with_instance_ids(pairs: pd.DataFrame) -> pd.DataFrame:
    ids = ["|".join(map(str, k)) for k in pairs[PAIR_KEY].itertuples(index=False, name=None)]
    return pairs.assign(instance_id=pd.Series(ids, index=pairs.index, dtype="object"))


def _labels(pairs: pd.DataFrame) -> pd.DataFrame:
    return _with_instance_ids(pairs[pairs["is_complete"].fillna(False).astype(bool)])


def human_majority(labels: pd.DataFrame) -> pd.DataFrame:
    """Per instance and axis the humans' majority verdict; no strict majority -> no label."""
    h = labels[labels["judge_kind"] == "human"]
    rows = []
    for (iid, axis), g in h.groupby(["instance_id", "axis"]):
        counts = g["final_verdict"].value_counts()
        if len(counts) and counts.iloc[0] * 2 > counts.sum():
            rows.append({"instance_id": iid, "axis": axis, "final_verdict": counts.index[0]})
    return pd.DataFrame(rows, columns=["instance_id", "axis", "final_verdict"])


def agreement(pairs: pd.DataFrame) -> pd.DataFrame:
    lab = _labels(pairs)
    kinds = dict(zip(lab["judge_id"], lab["judge_kind"]))
    majority = human_majority(lab).assign(judge_id="human-majority", judge_kind="human-majority")
    lab = pd.concat([lab, majority], ignore_index=True) if len(majority) else lab
    if len(majority):
        kinds["human-majority"] = "human-majority"
    rows = []
    for axis, g in lab.groupby("axis"):
        wide = g.pivot_table(index="instance_id", columns="judge_id", values="final_verdict", aggfunc="first")
        for j1, j2 in combinations(sorted(wide.columns), 2):
            k1, k2 = sorted([kinds[j1], kinds[j2]])
            if "human-majority" in (k1, k2) and {k1, k2} & {"human"}:
                continue  # a human against a majority that includes them is not an agreement check
            both = wide[[j1, j2]].dropna()
            if both.empty:
                continue
            k = js.cohen_kappa(both[j1], both[j2])
            rows.append({"judge_1": j1, "judge_2": j2, "comparison": f"{k1}-{k2}", "axis": axis,
                         "n_pairs": k["n"], "agreement": k["agreement"], "kappa": k["kappa"]})
    return typed(rows, AGREEMENT_SCHEMA)


ALT_SCHEMA = {
    "judge_id": "string", "axis": "string", "epsilon": "float", "q": "float", "winning_rate": "float",
    "advantage_probability": "float", "passed": "bool", "n_annotators": "int", "n_instances": "int",
    "n_missing": "int", "winning_rate_answered_only": "float", "annotators": "string", "note": "string",
}


def alt_tests(pairs: pd.DataFrame, *, epsilon: float, q: float = 0.05, min_instances_per_human: int = 30) -> pd.DataFrame:
    lab = _labels(pairs)
    asked = _with_instance_ids(pairs[pairs["judge_kind"] == "llm"])
    humans = lab[lab["judge_kind"] == "human"]
    rows = []
    if humans["judge_id"].nunique() >= 2:
        for judge_id in sorted(asked["judge_id"].unique()):
            for axis in sorted(humans["axis"].unique()):
                h = humans[humans["axis"] == axis].rename(columns={"judge_id": "annotator_id", "final_verdict": "label"})
                # every pair the LLM judge was asked about: an unparsed one is a missing answer,
                # which the Alt-Test counts against the judge
                m = asked[(asked["judge_id"] == judge_id) & (asked["axis"] == axis)]
                answers = m["final_verdict"].where(m["is_complete"].fillna(False).astype(bool), None)
                res = alt_test(h[["annotator_id", "instance_id", "label"]],
                               pd.Series(answers.to_numpy(), index=m["instance_id"], dtype="object"),
                               epsilon=epsilon, q=q, scoring="accuracy", min_instances_per_human=min_instances_per_human)
                per = res.per_annotator.replace({np.nan: None}).to_dict("records")
                rows.append({"judge_id": judge_id, "axis": axis, "epsilon": epsilon, "q": q,
                             "winning_rate": res.winning_rate, "advantage_probability": res.advantage_probability,
                             "passed": res.passed, "n_annotators": res.n_annotators_tested,
                             "n_instances": res.n_instances, "n_missing": res.n_missing_model,
                             "winning_rate_answered_only": res.winning_rate_answered_only, "annotators": json.dumps(per, ensure_ascii=False, default=str),
                             "note": res.note})
    return typed(rows, ALT_SCHEMA)
