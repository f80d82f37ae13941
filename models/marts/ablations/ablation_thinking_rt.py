def model(dbt, session):
    from rater1001.marts import ablations

    return ablations.ablation_thinking_rt(
        dbt.ref("ablation_thinking_traces"), dbt.ref("ablation_human_rt_by_category"), dbt.ref("int_study_provenance")
    )
