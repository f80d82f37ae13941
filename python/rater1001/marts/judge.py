"""models/marts/judge: the judge marts as functions of frames. Every statistic comes from
rater1001.stats.judge / stats.alt_test / stats.terms; the judge run, plan and parse code is in
rater1001.runs.judge.

Inputs are the warehouse relations: verdicts_long (int_judge_verdicts_long: one row per call and axis),
pair_verdicts (this module's consolidate -> judge_pair_verdicts), candidates (stg_judge_candidates),
calls (stg_judge_verdicts) and the candidate catalog seed. Every output has a fixed schema, also when
the inputs are empty.

Category groups. The log's per-category review item: Korean-specific emotions (정, 한, 공명) against general
emotions, per judge. Which categories are Korean-specific is data (seeds/judge_category_groups.csv);
every other category is general.

Two readings: the win rate against the anchor in each group and their difference (does a candidate
do worse on Korean-specific emotions, as a judge sees it), and the agreement between judges in each
group (a judge that cannot read 한 agrees less with the others there: the log's Bias 4 check with a
second judge).

Reasons. The judges' reason texts (the log's 이유 line), read two ways: the most distinctive terms per
verdict and axis (weighted log-odds with an informative Dirichlet prior, rater1001.stats.terms),
and a few reasons per cell of the win-rate table, so a reader sees what a number is made of.

Both read anchor pairs only (every candidate against the anchor), from the candidate's side, like
judge_win_rates; a round-robin's model-vs-model pairs have no "preferred the anchor" reading.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from itertools import combinations

import numpy as np
import pandas as pd

from ..stats import bradley_terry as bt
from ..stats import judge as js
from ..stats import kappa, logistic, proportions, welch
from ..stats.agreement import pearson
from ..stats.alpha import alpha as js_alpha
from ..stats.alt_test import alt_test
from ..stats.judge import winner_of
from ..stats.terms import DEFAULT_PRIOR_TOTAL, log_odds_dirichlet, tokenize
from ._shared import ALL, anchor_of, as_frame, declared, typed, with_origin


def _groups(*keys: np.ndarray, scoped: int | None = None) -> list[tuple[tuple, np.ndarray]]:
    """Positions per distinct key (a tuple of the `keys` columns' values), keys in sorted order and
    positions in row order, as pandas' groupby(sort=True) gives them (a key with a NULL left out).
    With `scoped` = k, each row is also in the key whose k-th part is 'all' (listed after its own
    positions when both are the same key)."""
    out: dict[tuple, list[int]] = {}
    scoped_out: dict[tuple, list[int]] = {}
    for pos, key in enumerate(zip(*keys)):
        if not any(pd.isna(x) for x in key):
            out.setdefault(key, []).append(pos)
        if scoped is not None:
            pooled = key[:scoped] + (ALL,) + key[scoped + 1 :]
            if not any(pd.isna(x) for x in pooled):
                scoped_out.setdefault(pooled, []).append(pos)
    for key, at in scoped_out.items():  # the 'all' copies come first in a concat([all, own]) frame
        out[key] = at + out.get(key, [])
    return [(key, np.asarray(at, dtype=int)) for key, at in sorted(out.items())]


# --- consistency ----------------------------------------------------------------------------------


def pair_verdicts(verdicts_long: pd.DataFrame, dialogues: pd.DataFrame) -> pd.DataFrame:
    pairs = js.consolidate_orders(verdicts_long)
    pairs["category"] = pairs["sample_id"].map(dict(zip(dialogues["sample_id"], dialogues["category"])))
    pairs["is_complete"] = pairs["final_verdict"].notna()
    pairs["winner_candidate"] = (
        np.select(
            [pairs["final_verdict"].eq("a"), pairs["final_verdict"].eq("b"), pairs["final_verdict"].eq("tie")],
            [pairs["candidate_a"], pairs["candidate_b"], "tie"],
            default=None,
        )
        if len(pairs)
        else []
    )
    return typed(pairs, declared("judge_pair_verdicts"))


# --- win rates against the anchor -----------------------------------------------------------------


def anchor_outcomes(pairs: pd.DataFrame, anchor: str) -> pd.DataFrame:
    """Pairs with the anchor, from the other candidate's side: outcome win / tie / loss."""
    p = pairs[(pairs["candidate_a"] == anchor) ^ (pairs["candidate_b"] == anchor)].copy()
    model_is_a = p["candidate_b"] == anchor
    p["candidate_id"] = np.where(model_is_a, p["candidate_a"], p["candidate_b"])
    verdict = p["final_verdict"].astype("object")
    model_side = np.where(model_is_a, "a", "b")
    p["outcome"] = (
        np.select([verdict.isna(), verdict.eq("tie"), verdict.eq(model_side)], [None, "tie", "win"], default="loss")
        if len(p)
        else []
    )
    return p


def win_rates(pairs: pd.DataFrame, anchor: str | None, *, by_category: bool = False) -> pd.DataFrame:
    """Win rates against the anchor; empty for a study without one (judge_pairwise_win_rates has
    every pair)."""
    o = anchor_outcomes(pairs, anchor) if anchor is not None else pairs.iloc[:0]
    rows = []
    if len(o):
        # Per variant and pooled ('all'); by category, the category x variant split of the log's
        # per-category and per-variant patterns.
        o = pd.concat([o, o.assign(variant=ALL)], ignore_index=True)
        if not by_category:
            o["category"] = ALL
        keys = ["judge_id", "judge_kind", "candidate_id", "variant", "category", "axis"]
        rows = js.win_rate_summaries(js.outcome_counts(o, keys)).reset_index().assign(anchor_id=anchor)
    return typed(rows, declared("judge_category_win_rates" if by_category else "judge_win_rates"))


def pairwise_win_rates(pairs: pd.DataFrame) -> pd.DataFrame:
    """The pairwise win matrix, one row per (judge, variant incl. 'all', axis, candidate, opponent)
    and both directions: wins / ties / losses of candidate against opponent, win rate with ties as
    half wins and its Wilson interval, a pair without a verdict counted against the candidate (as in
    judge_win_rates). Every design has it; in a study without an anchor it is the win-rate table."""
    rows = []
    if len(pairs):
        verdict = pairs["final_verdict"].astype("object")
        sides = []
        for me, other, mine in (("candidate_a", "candidate_b", "a"), ("candidate_b", "candidate_a", "b")):
            outcome = np.select(
                [verdict.isna(), verdict.eq("tie"), verdict.eq(mine)], [None, "tie", "win"], default="loss"
            )
            sides.append(
                pairs.assign(
                    candidate_id=pairs[me],
                    opponent_id=pairs[other],
                    outcome=pd.Series(outcome, index=pairs.index, dtype="object"),
                )
            )
        o = pd.concat(sides, ignore_index=True)
        o = pd.concat([o, o.assign(variant=ALL)], ignore_index=True)
        keys = ["judge_id", "judge_kind", "variant", "axis", "candidate_id", "opponent_id"]
        rows = js.win_rate_summaries(js.outcome_counts(o, keys)).reset_index()
    return typed(rows, declared("judge_pairwise_win_rates"))


# --- Bradley-Terry --------------------------------------------------------------------------------

BT_OUTCOME = {"a": "i", "b": "j", "tie": "tie"}  # a pair's final verdict as a comparison of item_i and item_j


def _bt_designs(a: np.ndarray, b: np.ndarray, anchor: str | None) -> list[tuple[str, np.ndarray]]:
    """The comparison sets fitted for one (judge, variant, axis), as positions in its candidate
    columns `a` and `b`: the anchor's pairs when there is an anchor, and all pairs (named
    round_robin when every two candidates met, else all_pairs) when some pair does not involve
    the anchor."""
    touches = np.zeros(len(a), dtype=bool) if anchor is None else (a == anchor) | (b == anchor)
    designs = [("anchor_only", np.flatnonzero(touches))] if anchor is not None else []
    if (~touches).any():
        items = set(a) | set(b)
        met = {frozenset(p) for p in zip(a, b)}
        complete = len(met) == len(items) * (len(items) - 1) // 2
        designs.append(("round_robin" if complete else "all_pairs", np.arange(len(a))))
    return [(name, d) for name, d in designs if len(d)]


def _reference(comps: pd.DataFrame, items: list[str]) -> str:
    """Without an anchor: the first candidate (in sort order) with a finite strength (a win or tie
    and a loss or tie), so the others are not measured against a candidate at -inf or +inf."""
    wins = pd.concat([comps.loc[comps["outcome"] == "i", "item_i"], comps.loc[comps["outcome"] == "j", "item_j"]])
    losses = pd.concat([comps.loc[comps["outcome"] == "j", "item_i"], comps.loc[comps["outcome"] == "i", "item_j"]])
    ties = pd.concat([comps.loc[comps["outcome"] == "tie", c] for c in ("item_i", "item_j")])
    up, down = set(wins) | set(ties), set(losses) | set(ties)
    return next((it for it in items if it in up and it in down), items[0])


def bradley_terry(pairs: pd.DataFrame, anchor: str | None) -> pd.DataFrame:
    """Davidson Bradley-Terry strengths per judge, variant (and 'all'), axis and design. On a
    comparison graph that is not connected each component is fitted on its own, relative to the
    anchor when it is in the component, else to its first candidate with a finite strength, and
    every row's note names the components: strengths of two components are not on one scale."""
    complete = pairs[pairs["is_complete"].fillna(False).astype(bool)]
    # plain object columns; a (judge, variant incl. 'all', axis) group is a set of positions
    judge, variant, axis, cand_a, cand_b, verdict = (
        complete[c].to_numpy(object)
        for c in ("judge_id", "variant", "axis", "candidate_a", "candidate_b", "final_verdict")
    )
    outcome = np.array([BT_OUTCOME.get(v) for v in verdict], dtype=object)
    rows = []
    # (a fit does not depend on the order of its comparisons: the likelihood sums sorted pairs)
    for (judge_id, variant_id, axis_id), at in _groups(judge, variant, axis, scoped=1):
        a, b = cand_a[at], cand_b[at]
        for design, d in _bt_designs(a, b, anchor):
            comps = pd.DataFrame({"item_i": a[d], "item_j": b[d], "outcome": outcome[at[d]]}, dtype=object)
            parts = bt.comparison_components(comps)
            split = None
            if len(parts) > 1:
                split = "comparison graph not connected, strengths comparable within a component only: " + " | ".join(
                    f"component {k} {{{', '.join(p)}}}" for k, p in enumerate(parts, start=1)
                )
            for k, part in enumerate(parts, start=1):
                sub = comps if len(parts) == 1 else comps[comps["item_i"].isin(part)]
                reference = anchor if anchor in part else _reference(sub, part)
                fit = bt.bradley_terry_davidson(sub, reference=reference)
                for r in fit.strengths.itertuples(index=False):
                    own = r.note if isinstance(r.note, str) else None
                    note = own if split is None else "; ".join(x for x in (own, f"in component {k}; {split}") if x)
                    rows.append(
                        {
                            "judge_id": judge_id,
                            "design": design,
                            "variant": variant_id,
                            "axis": axis_id,
                            "candidate_id": r.item,
                            "log_strength": r.log_strength,
                            "se": r.se,
                            "ci_low": r.ci_low,
                            "ci_high": r.ci_high,
                            "n_comparisons": r.n_comparisons,
                            "tie_parameter": fit.tie_parameter,
                            "reference_id": reference,
                            "tie_model": "davidson",
                            "note": note,
                        }
                    )
    return typed(rows, declared("judge_bradley_terry"))


# --- bias checks ----------------------------------------------------------------------------------


def candidate_contrasts(first, second) -> np.ndarray | None:
    """Bradley-Terry design columns I[c shown first] - I[c shown second], one per candidate but the
    first in sort order (the reference), so a length effect is not confounded with who is compared."""
    first, second = np.asarray(first, dtype=object), np.asarray(second, dtype=object)  # not value by value from Arrow
    ids = sorted(set(first) | set(second))
    cols = [(first == c).astype(float) - (second == c).astype(float) for c in ids[1:]]
    cols = [c for c in cols if np.any(c != 0)]
    return np.column_stack(cols) if cols else None


def bias_checks(verdicts_long: pd.DataFrame, pairs: pd.DataFrame, candidates: pd.DataFrame) -> pd.DataFrame:
    rows = []
    length = {
        (s, c, v): n
        for s, c, v, n in zip(
            *(candidates[k].to_numpy(object) for k in ("sample_id", "candidate_id", "variant", "response_chars"))
        )
    }
    by_sample_cand = {}
    for (s, c, v), n in length.items():
        if v == "text" or (s, c) not in by_sample_cand:
            by_sample_cand[(s, c)] = n

    def chars(s, c, v):
        n = length.get((s, c, v), by_sample_cand.get((s, c)))
        return np.nan if n is None or pd.isna(n) else n

    # plain object and float columns, each (judge, variant incl. 'all', axis) a set of positions
    llm = verdicts_long[verdicts_long["judge_kind"] == "llm"]
    judge, sample, variant, cand_a, cand_b, order, axis, verdict = (
        llm[c].to_numpy(object)
        for c in (
            "judge_id",
            "sample_id",
            "variant",
            "candidate_a",
            "candidate_b",
            "presentation_order",
            "axis",
            "position_verdict",
        )
    )
    if len(llm):
        ab = order == "AB"
        first, second = np.where(ab, cand_a, cand_b), np.where(ab, cand_b, cand_a)
        len_first = np.array([chars(s, c, v) for s, c, v in zip(sample, first, variant)], dtype=float)
        len_second = np.array([chars(s, c, v) for s, c, v in zip(sample, second, variant)], dtype=float)
        # Position bias only where a pair was shown in both orders: with one order per pair, which
        # response came first is tied to which candidates were compared (docs/judge.md, "Orders").
        orders_seen: dict[tuple, set] = {}
        pair_of = list(zip(judge, sample, variant, cand_a, cand_b, axis))
        keyed = [not any(pd.isna(x) for x in key) for key in pair_of]  # a pair with a NULL key is no pair
        for key, o, ok in zip(pair_of, order, keyed):
            if ok and pd.notna(o):
                orders_seen.setdefault(key, set()).add(o)
        both_orders = np.array(
            [ok and len(orders_seen.get(key, ())) == 2 for key, ok in zip(pair_of, keyed)], dtype=bool
        )
        decisive_all = np.isin(verdict, ["1", "2"])
        for (judge_id, variant_id, axis_id), at in _groups(judge, variant, axis, scoped=1):
            decisive = at[decisive_all[at]]
            paired = decisive[both_orders[decisive]]
            n_first = int((verdict[paired] == "1").sum())
            pb = proportions.position_bias_test(n_first, len(paired) - n_first)
            n_ties = int((verdict[at] == "tie").sum())
            n_single = int((~both_orders[at]).sum())
            note = f"{n_ties} tie verdicts not counted"
            if n_single:
                note += f"; {n_single} verdicts of pairs judged in one order only not counted" + (
                    "" if len(paired) else ": not estimated, no pair was judged in both orders"
                )
            rows.append(
                {
                    "judge_id": judge_id,
                    "check_name": "position_bias",
                    "variant": variant_id,
                    "axis": axis_id,
                    "statistic": (
                        "share of decisive single-order verdicts choosing 응답 1, pairs judged in both "
                        "orders (binomial test vs 0.5)"
                    ),
                    "estimate": pb.share_first,
                    "ci_low": pb.ci_low,
                    "ci_high": pb.ci_high,
                    "p_value": pb.p_value,
                    "n": pb.n_decisive,
                    "note": note,
                }
            )
            d = decisive[~(np.isnan(len_first[decisive]) | np.isnan(len_second[decisive]))]
            fit = logistic.logistic_slope(
                (verdict[d] == "1").astype(float),
                (len_first[d] - len_second[d]) / 100.0,
                candidate_contrasts(first[d], second[d]),
            )
            rows.append(
                {
                    "judge_id": judge_id,
                    "check_name": "verbosity",
                    "variant": variant_id,
                    "axis": axis_id,
                    "statistic": (
                        "logit slope of choosing 응답 1 per 100 characters of length advantage, "
                        "controlling for which candidates were compared (Bradley-Terry terms)"
                    ),
                    "estimate": fit.slope,
                    "ci_low": fit.ci_low,
                    "ci_high": fit.ci_high,
                    "p_value": fit.p_value,
                    "n": fit.n,
                    "note": fit.note or f"intercept (position log-odds at equal length) = {fit.intercept:.3f}",
                }
            )
    llm_pairs = pairs[(pairs["judge_kind"] == "llm") & pairs["is_complete"].fillna(False).astype(bool)]
    if len(llm_pairs):
        judge, sample, variant, cand_a, cand_b, axis = (
            llm_pairs[c].to_numpy(object)
            for c in ("judge_id", "sample_id", "variant", "candidate_a", "candidate_b", "axis")
        )
        consistent = llm_pairs["is_consistent"].to_numpy(object)
        score_a = llm_pairs["score_a"].to_numpy(float)
        for (judge_id, variant_id, axis_id), at in _groups(judge, variant, axis, scoped=1):
            at = at[[pd.notna(x) for x in consistent[at]]]  # a pair judged in one order has no consistency
            n = len(at)
            k = int(sum(not bool(x) for x in consistent[at]))
            ci = proportions.wilson_interval(k, n)
            rows.append(
                {
                    "judge_id": judge_id,
                    "check_name": "inconsistency",
                    "variant": variant_id,
                    "axis": axis_id,
                    "statistic": "share of pairs whose two orders disagree (scored as tie)",
                    "estimate": k / n if n else np.nan,
                    "ci_low": ci.lo,
                    "ci_high": ci.hi,
                    "p_value": np.nan,
                    "n": n,
                    "note": None if n else "not estimated: no pair was judged in both orders",
                }
            )
        for (judge_id, variant_id), at in _groups(judge, variant, scoped=1):
            # the pivot of pair scores: one row per pair (sorted), one column per axis with a
            # score (the first one of the pair's rows), as pivot_table(aggfunc="first") gives it
            wide: dict[tuple, dict] = {}
            for pos in at:
                key = (sample[pos], cand_a[pos], cand_b[pos])
                if not any(pd.isna(x) for x in key) and pd.notna(axis[pos]) and not np.isnan(score_a[pos]):
                    wide.setdefault(key, {}).setdefault(axis[pos], score_a[pos])
            keys = sorted(wide)
            axes = sorted({a for scores in wide.values() for a in scores})
            for x, y in combinations(axes, 2):
                r = pearson(
                    np.array([wide[key].get(x, np.nan) for key in keys], dtype=float),
                    np.array([wide[key].get(y, np.nan) for key in keys], dtype=float),
                )
                rows.append(
                    {
                        "judge_id": judge_id,
                        "check_name": "axis_correlation",
                        "variant": variant_id,
                        "axis": f"{x}~{y}",
                        "statistic": "Pearson r of pair scores (1 / 0.5 / 0) between axes",
                        "estimate": r.r,
                        "ci_low": np.nan,
                        "ci_high": np.nan,
                        "p_value": r.p_value,
                        "n": r.n,
                        "note": r.reason,
                    }
                )
    return typed(rows, declared("judge_bias_checks"))


# --- agreement and the alt-test -------------------------------------------------------------------

PAIR_KEY = ["sample_id", "variant", "candidate_a", "candidate_b"]


def _with_instance_ids(pairs: pd.DataFrame) -> pd.DataFrame:
    # the key columns as plain objects: iterating Arrow-backed rows value by value was the cost
    ids = ["|".join(map(str, k)) for k in zip(*(pairs[c].to_numpy(object) for c in PAIR_KEY))]
    return pairs.assign(instance_id=pd.Series(ids, index=pairs.index, dtype="object"))


def _labels(pairs: pd.DataFrame) -> pd.DataFrame:
    return _with_instance_ids(pairs[pairs["is_complete"].fillna(False).astype(bool)])


def human_majority(labels: pd.DataFrame) -> pd.DataFrame:
    """Per instance and axis the humans' majority verdict; no strict majority -> no label."""
    h = labels[labels["judge_kind"] == "human"]
    votes: dict[tuple, Counter] = {}
    for iid, axis, verdict in zip(*(h[c].to_numpy(object) for c in ("instance_id", "axis", "final_verdict"))):
        if pd.notna(iid) and pd.notna(axis):
            tally = votes.setdefault((iid, axis), Counter())
            if pd.notna(verdict):
                tally[verdict] += 1
    rows = []
    for (iid, axis), tally in sorted(votes.items()):
        if tally:
            verdict, top = tally.most_common(1)[0]
            if top * 2 > sum(tally.values()):  # a strict majority is the only one
                rows.append({"instance_id": iid, "axis": axis, "final_verdict": verdict})
    return pd.DataFrame(rows, columns=["instance_id", "axis", "final_verdict"])


def agreement(pairs: pd.DataFrame) -> pd.DataFrame:
    lab = _labels(pairs)
    kinds = dict(zip(lab["judge_id"], lab["judge_kind"]))
    majority = human_majority(lab).assign(judge_id="human-majority", judge_kind="human-majority")
    lab = pd.concat([lab, majority], ignore_index=True) if len(majority) else lab
    if len(majority):
        kinds["human-majority"] = "human-majority"
    # per axis, each judge's first verdict per instance (the pivot of instances x judges)
    wide: dict[str, dict[str, dict]] = {}
    for axis, judge_id, iid, verdict in zip(
        *(lab[c].to_numpy(object) for c in ("axis", "judge_id", "instance_id", "final_verdict"))
    ):
        if not any(pd.isna(x) for x in (axis, judge_id, iid, verdict)):
            wide.setdefault(axis, {}).setdefault(judge_id, {}).setdefault(iid, verdict)
    rows = []
    for axis, judges in sorted(wide.items()):
        for j1, j2 in combinations(sorted(judges), 2):
            k1, k2 = sorted([kinds[j1], kinds[j2]])
            if "human-majority" in (k1, k2) and {k1, k2} & {"human"}:
                continue  # a human against a majority that includes them is not an agreement check
            both = [iid for iid in judges[j1] if iid in judges[j2]]
            if not both:
                continue
            k = kappa.cohen_kappa([judges[j1][i] for i in both], [judges[j2][i] for i in both])
            rows.append(
                {
                    "judge_1": j1,
                    "judge_2": j2,
                    "comparison": f"{k1}-{k2}",
                    "axis": axis,
                    "n_pairs": k.n,
                    "agreement": k.agreement,
                    "kappa": k.kappa,
                }
            )
    return typed(rows, declared("judge_agreement"))


def _alt_test_status(res, n_asked: int) -> tuple[str, str | None]:
    """passed / failed / not evaluable, and why it is not evaluable: a test with no annotator to
    compare with, or with no verdict of the judge to compare, tests nothing, so it cannot fail."""
    if res.n_annotators_tested == 0:
        return "not evaluable", res.note
    if res.n_instances and res.n_missing_model >= res.n_instances:
        return "not evaluable", (
            f"the judge has no verdict on any of the {res.n_instances} instances the humans labelled "
            f"({n_asked} pairs asked; a pair without a final verdict is incomplete, docs/judge.md)"
        )
    return ("passed" if res.passed else "failed"), res.note


def alt_tests(
    pairs: pd.DataFrame, *, epsilon: float, q: float = 0.05, min_instances_per_human: int = 30
) -> pd.DataFrame:
    """The Alt-Test of every LLM judge on every axis against the human annotators. A test with
    nothing to test (fewer than two humans, no annotator with enough instances, no judge verdict
    on the humans' instances) is a row with status 'not evaluable', passed NULL and the reason."""
    lab = _labels(pairs)
    asked = _with_instance_ids(pairs[pairs["judge_kind"] == "llm"])
    humans = lab[lab["judge_kind"] == "human"]
    n_humans = humans["judge_id"].nunique()
    rows = []
    for judge_id in sorted(asked["judge_id"].unique()):
        mine = asked[asked["judge_id"] == judge_id]
        for axis in sorted(mine["axis"].unique()):
            m = mine[mine["axis"] == axis]
            base = {"judge_id": judge_id, "axis": axis, "epsilon": epsilon, "q": q}
            h = humans[humans["axis"] == axis]
            if h["judge_id"].nunique() < 2:
                rows.append(
                    {
                        **base,
                        "status": "not evaluable",
                        "n_annotators": 0,
                        "n_instances": 0,
                        "n_missing": 0,
                        "note": f"not evaluable: {h['judge_id'].nunique()} human annotator(s) on this axis "
                        f"({n_humans} in the study); the Alt-Test needs at least two",
                    }
                )
                continue
            h = h.rename(columns={"judge_id": "annotator_id", "final_verdict": "label"})
            # every pair the LLM judge was asked about: an unparsed one is a missing answer,
            # which the Alt-Test counts against the judge
            answers = m["final_verdict"].where(m["is_complete"].fillna(False).astype(bool), None)
            res = alt_test(
                h[["annotator_id", "instance_id", "label"]],
                pd.Series(answers.to_numpy(), index=m["instance_id"], dtype="object"),
                epsilon=epsilon,
                q=q,
                scoring="accuracy",
                min_instances_per_human=min_instances_per_human,
            )
            status, why = _alt_test_status(res, len(m))
            evaluable = status != "not evaluable"
            per = res.per_annotator.replace({np.nan: None}).to_dict("records")
            rows.append(
                {
                    **base,
                    "winning_rate": res.winning_rate if evaluable else np.nan,
                    "advantage_probability": res.advantage_probability if evaluable else np.nan,
                    "passed": res.passed if evaluable else None,
                    "status": status,
                    "n_annotators": res.n_annotators_tested,
                    "n_instances": res.n_instances,
                    "n_missing": res.n_missing_model,
                    "winning_rate_answered_only": res.winning_rate_answered_only if evaluable else np.nan,
                    "annotators": json.dumps(per, ensure_ascii=False, default=str),
                    "note": why if evaluable else f"not evaluable: {why}",
                }
            )
    return typed(rows, declared("judge_alt_test"))


HUMANS_ONLY = "(humans only)"  # the judge_id of the humans' own alpha row


def human_alpha(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per axis: Krippendorff's alpha (nominal over a / b / tie) of the human annotators, and for
    each LLM judge the alpha with the judge as one more annotator on the humans' instances and the
    difference (delta alpha), the pairwise twin of the face study's alpha_delta."""
    lab = _labels(pairs)
    humans = lab[lab["judge_kind"] == "human"]
    rows = []
    for axis, h in humans.groupby("axis"):
        base = js_alpha(h[["instance_id", "final_verdict"]], level="nominal", unit="instance_id", value="final_verdict")
        common = {
            "axis": axis,
            "n_human_annotators": h["judge_id"].nunique(),
            "alpha_humans": base.alpha,
            "n_units_humans": base.n_units,
        }
        rows.append({**common, "judge_id": HUMANS_ONLY, "note": base.reason})
        llm = lab[(lab["judge_kind"] == "llm") & (lab["axis"] == axis) & lab["instance_id"].isin(h["instance_id"])]
        for judge_id, j in llm.groupby("judge_id"):
            both = pd.concat([h, j], ignore_index=True)[["instance_id", "final_verdict"]]
            ext = js_alpha(both, level="nominal", unit="instance_id", value="final_verdict")
            rows.append(
                {
                    **common,
                    "judge_id": judge_id,
                    "alpha_with_judge": ext.alpha,
                    "delta_alpha": ext.alpha - base.alpha,
                    "n_units_with_judge": ext.n_units,
                    "note": ext.reason or base.reason,
                }
            )
    return typed(rows, declared("judge_human_alpha"))


# --- category groups (Korean-specific against general emotions) -------------------------------------

KOREAN, GENERAL = "korean_specific", "general"


SCORES = {"win": 1.0, "tie": 0.5, "loss": 0.0}


def group_of(categories: pd.Series, groups: pd.DataFrame) -> pd.Series:
    declared = dict(zip(groups["category"], groups["category_group"]))
    return categories.map(lambda c: declared.get(c, GENERAL)).astype("object")


def category_group_win_rates(pairs: pd.DataFrame, anchor: str | None, groups: pd.DataFrame) -> pd.DataFrame:
    """Per (judge, candidate, variant incl. 'all', axis): the win rate against the anchor on the
    Korean-specific categories and on the general ones, and Korean minus general (Welch interval
    on the pair scores). A pair without a verdict scores 0, as in judge_win_rates."""
    o = anchor_outcomes(pairs, anchor) if anchor is not None else pairs.iloc[:0]
    rows = []
    if len(o):
        o = o.assign(category_group=group_of(o["category"], groups))
        o = pd.concat([o, o.assign(variant=ALL)], ignore_index=True)
        keys = ["judge_id", "judge_kind", "candidate_id", "variant", "axis"]
        # the counts of both groups in one pass (a key with no pair of a group counts zeros there)
        counts = js.outcome_counts(o, [*keys, "category_group"]).unstack("category_group", fill_value=0)
        summary = {
            side: js.win_rate_summaries(
                counts.xs(side, axis=1, level="category_group")
                if side in counts.columns.get_level_values("category_group")
                else pd.DataFrame(0, index=counts.index, columns=["wins", "ties", "losses", "n_incomplete"])
            )
            for side in (KOREAN, GENERAL)
        }
        score = o["outcome"].map(SCORES).fillna(0.0).to_numpy(float)
        korean = (o["category_group"] == KOREAN).to_numpy()
        general = (o["category_group"] == GENERAL).to_numpy()
        category = o["category"].to_numpy(object)
        at = o.groupby(keys, dropna=False, sort=True).indices
        # each side's summary rows as dicts once, not a MultiIndex lookup per key
        by_key = {side: frame.to_dict("index") for side, frame in summary.items()}
        for key in counts.index:
            idx = at[key]
            k, gen = idx[korean[idx]], idx[general[idx]]
            diff = welch.score_difference(score[k], score[gen])
            ks, gs = by_key[KOREAN][key], by_key[GENERAL][key]
            rows.append(
                {
                    **dict(zip(keys, key)),
                    "anchor_id": anchor,
                    "korean_categories": ", ".join(sorted(pd.unique(category[k][pd.notna(category[k])]))) or None,
                    "korean_n_pairs": ks["n_pairs"],
                    "korean_win_rate": ks["win_rate"],
                    "korean_ci_low": ks["win_rate_ci_low"],
                    "korean_ci_high": ks["win_rate_ci_high"],
                    "general_n_pairs": gs["n_pairs"],
                    "general_win_rate": gs["win_rate"],
                    "general_ci_low": gs["win_rate_ci_low"],
                    "general_ci_high": gs["win_rate_ci_high"],
                    "difference": diff.difference,
                    "difference_ci_low": diff.ci_low,
                    "difference_ci_high": diff.ci_high,
                    "p_value": diff.p_value,
                    "note": diff.note,
                }
            )
    return typed(rows, declared("judge_category_group_win_rates"))


def category_group_agreement(pairs: pd.DataFrame, groups: pd.DataFrame) -> pd.DataFrame:
    """judge_agreement (Cohen's kappa between every two judges, and each judge against the human
    majority) within each category group."""
    frames = []
    if len(pairs):
        grouped = pairs.assign(category_group=group_of(pairs["category"], groups))
        for name in (KOREAN, GENERAL):
            a = agreement(grouped[grouped["category_group"] == name].drop(columns="category_group"))
            frames.append(a.assign(category_group=name))
    rows = pd.concat(frames, ignore_index=True) if frames else []
    return typed(rows, declared("judge_category_group_agreement"))


# --- the judges' reasons ----------------------------------------------------------------------------

VERDICT_CLASSES = {"win": "candidate_preferred", "loss": "anchor_preferred", "tie": "tie"}


def axes_of(calls: pd.DataFrame) -> list[str]:
    return [c.removeprefix("verdict_") for c in calls.columns if c.startswith("verdict_")]


def call_outcomes(calls: pd.DataFrame, anchor: str) -> pd.DataFrame:
    """LLM calls with a reason on anchor pairs, one row per call and axis: the call's own verdict
    (one order) from the candidate's side, win / tie / loss (NULL when the axis was not parsed)."""
    c = calls[
        (calls["judge_kind"] == "llm")
        & calls["reason"].notna()
        & ((calls["candidate_a"] == anchor) ^ (calls["candidate_b"] == anchor))
    ]
    rows = []
    # plain Python objects: iterating Arrow-backed columns value by value was most of the cost
    judge, order, reason = (c[col].to_numpy(object) for col in ("judge_id", "presentation_order", "reason"))
    sides = np.where((c["candidate_b"] == anchor).to_numpy(bool), "a", "b")
    for axis in axes_of(calls):
        for j, verdict, o, side, why in zip(judge, c[f"verdict_{axis}"].to_numpy(object), order, sides, reason):
            winner = winner_of(verdict, o)
            outcome = None if winner is None else "tie" if winner == "tie" else "win" if winner == side else "loss"
            rows.append((j, axis, outcome, why))
    return pd.DataFrame(rows, columns=["judge_id", "axis", "outcome", "reason"])


def reason_terms(
    calls: pd.DataFrame, anchor: str | None, *, top: int = 15, prior_total: float = DEFAULT_PRIOR_TOTAL
) -> pd.DataFrame:
    """Per (judge, axis, verdict class) the `top` terms most distinctive of that class's reasons
    against the judge's other reasons on the axis; the prior is all of the judge's reasons on it."""
    if anchor is None:  # no anchor: no "preferred the anchor" reading
        return typed([], declared("judge_reason_terms"))
    o = call_outcomes(calls, anchor).dropna(subset=["outcome"])
    rows = []
    for (judge_id, axis), g in o.groupby(["judge_id", "axis"]):
        bags = {k: Counter() for k in VERDICT_CLASSES}
        sizes = Counter(g["outcome"])
        for outcome, reason in zip(g["outcome"].to_numpy(object), g["reason"].to_numpy(object)):
            bags[outcome].update(tokenize(reason))
        everything = sum(bags.values(), Counter())
        for outcome, verdict in VERDICT_CLASSES.items():
            if not sizes[outcome]:
                continue
            rest = everything - bags[outcome]
            table = log_odds_dirichlet(bags[outcome], rest, everything, prior_total).head(top)
            for rank, t in enumerate(table.itertuples(index=False), start=1):
                rows.append(
                    {
                        "judge_id": judge_id,
                        "axis": axis,
                        "verdict": verdict,
                        "rank": rank,
                        "term": t.term,
                        "n_in_verdict": t.n_group,
                        "n_in_other_verdicts": t.n_rest,
                        "log_odds": t.log_odds,
                        "se": t.se,
                        "z": t.z,
                        "n_reasons": sizes[outcome],
                        "prior_total": prior_total,
                    }
                )
    return typed(rows, declared("judge_reason_terms"))


def _stable_order(*parts: str) -> str:
    """A reproducible pseudo-random order (no RNG state): the hash of the pair's identity."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def reason_samples(pairs: pd.DataFrame, calls: pd.DataFrame, anchor: str | None, *, per_cell: int = 2) -> pd.DataFrame:
    """Up to `per_cell` reasons per (judge, candidate, axis, outcome) of the win-rate table (variants
    pooled, the consolidated pair verdict as counted there); each is the reason the judge gave in
    the AB order (BA when AB has none). Chosen by a hash of the pair, so a rebuild shows the same."""
    if anchor is None:
        return typed([], declared("judge_reason_samples"))
    o = anchor_outcomes(pairs[pairs["judge_kind"] == "llm"], anchor).dropna(subset=["outcome"])
    if o.empty:
        return typed([], declared("judge_reason_samples"))
    key = ["judge_id", "sample_id", "variant", "candidate_a", "candidate_b"]
    why = calls[calls["reason"].notna()].sort_values("presentation_order").drop_duplicates(key)[key + ["reason"]]
    o = o.merge(why, on=key, how="inner")
    sample, variant, category, reason = (o[c].to_numpy(object) for c in ("sample_id", "variant", "category", "reason"))
    axes = o["axis"].to_numpy(object)
    rows = []
    for (judge_id, cid, axis, outcome), at in sorted(
        o.groupby(["judge_id", "candidate_id", "axis", "outcome"]).indices.items()
    ):
        # a stable sort by the hash (as pandas sorts a string column), the first `per_cell`
        chosen = sorted(at, key=lambda k: _stable_order(sample[k], variant[k], axes[k]))[:per_cell]
        for rank, k in enumerate(chosen, start=1):
            rows.append(
                {
                    "judge_id": judge_id,
                    "candidate_id": cid,
                    "anchor_id": anchor,
                    "axis": axis,
                    "outcome": outcome,
                    "n_pairs_with_outcome": len(at),
                    "sample_rank": rank,
                    "sample_id": sample[k],
                    "variant": variant[k],
                    "category": category[k],
                    "reason": reason[k],
                }
            )
    return typed(rows, declared("judge_reason_samples"))


# --- the dbt Python models (models/marts/judge/*.py) -------------------------------------------------


def judge_pair_verdicts(verdicts_long, dialogues, provenance) -> pd.DataFrame:
    return with_origin(pair_verdicts(as_frame(verdicts_long), as_frame(dialogues)), provenance)


def judge_win_rates(pairs, catalog, provenance) -> pd.DataFrame:
    pairs = as_frame(pairs)
    return with_origin(win_rates(pairs, anchor_of(catalog, pairs)), provenance)


def judge_category_win_rates(pairs, catalog, provenance) -> pd.DataFrame:
    pairs = as_frame(pairs)
    return with_origin(win_rates(pairs, anchor_of(catalog, pairs), by_category=True), provenance)


def judge_pairwise_win_rates(pairs, provenance) -> pd.DataFrame:
    return with_origin(pairwise_win_rates(as_frame(pairs)), provenance)


def judge_bradley_terry(pairs, catalog, provenance) -> pd.DataFrame:
    pairs = as_frame(pairs)
    return with_origin(bradley_terry(pairs, anchor_of(catalog, pairs)), provenance)


def judge_bias_checks(verdicts_long, pairs, candidates, provenance) -> pd.DataFrame:
    candidates = as_frame(candidates, ("sample_id", "candidate_id", "variant", "response_chars"))
    return with_origin(bias_checks(as_frame(verdicts_long), as_frame(pairs), candidates), provenance)


def judge_agreement(pairs, provenance) -> pd.DataFrame:
    return with_origin(agreement(as_frame(pairs)), provenance)


def judge_alt_test(pairs, provenance, *, epsilon=None, q=None, min_instances=None) -> pd.DataFrame:
    table = alt_tests(
        as_frame(pairs),
        epsilon=float(epsilon or 0.2),
        q=float(q or 0.05),
        min_instances_per_human=int(min_instances or 30),
    )
    return with_origin(table, provenance)


def judge_human_alpha(pairs, provenance) -> pd.DataFrame:
    return with_origin(human_alpha(as_frame(pairs)), provenance)


def judge_category_group_win_rates(pairs, catalog, groups, provenance) -> pd.DataFrame:
    pairs = as_frame(pairs)
    table = category_group_win_rates(pairs, anchor_of(catalog, pairs), as_frame(groups))
    return with_origin(table, provenance)


def judge_category_group_agreement(pairs, groups, provenance) -> pd.DataFrame:
    return with_origin(category_group_agreement(as_frame(pairs), as_frame(groups)), provenance)


# what the reason marts read of stg_judge_verdicts (not its raw answer texts)
CALL_COLUMNS = frozenset(
    "judge_id judge_kind sample_id variant candidate_a candidate_b presentation_order reason".split()
)


def _call_columns(name: str) -> bool:
    return name in CALL_COLUMNS or name.startswith("verdict_")


def judge_reason_terms(calls, catalog, provenance) -> pd.DataFrame:
    calls = as_frame(calls, _call_columns)
    return with_origin(reason_terms(calls, anchor_of(catalog, calls)), provenance)


def judge_reason_samples(pairs, calls, catalog, provenance) -> pd.DataFrame:
    pairs = as_frame(pairs)
    return with_origin(reason_samples(pairs, as_frame(calls, _call_columns), anchor_of(catalog, pairs)), provenance)
