def model(dbt, session):
    from rater1001.marts import judge

    return judge.judge_pairwise_win_rates(dbt.ref("judge_pair_verdicts"), dbt.ref("int_study_provenance"))
