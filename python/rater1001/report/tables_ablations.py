"""The paper's appendix 4A (Tables 4A-1 to 4A-3) laid out as the paper prints them, from the
ablation marts (models/marts/ablations). The marts themselves follow, as stored, further down."""
from __future__ import annotations

from .specs import Pivot, ReportTable
from .tables_agreement import COND, COND_ORDER, EMO_ORDER, JOIN_COND, JOIN_EMO

ABLATIONS = [
    ReportTable(
        "T4A1", "Table 4A-1", "Thinking switched off by budget: the same model with and without thinking",
        ("ablation_thinking_comparison", "stg_model_conditions"),
        """SELECT x.condition_a AS condition, 'thinking' AS setting, x.thinking_tokens_per_step_a AS thinking_tokens_per_step,
                  x.accuracy_a AS accuracy, s.accuracy_a AS sad_accuracy, NULL AS accuracy_diff_pp, NULL AS sad_accuracy_diff_pp
           FROM ablation_thinking_comparison x
           LEFT JOIN ablation_thinking_comparison s ON s.model_id = x.model_id AND s.condition_b = x.condition_b AND s.category = 'sad'
           WHERE x.category = 'all'
           UNION ALL
           SELECT x.condition_b, 'budget 0', x.thinking_tokens_per_step_b, x.accuracy_b, s.accuracy_b, NULL, NULL
           FROM ablation_thinking_comparison x
           LEFT JOIN ablation_thinking_comparison s ON s.model_id = x.model_id AND s.condition_b = x.condition_b AND s.category = 'sad'
           WHERE x.category = 'all'
           UNION ALL
           SELECT 'difference (thinking - budget 0)', '', NULL, NULL, NULL, x.accuracy_diff_pp, s.accuracy_diff_pp
           FROM ablation_thinking_comparison x
           LEFT JOIN ablation_thinking_comparison s ON s.model_id = x.model_id AND s.condition_b = x.condition_b AND s.category = 'sad'
           WHERE x.category = 'all'""",
        caption="Accuracy over all images and on the sad images; the McNemar test per category is in "
                "ablation_thinking_comparison below."),
    ReportTable(
        "T4A2", "Table 4A-2", "Scaling within one model family: accuracy by category",
        ("ablation_scaling_accuracy", "stg_model_conditions", "factor_labels"),
        f"""SELECT x.category, col, cell FROM (
              SELECT x.category, x.size_b, 0 AS part, {COND} AS col, printf('%.3f', x.accuracy) AS cell
              FROM ablation_scaling_accuracy x {JOIN_COND}
              UNION ALL
              SELECT x.category, x.size_b, 1, 'delta to ' || {COND}, printf('%+.3f', x.delta_accuracy)
              FROM ablation_scaling_accuracy x {JOIN_COND} WHERE x.previous_size IS NOT NULL) x {JOIN_EMO}
            ORDER BY {EMO_ORDER}, part, size_b""",
        pivot=Pivot(("category",), "col", "cell"),
        caption="'delta to M': accuracy of M minus that of the next smaller model of the family."),
    ReportTable(
        "T4A2d", "Table 4A-2 (dimensional)", "Scaling within one model family: dimensional agreement and audit_1 gap",
        ("ablation_scaling_metrics", "stg_model_conditions"),
        f"""SELECT x.metric, {COND} AS condition, coalesce(printf('%.3f', x.value), '— (' || x.reason || ')') AS cell
            FROM ablation_scaling_metrics x {JOIN_COND} ORDER BY x.metric, x.size_b""",
        pivot=Pivot(("metric",), "condition", "cell")),
    ReportTable(
        "T4A3", "Table 4A-3", "Mean thinking length by category, beside the human median response time",
        ("ablation_thinking_traces", "ablation_human_rt_by_category", "stg_model_conditions", "factor_labels"),
        f"""SELECT x.category, col, cell FROM (
              SELECT x.category, {COND_ORDER} AS o, {COND} || ' (' || x.measure || ')' AS col, printf('%.0f', x.mean_length) AS cell
              FROM ablation_thinking_traces x {JOIN_COND} WHERE x.category <> 'all'
              UNION ALL
              SELECT category, '~' || dimension, 'human median RT, ' || dimension || ' (s)', printf('%.3f', median_rt_ms / 1000)
              FROM ablation_human_rt_by_category) x {JOIN_EMO}
            ORDER BY {EMO_ORDER}, o, col""",
        pivot=Pivot(("category",), "col", "cell"),
        caption="The paper's human column is the median response time per category."),
]
