"""The paper's figures as Altair charts. Each chart draws the rows of its sources as stored in the
warehouse; the only transforms are presentational (reshaping long rows to x/y, drawing a stored
centroid once per category, significance stars from q values). Figures of many stimuli draw
aggregates stored by the report marts (models/marts/report: bins, histograms, box quartiles), never
a point per stimulus, so the report's size does not grow with the study's stimuli."""
from __future__ import annotations

import altair as alt

from .applicability import study_spelling
from .specs import ReportContext, ReportFigure, Source

VERDICT_COLOURS = {"replaceable": "#1a9850", "partial": "#91cf60", "calibratable": "#fee08b",
                   "not_replaceable": "#d73027", "model_dependent": "#fdae61"}


def data(i: int) -> alt.NamedData:
    """The figure's i-th source. Charts refer to their rows by name; build.py attaches each source's
    rows once as a top-level dataset (sub-charts would otherwise copy them once each)."""
    return alt.NamedData(name=f"source_{i}")


def tooltips(*fields) -> list:
    """Tooltip channels; a shorthand ("name:Q") becomes alt.Tooltip here. Every channel is given as
    an object because Altair turns a bare shorthand into one through a lookup it rebuilds per call
    (hashing each of its ~600 schema classes, ~2 ms): most of a figure's spec time."""
    return [alt.Tooltip(f) if isinstance(f, str) else f for f in fields]


def single_row(i: int = 0) -> alt.Chart:
    """A chart over one row (for reference marks drawn once: the +-1 SD band, the diagonal). Vega-Lite
    draws nothing for a layer without data, and one mark per row would stack their opacity."""
    return alt.Chart(data(i)).transform_aggregate(rows="count()")


def _category_sort(ctx: ReportContext):
    return ctx.categories or "ascending"


def bias_heatmap(dimension: str):
    def chart(frames, ctx):
        base = alt.Chart(data(0)).encode(
            x=alt.X("condition_id:N", title="condition", sort=ctx.conditions or "ascending"),
            y=alt.Y("category:N", sort=_category_sort(ctx)))
        rect = base.mark_rect().encode(
            color=alt.Color("bias:Q", title="bias (human - model)",
                            scale=alt.Scale(scheme="redblue", domainMid=0, reverse=True)),
            tooltip=tooltips("condition_id:N", "category:N", alt.Tooltip("bias:Q", format="+.3f"),
                     alt.Tooltip("sd_d:Q", format=".2f")))
        text = base.mark_text(fontSize=10).encode(text=alt.Text("bias:Q", format="+.2f"))
        return (rect + text).properties(width=480, height=220,
                                         title=f"{dimension.capitalize()} Bland-Altman bias")
    return chart


def _space(base, ctx, title: str, size: int, axes: tuple[str, str]):
    """One panel of the rating space from report_space_bins: a circle per occupied bin, its area the
    number of stimuli there, and the category centroid (the exact mean of the unbinned points)."""
    colour = alt.Color("category:N", title="category", sort=_category_sort(ctx))
    bins = base.mark_circle(opacity=0.45).encode(
        x=alt.X("x_bin:Q", title=axes[0], scale=alt.Scale(zero=False)),
        y=alt.Y("y_bin:Q", title=axes[1], scale=alt.Scale(zero=False)),
        size=alt.Size("n:Q", title="stimuli", scale=alt.Scale(range=[6, 260])), color=colour,
        tooltip=tooltips("category:N", "x_bin:Q", "y_bin:Q", "n:Q"))
    # every bin row of a category carries its centroid: drawn once per category
    centroids = base.transform_aggregate(
        cx="min(centroid_x)", cy="min(centroid_y)", points="min(n_points)", groupby=["category"]).mark_point(
        shape="diamond", size=140, filled=True, opacity=1, stroke="black", strokeWidth=1).encode(
        x=alt.X("cx:Q"), y=alt.Y("cy:Q"), color=colour, tooltip=tooltips("category:N", "cx:Q", "cy:Q", "points:Q"))
    return alt.layer(bins, centroids, width=size, height=size, title=title)


