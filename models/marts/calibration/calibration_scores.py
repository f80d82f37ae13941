"""Per-emotion calibration (affine and offset-only) of each condition's dimensional answers, fitted
and scored out of sample with folds by identity; scores before (method 'none') and after."""

COLUMNS = ["condition_id", "dimension", "emotion", "method", "n_scored", "n_zero_sd", "n_missing", "w1sd",
           "w1sd_answered_only", "mean_abs_z",
           "mae", "bias", "sd_d", "n_unique", "mean_a", "mean_b", "n_folds", "n_folds_offset_fallback",
           "alpha_human", "alpha_with_model", "delta_alpha", "delta_alpha_pooled", "loo_w1sd", "passes", "w1sd_uncalibrated",
           "mean_abs_z_uncalibrated", "mae_uncalibrated", "bias_uncalibrated", "passes_uncalibrated",
           "pass_changed", "note"]


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.ablation_tables import calibration_scores, finish, model_dimensions
    from rater1001.agreement_marts import in_pool, rules_from_seed

    # the replaceability pool: calibration_verdicts restate Table 8's pass rule over the same conditions
    rows = in_pool(dbt.ref("int_model_vs_human").df(), dbt.ref("int_condition_pools").df(), "replaceability")
    stats = dbt.ref("int_image_human_stats").df()[["image_id", "dimension", "n_ratings", "rating_sum", "rating_sumsq"]]
    loo = dbt.ref("calibration_human_baseline").df()[["emotion", "dimension", "loo_w1sd"]]
    scale = (float(dbt.config.get("scale_min")), float(dbt.config.get("scale_max")))
    n_folds = int(dbt.config.get("calibration_folds") or 5)
    seed = int(dbt.config.get("calibration_seed") or 42)
    rules = rules_from_seed(dbt.ref("verdict_rules").df())
    out = calibration_scores(rows, stats, loo, model_dimensions(rows), scale, rules, n_folds, seed)
    return finish(out, COLUMNS, dbt.ref("int_study_provenance").df())
