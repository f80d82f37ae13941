def model(dbt, session):
    from rater1001.marts import agreement

    return agreement.lmm_rater_type(
        dbt.ref("int_rater_type_cells"),
        dbt.ref("factor_labels"),
        dbt.ref("stg_study_factors"),
        dbt.ref("int_study_provenance"),
    )
