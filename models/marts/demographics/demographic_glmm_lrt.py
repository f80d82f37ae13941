"""correct ~ factor + (1 | gt_emotion) vs correct ~ 1 + (1 | gt_emotion), maximum likelihood by
adaptive Gauss-Hermite quadrature (nAGQ=25), likelihood-ratio chi-square per (condition, factor)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import demographic_audit as audit

    table = audit.glmm_lrt_table(dbt.ref("int_model_vs_human").df())
    return audit.with_origin(table, dbt.ref("int_study_provenance").df())
