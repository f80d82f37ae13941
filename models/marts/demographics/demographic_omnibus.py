def model(dbt, session):
    from rater1001.marts import demographics

    return demographics.demographic_omnibus(
        dbt.ref("int_audit_bias_cells"),
        dbt.ref("int_condition_pools"),
        dbt.ref("stg_study_factors"),
        dbt.ref("int_study_provenance"),
    )
