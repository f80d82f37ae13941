"""The paper's sections 4.1-4.4 and 4.6 (Tables 2-6, 8, S1, S5-S8): queries over the marts of
the agreement areas. Every number is a column of a mart; these queries only filter, join labels, format and
reshape."""
from __future__ import annotations

from .specs import Pivot, ReportTable

# Display label of a condition (short name from the catalog; 'human' / 'human_loo' rows keep their id).
COND = "coalesce(mc.short_name, x.condition_id)"
JOIN_COND = "LEFT JOIN stg_model_conditions mc ON mc.condition_id = x.condition_id"
# The study's category order (factor_labels seed); 'all' last.
JOIN_EMO = ("LEFT JOIN factor_labels fl ON fl.factor = 'category' AND fl.label = x.category")
EMO_ORDER = "coalesce(fl.display_order, 999)"
COND_ORDER = "coalesce(mc.condition_id, '~')"


def _by_category(ours, paper, title, table, dimension, cell, reads_extra=(), where="", caption=""):
    """Category rows x condition columns, one formatted cell per (category, condition)."""
    dim_filter = f"x.dimension = '{dimension}' AND " if dimension else ""
    return ReportTable(
        ours, paper, title, (table, "stg_model_conditions", "factor_labels", *reads_extra),
        f"""SELECT x.category, {COND} AS condition, {cell} AS cell
            FROM {table} x {JOIN_COND} {JOIN_EMO}
            WHERE {dim_filter}x.category <> 'all' {where}
            ORDER BY {EMO_ORDER}, {COND_ORDER}""",
        pivot=Pivot(("category",), "condition", "cell"), caption=caption)


def dimension_tables(dim: str, n: str) -> list[ReportTable]:
    name = dim.capitalize()
    return [
        ReportTable(
            f"T{n}", f"Table {n}", f"{name} prediction statistics (overall)",
            ("dimensional_agreement", "stg_model_conditions"),
            f"""SELECT {COND} AS condition, mc.thinking, x.n, x.pearson_r, x.bias, x.sd_d,
                       x.loa_lower, x.loa_upper, x.systematicity, x.mae
                FROM dimensional_agreement x {JOIN_COND}
                WHERE x.dimension = '{dim}' AND x.category = 'all' AND x.condition_id NOT LIKE 'human%'
                ORDER BY x.pearson_r DESC NULLS LAST""",
            caption="Bias = Bland-Altman mean difference (human mean - model); LoA = bias +- 1.96 SD_d."),
        _by_category(f"T{n}a", f"Table {n}a", f"{name} Bland-Altman bias by category: bias (SD_d)",
                    "dimensional_agreement", dim, "printf('%+.3f (%.2f)', x.bias, x.sd_d)",
                    where="AND x.condition_id NOT LIKE 'human%'"),
        _by_category(f"T{n}b", f"Table {n}b", f"{name} within-category Pearson r",
                    "dimensional_agreement", dim,
                    "coalesce(printf('%+.3f', x.pearson_r), '— (' || coalesce(x.pearson_r_null_reason, 'undefined') || ')')",
                    where="AND x.condition_id NOT LIKE 'human%'",
                    caption="— = undefined (a side has zero variance); the reason is the mart's."),
        ReportTable(
            f"T{n}c", f"Table {n}c", f"{name} Krippendorff's alpha with the model as one more rater",
            ("alpha_delta", "stg_model_conditions"),
            f"""SELECT {COND} AS condition,
                       max(x.alpha) FILTER (WHERE x.metric = 'interval') AS alpha,
                       max(x.delta_alpha) FILTER (WHERE x.metric = 'interval') AS delta_alpha,
                       max(x.alpha) FILTER (WHERE x.metric = 'ordinal') AS alpha_ordinal,
                       max(x.delta_alpha) FILTER (WHERE x.metric = 'ordinal') AS delta_alpha_ordinal,
                       max(x.n_units) FILTER (WHERE x.metric = 'interval') AS n_units,
                       max(x.n_values) FILTER (WHERE x.metric = 'interval') AS n_values
                FROM alpha_delta x {JOIN_COND}
                WHERE x.dimension = '{dim}' AND x.category = 'all'
                GROUP BY x.condition_id, mc.short_name
                ORDER BY x.condition_id <> 'human', delta_alpha DESC""",
            caption="alpha, delta_alpha: interval (as 3.4.3 computes delta alpha); beside them ordinal (as 3.2 reports the human baseline); "
                    "the 'human' row is the human-only baseline."),
        ReportTable(
            f"T{n}d", f"Table {n}d", f"{name} z-score summary",
            ("zscore_summary", "stg_model_conditions"),
            f"""SELECT {COND} AS condition, x.mean_abs_z, x.w1sd, x.n_images, x.n_zero_sd_images
                FROM zscore_summary x {JOIN_COND}
                WHERE x.dimension = '{dim}' AND x.category = 'all'
                ORDER BY x.condition_id <> 'human_loo', x.mean_abs_z""",
            caption="W1SD = share of images with |z| <= 1; human_loo = each human against the other raters."),
        _by_category(f"T{n}e", f"Table {n}e", f"{name} z-score by category: mean |z| (W1SD)",
                    "zscore_summary", dim, "printf('%.3f (%.2f)', x.mean_abs_z, x.w1sd)"),
        ReportTable(
            f"T{n}p", None, f"{name} bootstrap p_sig (model deviates more than an individual human)",
            ("bootstrap_psig", "stg_model_conditions", "factor_labels"),
            f"""SELECT x.* EXCLUDE (condition_id), {COND} AS condition
                FROM bootstrap_psig x {JOIN_COND} {JOIN_EMO}
                WHERE x.dimension = '{dim}' ORDER BY {EMO_ORDER}, {COND_ORDER}"""),
    ]


