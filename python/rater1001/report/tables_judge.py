"""The pairwise judge (the lab log): the win-rate table with a sample of the judges' reasons beside
each cell, the most distinctive reason terms, Korean-specific against general categories and the
category x variant split. Queries over models/marts/judge only: they filter, format and reshape."""
from __future__ import annotations

from .specs import Pivot, ReportTable

AXIS_ORDER = "coalesce(ax.display_order, 99)"
JOIN_AXIS = "LEFT JOIN judge_axes ax ON ax.axis_id = x.axis"
CELL = "printf('%.2f (%d/%d/%d)', x.win_rate, x.wins, x.ties, x.losses)"

JUDGE = [
    ReportTable(
        "TJ1", None, "Win rate against the anchor per judge, candidate and axis (variants pooled)",
        ("judge_win_rates", "judge_axes"),
        f"""SELECT x.judge_id AS judge, x.candidate_id AS candidate, x.axis, {CELL} AS cell
            FROM judge_win_rates x {JOIN_AXIS}
            WHERE x.variant = 'all' ORDER BY x.judge_id, x.candidate_id, {AXIS_ORDER}""",
        pivot=Pivot(("judge", "candidate"), "axis", "cell"),
        caption="Each cell: win rate, ties counted half (wins / ties / losses). The reasons behind each "
                "cell are in the next table."),
    ReportTable(
        "TJ2", None, "What the judges wrote: sample reasons per cell of the win-rate table",
        ("judge_reason_samples", "judge_axes"),
        f"""SELECT x.judge_id AS judge, x.candidate_id AS candidate, x.outcome, x.axis,
                   string_agg(printf('[%s, %s of %d] %s', x.sample_id, x.variant, x.n_pairs_with_outcome, x.reason),
                              ' || ' ORDER BY x.sample_rank) AS cell
            FROM judge_reason_samples x {JOIN_AXIS}
            GROUP BY x.judge_id, x.candidate_id, x.outcome, x.axis, ax.display_order
            ORDER BY x.judge_id, x.candidate_id, CASE x.outcome WHEN 'win' THEN 1 WHEN 'tie' THEN 2 ELSE 3 END,
                     {AXIS_ORDER}""",
        pivot=Pivot(("judge", "candidate", "outcome"), "axis", "cell"),
        caption="Up to two pairs per outcome (win / tie / loss from the candidate's side), chosen by a hash "
                "of the pair so a rebuild shows the same ones; the reason is the judge's 이유 line of the AB "
                "order, verbatim. [sample, variant of n] = the pair, and how many pairs of the cell had that outcome."),
    ReportTable(
        "TJ3", None, "The most distinctive terms of the judges' reasons per verdict (top 8, z)",
        ("judge_reason_terms", "judge_axes"),
        f"""SELECT x.judge_id AS judge, x.axis, x.verdict,
                   string_agg(printf('%s (%.1f)', x.term, x.z), ', ' ORDER BY x.rank) AS cell
            FROM judge_reason_terms x {JOIN_AXIS}
            WHERE x.rank <= 8
            GROUP BY x.judge_id, x.axis, x.verdict, ax.display_order
            ORDER BY x.judge_id, {AXIS_ORDER}, x.verdict""",
        pivot=Pivot(("judge", "axis"), "verdict", "cell"),
        caption="Weighted log-odds with an informative Dirichlet prior (Monroe, Colaresi & Quinn 2008): a "
                "term's z against the judge's other reasons on the axis. Anchor pairs only; words as "
                "written (no morphological analysis)."),
    ReportTable(
        "TJ4", None, "Korean-specific dialogue categories (정, 한, 공명) against the general ones, per judge (overall axis)",
        ("judge_category_group_win_rates",),
        """SELECT x.judge_id AS judge, x.candidate_id AS candidate, x.korean_categories,
                  printf('%.2f [%.2f, %.2f] n=%d', x.korean_win_rate, x.korean_ci_low, x.korean_ci_high, x.korean_n_pairs) AS korean_specific,
                  printf('%.2f [%.2f, %.2f] n=%d', x.general_win_rate, x.general_ci_low, x.general_ci_high, x.general_n_pairs) AS general,
                  printf('%+.2f [%+.2f, %+.2f]', x.difference, x.difference_ci_low, x.difference_ci_high) AS difference,
                  x.p_value
           FROM judge_category_group_win_rates x
           WHERE x.variant = 'all' AND x.axis = 'overall' ORDER BY x.judge_id, x.candidate_id""",
        caption="Win rate against the anchor (Wilson 95% interval) in each group; difference = Korean-specific "
                "minus general with a Welch 95% interval. Which categories are Korean-specific: "
                "seeds/judge_category_groups.csv. The agreement between judges per group is in "
                "judge_category_group_agreement below."),
    ReportTable(
        "TJ5", None, "Category x input variant: win rate against the anchor (overall axis)",
        ("judge_category_win_rates",),
        f"""SELECT x.judge_id AS judge, x.candidate_id AS candidate, x.category, x.variant, {CELL} AS cell
            FROM judge_category_win_rates x
            WHERE x.axis = 'overall' AND x.judge_kind = 'llm'
            ORDER BY x.judge_id, x.candidate_id, x.category, x.variant = 'all', x.variant""",
        pivot=Pivot(("judge", "candidate", "category"), "variant", "cell"),
        caption="Each cell: win rate, ties counted half (wins / ties / losses); 'all' pools the variants."),
    ReportTable(
        "TJ6", None, "Can a judge replace the human annotators? Alt-Test, kappa with the human majority, delta alpha",
        ("judge_alt_test", "judge_agreement", "judge_human_alpha"),
        """SELECT t.judge_id AS judge, t.axis, t.status,
                  printf('%.2f', t.winning_rate) AS winning_rate, printf('%.2f', t.advantage_probability) AS rho,
                  printf('%.2f (n=%d)', k.kappa, k.n_pairs) AS kappa_with_majority,
                  printf('%+.3f', a.delta_alpha) AS delta_alpha, t.note
           FROM judge_alt_test t
           LEFT JOIN judge_agreement k ON k.axis = t.axis AND k.comparison = 'human-majority-llm'
                AND t.judge_id IN (k.judge_1, k.judge_2)
           LEFT JOIN judge_human_alpha a ON a.axis = t.axis AND a.judge_id = t.judge_id
           ORDER BY t.judge_id, t.axis""",
        caption="Alt-Test (Calderon et al. 2025; epsilon and q in judge_alt_test): passed, failed, or not "
                "evaluable with the reason (nothing to test is never a failure). Kappa: unweighted Cohen's "
                "kappa with the human strict majority. Delta alpha: the humans' nominal Krippendorff's alpha "
                "with the judge as one more annotator, minus without."),
    ReportTable(
        "TJ7", None, "Pairwise win matrix per judge (overall axis, variants pooled)",
        ("judge_pairwise_win_rates",),
        f"""SELECT x.judge_id AS judge, x.candidate_id AS candidate, x.opponent_id AS opponent, {CELL} AS cell
            FROM judge_pairwise_win_rates x
            WHERE x.variant = 'all' AND x.axis = 'overall'
            ORDER BY x.judge_id, x.candidate_id, x.opponent_id""",
        pivot=Pivot(("judge", "candidate"), "opponent", "cell"),
        caption="Row candidate against column opponent: win rate, ties counted half (wins / ties / losses); "
                "every design, also without an anchor."),
]
