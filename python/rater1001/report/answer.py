"""The report's first screen: the answer to "can this model replace my human raters?", read from the
marts. Nothing here computes a statistic: every number is one cell of one mart, and carries that
cell's address (table, column, key) so that the page links it to the table it comes from and a test
can read the same cell back from the warehouse."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from .applicability import not_applicable
from .reader import Unavailable, WarehouseReader

MEASURE_ORDER = ("classification",)  # then the model dimensions in the order the marts give them
VERDICT_WORDS = {"replaceable": "replaceable", "partial": "partly", "calibratable": "calibratable",
                 "not_replaceable": "not replaceable", "model_dependent": "model dependent"}
TOP_GAPS = 5


@dataclass
class Number:
    """One mart cell as shown: `text` is the formatted value; (table, column, key) is its address."""
    text: str
    table: str
    column: str
    key: dict
    value: object = None
    href: str = ""
    shown: str = ""        # the text a reader sees when it is not the value itself (verdict words)


@dataclass
class Estimate:
    label: str
    estimate: Number
    lo: Number | None = None
    hi: Number | None = None
    baseline: Number | None = None   # the human figure it is judged against
    baseline_label: str = "human"    # the word before the baseline in the page


@dataclass
class ConditionLine:
    name: str
    stands_in: str
    not_for: str
    estimates: dict[str, Estimate] = field(default_factory=dict)   # column label -> estimate
    passes: dict[tuple[str, str], Number] = field(default_factory=dict)   # (category, measure) -> passes?


@dataclass
class VerdictCell:
    category: str
    measure: str
    verdict: Number
    passing: Number


@dataclass
class JudgeLine:
    """One judge: per axis, each candidate's win rate against the anchor (none without an anchor),
    the position and verbosity checks, kappa with the human majority, the Alt-Test and delta alpha."""
    judge: str
    axes: list[str] = field(default_factory=list)
    candidates: list[str] = field(default_factory=list)
    cells: dict[tuple[str, str], Estimate] = field(default_factory=dict)   # (axis, column) -> estimate


@dataclass
class Answer:
    categories: list[str] = field(default_factory=list)
    measures: list[str] = field(default_factory=list)
    cells: list[VerdictCell] = field(default_factory=list)
    conditions: list[ConditionLine] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)     # headline-number columns of the condition lines
    gaps: list[Estimate] = field(default_factory=list)
    calibratable: list[tuple[str, str, Number]] = field(default_factory=list)   # (category, measure, candidates)
    judges: list[JudgeLine] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def numbers(self):
        for c in self.cells:
            yield from (c.verdict, c.passing)
        for line in self.conditions:
            yield from line.passes.values()
            for e in line.estimates.values():
                yield from _numbers_of(e)
        for e in self.gaps:
            yield from _numbers_of(e)
        for _, _, n in self.calibratable:
            yield n
        for j in self.judges:
            for e in j.cells.values():
                yield from _numbers_of(e)


def _numbers_of(e: Estimate):
    return [n for n in (e.estimate, e.lo, e.hi, e.baseline) if n is not None]


def _fmt(value, spec: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "—"
    return format(value, spec) if spec else str(value)


def _plain(v):
    return v.item() if hasattr(v, "item") else v


def _num(row, table: str, column: str, key_cols, spec: str = ".3f") -> Number:
    value = _plain(row[column])
    return Number(_fmt(value, spec), table, column, {k: _plain(row[k]) for k in key_cols}, value)


def _try(reader: WarehouseReader, tables, sql: str, notes: list[str], what: str) -> pd.DataFrame | None:
    try:
        reader.require(tables)
        return reader.query(sql)
    except Unavailable as exc:
        notes.append(f"{what}: {exc}")
        return None


def _names(reader: WarehouseReader) -> dict[str, str]:
    if not reader.has("stg_model_conditions"):
        return {}
    rows = reader.query("SELECT condition_id, coalesce(short_name, condition_id) AS name FROM stg_model_conditions")
    return dict(zip(rows["condition_id"], rows["name"]))


def _verdicts(reader, answer: Answer, categories: list[str], names: dict[str, str]) -> None:
    v = _try(reader, ["replaceability_verdicts"],
             "SELECT category, measure, verdict, n_conditions_passing, n_conditions, calibration_candidates "
             "FROM replaceability_verdicts", answer.notes, "verdict matrix")
    if v is None:
        return
    if v.empty:
        answer.notes.append("no verdict: " + (not_applicable(reader.shape_reasons, reader, ["replaceability_verdicts"])
                                              or "replaceability_verdicts has no rows"))
        return
    found = list(dict.fromkeys(v["category"]))
    answer.categories = [e for e in categories if e in found] + [e for e in found if e not in categories]
    measures = list(dict.fromkeys(v["measure"]))
    answer.measures = [m for m in MEASURE_ORDER if m in measures] + [m for m in measures if m not in MEASURE_ORDER]
    key = ("category", "measure")
    for _, row in v.iterrows():
        verdict = _num(row, "replaceability_verdicts", "verdict", key, "")
        verdict.shown = VERDICT_WORDS.get(verdict.text, verdict.text)
        answer.cells.append(VerdictCell(row["category"], row["measure"], verdict,
                                        _num(row, "replaceability_verdicts", "n_conditions_passing", key, "d")))
        if isinstance(row["calibration_candidates"], str) and row["calibration_candidates"]:
            candidates = _num(row, "replaceability_verdicts", "calibration_candidates", key, "")
            candidates.shown = ", ".join(names.get(c, c) for c in candidates.text.split(","))
            answer.calibratable.append((row["category"], row["measure"], candidates))
    order = {e: i for i, e in enumerate(answer.categories)}
    answer.cells.sort(key=lambda c: (order[c.category], answer.measures.index(c.measure)))
    answer.calibratable.sort(key=lambda c: (order[c[0]], answer.measures.index(c[1])))


def _where(passes: pd.DataFrame, measures, yes: bool, stratum: str = "category") -> str:
    parts = []
    for m in measures:
        cells = passes[(passes["measure"] == m) & (passes["condition_passes"] == yes)][stratum].tolist()
        total = int((passes["measure"] == m).sum())
        if not cells:
            continue
        parts.append(f"{m}: all {total}" if len(cells) == total else f"{m}: {', '.join(cells)}")
    return "; ".join(parts) or "nowhere"


def _conditions(reader, answer: Answer, names: dict[str, str]) -> None:
    # the view names its stratum column after the study's category ('scope' without one)
    stratum = (reader.columns.get("query_verdict_matrix") or ["category"])[0]
    matrix = _try(reader, ["query_verdict_matrix"],
                  f'SELECT "{stratum}", measure, condition_id, condition_passes FROM query_verdict_matrix',
                  answer.notes, "where each condition stands in")
    est = _try(reader, ["headline_intervals"],
               "SELECT condition_id, dimension, category, statistic, estimate, lo, hi FROM headline_intervals "
               "WHERE category = 'all' AND statistic IN ('delta_alpha', 'w1sd', 'kappa') AND condition_id <> 'human'",
               answer.notes, "headline numbers")
    # One read of zscore_summary: the human baseline's W1SD, and the dimensions a condition never
    # answered (a FER classifier has no valence). Those still have headline rows (the missing-answer
    # policy makes W1SD 0 and adds nothing to alpha); shown as numbers they read as a result, so the
    # line shows a dash and the note says why.
    zs = _try(reader, ["zscore_summary"],
              "SELECT condition_id, dimension, category, w1sd, n_images FROM zscore_summary WHERE category = 'all'",
              answer.notes, "human baseline W1SD")
    loo = zs[zs["condition_id"] == "human_loo"] if zs is not None else None
    unanswered = set() if zs is None else \
        set(zs.loc[(zs["n_images"] == 0) & (zs["condition_id"] != "human_loo"), ["condition_id", "dimension"]]
            .itertuples(index=False, name=None))
    if matrix is None and est is None:
        return
    pooled = list(matrix["condition_id"].unique()) if matrix is not None else []
    ids = pooled + [c for c in (est["condition_id"].unique() if est is not None else []) if c not in pooled]
    order = {e: i for i, e in enumerate(answer.categories)}
    baseline = {r["dimension"]: _num(r, "zscore_summary", "w1sd", ("condition_id", "dimension", "category"), ".2f")
                for _, r in (loo.iterrows() if loo is not None else [])}
    key = ("condition_id", "dimension", "category", "statistic")
    for cid in ids:
        if matrix is not None and cid in pooled:
            mine = matrix[matrix["condition_id"] == cid].copy()
            mine["o"] = mine[stratum].map(order)
            mine = mine.sort_values("o")
            stands = _where(mine, answer.measures, True, stratum)
            not_for = _where(mine, answer.measures, False, stratum)
        else:
            stands, not_for = "—", "not in the replaceability pool"
        line = ConditionLine(names.get(cid, cid), stands, not_for)
        if matrix is not None and cid in pooled:
            for _, r in mine.iterrows():
                line.passes[(r[stratum], r["measure"])] = _num(
                    r, "query_verdict_matrix", "condition_passes", (stratum, "measure", "condition_id"), "")
        rows = est[est["condition_id"] == cid] if est is not None else pd.DataFrame()
        for stat, label, spec in (("delta_alpha", "Δα", "+.3f"), ("w1sd", "W1SD", ".2f"), ("kappa", "κ", ".3f")):
            for _, r in rows[rows["statistic"] == stat].sort_values("dimension", ascending=False).iterrows():
                if stat != "kappa" and (cid, r["dimension"]) in unanswered:
                    continue
                dim = "" if stat == "kappa" else f" {r['dimension']}"
                if f"{label}{dim}" not in answer.columns:
                    answer.columns.append(f"{label}{dim}")
                line.estimates[f"{label}{dim}"] = (Estimate(
                    f"{label}{dim}", _num(r, "headline_intervals", "estimate", key, spec),
                    _num(r, "headline_intervals", "lo", key, spec), _num(r, "headline_intervals", "hi", key, spec),
                    baseline.get(r["dimension"]) if stat == "w1sd" else None))
        answer.conditions.append(line)
    for dim in sorted({d for _, d in unanswered}):
        who = ", ".join(names.get(c, c) for c, d in sorted(unanswered) if d == dim)
        answer.notes.append(f"No {dim} answers from {who}: their Δα and W1SD {dim} are shown as —.")


def _gaps(reader, answer: Answer, names: dict[str, str]) -> None:
    g = _try(reader, ["demographic_stratified_anova"],
             f"""SELECT condition_id, dimension, category, term, eta_sq, q_bh FROM demographic_stratified_anova
                 WHERE significant ORDER BY eta_sq DESC, condition_id, dimension, category, term LIMIT {TOP_GAPS}""",
             answer.notes, "demographic gaps")
    key = ("condition_id", "dimension", "category", "term")
    for _, r in (g.iterrows() if g is not None else []):
        answer.gaps.append(Estimate(
            f"{names.get(r['condition_id'], r['condition_id'])} · {r['dimension']} bias · {r['category']} · {r['term']}",
            _num(r, "demographic_stratified_anova", "eta_sq", key, ".3f"),
            baseline=_num(r, "demographic_stratified_anova", "q_bh", key, ".2g")))


def _judges(reader, answer: Answer) -> None:
    """Each LLM judge per axis: win rates against the anchor (where the study has one), position and
    verbosity checks, kappa with the human majority, the Alt-Test's outcome and delta alpha."""
    if not (reader.has("judge_win_rates") or reader.has("judge_alt_test")):
        return

    def rows(table: str, sql: str, columns: list[str]) -> pd.DataFrame:
        return reader.query(sql) if reader.has(table) else pd.DataFrame(columns=columns)

    # The LLM judges are the candidates for replacing human judges; the human judges' own rows are
    # in the linked table.
    wins = rows("judge_win_rates", """SELECT judge_id, candidate_id, variant, category, axis, win_rate, win_rate_ci_low,
                                  win_rate_ci_high FROM judge_win_rates
                           WHERE variant = 'all' AND category = 'all' AND judge_kind = 'llm'
                           ORDER BY judge_id, axis, candidate_id""", ["judge_id", "axis", "candidate_id"])
    bias = rows("judge_bias_checks", """SELECT judge_id, check_name, variant, axis, estimate, ci_low, ci_high FROM judge_bias_checks
                            WHERE variant = 'all' AND check_name IN ('position_bias', 'verbosity')
                            ORDER BY judge_id, check_name, axis""", ["judge_id"])
    agree = rows("judge_agreement", """SELECT judge_1, judge_2, axis, kappa FROM judge_agreement
                             WHERE comparison = 'human-majority-llm' ORDER BY judge_1, axis""", ["judge_1", "judge_2"])
    alt = rows("judge_alt_test", """SELECT judge_id, axis, status FROM judge_alt_test ORDER BY judge_id, axis""",
               ["judge_id", "axis"])
    alpha = rows("judge_human_alpha", """SELECT judge_id, axis, delta_alpha FROM judge_human_alpha
                          WHERE judge_id <> '(humans only)' ORDER BY judge_id, axis""", ["judge_id"])
    wkey = ("judge_id", "candidate_id", "variant", "category", "axis")
    bkey = ("judge_id", "check_name", "variant", "axis")
    for judge in dict.fromkeys([*wins["judge_id"], *alt["judge_id"]]):
        line = JudgeLine(judge)
        mine = wins[wins["judge_id"] == judge]
        line.axes = list(dict.fromkeys([*mine["axis"], *alt.loc[alt["judge_id"] == judge, "axis"]]))
        line.candidates = list(dict.fromkeys(mine["candidate_id"]))
        for _, r in mine.iterrows():
            line.cells[(r["axis"], r["candidate_id"])] = Estimate(
                r["candidate_id"], _num(r, "judge_win_rates", "win_rate", wkey, ".2f"),
                _num(r, "judge_win_rates", "win_rate_ci_low", wkey, ".2f"),
                _num(r, "judge_win_rates", "win_rate_ci_high", wkey, ".2f"))
        for _, r in bias[bias["judge_id"] == judge].iterrows():
            spec = ".2f" if r["check_name"] == "position_bias" else "+.2f"
            line.cells[(r["axis"], r["check_name"])] = Estimate(
                r["check_name"], _num(r, "judge_bias_checks", "estimate", bkey, spec),
                _num(r, "judge_bias_checks", "ci_low", bkey, spec), _num(r, "judge_bias_checks", "ci_high", bkey, spec))
        for _, r in agree[(agree["judge_1"] == judge) | (agree["judge_2"] == judge)].iterrows():
            line.cells[(r["axis"], "kappa")] = Estimate(
                "kappa", _num(r, "judge_agreement", "kappa", ("judge_1", "judge_2", "axis"), ".2f"))
        for _, r in alt[alt["judge_id"] == judge].iterrows():
            line.cells[(r["axis"], "alt_test")] = Estimate(
                "alt_test", _num(r, "judge_alt_test", "status", ("judge_id", "axis"), ""))
        for _, r in alpha[alpha["judge_id"] == judge].iterrows():
            line.cells[(r["axis"], "delta_alpha")] = Estimate(
                "delta_alpha", _num(r, "judge_human_alpha", "delta_alpha", ("judge_id", "axis"), "+.3f"))
        answer.judges.append(line)


