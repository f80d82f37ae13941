"""dbt Python model: see models/marts/replaceability/_replaceability.yml (replaceability_verdicts)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001 import agreement_marts as marts

    origin = marts.data_origin(dbt.ref("int_study_provenance").df())
    rules = marts.rules_from_seed(dbt.ref("verdict_rules").df())
    return marts.verdicts_from_inputs(dbt.ref("replaceability_inputs").df(), rules, origin)
