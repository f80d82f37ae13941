def model(dbt, session):
    from rater1001.marts import judge

    return judge.judge_alt_test(
        dbt.ref("judge_pair_verdicts"),
        dbt.ref("int_study_provenance"),
        epsilon=dbt.config.get("alt_test_epsilon"),
        q=dbt.config.get("alt_test_q"),
        min_instances=dbt.config.get("alt_test_min_instances"),
    )
