def model(dbt, session):
    from rater1001.marts import human_baseline

    return human_baseline.human_variance_components(
        dbt.ref("int_human_ratings_long"),
        dbt.ref("stg_stimuli"),
        dbt.ref("stg_study_factors"),
        dbt.ref("int_study_provenance"),
        max_ratings=dbt.config.get("variance_components_max_ratings"),
        image_stats=dbt.ref("int_image_human_stats"),
    )
