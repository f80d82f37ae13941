"""The paper's analyses that had no table (docs/marts_paper_extras.md): Tables 1, S4, S6 and
Figure 1 (models/marts/study_design), section 3.2's human baseline and section 2.5's naturalness
(models/marts/human_baseline), section 5.3's response time against accuracy
(models/marts/difficulty), and which truth the classification tables score against. Queries only
filter, join labels, format and reshape; the paper's numbers come from the marts' paper_* columns."""
from __future__ import annotations

import altair as alt

from .figures import data, tooltips
from .specs import ReportFigure, ReportTable, Source
from .tables_agreement import EMO_ORDER, JOIN_EMO

# (fill, stroke) per lane: the paper's Figure 1 colours
LANE_COLOURS = {"stimuli": ("#e1f5fe", "#0288d1"), "human": ("#fff3e0", "#f57c00"),
                "models": ("#e8f5e9", "#388e3c"), "warehouse": ("#eeeeee", "#757575"),
                "analysis": ("#f3e5f5", "#7b1fa2")}

CONDITIONS = "model_condition_specs x ORDER BY x.kind <> 'vlm', x.paper_table, x.condition_id"

STUDY_DESIGN = [
    ReportTable(
        "T1", "Table 1", "Model conditions and their settings (from the landed model_conditions)",
        ("model_condition_specs",),
        f"""SELECT x.display_name AS model, x.provider, x.parameters, x.quantization,
                   x.thinking_label AS thinking, x.backend_label AS backend, x.key_settings, x.n_images_predicted
            FROM {CONDITIONS}""",
        caption="Thinking and Key Settings are derived from each condition's settings "
                "(thinking, thinking_budget, temperature, seed, image_detail, repetition_penalty)."),
    ReportTable(
        "TS4", "Table S4", "Prompt strategy and back-end per condition",
        ("model_condition_specs",),
        f"""SELECT x.display_name AS model, x.backend, x.strategy, x.thinking_label AS thinking
            FROM {CONDITIONS}""",
        caption="The back-end and strategy each condition actually declares; the paper's S4 names "
                "other back-ends (Ollama, HuggingFace) than its Table 1 (MLX) for some local models."),
    ReportTable(
        "TS6p", "Table S6 (model profiles)", "Developer, release, size, reasoning and weights of each condition",
        ("model_condition_specs",),
        """SELECT x.display_name AS model, x.developer, x.released, x.parameters_s6 AS parameters,
                  x.reasoning, x.weights
           FROM model_condition_specs x WHERE x.developer IS NOT NULL
           ORDER BY x.condition_id""",
        show_if="SELECT count(*) > 0 FROM model_condition_specs WHERE developer IS NOT NULL",
        show_if_note="shown for conditions with a row in seeds/model_condition_profiles.csv; this study has none."),
]


def pipeline(frames, ctx):
    """Figure 1: one box per stage on its grid cell (drawn over the edges), coloured by lane."""
    n_rows = int(frames[0]["row"].max()) + 1 if len(frames[0]) else 1
    n_cols = int(frames[0]["col"].max()) + 1 if len(frames[0]) else 1
    x_scale = alt.Scale(domain=[-0.5, n_cols - 0.5])
    y_scale = alt.Scale(domain=[-0.6, n_rows - 0.4], reverse=True)
    lanes = list(LANE_COLOURS)
    edges = alt.Chart(data(1)).mark_rule(color="#9e9e9e", strokeWidth=0.8).encode(
        x=alt.X("col:Q", axis=None, scale=x_scale), y=alt.Y("row:Q", axis=None, scale=y_scale),
        x2=alt.X2("to_col:Q"), y2=alt.Y2("to_row:Q"))
    nodes = alt.Chart(data(0)).transform_calculate(
        x0="datum.col - 0.45", x1="datum.col + 0.45", y0="datum.row - 0.42", y1="datum.row + 0.42")
    boxes = nodes.mark_rect(strokeWidth=1.2, cornerRadius=3).encode(
        x=alt.X("x0:Q", scale=x_scale, axis=None), x2=alt.X2("x1:Q"),
        y=alt.Y("y0:Q", scale=y_scale, axis=None), y2=alt.Y2("y1:Q"),
        fill=alt.Fill("lane:N", scale=alt.Scale(domain=lanes, range=[LANE_COLOURS[k][0] for k in lanes]),
                      legend=alt.Legend(title="stage", orient="bottom")),
        stroke=alt.Stroke("lane:N", scale=alt.Scale(domain=lanes, range=[LANE_COLOURS[k][1] for k in lanes]),
                          legend=None),
        tooltip=tooltips("label:N", "detail:N"))
    text = nodes.encode(x=alt.X("col:Q", scale=x_scale), y=alt.Y("row:Q", scale=y_scale))
    labels = text.mark_text(fontSize=10, fontWeight="bold", dy=-6).encode(text=alt.Text("label:N"))
    details = text.mark_text(fontSize=9, dy=7).encode(text=alt.Text("detail:N"))
    return (edges + boxes + labels + details).properties(width=160 * n_cols, height=max(160, 38 * n_rows))


