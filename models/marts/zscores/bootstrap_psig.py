"""dbt Python model: see models/marts/zscores/_zscores.yml (bootstrap_psig)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import agreement_marts as marts

    origin = marts.data_origin(dbt.ref("int_study_provenance").df())
    # only the columns used, selected in DuckDB: per (condition, image) rows and per-image lists
    model_long = (dbt.ref("int_model_vs_human_long").filter("model_value is not null")
                  .project("condition_id, dimension, emotion, image_id, z").df())
    human_lists = dbt.ref("int_image_human_lists").project("image_id, dimension, loo_abs_z").df()
    return marts.bootstrap_psig(model_long, human_lists, origin)
