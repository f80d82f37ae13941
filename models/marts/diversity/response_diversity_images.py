"""dbt Python model: see models/marts/diversity/_diversity.yml (response_diversity_images)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import agreement_marts as marts

    origin = marts.data_origin(dbt.ref("int_study_provenance").df())
    model_long = marts.in_pool(dbt.ref("int_model_vs_human_long").df(), dbt.ref("int_condition_pools").df(),
                               "inter_model_sd")
    return marts.k_human_image_sd(model_long,
                                  dbt.ref("int_image_human_lists").df(), origin)
