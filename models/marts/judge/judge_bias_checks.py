"""Position bias, verbosity, inconsistency and axis correlations per LLM judge (long format)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.judge.analysis import bias_checks, with_origin

    return with_origin(bias_checks(dbt.ref("int_judge_verdicts_long").df(), dbt.ref("judge_pair_verdicts").df(),
                       dbt.ref("stg_judge_candidates").df()),
                       dbt.ref("int_study_provenance").df())
