"""Does calibration move the Table 8 verdict? Each (dimension, emotion) cell's verdict from the
uncalibrated conditions and from all conditions calibrated by each method."""

COLUMNS = ["dimension", "emotion", "method", "verdict", "verdict_uncalibrated", "verdict_moved", "n_conditions",
           "n_conditions_passing", "passing_conditions", "stereotyped", "stereotyped_conditions",
           "calibration_candidates", "n_conditions_delta_alpha_below_min", "human_loo_w1sd",
           "human_loo_mean_abs_z", "rule"]


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.ablation_tables import calibration_verdicts, finish
    from rater1001.paths import REPO_ROOT
    from rater1001.stats.verdicts import load_rules

    scores = dbt.ref("calibration_scores").df()
    loo = dbt.ref("calibration_human_baseline").df()
    rules = load_rules(REPO_ROOT / "seeds" / "verdict_rules.csv")
    return finish(calibration_verdicts(scores, loo, rules), COLUMNS, dbt.ref("int_study_provenance").df())
