"""Accuracy and macro-F1 per race / gender / race x gender slice with each (condition, slice_type)'s
largest gap in percentage points (Tables 7, 7a, Figure 7b), models and pooled human labels."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import demographic_audit as audit
    from rater1001.agreement_marts import in_pool

    table = audit.slices_table(in_pool(dbt.ref("int_demographic_label_counts").df(), dbt.ref("int_condition_pools").df(), "demographics"),
                               dbt.ref("int_human_label_counts").df(), dbt.ref("stg_study_factors").df())
    return audit.with_origin(table, dbt.ref("int_study_provenance").df())
