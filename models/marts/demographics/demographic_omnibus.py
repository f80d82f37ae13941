def model(dbt, session):
    from rater1001.marts import demographics

    return demographics.demographic_omnibus(
        dbt.ref("int_model_vs_human"),
        dbt.ref("int_condition_pools"),
        dbt.ref("stg_study_factors"),
        dbt.ref("int_study_provenance"),
    )
