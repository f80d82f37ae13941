"""Cohen's kappa per axis between every two judges (LLM-LLM, LLM-human, human-human) and between
each LLM judge and the human majority, on the pairs both judged."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.judge.analysis import agreement, with_origin

    return with_origin(agreement(dbt.ref("judge_pair_verdicts").df()),
                       dbt.ref("int_study_provenance").df())
