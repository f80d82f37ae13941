def model(dbt, session):
    from rater1001.marts import worth

    return worth.worth_budget(
        dbt.ref("int_model_vs_human"),
        dbt.ref("int_image_human_stats"),
        dbt.ref("int_human_label_counts"),
        dbt.ref("stg_study_factors"),
        dbt.ref("int_study_provenance"),
        repeats=dbt.config.get("budget_repeats"),
        seed=dbt.config.get("ppi_seed"),
        level=dbt.config.get("ppi_level"),
    )
