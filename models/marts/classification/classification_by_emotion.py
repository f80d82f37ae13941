"""dbt Python model: see models/marts/classification/_classification.yml (classification_by_emotion)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import agreement_marts as marts

    labels = marts.emotion_labels(dbt.ref("factor_labels").df(), dbt.ref("stg_study_factors").df())
    origin = marts.data_origin(dbt.ref("int_study_provenance").df())
    return marts.classification_by_emotion(dbt.ref("classification_predictions").df(), labels, origin)
