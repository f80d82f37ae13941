"""models/marts/demographics: the demographic bias audit (docs/marts_demographics.md).

The dbt Python models in models/marts/demographics/ hand their refs to the functions named like
them at the end of this module. It only reshapes and types frames; every statistic is a call into
rater1001.stats.demographics (slices, gaps, GLMM LR tests, nested F tests, BH, Tukey, omnibus,
counts), the one home of those formulas.

Why typed frames: a mart must build EMPTY (not fail, not get untyped NULL columns) when there are
no predictions, so every output goes through `typed(frame, declared(<mart>))`: the columns and
data_type its yml declares, which DuckDB stores as VARCHAR / DOUBLE / BIGINT / BOOLEAN.
"""

from __future__ import annotations

import itertools

import duckdb
import numpy as np
import pandas as pd

from ..stats import agreement, demographics, omnibus, rater_slices, stratified_anova, tukey
from ..study import AUDIT_SLOTS, CATEGORY_SLOT
from ._shared import ALL, as_frame, declared, in_pool, typed, with_origin

POOL = "demographics"  # the conditions the audit covers (seeds/condition_pools.csv)
HUMAN_CONDITION = "human"  # condition_id of the pooled human forced-choice labels (Table 7's Human row)


# --------------------------------------------------------------------------- the study's factors
# Every audit statistic reads the long form (stg_stimulus_factor_levels and the cells made from
# it: int_audit_bias_cells, int_audit_pair_cells, int_audit_correct_counts), whose keys are never
# NULL, however many audit factors the study declares (docs/marts_demographics.md). The values
# that name a factor in an output (slice_type, factor, term) are the study's declared names.
PLACEHOLDER = "(none)"  # the second factor's one level in a one-factor ANOVA (pandas only)


def _audit_levels(study_factors: pd.DataFrame, factor_levels: pd.DataFrame):
    """({column: declared name} of every audit factor in declared order, each stimulus's level per
    column). A factor in the slot audit_1 / audit_2 has the slot as its column (demographic_slices'
    audit_1 / audit_2 columns hold its level), any other factor_<position>; a stimulus without a
    level of some audit factor is left out."""
    audit = study_factors[study_factors["role"] == "audit"].sort_values("position")
    named = {
        (str(slot) if isinstance(slot, str) and slot in AUDIT_SLOTS else f"factor_{i}"): str(factor)
        for i, (factor, slot) in enumerate(zip(audit["factor"], audit["slot"], strict=True))
    }
    factors = list(named.values())
    levels = factor_levels[factor_levels["factor"].isin(factors)]
    wide = levels.pivot(index="image_id", columns="factor", values="level")
    wide = wide.reindex(columns=factors).set_axis(list(named), axis=1).dropna().reset_index()
    return named, wide


def _counted(rows: pd.DataFrame, keys: list[str], weight: str | None) -> pd.DataFrame:
    """Identical rows counted once (column n) so that scikit-learn sees one weighted row per
    combination; an unparsed answer (predicted_category NULL) stays NULL, which is wrong."""
    g = rows.groupby(keys, sort=True, dropna=False)
    out = (g.size() if weight is None else g[weight].sum()).rename("n").reset_index()
    return out.assign(
        predicted_category=out["predicted_category"].astype(object).where(out["predicted_category"].notna(), None)
    )


