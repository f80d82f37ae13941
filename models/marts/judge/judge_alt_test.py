"""The Alternative Annotator Test of each LLM judge against the human annotators, per axis."""


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.judge.analysis import alt_tests, with_origin

    epsilon = float(dbt.config.get("alt_test_epsilon") or 0.2)
    q = float(dbt.config.get("alt_test_q") or 0.05)
    min_instances = int(dbt.config.get("alt_test_min_instances") or 30)
    return with_origin(alt_tests(dbt.ref("judge_pair_verdicts").df(), epsilon=epsilon, q=q, min_instances_per_human=min_instances),
                       dbt.ref("int_study_provenance").df())
