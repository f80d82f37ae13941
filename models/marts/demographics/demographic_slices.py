def model(dbt, session):
    from rater1001.marts import demographics

    return demographics.demographic_slices(
        dbt.ref("int_demographic_label_counts"),
        dbt.ref("int_condition_pools"),
        dbt.ref("int_human_label_counts"),
        dbt.ref("stg_study_factors"),
        dbt.ref("int_study_provenance"),
    )