def _shared_scale(**channels: str):
    """A concatenation's scale resolution, given when it is built: `.resolve_scale()` afterwards
    rebuilds the whole concatenation, which Altair makes by deep-copying every sub-chart again."""
    return alt.Resolve(scale=alt.ScaleResolveMap(**channels))


def human_space(x: str, y: str):
    def chart(frames, ctx):
        return _space(alt.Chart(data(0)), ctx, "Human per-stimulus means (diamond = category centroid)",
                      360, (x, y))
    return chart


def model_space(x: str, y: str):
    def chart(frames, ctx):
        conditions = ctx.conditions or sorted(frames[0]["condition_id"].unique())
        present = set(frames[0]["condition_id"])
        panels = [_space(alt.Chart(data(0)).transform_filter(alt.datum.condition_id == c), ctx, c, 200, (x, y))
                  for c in conditions if c in present]
        rows = [alt.hconcat(*panels[i:i + 4]) for i in range(0, len(panels), 4)]
        return alt.vconcat(*rows, resolve=_shared_scale(color="shared", size="shared"))
    return chart


def z_distribution(dimension: str):
    def chart(frames, ctx):
        density, models = frames
        z_scale = alt.Scale(domain=[-5, 5], clamp=True)
        rows = []
        for category in ctx.categories or sorted(density["category"].unique()):
            human = alt.Chart(data(0)).transform_filter(alt.datum.category == category).mark_area(
                opacity=0.45, interpolate="step-after", color="#888").encode(
                x=alt.X("bin_lower:Q", title="z", scale=z_scale),
                y=alt.Y("density:Q", title="human LOO density"))
            band = single_row(0).mark_rect(opacity=0.12, color="#1f77b4").encode(
                x=alt.XDatum(-1), x2=alt.X2Datum(1))
            # one strip per condition: each bin of its z histogram, darker where more of its stimuli fall
            strips = alt.Chart(data(1)).transform_filter(alt.datum.category == category).mark_rect().encode(
                x=alt.X("bin_lower:Q", title="z", scale=z_scale), x2=alt.X2("bin_upper:Q"),
                y=alt.Y("condition_id:N", title=None, sort=ctx.conditions or "ascending"),
                color=alt.Color("condition_id:N", title="condition", sort=ctx.conditions or "ascending"),
                opacity=alt.Opacity("share:Q", title="share of stimuli", scale=alt.Scale(range=[0.15, 1])),
                tooltip=tooltips("condition_id:N", "bin_lower:Q", "bin_upper:Q", "n:Q", alt.Tooltip("share:Q", format=".1%")))
            top = alt.layer(band, human, width=520, height=70, title=category)
            rows.append(alt.vconcat(top, alt.layer(band, strips, width=520, height=110), spacing=2))
        return alt.vconcat(*rows, resolve=_shared_scale(x="shared"))
    return chart


def diversity_scatter(frames, ctx):
    base = alt.Chart(data(0))
    diagonal = single_row(0).mark_rule(strokeDash=[4, 4], color="gray").encode(
        x=alt.XDatum(0), y=alt.YDatum(0), x2=alt.X2Datum(3), y2=alt.Y2Datum(3))
    points = base.mark_point(filled=True, size=80).encode(
        x=alt.X("human_sd:Q", title="k-human SD (bootstrap mean)", scale=alt.Scale(domain=[0, 3])),
        y=alt.Y("model_sd:Q", title="inter-model SD", scale=alt.Scale(domain=[0, 3])),
        color=alt.Color("category:N", sort=_category_sort(ctx)), shape=alt.Shape("dimension:N"),
        tooltip=tooltips("dimension:N", "category:N", "model_sd:Q", "human_sd:Q"))
    return (diagonal + points).properties(width=360, height=360,
                                          title="Below the diagonal: models more uniform than humans")


