def model(dbt, session):
    from rater1001.marts import judge

    return judge.judge_pair_verdicts(
        dbt.ref("int_judge_verdicts_long"), dbt.ref("stg_judge_dialogues"), dbt.ref("int_study_provenance")
    )
