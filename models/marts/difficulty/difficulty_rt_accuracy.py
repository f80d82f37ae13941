"""dbt Python model: see models/marts/difficulty/_difficulty.yml (difficulty_rt_accuracy)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.agreement_marts import in_pool
    from rater1001.paper_analyses import rt_accuracy

    by_emotion = in_pool(dbt.ref("classification_by_emotion").df(), dbt.ref("int_condition_pools").df(),
                         "rt_accuracy")
    return rt_accuracy(dbt.ref("ablation_human_rt_by_emotion").df(), by_emotion,
                       dbt.ref("paper_reported_values").df(), dbt.ref("int_study_provenance").df())