def diversity_boxplots(frames, ctx):
    """Boxes drawn from report_sd_boxes' stored quartiles and Tukey whiskers (no point per stimulus)."""
    base = alt.Chart().encode(x=alt.X("category:N", sort=_category_sort(ctx)), xOffset=alt.XOffset("source:N"),
                              color=alt.Color("source:N"))
    whiskers = base.mark_rule().encode(y=alt.Y("whisker_low:Q", title="per-stimulus SD"), y2=alt.Y2("whisker_high:Q"))
    box = base.mark_bar(size=12).encode(
        y=alt.Y("q1:Q"), y2=alt.Y2("q3:Q"),
        tooltip=tooltips("dimension:N", "category:N", "source:N", "n:Q", "q1:Q", "median:Q", "q3:Q", "whisker_low:Q",
                 "whisker_high:Q", "n_outside:Q"))
    median = base.mark_tick(color="black", size=12, thickness=2).encode(y=alt.Y("median:Q"))
    return alt.layer(whiskers, box, median, data=data(0)).properties(width=320, height=220).facet(
        column=alt.Column("dimension:N"))


def f1_bars(slice_field: str, title: str):
    def chart(frames, ctx):
        return alt.Chart(data(0)).mark_bar().encode(
            x=alt.X("condition_id:N", title="condition", sort=["human", *ctx.conditions]),
            xOffset=alt.XOffset(f"{slice_field}:N"), y=alt.Y("f1_macro:Q", title="macro-F1", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color(f"{slice_field}:N"),
            tooltip=tooltips("condition_id:N", f"{slice_field}:N", "f1_macro:Q", "accuracy:Q", "n:Q"),
        ).properties(width=640, height=240, title=title)
    return chart


def audit_1_audit_2_bars(frames, ctx):
    return alt.Chart(data(0)).mark_bar().encode(
        x=alt.X("audit_1:N"), xOffset=alt.XOffset("audit_2:N"), y=alt.Y("f1_macro:Q", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("audit_2:N"), facet=alt.Facet("condition_id:N", columns=5, sort=["human", *ctx.conditions]),
        tooltip=tooltips("condition_id:N", "audit_1:N", "audit_2:N", "f1_macro:Q", "accuracy:Q", "n:Q"),
    ).properties(width=130, height=140)


def interaction_heatmap(frames, ctx):
    base = alt.Chart(data(0)).transform_calculate(
        stars="datum.q_bh < 0.001 ? '***' : datum.q_bh < 0.01 ? '**' : datum.q_bh < 0.05 ? '*' : ''")
    panels = []
    for dim in dict.fromkeys(frames[0]["dimension"]):
        b = base.transform_filter(alt.datum.dimension == dim).encode(
            x=alt.X("condition_id:N", title="condition", sort=ctx.conditions or "ascending"),
            y=alt.Y("category:N", sort=_category_sort(ctx)))
        rect = b.mark_rect().encode(color=alt.Color("eta_sq:Q", title="eta^2", scale=alt.Scale(scheme="oranges")),
                                    tooltip=tooltips("condition_id:N", "category:N", "eta_sq:Q", "q_bh:Q"))
        panels.append(alt.layer(rect, b.mark_text(fontSize=11).encode(text=alt.Text("stars:N")),
                                width=300, height=200, title=f"{dim} bias: audit_1 x audit_2"))
    return alt.hconcat(*panels, resolve=_shared_scale(color="shared"))


def verdict_grid(frames, ctx):
    base = alt.Chart(data(0)).encode(
        x=alt.X("measure:N", sort=["classification", *ctx.dimensions]),
        y=alt.Y("category:N", sort=_category_sort(ctx)))
    rect = base.mark_rect(stroke="white").encode(
        color=alt.Color("verdict:N", scale=alt.Scale(domain=list(VERDICT_COLOURS),
                                                      range=list(VERDICT_COLOURS.values()))),
        tooltip=tooltips("category:N", "measure:N", "verdict:N", "n_conditions_passing:Q", "passing_conditions:N", "stereotyped:N"))
    # Names start at the top of their cell, and cells are tall enough for the longest list.
    cells = frames[0]
    names = int(cells["passing_conditions"].fillna("").str.count(",").max() + 1) if len(cells) else 1
    rows = max(cells["category"].nunique(), 1)
    row_height = max(70, 11 * names + 16)
    height = rows * row_height
    text = base.mark_text(fontSize=9, lineBreak=",", lineHeight=11, baseline="top",
                          dy=-row_height / 2 + 6).encode(text=alt.Text("passing_conditions:N"))
    return (rect + text).properties(width=540, height=height, title="Replaceability (passing conditions in each cell)")


def judge_win_rates(frames, ctx):
    base = alt.Chart(data(0)).encode(
        y=alt.Y("candidate_id:N", title="candidate"), yOffset=alt.YOffset("variant:N"), color=alt.Color("variant:N"))
    rule = base.mark_rule().encode(x=alt.X("win_rate_ci_low:Q", title="win rate vs anchor (ties = 1/2)",
                                           scale=alt.Scale(domain=[0, 1])), x2=alt.X2("win_rate_ci_high:Q"))
    point = base.mark_point(filled=True).encode(
        x=alt.X("win_rate:Q"), tooltip=tooltips("judge_id:N", "candidate_id:N", "variant:N", "axis:N", "wins:Q", "ties:Q", "losses:Q", "win_rate:Q"))
    return (rule + point).properties(width=220, height=160).facet(
        column=alt.Column("axis:N"), row=alt.Row("judge_id:N"))


def judge_bradley_terry(frames, ctx):
    base = alt.Chart().encode(y=alt.Y("candidate_id:N", title="candidate"), yOffset=alt.YOffset("variant:N"),
                                       color=alt.Color("variant:N"))
    rule = base.mark_rule().encode(x=alt.X("ci_low:Q", title="log strength"), x2=alt.X2("ci_high:Q"))
    point = base.mark_point(filled=True).encode(
        x=alt.X("log_strength:Q"), tooltip=tooltips("judge_id:N", "design:N", "candidate_id:N", "variant:N", "axis:N", "log_strength:Q"))
    return alt.layer(rule, point, data=data(0)).transform_calculate(
        judge_design="datum.judge_id + ' · ' + datum.design").properties(width=220, height=160).facet(
        column=alt.Column("axis:N"), row=alt.Row("judge_design:N", title="judge · design"))


NOT_HUMAN = "condition_id NOT LIKE 'human%'"


def space_figures(x: str, y: str, ours=("F4a", "F4b"), paper=("Figure 4a", "Figure 4b")) -> tuple[ReportFigure, ReportFigure]:
    """Figures 4a and 4b for any two model dimensions of the study (valence and arousal in the paper),
    binned (report_space_bins): the report's size does not grow with the stimuli."""
    pair = f"x_dimension = '{x}' AND y_dimension = '{y}'"
    columns = ("condition_id", "category", "x_bin", "y_bin", "n", "centroid_x", "centroid_y", "n_points")
    return (
        ReportFigure(ours[0], paper[0], f"Human {x}-{y} space",
                     (Source("report_space_bins", columns, f"condition_id = 'human' AND {pair}"),),
                     human_space(x, y), "Each stimulus at the mean of its human ratings, counted in bins of "
                     "0.25 (circle area = stimuli in the bin)."),
        ReportFigure(ours[1], paper[1], f"Model {x}-{y} space, one panel per condition",
                     (Source("report_space_bins", columns, f"condition_id <> 'human' AND {pair}"),),
                     model_space(x, y), "Each stimulus at the condition's answer, counted in bins of 0.25 "
                     "(integer answers stay on their integers; circle area = stimuli); diamonds mark centroids."))


def dimension_figures(dim: str, z_ours, z_paper, bias_ours, bias_paper) -> tuple[ReportFigure, ReportFigure]:
    """The Bland-Altman bias heatmap (Figures 2, 3) and the z distribution (Figures 4f, 5f) of one
    model dimension; numbered by the caller (the paper's numbers for valence and arousal)."""
    label = dim.capitalize()
    bias = ReportFigure(bias_ours or f"F-{dim}-bias", bias_paper, f"{label} Bland-Altman bias by model and category",
                        (Source("dimensional_agreement", ("condition_id", "category", "bias", "sd_d"),
                                f"dimension = '{dim}' AND category <> 'all' AND {NOT_HUMAN}"),),
                        bias_heatmap(dim), "Red = the model rates lower than humans (bias > 0), blue = higher.")
    z = ReportFigure(z_ours or f"F-{dim}-z", z_paper, f"{label} z-scores by category against the human LOO density",
                     (Source("report_loo_z_histogram", ("dimension", "category", "bin_lower", "bin_upper", "density"),
                             f"dimension = '{dim}'"),
                      Source("report_model_z_histogram", ("condition_id", "category", "bin_lower", "bin_upper",
                                                          "n", "share"), f"dimension = '{dim}'")),
                     z_distribution(dim), "Grey: density of each human's z against the other raters (LOO); "
                     "strips: each model's z histogram on the same bins, darker where more stimuli fall; "
                     "blue band: |z| <= 1.")
    return bias, z


FIGURES = [
    *[dimension_figures(dim, None, None, f"F{n}", f"Figure {n}")[0] for n, dim in ((2, "valence"), (3, "arousal"))],
    *space_figures("valence", "arousal"),
    *[dimension_figures(dim, f"F{n}f", f"Figure {n}f", None, None)[1] for n, dim in ((4, "valence"), (5, "arousal"))],
    ReportFigure("F5", "Figure 5", "Inter-model SD against the k-human bootstrap SD",
                 (Source("response_diversity_k_human", ("dimension", "category", "model_sd", "human_sd")),),
                 diversity_scatter),
    ReportFigure("F6", "Figure 6", "Per-image SD: models vs k humans",
                 (Source("report_sd_boxes", ("dimension", "category", "source", "n", "q1", "median", "q3",
                                             "whisker_low", "whisker_high", "n_outside")),),
                 diversity_boxplots, "Boxes: quartiles; whiskers: the most extreme SDs within 1.5 IQR "
                 "(report_sd_boxes counts the rest in n_outside)."),
    ReportFigure("F7", "Figure 7", "Macro-F1 by audit_1",
                 (Source("demographic_slices", ("condition_id", "slice", "f1_macro", "accuracy", "n"),
                         "slice_type = " + study_spelling("audit_1")),), f1_bars("slice", "Macro-F1 by audit_1")),
    ReportFigure("F7a", "Figure 7a", "Macro-F1 by audit_2",
                 (Source("demographic_slices", ("condition_id", "slice", "f1_macro", "accuracy", "n"),
                         "slice_type = " + study_spelling("audit_2")),), f1_bars("slice", "Macro-F1 by audit_2")),
    ReportFigure("F7b", "Figure 7b", "Macro-F1 by audit_1 x audit_2",
                 (Source("demographic_slices", ("condition_id", "audit_1", "audit_2", "f1_macro", "accuracy", "n"),
                         "slice_type = " + study_spelling("audit_1_audit_2")),), audit_1_audit_2_bars),
    ReportFigure("F7d", "Figure 7d", "Audit_1 x audit_2 interaction eta^2 by category and model",
                 (Source("demographic_stratified_anova", ("condition_id", "dimension", "category", "eta_sq", "q_bh"),
                         "term = " + study_spelling("audit_1:audit_2")),), interaction_heatmap,
                 "Stars from Benjamini-Hochberg q: * < .05, ** < .01, *** < .001."),
    ReportFigure("F8", "Table 8 (figure)", "Replaceability matrix",
                 (Source("replaceability_verdicts", ("category", "measure", "verdict", "n_conditions_passing",
                                                     "passing_conditions", "stereotyped")),), verdict_grid),
    ReportFigure("FJ1", None, "Judge win rates against the anchor (Wilson 95% interval)",
                 (Source("judge_win_rates", ("judge_id", "candidate_id", "variant", "axis", "wins", "ties",
                                             "losses", "win_rate", "win_rate_ci_low", "win_rate_ci_high")),),
                 judge_win_rates),
    ReportFigure("FJ2", None, "Judge Bradley-Terry strengths",
                 (Source("judge_bradley_terry", ("judge_id", "design", "variant", "axis", "candidate_id",
                                                 "log_strength", "ci_low", "ci_high")),),
                 judge_bradley_terry),
]
