def model(dbt, session):
    from rater1001.marts import judge

    return judge.judge_bradley_terry(
        dbt.ref("judge_pair_verdicts"), dbt.ref("judge_candidate_catalog"), dbt.ref("int_study_provenance")
    )
