"""models/marts/alt_test: the Alternative Annotator Test of each model condition against the
individual human raters, per dimension, scoring, category ('all' too) and epsilon. The test is
rater1001.stats.alt_test_ratings."""

from __future__ import annotations

from dataclasses import fields

import pandas as pd

from ..stats.alt_test_ratings import alt_test_from_counts, annotator_p_values
from ._shared import ALL, config_list, finish

GROUP = ["condition_id", "dimension", "scoring", "category"]
OUTCOMES = "condition_id, dimension, scoring, category, n_human_better, n_tie, n_model_better, n_model_missing"


def results_table(
    counts: pd.DataFrame, epsilons: list[float], q: float, min_all: int, min_category: int
) -> pd.DataFrame:
    """`counts`: one row per distinct outcome-count tuple of a group with the number of raters
    having it (n_annotators). A missing model answer counts against the model; the winning rate
    over answered images only stands beside it."""
    # all raters of all groups in one vectorised t-test per epsilon (rows with equal counts share it)
    p_by_eps = {
        eps: annotator_p_values(counts["n_human_better"], counts["n_tie"], counts["n_model_better"], eps)
        for eps in epsilons
    }
    # answered-only: the same comparisons without the images the model left unanswered
    answered = counts.assign(n_human_better=counts["n_human_better"] - counts["n_model_missing"])
    p_answered = {
        eps: annotator_p_values(answered["n_human_better"], answered["n_tie"], answered["n_model_better"], eps)
        for eps in epsilons
    }
    rows = []
    # each group's rows as plain arrays (a frame per group and column was most of the cost)
    columns = ["n_human_better", "n_tie", "n_model_better", "n_annotators"]
    every, every_answered = ({c: f[c].to_numpy() for c in columns} for f in (counts, answered))
    missing = (counts["n_model_missing"] * counts["n_annotators"]).to_numpy()
    for (cond, dim, scoring, category), rows_of in counts.groupby(GROUP, sort=True).indices.items():
        min_n = min_all if category == ALL else min_category
        part = {c: v[rows_of] for c, v in every.items()}
        answered_part = {c: v[rows_of] for c, v in every_answered.items()}
        for eps in epsilons:
            r = alt_test_from_counts(
                part,
                epsilon=eps,
                q=q,
                min_instances_per_human=min_n,
                p_values=p_by_eps[eps][rows_of],
                weight="n_annotators",
                per_annotator_frame=False,
            )
            a = alt_test_from_counts(
                answered_part,
                epsilon=eps,
                q=q,
                min_instances_per_human=min_n,
                p_values=p_answered[eps][rows_of],
                weight="n_annotators",
                per_annotator_frame=False,
            )
            rows.append(
                {
                    "condition_id": cond,
                    "dimension": dim,
                    "scoring": scoring,
                    "category": category,
                    "epsilon": eps,
                    "q": q,
                    "min_instances_per_human": min_n,
                    **{f.name: getattr(r, f.name) for f in fields(r) if f.name != "per_annotator"},
                    "n_model_missing": int(missing[rows_of].sum()),
                    "winning_rate_answered_only": a.winning_rate,
                }
            )
    return pd.DataFrame(rows)


# --- the dbt Python model (models/marts/alt_test/alt_test_results.py) -------------------------------


def alt_test_results(
    rater_outcomes, provenance, *, epsilons=None, q=None, min_instances=None, min_instances_per_category=None
) -> pd.DataFrame:
    # raters with equal outcome counts share their p-value and decision: one row per distinct count
    # tuple with the number of raters (a few hundred rows per group, not one per rater), counted in
    # DuckDB on the relation rather than in pandas
    counts = (
        rater_outcomes.aggregate(f"{OUTCOMES}, count(*) as n_annotators", OUTCOMES)
        .order(OUTCOMES)
        .df()
        .reset_index(drop=True)
    )
    out = results_table(
        counts,
        config_list(epsilons, "0.1,0.15,0.2"),
        float(q or 0.05),
        int(min_instances or 30),
        int(min_instances_per_category or 10),
    )
    return finish(out, "alt_test_results", provenance)
