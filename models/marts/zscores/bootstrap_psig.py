"""dbt Python model: see models/marts/zscores/_zscores.yml (bootstrap_psig)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import agreement_marts as marts

    origin = marts.data_origin(dbt.ref("int_study_provenance").df())
    model_long = dbt.ref("int_model_vs_human_long").df()
    model_long = model_long[model_long["model_value"].notna()]
    return marts.bootstrap_psig(model_long, dbt.ref("int_image_human_lists").df(), origin)
