"""Bradley-Terry strengths (Davidson ties) relative to the anchor, from anchor-only comparisons and,
where model-vs-model pairs exist, from the round-robin design."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.judge.analysis import bradley_terry, with_origin

    catalog = dbt.ref("judge_candidate_catalog").df()
    anchor = catalog.loc[catalog["is_anchor"].astype(bool), "candidate_id"].iloc[0]
    return with_origin(bradley_terry(dbt.ref("judge_pair_verdicts").df(), anchor),
                       dbt.ref("int_study_provenance").df())
