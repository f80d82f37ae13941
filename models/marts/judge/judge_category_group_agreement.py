"""Agreement between judges within the Korean-specific and the general categories (the log's
Bias 4 check with a second judge). Logic: rater1001.judge.categories."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.judge.analysis import with_origin
    from rater1001.judge.categories import category_group_agreement

    return with_origin(category_group_agreement(dbt.ref("judge_pair_verdicts").df(),
                                                dbt.ref("judge_category_groups").df()),
                       dbt.ref("int_study_provenance").df())
