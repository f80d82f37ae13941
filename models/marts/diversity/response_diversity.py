"""dbt Python model: see models/marts/diversity/_diversity.yml (response_diversity)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import agreement_marts as marts

    origin = marts.data_origin(dbt.ref("int_study_provenance").df())
    return marts.response_diversity(dbt.ref("int_model_vs_human_long").df(), origin)
