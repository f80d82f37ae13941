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

import functools
import itertools
from contextlib import contextmanager

import duckdb
import numpy as np
import pandas as pd

from ..stats import agreement, demographics, rater_slices
from ..study import AUDIT_SLOTS, CATEGORY_SLOT
from ._shared import ALL, as_frame, declared, in_pool, slot_names, typed, with_origin

POOL = "demographics"  # the conditions the audit covers (seeds/condition_pools.csv)
HUMAN_CONDITION = "human"  # condition_id of the pooled human forced-choice labels (Table 7's Human row)


# --------------------------------------------------------------------------- the study's factors
# The warehouse carries the category in the slot `category` and the first two audit factors in the
# slots `audit_1` and `audit_2` (docs/study_shape.md, "Factor names"); stats.demographics computes on
# the slots. Here the audit uses only the slots the study fills, and the values that name a factor
# in an output (slice_type, factor, term) are given the study's declared names.
PLACEHOLDER = "(none)"  # the level of an empty slot, so the two-factor statistics can run


def audit_slots(names: dict[str, str]) -> tuple[str, ...]:
    return tuple(s for s in AUDIT_SLOTS if s in names)


def _renamer(names: dict[str, str]):
    """A slot-spelled value ('audit_1', 'audit_1:audit_2', 'audit_1_audit_2', 'audit_1:category') in the study's
    names; the paper's study maps every value to itself."""
    full = {**{s: s for s in (*AUDIT_SLOTS, CATEGORY_SLOT)}, **names}

    def rename(value):
        if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
            return value
        value = str(value)
        if value in full:
            return full[value]
        # a pair: split at the separator whose both sides are slots (a slot name holds '_' itself)
        for i, sep in enumerate(value):
            if sep in ":_" and value[:i] in full and value[i + 1 :] in full:
                return full[value[:i]] + sep + full[value[i + 1 :]]
        return value

    return rename


def _named(frame: pd.DataFrame, names: dict[str, str], columns) -> pd.DataFrame:
    rename = _renamer(names)
    return frame.assign(**{c: frame[c].map(rename) for c in columns if c in frame.columns})


