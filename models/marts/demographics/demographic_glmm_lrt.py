def model(dbt, session):
    from rater1001.marts import demographics

    return demographics.demographic_glmm_lrt(
        dbt.ref("int_audit_correct_counts"),
        dbt.ref("int_condition_pools"),
        dbt.ref("stg_study_factors"),
        dbt.ref("int_study_provenance"),
    )
