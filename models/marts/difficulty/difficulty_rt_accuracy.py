def model(dbt, session):
    from rater1001.marts import difficulty

    return difficulty.difficulty_rt_accuracy(
        dbt.ref("ablation_human_rt_by_category"),
        dbt.ref("classification_by_category"),
        dbt.ref("int_condition_pools"),
        dbt.ref("paper_reported_values"),
        dbt.ref("int_study_provenance"),
    )
