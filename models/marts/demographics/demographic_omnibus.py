"""The archived v10.6 omnibus tests (Supplement Tables S5.1-S5.4): bias ~ factor + emotion vs
emotion, and factor x emotion vs factor + emotion, per (condition, dimension, factor)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import demographic_audit as audit

    table = audit.omnibus_table(dbt.ref("int_model_vs_human").df())
    return audit.with_origin(table, dbt.ref("int_study_provenance").df())