FIGURE_1 = ReportFigure(
    "F1", "Figure 1", "The study pipeline, drawn from this project's stages",
    (Source("pipeline_stages", ("node_id", "lane", "label", "detail", "col", "row"), "element = 'node'"),
     Source("pipeline_stages", ("node_id", "to_node", "col", "row", "to_col", "to_row"), "element = 'edge'")),
    pipeline,
    "Landed inputs (with their sizes), the quality gate, the dbt layers (models per layer from dbt's graph), "
    "one box per mart folder (tables per folder) and the report.")

HUMAN_BASELINE = [
    ReportTable(
        "T3.2", "Section 3.2", "Human baseline: alpha at both levels and rater vs image variance",
        ("human_reliability",),
        """SELECT x.dimension, x.alpha_ordinal, x.paper_alpha_ordinal, x.alpha_interval, x.rater_variance,
                  x.paper_rater_variance, x.image_variance, x.rater_to_image_ratio, x.paper_rater_to_image_ratio,
                  x.residual_variance, x.variance_formula
           FROM human_reliability x ORDER BY x.dimension DESC""",
        caption="Section 3.2 reports the human alpha at the ordinal level; delta alpha (Tables 4c/5c) uses the "
                "interval level. Variances: REML fit of the variance_formula, by the method of moments above var "
                "variance_components_max_ratings ratings (human_variance_components.method); the ratio is "
                "rater / image variance."),
    ReportTable(
        "T2.5", "Section 2.5", "Naturalness per category",
        ("naturalness_by_category", "factor_labels"),
        f"""SELECT x.category, x.mean_naturalness, x.paper_mean, x.sd_ratings, x.sd_image_means, x.n_images,
                   x.n_ratings
            FROM naturalness_by_category x {JOIN_EMO} ORDER BY x.category = 'all', {EMO_ORDER}""",
        show_if="SELECT count(*) > 0 FROM naturalness_by_category",
        show_if_note="not applicable to this study: it declares no naturalness dimension (study.yml dimensions)."),
]

DIFFICULTY = [
    ReportTable(
        "T5.3", "Section 5.3", "Human response time against the models' mean accuracy per category",
        ("difficulty_rt_accuracy", "factor_labels"),
        f"""SELECT x.rt_dimension, x.category, x.median_rt_ms, x.paper_median_rt_ms, x.mean_accuracy,
                   x.paper_mean_accuracy, x.spearman_rho, x.paper_spearman_rho, x.p_value, x.p_method,
                   x.n_conditions, x.small_n_caveat
            FROM difficulty_rt_accuracy x {JOIN_EMO}
            ORDER BY x.rt_dimension DESC, x.category = 'all', {EMO_ORDER}""",
        caption="rho (on the 'all' row): Spearman of the median response time and the mean error rate "
                "(1 - accuracy) over the categories; the paper's +0.60 reads 'slow for humans = hard for the models'."),
]

CLASSIFICATION_TRUTH = ReportTable(
    "T3t", "Table 3 (caption)", "The truth the classification tables score against",
    ("analysis_choices",),
    """SELECT x.value AS truth, x.allowed_values, x.description
       FROM analysis_choices x WHERE x.choice = 'classification_truth'""",
    caption="Declared in seeds/analysis_choices.csv (classification_truth); Tables 2, 3, 3a and the confusion "
            "matrices use it.")