def _audited(rows: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    """Rows with every audit factor the study declares (in its slots); an empty slot gets a single
    placeholder level, so a one-factor study runs through the same statistics and its outputs
    drop what needs a second factor. A study without audit factors has no rows: its audit marts
    are empty and the report says the audit does not apply."""
    used = audit_slots(names)
    if not used:
        return rows.iloc[0:0]
    rows = rows[rows[list(used)].notna().all(axis=1)]
    empty = [s for s in AUDIT_SLOTS if s not in names]
    # a study without a category: its one stratum 'all' (stg_stimuli), and no label (true or
    # chosen) to be correct about
    category = {} if CATEGORY_SLOT in names else {CATEGORY_SLOT: ALL}
    return rows.assign(**{s: PLACEHOLDER for s in empty}, **category)


def _unplaced(frame: pd.DataFrame, columns) -> pd.DataFrame:
    """The placeholder level back to NULL in the output."""
    return frame.assign(**{c: frame[c].where(frame[c] != PLACEHOLDER, None) for c in columns if c in frame.columns})


def label_count_rows(label_counts: pd.DataFrame, names: dict[str, str] | None = None) -> pd.DataFrame:
    """int_demographic_label_counts (per condition, audit_1, audit_2, true and predicted label: how
    many images) -> the input of slice_metrics and the GLMM tests, weighted by n_images. An
    unparsed answer (predicted_category NULL) is wrong, as in glmm_lrt_table."""
    names = slot_names(None) if names is None else names
    rows = _audited(label_counts.rename(columns={"true_category": "category"}), names)
    correct = (rows["predicted_category"] == rows["category"]).astype("boolean").fillna(False).astype(bool)
    out = rows[["condition_id", "audit_1", "audit_2", "category", "predicted_category", "n_images"]]
    out = out.assign(correct=correct.to_numpy())
    for col in ["condition_id", "audit_1", "audit_2", "category", "predicted_category"]:
        out[col] = out[col].astype(object).where(out[col].notna(), None)
    return out.reset_index(drop=True)


def human_label_rows(label_counts: pd.DataFrame, names: dict[str, str] | None = None) -> pd.DataFrame:
    """int_human_label_counts (one row per (image, chosen label) with a count) -> the input shape
    of slice_metrics under condition_id 'human', one row per (audit_1, audit_2, true label, chosen
    label) weighted by its count (column n_labels), so the human row of Tables 7/7a goes through
    the same slice_metrics as a model without one row per rating (7.2 million at 100x the paper's
    study) or per image (the slices need no image)."""
    label_counts = _audited(label_counts, slot_names(None) if names is None else names)
    keys = ["audit_1", "audit_2", "true_category", "chosen_category"]
    rows = label_counts.groupby(keys, sort=True, dropna=False)["n_labels"].sum().reset_index()
    return rows.rename(columns={"true_category": "category", "chosen_category": "predicted_category"}).assign(
        condition_id=HUMAN_CONDITION
    )


def _slice_types(names: dict[str, str]) -> tuple[str, ...]:
    used = audit_slots(names)
    return used + (("audit_1_audit_2",) if len(used) == 2 else ())


def slices_table(
    model_label_counts: pd.DataFrame,
    label_counts: pd.DataFrame,
    study_factors: pd.DataFrame | None = None,
    model_vs_human: pd.DataFrame | None = None,
    factor_levels: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """demographic_slices: accuracy and macro-F1 per (condition, slice_type, slice) for every
    model condition (int_demographic_label_counts) and, where human forced-choice labels exist,
    the pooled human raters (int_human_label_counts); each row carries its (condition,
    slice_type)'s largest gap in percentage points. Audit factors beyond the two slots, each and
    in each pair, from int_model_vs_human and stg_stimulus_factor_levels (_beyond_slots)."""
    names = slot_names(study_factors)
    if CATEGORY_SLOT not in names:  # accuracy and F1 need a category to be right about
        return typed(pd.DataFrame(), declared("demographic_slices"))
    parts = []
    models = label_count_rows(model_label_counts, names)
    if len(models):
        parts.append(demographics.slice_metrics(models, weight="n_images").assign(rater_kind="model"))
    humans = human_label_rows(label_counts, names)
    if len(humans):
        parts.append(demographics.slice_metrics(humans, weight="n_labels").assign(rater_kind="human"))
    if not parts:
        return typed(pd.DataFrame(), declared("demographic_slices"))
    slices = pd.concat(parts, ignore_index=True)
    slices = slices[slices["slice_type"].isin(_slice_types(names))]
    slices = _unplaced(_named(slices, names, ["slice_type"]), AUDIT_SLOTS)
    beyond = _beyond_slots(model_vs_human, label_counts, study_factors, factor_levels)
    slices = pd.concat([slices, beyond], ignore_index=True) if len(beyond) else slices
    gaps = demographics.slice_gaps(slices).rename(columns={"reason": "gap_reason"})
    out = slices.merge(gaps, on=["condition_id", "slice_type"], how="left")
    return typed(out, declared("demographic_slices"))


def _every_audit_factor(study_factors: pd.DataFrame, factor_levels: pd.DataFrame):
    """(the audit factors beyond the two slots, {column: declared name} of every audit factor in
    declared order, each stimulus's level per column): the columns are factor_0, factor_1, ... so
    no factor's own name can clash with a column of the rows they join; a stimulus without a level
    of some audit factor is left out, as the slots' audit leaves it out."""
    audit = study_factors[study_factors["role"] == "audit"].sort_values("position")
    beyond = set(audit.loc[audit["slot"].isna(), "factor"].astype(str))
    factors = list(audit["factor"].astype(str))
    named = {f"factor_{i}": f for i, f in enumerate(factors)}
    levels = factor_levels[factor_levels["factor"].isin(factors)]
    wide = levels.pivot(index="image_id", columns="factor", values="level")
    wide = wide.reindex(columns=factors).set_axis(list(named), axis=1).dropna().reset_index()
    return beyond, named, wide


def _beyond_slots(model_vs_human, label_counts, study_factors, factor_levels) -> pd.DataFrame:
    """The slices of every audit factor beyond the two slots (stg_study_factors' slot NULL), alone
    and in a pair with any other audit factor, named as the study names them; the audit_1 / audit_2
    columns stay NULL on these rows. Per-image answers (int_model_vs_human; a never-answered
    stimulus is wrong) and per-image human label counts, with each stimulus's level of every
    audit factor from the long form; a stimulus without a level of some audit factor is left out,
    as in the slots' slices."""
    if model_vs_human is None or factor_levels is None or study_factors is None:
        return pd.DataFrame()
    beyond, named, wide = _every_audit_factor(study_factors, factor_levels)
    if not beyond:
        return pd.DataFrame()
    columns = list(named)
    rows = []
    answers = model_vs_human[model_vs_human["true_category"].notna()]
    answers = answers[["condition_id", "image_id", "true_category", "predicted_category"]].merge(wide, on="image_id")
    if len(answers):
        answers = answers.rename(columns={"true_category": "category"})
        answers["predicted_category"] = (
            answers["predicted_category"].astype(object).where(answers["predicted_category"].notna(), None)
        )
        rows.append(demographics.slice_metrics(answers, factors=columns).assign(rater_kind="model"))
    humans = label_counts[["image_id", "true_category", "chosen_category", "n_labels"]].merge(wide, on="image_id")
    if len(humans):
        humans = humans.rename(columns={"true_category": "category", "chosen_category": "predicted_category"})
        rows.append(
            demographics.slice_metrics(
                humans.assign(condition_id=HUMAN_CONDITION), weight="n_labels", factors=columns
            ).assign(rater_kind="human")
        )
    if not rows:
        return pd.DataFrame()
    out = pd.concat(rows, ignore_index=True)
    # slice_metrics' types (a column, or a pair 'a_b') -> the study's factor names in them
    types = {c: (named[c],) for c in columns}
    types.update({f"{a}_{b}": (named[a], named[b]) for a, b in itertools.combinations(columns, 2)})
    out = out[out["slice_type"].map(lambda t: any(f in beyond for f in types[t])).to_numpy()]
    return out.assign(slice_type=out["slice_type"].map(lambda t: "_".join(types[t])))


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


def _stratified_terms(names: dict[str, str]) -> tuple[str, ...]:
    used = audit_slots(names)
    return used + (("audit_1:audit_2",) if len(used) == 2 else ())


def stratified_anova_table(
    bias_cells: pd.DataFrame,
    study_factors: pd.DataFrame | None = None,
    model_long: pd.DataFrame | None = None,
    factor_levels: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """bias_cells: int_bias_cells. One audit factor: only its own term per stratum (no second
    factor, no interaction). More than two: every factor's term with all of them in the model and
    every pair's interaction, from the per-image bias (int_model_vs_human_long) and
    stg_stimulus_factor_levels."""
    if model_long is not None and factor_levels is not None and study_factors is not None:
        beyond, named, wide = _every_audit_factor(study_factors, factor_levels)
        if beyond:
            return _anova_every_factor(model_long, named, wide)
    names = slot_names(study_factors)
    cells = _audited(bias_cells, names)
    if cells.empty:
        return typed(pd.DataFrame(), declared("demographic_stratified_anova"))
    table = demographics.stratified_anova_cells(cells)
    # The placeholder factor's terms are not estimable (NULL p, outside every BH family), so
    # dropping them leaves q-values and family sizes as they are.
    if table.empty:  # no model dimensions: nothing to test
        return typed(table, declared("demographic_stratified_anova"))
    table = table[table["term"].isin(_stratified_terms(names))]
    return typed(_named(table, names, ["term"]), declared("demographic_stratified_anova"))


def _anova_every_factor(model_long: pd.DataFrame, named: dict[str, str], wide: pd.DataFrame) -> pd.DataFrame:
    rows = model_long[model_long["category"].notna()][["condition_id", "dimension", "category", "image_id", "d"]]
    rows = rows.merge(wide, on="image_id")
    if rows.empty:
        return typed(pd.DataFrame(), declared("demographic_stratified_anova"))
    table = demographics.stratified_anova_factors(rows, list(named))
    if table.empty:
        return typed(table, declared("demographic_stratified_anova"))
    spell = {**named, **{f"{a}:{b}": f"{named[a]}:{named[b]}" for a, b in itertools.combinations(named, 2)}}
    return typed(table.assign(term=table["term"].map(spell)), declared("demographic_stratified_anova"))


@contextmanager
def _tukey_critical_value_cached():
    """statsmodels' tukeyhsd recomputes the studentized-range critical value q(1 - alpha; k, df) on
    every call: a root search over scipy's numerically integrated distribution, ~0.4 s each, the
    same value for every stratum of a balanced design. Memoise statsmodels' own function while the
    Tukey mart is computed (the values are bit-identical), and restore it afterwards."""
    from statsmodels.sandbox.stats import multicomp

    original = multicomp.get_tukeyQcrit2
    multicomp.get_tukeyQcrit2 = functools.lru_cache(maxsize=64)(original)
    try:
        yield
    finally:
        multicomp.get_tukeyQcrit2 = original


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
    with _tukey_critical_value_cached():
        table = demographics.tukey_pair_cells(cells, anova)
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
    table = demographics.omnibus_cells(cells, factors, dimensions=dimensions, category=category or CATEGORY_SLOT)
    if category is None and not table.empty:  # one stratum: no factor x category interaction
        table = table[table["term"] == table["factor"]]
    return typed(table, declared("demographic_omnibus"))


def significance_counts_table(anova: pd.DataFrame) -> pd.DataFrame:
    if anova.empty:
        return typed(pd.DataFrame(), declared("demographic_significance_counts"))
    anova = anova.assign(significant=anova["significant"].astype("boolean"))
    return typed(demographics.significance_counts(anova), declared("demographic_significance_counts"))


def rater_agreement_table(ratings, attributes, predictions: pd.DataFrame) -> pd.DataFrame:
    """demographic_rater_agreement: stg_human_ratings' forced-choice labels, stg_rater_attributes
    and int_model_vs_human (the primary run; a row for every stimulus, NULL where the condition
    never answered) -> agreement of each condition with the raters of each attribute level, and
    whether it differs by level. A missing answer agrees with no rater (docs/stats.md). The labels
    are counted per (attribute, level, stimulus, label) in DuckDB (:func:`label_counts`), so no
    row per label reaches pandas; a level's raters are those with a label (every condition has a
    row for every stimulus)."""
    counts = label_counts(ratings, attributes)
    # the first run per stimulus (int_model_vs_human has one already; a never-answered row has none)
    first = predictions.sort_values("run_id", na_position="last").drop_duplicates(["condition_id", "image_id"])
    pairs = counts.merge(first[["condition_id", "image_id", "predicted_category"]], on="image_id").rename(
        columns={"predicted_category": "predicted"}
    )
    if pairs.empty or first["predicted_category"].isna().all():
        return typed(pd.DataFrame(), declared("demographic_rater_agreement"))
    levels = rater_slices.level_agreement(pairs)
    tests = rater_slices.homogeneity(levels)
    return typed(levels.merge(tests, on=rater_slices.KEYS, how="left"), declared("demographic_rater_agreement"))


def label_counts(ratings, attributes) -> pd.DataFrame:
    """Per (attribute, level, image_id, chosen): n labels, with the level's n_raters (raters with a
    label); aggregated in DuckDB (relations, or frames registered on a connection of its own)."""
    if isinstance(ratings, pd.DataFrame):
        con = duckdb.connect()
        ratings, attributes = con.from_df(ratings), con.from_df(attributes)
    labelled = (
        ratings.filter("chosen_category is not null")
        .set_alias("r")
        .join(attributes.set_alias("a"), "r.rater_id = a.rater_id")
        .project(
            "a.attribute as attribute, a.level as level, r.image_id as image_id, r.rater_id as rater_id, r.chosen_category as chosen"
        )
    )
    counts = as_frame(
        labelled.aggregate("attribute, level, image_id, chosen, count(*) as n", "attribute, level, image_id, chosen")
    )
    raters = as_frame(labelled.aggregate("attribute, level, count(distinct rater_id) as n_raters", "attribute, level"))
    return counts.merge(raters, on=["attribute", "level"])


def rater_panels_table(panels: pd.DataFrame, model_long: pd.DataFrame) -> pd.DataFrame:
    """demographic_rater_panels: the raters of each rater-attribute level as a panel of their own,
    for the ratings: per (condition, dimension, attribute, level) the panel's mean rating, and the
    condition's agreement with the panel's per-stimulus mean (stats.agreement: Bland-Altman bias
    and MAE, Pearson r) over the stimuli the panel rated. A stimulus the condition did not answer
    is counted (n_missing), as in dimensional_agreement. `panels`: per (dimension, attribute,
    level, image_id) the panel's n and rating_sum, and n_raters per (dimension, attribute, level)
    (:func:`panel_sums`): the per-stimulus mean is rating_sum / n."""
    model = model_long[["condition_id", "dimension", "image_id", "model_value"]]
    rows = []
    for (dim, attribute, level), part in panels.groupby(["dimension", "attribute", "level"], sort=True):
        part = part.sort_values("image_id")
        panel = pd.Series(part["rating_sum"].to_numpy(float) / part["n"].to_numpy(float), index=part["image_id"])
        for cond, answers in model[model["dimension"] == dim].groupby("condition_id", sort=True):
            x = answers.set_index("image_id")["model_value"].reindex(panel.index)
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


def _pooled(rows, pools) -> pd.DataFrame:
    return in_pool(as_frame(rows), pools, POOL)


def demographic_slices(
    model_label_counts, pools, label_counts, study_factors, provenance, model_vs_human=None, factor_levels=None
) -> pd.DataFrame:
    table = slices_table(
        _pooled(model_label_counts, pools),
        as_frame(label_counts),
        as_frame(study_factors),
        None if model_vs_human is None else _pooled(model_vs_human, pools),
        None if factor_levels is None else as_frame(factor_levels),
    )
    return with_origin(table, provenance)


def demographic_glmm_lrt(correct_counts, pools, study_factors, provenance) -> pd.DataFrame:
    return with_origin(glmm_lrt_table(_pooled(correct_counts, pools), as_frame(study_factors)), provenance)


def demographic_stratified_anova(
    bias_cells, pools, study_factors, provenance, model_long=None, factor_levels=None
) -> pd.DataFrame:
    table = stratified_anova_table(
        _pooled(bias_cells, pools),
        study_factors=as_frame(study_factors),
        model_long=None if model_long is None else _pooled(model_long, pools),
        factor_levels=None if factor_levels is None else as_frame(factor_levels),
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
    table = rater_agreement_table(ratings, attributes, _pooled(predictions, pools))
    return with_origin(table, provenance)


def panel_sums(ratings_long, attributes) -> pd.DataFrame:
    """Per (dimension, attribute, level, image_id): the panel's ratings n and rating_sum, with the
    level's n_raters; aggregated in DuckDB when given relations (no per-rating rows leave it)."""
    if isinstance(ratings_long, pd.DataFrame):
        con = duckdb.connect()
        ratings_long, attributes = con.from_df(ratings_long), con.from_df(attributes)
    rated = ratings_long.set_alias("r").join(attributes.set_alias("a"), "r.rater_id = a.rater_id")
    cells = rated.project(
        "r.dimension as dimension, a.attribute as attribute, a.level as level, r.image_id as image_id, "
        "r.rater_id as rater_id, r.rating as rating"
    )
    sums = as_frame(
        cells.aggregate(
            "dimension, attribute, level, image_id, count(*) as n, sum(rating) as rating_sum",
            "dimension, attribute, level, image_id",
        )
    )
    raters = as_frame(
        cells.aggregate(
            "dimension, attribute, level, count(distinct rater_id) as n_raters", "dimension, attribute, level"
        )
    )
    return sums.merge(raters, on=["dimension", "attribute", "level"])


def demographic_rater_panels(ratings_long, attributes, model_long, pools, provenance) -> pd.DataFrame:
    table = rater_panels_table(panel_sums(ratings_long, attributes), _pooled(model_long, pools))
    return with_origin(table, provenance)
