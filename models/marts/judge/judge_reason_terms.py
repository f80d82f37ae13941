"""The most distinctive terms of the judges' reasons per verdict and axis (weighted log-odds with an
informative Dirichlet prior, Monroe et al. 2008). Logic: rater1001.judge.reasons / stats.terms."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.judge.analysis import with_origin
    from rater1001.judge.reasons import reason_terms

    catalog = dbt.ref("judge_candidate_catalog").df()
    anchor = catalog.loc[catalog["is_anchor"].astype(bool), "candidate_id"].iloc[0]
    return with_origin(reason_terms(dbt.ref("stg_judge_verdicts").df(), anchor),
                       dbt.ref("int_study_provenance").df())
