def model(dbt, session):
    from rater1001.marts import worth

    return worth.worth_judge_k_star(
        dbt.ref("judge_pair_verdicts"),
        dbt.ref("int_study_provenance"),
        replicates=dbt.config.get("worth_replicates"),
        seed=dbt.config.get("worth_seed"),
    )