def _k_number(row, column: str) -> Number:
    n = _num(row, "worth_k_star", column, ("condition_id", "measure", "factor", "level"), ".2f")
    if n.value is not None and math.isinf(n.value):
        n.shown = "∞"   # closer than the panel's own mean can tell
    return n


def _worth(reader, answer: Answer, names: dict[str, str]) -> None:
    """k* per measure (worth_k_star, scope 'all') as columns of the condition lines, each with the
    human-rated share whose PPI++ intervals come within 10 % of the all-human width beneath it."""
    k = _try(reader, ["worth_k_star"],
             "SELECT condition_id, measure, factor, level, k_star, lo, hi FROM worth_k_star "
             "WHERE factor = 'all' ORDER BY measure_kind DESC, measure DESC, condition_id",
             answer.notes, "what each condition is worth")
    if k is None:
        return
    # budget_fraction is the same on every row of a (condition, measure): the all-human row is its address
    b = reader.query("SELECT condition_id, measure, fraction, budget_fraction FROM worth_budget WHERE fraction = 1") \
        if reader.has("worth_budget") else pd.DataFrame(columns=["condition_id", "measure", "fraction"])
    budget = {(r["condition_id"], r["measure"]): _num(r, "worth_budget", "budget_fraction",
                                                      ("condition_id", "measure", "fraction"), ".2f")
              for _, r in b.iterrows()}
    lines = {line.name: line for line in answer.conditions}
    for _, r in k.iterrows():
        line = lines.get(names.get(r["condition_id"], r["condition_id"]))
        if line is None:
            continue
        label = f"k* {r['measure']}"
        if label not in answer.columns:
            answer.columns.append(label)
        line.estimates[label] = Estimate(label, _k_number(r, "k_star"), _k_number(r, "lo"), _k_number(r, "hi"),
                                         budget.get((r["condition_id"], r["measure"])), "budget")


def read_answer(reader: WarehouseReader, categories: list[str]) -> Answer:
    answer = Answer()
    names = _names(reader)
    _verdicts(reader, answer, categories, names)
    _conditions(reader, answer, names)
    _gaps(reader, answer, names)
    _judges(reader, answer)
    _worth(reader, answer, names)
    return answer


def link_numbers(answer: Answer, anchors: dict[str, str]) -> None:
    """Point every number at the block that shows its table (the first block reading it)."""
    for n in answer.numbers():
        n.href = "#" + anchors[n.table] if n.table in anchors else ""
