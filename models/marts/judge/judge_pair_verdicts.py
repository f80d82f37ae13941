"""The lab log's consistency rule (Bias 1): one row per (judge, sample, variant, pair, axis);
both orders agree -> that verdict, otherwise tie. Logic: rater1001.stats.judge.consolidate_orders."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.judge.analysis import pair_verdicts, with_origin

    verdicts = dbt.ref("int_judge_verdicts_long").df()
    dialogues = dbt.ref("stg_judge_dialogues").df()
    return with_origin(pair_verdicts(verdicts, dialogues),
                       dbt.ref("int_study_provenance").df())
