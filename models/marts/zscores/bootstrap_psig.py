def model(dbt, session):
    from rater1001.marts import zscores

    return zscores.bootstrap_psig(
        dbt.ref("int_model_vs_human_long"), dbt.ref("int_image_value_counts"), dbt.ref("int_study_provenance")
    )
