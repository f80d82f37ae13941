def model(dbt, session):
    from rater1001.marts import judge

    return judge.judge_bias_checks(
        dbt.ref("int_judge_verdicts_long"),
        dbt.ref("judge_pair_verdicts"),
        dbt.ref("stg_judge_candidates"),
        dbt.ref("int_study_provenance"),
    )
