"""Does calibration move the Table 8 verdict? Each (dimension, emotion) cell's verdict from the
uncalibrated conditions and from all conditions calibrated by each method."""

COLUMNS = ["dimension", "emotion", "method", "verdict", "verdict_uncalibrated", "verdict_moved", "n_conditions",
           "n_conditions_passing", "passing_conditions", "stereotyped", "stereotyped_conditions",
           "calibration_candidates", "n_conditions_delta_alpha_below_min", "delta_alpha_scope", "human_loo_w1sd",
           "human_loo_mean_abs_z", "rule"]


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.ablation_tables import calibration_verdicts, finish
    from rater1001.agreement_marts import rules_from_seed

    scores = dbt.ref("calibration_scores").df()
    loo = dbt.ref("calibration_human_baseline").df()
    # the seed table, as replaceability_verdicts reads it, so the two cannot use different rules
    rules = rules_from_seed(dbt.ref("verdict_rules").df())
    return finish(calibration_verdicts(scores, loo, rules), COLUMNS, dbt.ref("int_study_provenance").df())
