"""dbt Python model: see models/marts/human_baseline/_human_baseline.yml (human_variance_components)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.paper_analyses import variance_components

    return variance_components(dbt.ref("int_human_ratings_long").df(), dbt.ref("stg_stimuli").df(),
                               dbt.ref("int_study_provenance").df())
