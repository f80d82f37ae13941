def model(dbt, session):
    from rater1001.marts import calibration

    return calibration.calibration_scores(
        dbt.ref("int_model_vs_human"),
        dbt.ref("int_condition_pools"),
        dbt.ref("int_image_human_stats"),
        dbt.ref("calibration_human_baseline"),
        dbt.ref("verdict_rules"),
        dbt.ref("int_study_provenance"),
        scale_min=dbt.config.get("scale_min"),
        scale_max=dbt.config.get("scale_max"),
        folds=dbt.config.get("calibration_folds"),
        seed=dbt.config.get("calibration_seed"),
    )
