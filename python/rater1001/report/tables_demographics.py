"""The paper's section 4.5 and Supplement S5 (Tables 7, 7a, 7b, 7c, S5.1-S5.4): queries over the
marts (models/marts/demographics)."""
from __future__ import annotations

from .applicability import study_spelling
from .specs import Pivot, ReportTable
from .tables_agreement import COND, COND_ORDER, EMO_ORDER, JOIN_COND, JOIN_EMO

STARS = ("CASE WHEN x.q_bh < .001 THEN '***' WHEN x.q_bh < .01 THEN '**' "
         "WHEN x.q_bh < .05 THEN '*' ELSE '' END")


def _slices(ours, paper, title, slice_type):
    return ReportTable(
        ours, paper, title, ("demographic_slices", "stg_model_conditions", "stg_study_factors"),
        f"""SELECT {COND} AS condition, x.slice,
                   printf('%.3f (%.1f%%)', x.f1_macro, 100 * x.accuracy) AS cell
            FROM demographic_slices x {JOIN_COND}
            WHERE x.slice_type = {study_spelling(slice_type)} ORDER BY x.condition_id <> 'human', {COND_ORDER}, x.slice""",
        pivot=Pivot(("condition",), "slice", "cell"),
        caption="Each cell: F1-macro (accuracy). The largest gaps are in the full slice table below.")


def anova_table(ours, paper, dim):
    return ReportTable(
        ours, paper, f"Audit_1 x audit_2 factorial ANOVA of the {dim} bias, per category: F (eta^2)",
        ("demographic_stratified_anova", "stg_model_conditions", "factor_labels"),
        f"""SELECT x.category, {COND} AS condition, x.term,
                   printf('%.2f (%.3f)', x.f_value, x.eta_sq) || {STARS} AS cell
            FROM demographic_stratified_anova x {JOIN_COND} {JOIN_EMO}
            WHERE x.dimension = '{dim}' ORDER BY {EMO_ORDER}, {COND_ORDER}""",
        pivot=Pivot(("category", "condition"), "term", "cell"),
        caption="Stars from the Benjamini-Hochberg q within each (condition, dimension) family: "
                "* q < .05, ** q < .01, *** q < .001.")


DEMOGRAPHICS = [
    _slices("T7", "Table 7", "Classification by audit_1", "audit_1"),
    _slices("T7a", "Table 7a", "Classification by audit_2", "audit_2"),
    _slices("T7r", "Figure 7b (table)", "Classification by audit_1 x audit_2", "audit_1_audit_2"),
    ReportTable("T7s", None, "All demographic slices with the largest gaps",
                ("demographic_slices",), "SELECT * FROM demographic_slices ORDER BY ALL"),
    anova_table("T7b", "Table 7b", "valence"),
    anova_table("T7c", "Table 7c", "arousal"),
    ReportTable("T7g", None, "Mixed logistic regression correct ~ factor + (1 | category): likelihood-ratio tests",
                ("demographic_glmm_lrt",), "SELECT * FROM demographic_glmm_lrt ORDER BY ALL"),
    ReportTable("T7t", None, "Tukey HSD over the audit_1 x audit_2 cells (significant interactions)",
                ("demographic_tukey",), "SELECT * FROM demographic_tukey ORDER BY ALL"),
    ReportTable("T7n", None, "Significance counts per model (k of the categories)",
                ("demographic_significance_counts",), "SELECT * FROM demographic_significance_counts ORDER BY ALL"),
    ReportTable("TS5.1", "Tables S5.1-S5.4", "Archived omnibus tests: bias ~ audit_1/audit_2 + category and their interactions",
                ("demographic_omnibus",), "SELECT * FROM demographic_omnibus ORDER BY ALL"),
]
