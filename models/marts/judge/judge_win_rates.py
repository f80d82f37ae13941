"""Win / tie / loss of every candidate against the anchor per (judge, candidate, variant, axis),
win rate with ties as half a win and its Wilson 95% interval; variant 'all' pools the variants."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.judge.analysis import win_rates, with_origin

    catalog = dbt.ref("judge_candidate_catalog").df()
    anchor = catalog.loc[catalog["is_anchor"].astype(bool), "candidate_id"].iloc[0]
    return with_origin(win_rates(dbt.ref("judge_pair_verdicts").df(), anchor),
                       dbt.ref("int_study_provenance").df())
