"""The archived v10.6 omnibus tests (Supplement Tables S5.1-S5.4): bias ~ factor + emotion vs
emotion, and factor x emotion vs factor + emotion, per (condition, dimension, factor)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import demographic_audit as audit
    from rater1001.agreement_marts import in_pool

    table = audit.omnibus_table(in_pool(dbt.ref("int_model_vs_human").df(), dbt.ref("int_condition_pools").df(), "demographics"),
                               study_factors=dbt.ref("stg_study_factors").df())
    return audit.with_origin(table, dbt.ref("int_study_provenance").df())