CLASSIFICATION = [
    ReportTable(
        "T2", "Table 2", "Category classification (per condition)",
        ("classification_summary", "stg_model_conditions"),
        f"""SELECT {COND} AS condition, mc.thinking, mc.parameters, x.n, x.accuracy, x.f1_macro,
                   x.kappa, x.* EXCLUDE (condition_id, n, accuracy, f1_macro, kappa)
            FROM classification_summary x {JOIN_COND}
            WHERE coalesce(mc.kind, 'vlm') <> 'fer'
            ORDER BY x.condition_id <> 'human', x.accuracy DESC"""),
    _by_category("T3", "Table 3", "Recall by category", "classification_by_category", None, "printf('%.3f', x.recall)"),
    _by_category("T3a", "Table 3a", "Precision by category", "classification_by_category", None, "printf('%.3f', x.precision)"),
    ReportTable(
        "T3c", None, "Confusion matrices (rows: intended category, columns: predicted)",
        ("confusion_matrix", "stg_model_conditions"),
        f"""SELECT {COND} AS condition, x.true_category, x.predicted_category, x.n
            FROM confusion_matrix x {JOIN_COND} ORDER BY {COND_ORDER}, 2, 3""",
        pivot=Pivot(("condition", "true_category"), "predicted_category", "n")),
]
# Supplement S1: the FER baselines beside the VLMs (Table S1) and their dimensional agreement (S2, S3).
FER_BASELINES = [
    ReportTable(
        "TS1", "Table S1", "VLM and FER models ranked together by accuracy",
        ("fer_vlm_ranking",),
        """SELECT x.rank, x.model, upper(x.kind) AS type, x.thinking, x.accuracy, x.kappa,
                  x.paper_rank, x.paper_accuracy, x.paper_kappa
           FROM fer_vlm_ranking x ORDER BY x.rank, x.model""",
        show_if="SELECT count(*) > 0 FROM stg_model_conditions WHERE kind = 'fer'",
        show_if_note="shown when FER conditions exist; this study has none."),
    *[ReportTable(
        f"TS{n}", f"Table S{n}", f"{dim.capitalize()} prediction by the FER models",
        ("fer_dimensional_agreement",),
        f"""SELECT x.model, x.n, x.pearson_r, x.mae, x.paper_pearson_r, x.paper_mae
            FROM fer_dimensional_agreement x WHERE x.dimension = '{dim}' ORDER BY x.pearson_r DESC""",
        show_if=f"SELECT count(*) > 0 FROM fer_dimensional_agreement WHERE dimension = '{dim}'",
        show_if_note="shown when FER conditions with this dimension exist; this study has none.")
      for n, dim in ((2, "valence"), (3, "arousal"))],
]
VALENCE = dimension_tables("valence", "4")
AROUSAL = dimension_tables("arousal", "5")