def slices_table(
    model_vs_human: pd.DataFrame,
    label_counts: pd.DataFrame,
    study_factors: pd.DataFrame,
    factor_levels: pd.DataFrame,
) -> pd.DataFrame:
    """demographic_slices: accuracy and macro-F1 per (condition, slice_type, slice) by every
    declared audit factor and every pair of them, for every model condition (int_model_vs_human:
    a never-answered or unparsed stimulus is wrong) and, where human forced-choice labels exist,
    the pooled human raters (int_human_label_counts); each row carries its (condition,
    slice_type)'s largest gap in percentage points. Each stimulus's levels come from the long form
    stg_stimulus_factor_levels."""
    if _category(study_factors) is None:  # accuracy and F1 need a category to be right about
        return typed(pd.DataFrame(), declared("demographic_slices"))
    named, wide = _audit_levels(study_factors, factor_levels)
    columns = list(named)
    parts = []
    answers = model_vs_human.loc[
        model_vs_human["true_category"].notna(), ["condition_id", "image_id", "true_category", "predicted_category"]
    ]
    answers = answers.merge(wide, on="image_id").rename(columns={"true_category": "category"})
    if columns and len(answers):
        models = _counted(answers, ["condition_id", *columns, "category", "predicted_category"], None)
        parts.append(demographics.slice_metrics(models, weight="n", factors=columns).assign(rater_kind="model"))
    humans = label_counts[["image_id", "true_category", "chosen_category", "n_labels"]].merge(wide, on="image_id")
    humans = humans.rename(columns={"true_category": "category", "chosen_category": "predicted_category"})
    if columns and len(humans):
        humans = _counted(humans, [*columns, "category", "predicted_category"], "n_labels")
        parts.append(
            demographics.slice_metrics(humans.assign(condition_id=HUMAN_CONDITION), weight="n", factors=columns).assign(
                rater_kind="human"
            )
        )
    if not parts:
        return typed(pd.DataFrame(), declared("demographic_slices"))
    slices = pd.concat(parts, ignore_index=True)
    # slice_metrics' types (a column, or a pair 'a_b') -> the study's factor names in them; the
    # audit_1 / audit_2 columns hold levels only on the rows of the two slotted factors
    types = {c: (c,) for c in columns}
    types.update({f"{a}_{b}": (a, b) for a, b in itertools.combinations(columns, 2)})
    beyond = slices["slice_type"].map(lambda t: any(c not in AUDIT_SLOTS for c in types[t])).to_numpy(dtype=bool)
    slices.loc[beyond, list(AUDIT_SLOTS)] = None
    slices = slices.assign(slice_type=slices["slice_type"].map(lambda t: "_".join(named[c] for c in types[t])))
    gaps = demographics.slice_gaps(slices).rename(columns={"reason": "gap_reason"})
    out = slices.merge(gaps, on=["condition_id", "slice_type"], how="left")
    return typed(out, declared("demographic_slices"))


def _audit_factors(study_factors: pd.DataFrame | None) -> list[str]:
    """The declared audit factors' names in declared order (stg_study_factors)."""
    if study_factors is None or study_factors.empty:
        return []
    audit = study_factors[study_factors["role"] == "audit"].sort_values("position")
    return list(audit["factor"].astype(str))


def _category(study_factors: pd.DataFrame | None) -> str | None:
    """The declared category's name, or None when the study has none."""
    if study_factors is None or study_factors.empty:
        return None
    category = study_factors.loc[study_factors["role"] == "category", "factor"]
    return str(category.iloc[0]) if len(category) else None


def glmm_lrt_table(
    correct_counts: pd.DataFrame, study_factors: pd.DataFrame, n_agq: int | None = demographics.DEFAULT_N_AGQ
) -> pd.DataFrame:
    """demographic_glmm_lrt: per condition and declared audit factor, the GLMM likelihood-ratio
    test of correctness, from int_audit_correct_counts (per condition, factor, level, intended
    category and correct: how many stimuli; an unparsed or never-given answer is wrong). Each
    factor uses every stimulus with a level of it."""
    factors, category = _audit_factors(study_factors), _category(study_factors)
    if correct_counts.empty or not factors or category is None:  # correctness needs a category
        return typed(pd.DataFrame(), declared("demographic_glmm_lrt"))
    rows = correct_counts.rename(columns={"true_category": "category"})
    table = demographics.glmm_lrt_factors(rows, factors, n_agq=n_agq, weight="n_images")
    return typed(table, declared("demographic_glmm_lrt"))


