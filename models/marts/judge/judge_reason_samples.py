"""A few of the judges' reasons per cell of the win-rate table and outcome, chosen reproducibly.
Logic: rater1001.judge.reasons."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.judge.analysis import with_origin
    from rater1001.judge.reasons import reason_samples

    catalog = dbt.ref("judge_candidate_catalog").df()
    anchor = catalog.loc[catalog["is_anchor"].astype(bool), "candidate_id"].iloc[0]
    return with_origin(reason_samples(dbt.ref("judge_pair_verdicts").df(), dbt.ref("stg_judge_verdicts").df(), anchor),
                       dbt.ref("int_study_provenance").df())