REPLACEABILITY = [
    ReportTable(
        "T6", "Table 6", "Response diversity: inter-model SD vs the SD of k humans drawn per image",
        ("response_diversity_k_human", "factor_labels"),
        f"""SELECT x.dimension, x.category, x.k, x.model_sd, x.human_sd, x.model_to_human_sd_ratio,
                   x.human_sd_ci_low, x.human_sd_ci_high, x.replicates, x.n_images, x.n_excluded_images
            FROM response_diversity_k_human x {JOIN_EMO} ORDER BY x.dimension DESC, {EMO_ORDER}""",
        caption="model_sd: SD across the k model conditions per image, averaged within category; "
                "human_sd: the same for k humans drawn without replacement (bootstrap mean)."),
    ReportTable(
        "T6b", None, "Response diversity per condition: unique values, SD, modal share",
        ("response_diversity", "stg_model_conditions", "factor_labels"),
        f"""SELECT x.dimension, x.category, {COND} AS condition, x.* EXCLUDE (condition_id, dimension, category)
            FROM response_diversity x {JOIN_COND} {JOIN_EMO}
            ORDER BY x.dimension DESC, {EMO_ORDER}, {COND_ORDER}"""),
    ReportTable(
        "T8", "Table 8", "Replaceability verdicts (category x measure)",
        ("replaceability_verdicts", "factor_labels"),
        f"""SELECT x.category, x.measure,
                   x.verdict || ' (' || x.n_conditions_passing || ': ' || coalesce(x.passing_conditions, '-') || ')'
                   || CASE WHEN x.stereotyped THEN ' [stereotyped]' ELSE '' END AS cell
            FROM replaceability_verdicts x {JOIN_EMO}
            ORDER BY {EMO_ORDER}, CASE x.measure WHEN 'classification' THEN 0 WHEN 'valence' THEN 1 ELSE 2 END""",
        pivot=Pivot(("category",), "measure", "cell"),
        caption=("verdict (conditions passing: which) — the rule's inputs are in the full table below; its "
                 "delta_alpha_scope column says which delta alpha gated the passes (pooled over all images = "
                 "the paper's default, or per category).")),
    ReportTable(
        "T8i", None, "Replaceability verdicts with the inputs of each rule",
        ("replaceability_verdicts", "factor_labels"),
        f"SELECT x.* FROM replaceability_verdicts x {JOIN_EMO} ORDER BY x.measure, {EMO_ORDER}"),
    ReportTable(
        "TLMM", None, "LMM rating ~ rater_type * category + (1 | image_id)",
        ("lmm_rater_type", "stg_model_conditions"),
        f"SELECT {COND} AS condition, x.* EXCLUDE (condition_id) FROM lmm_rater_type x {JOIN_COND} ORDER BY {COND_ORDER}"),
]

MAE = [
    ReportTable(
        "TS5", "Table S5", "MAE and its folded-normal approximation sqrt(bias^2 + (2/pi) SD_d^2)",
        ("dimensional_agreement", "stg_model_conditions"),
        f"""SELECT x.dimension, {COND} AS condition, x.bias, x.sd_d, x.mae, x.mae_folded_normal
            FROM dimensional_agreement x {JOIN_COND}
            WHERE x.category = 'all' AND x.condition_id NOT LIKE 'human%' ORDER BY 1, x.mae"""),
    *[ReportTable(
        f"TS{n}", f"Table S{n}", f"{dim.capitalize()} MAE per condition",
        ("dimensional_agreement", "stg_model_conditions"),
        f"""SELECT {COND} AS condition, x.mae FROM dimensional_agreement x {JOIN_COND}
            WHERE x.dimension = '{dim}' AND x.category = 'all' AND x.condition_id NOT LIKE 'human%'
            ORDER BY x.mae""") for n, dim in ((6, "valence"), (7, "arousal"))],
    ReportTable(
        "TS8", "Table S8", "Human MAE baselines (leave-one-out and pairwise) against each model's MAE",
        ("dimensional_agreement", "stg_model_conditions"),
        f"""SELECT x.dimension, x.human_loo_mae, x.human_pairwise_mae, {COND} AS condition, x.mae,
                   x.mae_to_human_loo_mae
            FROM dimensional_agreement x {JOIN_COND}
            WHERE x.category = 'all' AND x.dimension IN ('valence', 'arousal') ORDER BY x.dimension DESC, x.mae""",
        caption="LOO: each rater against the mean of the other raters; pairwise: all rater pairs of an image."),
]