def stratified_anova_table(
    bias_cells: pd.DataFrame,
    pair_cells: pd.DataFrame,
    study_factors: pd.DataFrame,
    model_long: pd.DataFrame | None = None,
    factor_levels: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """demographic_stratified_anova. One audit factor: its own term per stratum, from its cells of
    int_audit_bias_cells (no second factor, no interaction). Two: each factor's term and their
    interaction, from the pair's cells of int_audit_pair_cells. More than two: every factor's term
    with all of them in the model and every pair's interaction, from the per-stimulus bias
    (int_model_vs_human_long) and stg_stimulus_factor_levels."""
    factors = _audit_factors(study_factors)
    if len(factors) > 2 and model_long is not None and factor_levels is not None:
        named, wide = _audit_levels(study_factors, factor_levels)
        return _anova_every_factor(model_long, named, wide)
    if not factors or len(factors) > 2:
        return typed(pd.DataFrame(), declared("demographic_stratified_anova"))
    if len(factors) == 1:
        cells = bias_cells[bias_cells["factor"] == factors[0]].assign(audit_2=PLACEHOLDER)
        cells = cells.rename(columns={"level": "audit_1"})
        spell = {"audit_1": factors[0]}
    else:
        term = f"{factors[0]}:{factors[1]}"
        cells = pair_cells[pair_cells["term"] == term].rename(
            columns={"first_level": "audit_1", "second_level": "audit_2"}
        )
        spell = {"audit_1": factors[0], "audit_2": factors[1], "audit_1:audit_2": term}
    if cells.empty:
        return typed(pd.DataFrame(), declared("demographic_stratified_anova"))
    cells = _one_stratum(cells, study_factors)[
        [*stratified_anova.CELL_KEYS, "n_rows", "n_bias", "bias_mean", "bias_ss"]
    ]
    table = stratified_anova.stratified_anova_cells(cells)
    # The placeholder factor's terms are not estimable (NULL p, outside every BH family), so
    # dropping them leaves q-values and family sizes as they are.
    if table.empty:  # no model dimensions: nothing to test
        return typed(table, declared("demographic_stratified_anova"))
    table = table[table["term"].isin(spell)]
    return typed(table.assign(term=table["term"].map(spell)), declared("demographic_stratified_anova"))


def _anova_every_factor(model_long: pd.DataFrame, named: dict[str, str], wide: pd.DataFrame) -> pd.DataFrame:
    rows = model_long[model_long["category"].notna()][["condition_id", "dimension", "category", "image_id", "d"]]
    rows = rows.merge(wide, on="image_id")
    if rows.empty:
        return typed(pd.DataFrame(), declared("demographic_stratified_anova"))
    table = stratified_anova.stratified_anova_factors(rows, list(named))
    if table.empty:
        return typed(table, declared("demographic_stratified_anova"))
    spell = {**named, **{f"{a}:{b}": f"{named[a]}:{named[b]}" for a, b in itertools.combinations(named, 2)}}
    return typed(table.assign(term=table["term"].map(spell)), declared("demographic_stratified_anova"))


def _one_stratum(cells: pd.DataFrame, study_factors: pd.DataFrame) -> pd.DataFrame:
    """Without a category every stimulus is in the one stratum 'all' (stg_stimuli)."""
    return cells if _category(study_factors) is not None else cells.assign(category=ALL)


def tukey_table(pair_cells: pd.DataFrame, anova: pd.DataFrame, study_factors: pd.DataFrame) -> pd.DataFrame:
    """demographic_tukey: Tukey HSD over the cells of each pair of audit factors (int_audit_pair_cells,
    term 'a:b' in the declared names) whose interaction the demographic_stratified_anova mart
    finds significant in a stratum."""
    if anova.empty or pair_cells.empty:
        return typed(pd.DataFrame(), declared("demographic_tukey"))
    cells = _one_stratum(pair_cells, study_factors).rename(columns={"cell": "group"})
    table = tukey.tukey_pair_cells(cells, anova)
    return typed(table, declared("demographic_tukey"))


def omnibus_table(bias_cells: pd.DataFrame, study_factors: pd.DataFrame) -> pd.DataFrame:
    """demographic_omnibus: per condition, dimension and declared audit factor, the omnibus F
    tests of the bias by the factor and by factor x category, from int_audit_bias_cells (every
    stimulus with a level of the factor)."""
    factors, category = _audit_factors(study_factors), _category(study_factors)
    if bias_cells.empty or not factors:
        return typed(pd.DataFrame(), declared("demographic_omnibus"))
    cells = _one_stratum(bias_cells, study_factors)
    dimensions = list(dict.fromkeys(cells["dimension"]))
    table = omnibus.omnibus_cells(cells, factors, dimensions=dimensions, category=category or CATEGORY_SLOT)
    if category is None and not table.empty:  # one stratum: no factor x category interaction
        table = table[table["term"] == table["factor"]]
    return typed(table, declared("demographic_omnibus"))


def significance_counts_table(anova: pd.DataFrame) -> pd.DataFrame:
    if anova.empty:
        return typed(pd.DataFrame(), declared("demographic_significance_counts"))
    anova = anova.assign(significant=anova["significant"].astype("boolean"))
    return typed(stratified_anova.significance_counts(anova), declared("demographic_significance_counts"))


def rater_agreement_table(ratings, attributes, predictions) -> pd.DataFrame:
    """demographic_rater_agreement: stg_human_ratings' forced-choice labels, stg_rater_attributes
    and int_model_vs_human (the primary run; a row for every stimulus, NULL where the condition
    never answered) -> agreement of each condition with the raters of each attribute level, and
    whether it differs by level. A missing answer agrees with no rater (docs/stats.md). Relations
    of one connection (dbt's refs), or frames: everything up to one row per (condition, attribute,
    level) is summed in DuckDB (:func:`level_label_sums`), so no row per label or per stimulus
    reaches pandas; a level's raters are those with a label (every condition has a row for every
    stimulus)."""
    if isinstance(ratings, pd.DataFrame):
        con = duckdb.connect()
        ratings, attributes, predictions = (con.from_df(f) for f in (ratings, attributes, predictions))
    first = (
        predictions.project(
            "condition_id, image_id, predicted_category, "
            "row_number() over (partition by condition_id, image_id order by run_id nulls last) as run_rank"
        )
        .filter("run_rank = 1")
        .project("condition_id, image_id, predicted_category")
    )
    if not first.aggregate("count(predicted_category)").fetchall()[0][0]:
        return typed(pd.DataFrame(), declared("demographic_rater_agreement"))
    levels = as_frame(level_label_sums(ratings, attributes, first))
    if levels.empty:
        return typed(pd.DataFrame(), declared("demographic_rater_agreement"))
    levels = rater_slices.level_agreement(levels)
    tests = rater_slices.homogeneity(levels)
    return typed(levels.merge(tests, on=rater_slices.KEYS, how="left"), declared("demographic_rater_agreement"))


def level_label_sums(ratings, attributes, first):
    """Per (condition_id, attribute, level): n labels of the level's raters on the stimuli the
    condition has a row for, n_agree of them equal to its label, n_items (those stimuli) and the
    level's n_raters (raters with a label); a relation. The labels are counted per (attribute,
    level, stimulus, label) before each condition meets them: a condition's agreeing labels by a
    join on (stimulus, label), its labels and stimuli by one on the stimulus' per-level totals, so
    the work is (levels x stimuli x conditions) rows summed in DuckDB, linear in the study."""
    labelled = (
        ratings.filter("chosen_category is not null")
        .set_alias("r")
        .join(attributes.set_alias("a"), "r.rater_id = a.rater_id")
        .project(
            "a.attribute as attribute, a.level as level, r.image_id as image_id, r.rater_id as rater_id, r.chosen_category as chosen"
        )
    )
    counts = labelled.aggregate(
        "attribute, level, image_id, chosen, count(*) as n", "attribute, level, image_id, chosen"
    )
    totals = counts.aggregate("attribute, level, image_id, sum(n) as n", "attribute, level, image_id")
    raters = labelled.aggregate("attribute, level, count(distinct rater_id) as n_raters", "attribute, level")
    keys = "f.condition_id, c.attribute, c.level"
    named = "f.condition_id as condition_id, c.attribute as attribute, c.level as level"
    labels = (
        totals.set_alias("c")
        .join(first.set_alias("f"), "c.image_id = f.image_id")
        .aggregate(f"{named}, cast(sum(c.n) as bigint) as n, count(*) as n_items", keys)
    )
    agreeing = (
        counts.set_alias("c")
        .join(first.set_alias("f"), "c.image_id = f.image_id and c.chosen = f.predicted_category")
        .aggregate(f"{named}, cast(sum(c.n) as bigint) as n_agree", keys)
    )
    return (
        labels.set_alias("l")
        .join(
            agreeing.set_alias("g"),
            "l.condition_id = g.condition_id and l.attribute = g.attribute and l.level = g.level",
            how="left",
        )
        .join(raters.set_alias("k"), "l.attribute = k.attribute and l.level = k.level")
        .project(
            "l.condition_id as condition_id, l.attribute as attribute, l.level as level, l.n as n, "
            "coalesce(g.n_agree, 0) as n_agree, l.n_items as n_items, k.n_raters as n_raters"
        )
    )


def rater_panels_table(panels: pd.DataFrame, model_long: pd.DataFrame) -> pd.DataFrame:
    """demographic_rater_panels: the raters of each rater-attribute level as a panel of their own,
    for the ratings: per (condition, dimension, attribute, level) the panel's mean rating, and the
    condition's agreement with the panel's per-stimulus mean (stats.agreement: Bland-Altman bias
    and MAE, Pearson r) over the stimuli the panel rated. A stimulus the condition did not answer
    is counted (n_missing), as in dimensional_agreement. `panels`: per (dimension, attribute,
    level, image_id) the panel's n and rating_sum, and n_raters per (dimension, attribute, level)
    (:func:`panel_sums`): the per-stimulus mean is rating_sum / n."""
    # each dimension's answers as one (stimulus x condition) table, aligned to a panel's stimuli
    # once per panel rather than once per (panel, condition)
    answers = {
        dim: part.pivot(index="image_id", columns="condition_id", values="model_value")
        for dim, part in model_long[["condition_id", "dimension", "image_id", "model_value"]].groupby("dimension")
    }
    rows = []
    for (dim, attribute, level), part in panels.groupby(["dimension", "attribute", "level"], sort=True):
        part = part.sort_values("image_id")
        panel = pd.Series(part["rating_sum"].to_numpy(float) / part["n"].to_numpy(float), index=part["image_id"])
        aligned = answers[dim].reindex(panel.index) if dim in answers else pd.DataFrame(index=panel.index)
        for cond in aligned.columns:
            # a contiguous copy: numpy's pairwise sums over a strided column round differently
            x = pd.Series(np.ascontiguousarray(aligned[cond].to_numpy(float)), index=panel.index)
            ba, r = agreement.bland_altman(panel, x), agreement.pearson(panel, x)
            rows.append(
                {
                    "condition_id": cond,
                    "dimension": dim,
                    "attribute": attribute,
                    "level": level,
                    "n_raters": int(part["n_raters"].iloc[0]),
                    "n_items": len(panel),
                    "n_ratings": int(part["n"].sum()),
                    "panel_mean_rating": float(part["rating_sum"].sum()) / float(part["n"].sum()),
                    "n_pairs": ba.n,
                    "n_missing": ba.n_missing,
                    "bias": ba.bias,
                    "mae": ba.mae,
                    "pearson_r": r.r,
                    "pearson_r_null_reason": r.reason,
                }
            )
    out = pd.DataFrame(rows, columns=[c for c in declared("demographic_rater_panels") if not c.startswith("mae_")])
    if len(out):
        by = out.groupby(["condition_id", "dimension", "attribute"])["mae"]
        out["mae_gap"] = by.transform("max") - by.transform("min")
        out["n_levels"] = out.groupby(["condition_id", "dimension", "attribute"])["level"].transform("nunique")
    return typed(out, declared("demographic_rater_panels"))


# --- the dbt Python models (models/marts/demographics/*.py) ------------------------------------------


def _pooled(rows, pools, columns: str | None = None) -> pd.DataFrame:
    """The rows of the audit's conditions; from a dbt relation only `columns` leave DuckDB."""
    if columns is not None and not isinstance(rows, pd.DataFrame):
        rows = rows.project(columns)
    return in_pool(as_frame(rows), pools, POOL)


def demographic_slices(model_vs_human, pools, label_counts, study_factors, factor_levels, provenance) -> pd.DataFrame:
    answers = _pooled(model_vs_human, pools, "condition_id, image_id, true_category, predicted_category")
    table = slices_table(answers, as_frame(label_counts), as_frame(study_factors), as_frame(factor_levels))
    return with_origin(table, provenance)


def demographic_glmm_lrt(correct_counts, pools, study_factors, provenance) -> pd.DataFrame:
    return with_origin(glmm_lrt_table(_pooled(correct_counts, pools), as_frame(study_factors)), provenance)


def demographic_stratified_anova(
    bias_cells, pair_cells, pools, study_factors, provenance, model_long=None, factor_levels=None
) -> pd.DataFrame:
    study_factors = as_frame(study_factors)
    # the per-stimulus bias only for more than two audit factors: the cells serve one or two
    every = model_long is not None and factor_levels is not None and len(_audit_factors(study_factors)) > 2
    table = stratified_anova_table(
        _pooled(bias_cells, pools),
        _pooled(pair_cells, pools),
        study_factors,
        model_long=_pooled(model_long, pools, "condition_id, dimension, category, image_id, d") if every else None,
        factor_levels=as_frame(factor_levels) if every else None,
    )
    return with_origin(table, provenance)


def demographic_tukey(pair_cells, pools, anova, study_factors, provenance) -> pd.DataFrame:
    table = tukey_table(_pooled(pair_cells, pools), as_frame(anova), as_frame(study_factors))
    return with_origin(table, provenance)


def demographic_omnibus(bias_cells, pools, study_factors, provenance) -> pd.DataFrame:
    return with_origin(omnibus_table(_pooled(bias_cells, pools), as_frame(study_factors)), provenance)


def demographic_significance_counts(anova, provenance) -> pd.DataFrame:
    return with_origin(significance_counts_table(as_frame(anova)), provenance)


def demographic_rater_agreement(ratings, attributes, predictions, pools, provenance) -> pd.DataFrame:
    table = rater_agreement_table(ratings, attributes, in_pool(predictions, pools, POOL))
    return with_origin(table, provenance)


def panel_sums(ratings_long, attributes, codes=None) -> pd.DataFrame:
    """Per (dimension, attribute, level, image_id): the panel's ratings n and rating_sum, with the
    level's n_raters; aggregated in DuckDB when given relations (no per-rating rows leave it).
    With `codes` (:func:`image_codes`) image_id is the stimulus's integer code."""
    if isinstance(ratings_long, pd.DataFrame):
        con = duckdb.connect()
        ratings_long, attributes = con.from_df(ratings_long), con.from_df(attributes)
    rated = ratings_long.set_alias("r").join(attributes.set_alias("a"), "r.rater_id = a.rater_id")
    cells = rated.project(
        "r.dimension as dimension, a.attribute as attribute, a.level as level, r.image_id as image_id, "
        "r.rater_id as rater_id, r.rating as rating"
    )
    sums = cells.aggregate(
        "dimension, attribute, level, image_id, count(*) as n, sum(rating) as rating_sum",
        "dimension, attribute, level, image_id",
    )
    if codes is not None:
        sums = _coded(sums, codes, "dimension, attribute, level, n, rating_sum")
    raters = as_frame(
        cells.aggregate(
            "dimension, attribute, level, count(distinct rater_id) as n_raters", "dimension, attribute, level"
        )
    )
    return as_frame(sums).merge(raters, on=["dimension", "attribute", "level"])


def image_codes(stimuli):
    """stg_stimuli -> (image_id, image_code): each stimulus's rank in image_id order. The panels key
    their 144,000 stimuli (at 100x) by it: integers, not strings, reach pandas, in the same order."""
    return stimuli.query(
        "stimuli", "select image_id, cast(row_number() over (order by image_id) as integer) as image_code from stimuli"
    )


def _coded(rows, codes, columns: str):
    """`rows` with image_id replaced by its integer code (an inner join: every image_id is a stimulus)."""
    joined = rows.set_alias("x").join(codes.set_alias("c"), "x.image_id = c.image_id")
    return joined.project(", ".join(f"x.{c.strip()}" for c in columns.split(",")) + ", c.image_code as image_id")


def demographic_rater_panels(ratings_long, attributes, model_long, pools, provenance, stimuli=None) -> pd.DataFrame:
    codes = None if stimuli is None or isinstance(stimuli, pd.DataFrame) else image_codes(stimuli)
    if codes is not None:
        model_long = _coded(model_long, codes, "condition_id, dimension, model_value")
    model = _pooled(model_long, pools, "condition_id, dimension, image_id, model_value")
    table = rater_panels_table(panel_sums(ratings_long, attributes, codes), model)
    return with_origin(table, provenance)
