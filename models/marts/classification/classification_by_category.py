def model(dbt, session):
    from rater1001.marts import classification

    return classification.classification_by_category(
        dbt.ref("classification_predictions"),
        dbt.ref("factor_labels"),
        dbt.ref("stg_study_factors"),
        dbt.ref("int_study_provenance"),
    )
