def model(dbt, session):
    from rater1001.marts import demographics

    return demographics.demographic_slices(
        dbt.ref("int_model_vs_human"),
        dbt.ref("int_condition_pools"),
        dbt.ref("int_human_label_counts"),
        dbt.ref("stg_study_factors"),
        dbt.ref("stg_stimulus_factor_levels"),
        dbt.ref("int_study_provenance"),
    )
