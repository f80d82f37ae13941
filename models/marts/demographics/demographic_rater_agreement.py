def model(dbt, session):
    from rater1001.marts import demographics

    return demographics.demographic_rater_agreement(
        dbt.ref("stg_human_ratings"),
        dbt.ref("stg_rater_attributes"),
        dbt.ref("int_model_vs_human"),
        dbt.ref("int_condition_pools"),
        dbt.ref("int_study_provenance"),
    )
