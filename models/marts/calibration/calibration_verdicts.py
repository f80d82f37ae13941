def model(dbt, session):
    from rater1001.marts import calibration

    return calibration.calibration_verdicts(
        dbt.ref("calibration_scores"),
        dbt.ref("calibration_human_baseline"),
        dbt.ref("verdict_rules"),
        dbt.ref("int_study_provenance"),
    )
