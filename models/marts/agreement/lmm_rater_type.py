"""dbt Python model: see models/marts/agreement/_agreement.yml (lmm_rater_type)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import agreement_marts as marts

    labels = marts.emotion_labels(dbt.ref("factor_labels").df(), dbt.ref("stg_study_factors").df())
    origin = marts.data_origin(dbt.ref("int_study_provenance").df())
    return marts.lmm_rater_type(dbt.ref("int_rater_type_cells").df(), labels, origin)
