def model(dbt, session):
    from rater1001.marts import demographics

    return demographics.demographic_stratified_anova(
        dbt.ref("int_audit_bias_cells"),
        dbt.ref("int_audit_pair_cells"),
        dbt.ref("int_condition_pools"),
        dbt.ref("stg_study_factors"),
        dbt.ref("int_study_provenance"),
        model_long=dbt.ref("int_model_vs_human_long"),
        factor_levels=dbt.ref("stg_stimulus_factor_levels"),
    )
