"""What the model is worth (models/marts/worth): k* in human raters and the human budget, as a
table and two figures. Queries only filter, join labels and format; the numbers are the marts'."""

from __future__ import annotations

import altair as alt

from .figures import data, tooltips
from .specs import FolderTables, Pivot, ReportFigure, ReportTable, Source
from .tables_agreement import COND, COND_ORDER, JOIN_COND

# k* is infinite where the condition is closer than the panel's own mean can tell
_K = "CASE WHEN isinf({c}) THEN '∞' ELSE printf('%.2f', {c}) END"
K_STAR_TABLE = ReportTable(
    "TW1",
    None,
    "What each condition is worth in human raters (k*) and the human budget",
    ("worth_k_star", "worth_budget", "stg_model_conditions"),
    f"""SELECT {COND} AS condition, x.measure AS col,
               {_K.format(c="x.k_star")} || ' [' || {_K.format(c="x.lo")} || ', ' || {_K.format(c="x.hi")} || ']'
               || coalesce('; ' || printf('%.0f%%', 100 * b.budget_fraction), '') AS cell
        FROM worth_k_star x {JOIN_COND}
        LEFT JOIN (SELECT DISTINCT condition_id, measure, budget_fraction FROM worth_budget) b
            ON b.condition_id = x.condition_id AND b.measure = x.measure
        WHERE x.factor = 'all'
        ORDER BY {COND_ORDER}, x.measure_kind DESC, x.measure DESC""",
    pivot=Pivot(("condition",), "col", "cell"),
    caption="k* [95% bootstrap interval over stimuli]; after the semicolon, the smallest share of stimuli rated by "
    "humans whose prediction-powered (PPI++) intervals are within 10% of the all-human width. k* is the "
    "number of human raters whose pooled answer is as close to a held-out human consensus as the "
    "condition's answer; ∞: closer than the panel's own mean can tell (docs/stats.md).",
)


def k_star_intervals(frames, ctx):
    base = (
        alt.Chart(data(0))
        .transform_filter("isFinite(datum.k_star)")
        .encode(y=alt.Y("condition_id:N", title="condition", sort=ctx.conditions or "ascending"))
    )
    rule = base.mark_rule().encode(x=alt.X("lo:Q", title="k* (human raters)"), x2=alt.X2("hi:Q"))
    point = base.mark_point(filled=True).encode(
        x=alt.X("k_star:Q"), tooltip=tooltips("condition_id:N", "measure:N", "k_star:Q", "lo:Q", "hi:Q", "n_stimuli:Q", "n_missing:Q")
    )
    return alt.layer(rule, point).properties(width=220, height=220).facet(column=alt.Column("measure:N"))


def budget_curves(frames, ctx):
    line = (
        alt.Chart(data(0))
        .mark_line(point=True)
        .encode(
            x=alt.X("fraction:Q", title="share of stimuli rated by humans", axis=alt.Axis(format="%")),
            y=alt.Y("width_ratio:Q", title="interval width / all-human width", scale=alt.Scale(zero=False)),
            color=alt.Color("condition_id:N", title="condition", sort=ctx.conditions or "ascending"),
            tooltip=tooltips(
                "condition_id:N",
                "measure:N",
                alt.Tooltip("fraction:Q", format=".0%"),
                alt.Tooltip("width_ratio:Q", format=".3f"),
                alt.Tooltip("budget_fraction:Q", format=".0%"),
            ),
        )
    )
    return line.properties(width=260, height=220).facet(column=alt.Column("measure:N"))


K_STAR_FIGURE = ReportFigure(
    "FW1",
    None,
    "k* per condition and measure (95% bootstrap interval)",
    (
        Source(
            "worth_k_star",
            ("condition_id", "measure", "k_star", "lo", "hi", "n_stimuli", "n_missing"),
            "factor = 'all'",
        ),
    ),
    k_star_intervals,
    "Infinite k* (closer than the panel's own mean can tell) is left out of the plot; the table gives it.",
)
BUDGET_FIGURE = ReportFigure(
    "FW2",
    None,
    "The human budget: interval width against the share of stimuli rated by humans",
    (Source("worth_budget", ("condition_id", "measure", "fraction", "width_ratio", "budget_fraction")),),
    budget_curves,
    "PPI++ interval width with the condition's answers on every stimulus, relative to the classical interval "
    "from humans on every stimulus (median over seeded random subsets); 1.1 is the 10% tolerance.",
)
WORTH = (K_STAR_TABLE, K_STAR_FIGURE, BUDGET_FIGURE, FolderTables("worth", "What the model is worth: marts as stored"))
