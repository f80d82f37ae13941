def model(dbt, session):
    from rater1001.marts import intervals

    return intervals.headline_intervals(
        dbt.ref("int_model_vs_human"),
        dbt.ref("int_image_human_stats"),
        dbt.ref("stg_stimuli"),
        dbt.ref("int_study_provenance"),
        replicates=dbt.config.get("interval_replicates"),
        seed=dbt.config.get("interval_seed"),
    )
