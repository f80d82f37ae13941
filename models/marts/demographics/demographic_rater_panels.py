def model(dbt, session):
    from rater1001.marts import demographics

    return demographics.demographic_rater_panels(
        dbt.ref("int_human_ratings_long"),
        dbt.ref("stg_rater_attributes"),
        dbt.ref("int_model_vs_human_long"),
        dbt.ref("int_condition_pools"),
        dbt.ref("int_study_provenance"),
        stimuli=dbt.ref("stg_stimuli"),
    )
