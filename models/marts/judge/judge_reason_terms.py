def model(dbt, session):
    from rater1001.marts import judge

    return judge.judge_reason_terms(
        dbt.ref("stg_judge_verdicts"), dbt.ref("judge_candidate_catalog"), dbt.ref("int_study_provenance")
    )
