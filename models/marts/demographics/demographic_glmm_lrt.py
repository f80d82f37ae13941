"""correct ~ factor + (1 | gt_emotion) vs correct ~ 1 + (1 | gt_emotion), maximum likelihood by
adaptive Gauss-Hermite quadrature (nAGQ=25), likelihood-ratio chi-square per (condition, factor)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import demographic_audit as audit
    from rater1001.agreement_marts import in_pool

    table = audit.glmm_lrt_table(in_pool(dbt.ref("int_demographic_label_counts").df(), dbt.ref("int_condition_pools").df(), "demographics"),
                                study_factors=dbt.ref("stg_study_factors").df())
    return audit.with_origin(table, dbt.ref("int_study_provenance").df())
