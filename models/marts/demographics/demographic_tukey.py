def model(dbt, session):
    from rater1001.marts import demographics

    return demographics.demographic_tukey(
        dbt.ref("int_audit_pair_cells"),
        dbt.ref("int_condition_pools"),
        dbt.ref("demographic_stratified_anova"),
        dbt.ref("stg_study_factors"),
        dbt.ref("int_study_provenance"),
    )
