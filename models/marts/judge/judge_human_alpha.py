def model(dbt, session):
    from rater1001.marts import judge

    return judge.judge_human_alpha(dbt.ref("judge_pair_verdicts"), dbt.ref("int_study_provenance"))
