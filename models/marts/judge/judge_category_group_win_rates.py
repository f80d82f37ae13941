"""Korean-specific emotions (정, 한, 공명; seeds/judge_category_groups.csv) against general emotions:
win rates against the anchor per judge and their difference. Logic: rater1001.judge.categories."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.judge.analysis import with_origin
    from rater1001.judge.categories import category_group_win_rates

    catalog = dbt.ref("judge_candidate_catalog").df()
    anchor = catalog.loc[catalog["is_anchor"].astype(bool), "candidate_id"].iloc[0]
    return with_origin(category_group_win_rates(dbt.ref("judge_pair_verdicts").df(), anchor,
                                                dbt.ref("judge_category_groups").df()),
                       dbt.ref("int_study_provenance").df())
