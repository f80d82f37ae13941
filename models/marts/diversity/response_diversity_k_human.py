def model(dbt, session):
    from rater1001.marts import diversity

    return diversity.response_diversity_k_human(
        dbt.ref("int_model_vs_human_long"),
        dbt.ref("int_condition_pools"),
        dbt.ref("int_image_value_counts"),
        dbt.ref("int_study_provenance"),
    )
