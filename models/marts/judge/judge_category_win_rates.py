"""Win rates against the anchor per dialogue category (variants pooled): the log's
per-category analysis (정/한 vs general emotions)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.judge.analysis import win_rates, with_origin

    catalog = dbt.ref("judge_candidate_catalog").df()
    anchor = catalog.loc[catalog["is_anchor"].astype(bool), "candidate_id"].iloc[0]
    return with_origin(win_rates(dbt.ref("judge_pair_verdicts").df(), anchor, by_category=True),
                       dbt.ref("int_study_provenance").df())
