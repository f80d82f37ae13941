"""Accuracy and macro-F1 per race / gender / race x gender slice with each (condition, slice_type)'s
largest gap in percentage points (Tables 7, 7a, Figure 7b), models and pooled human labels."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import demographic_audit as audit

    table = audit.slices_table(dbt.ref("int_model_vs_human").df(),
                               dbt.ref("int_human_label_counts").df())
    return audit.with_origin(table, dbt.ref("int_study_provenance").df())
