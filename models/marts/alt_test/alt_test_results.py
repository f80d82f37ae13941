"""The Alternative Annotator Test of each model condition against the individual human raters,
per dimension, scoring, emotion ('all' too) and epsilon: winning rate omega, advantage
probability rho, pass (omega >= 0.5). A missing model answer counts against the model; the
winning rate over answered images only and the count of such comparisons stand beside it."""

COLUMNS = ["condition_id", "dimension", "scoring", "emotion", "epsilon", "q", "min_instances_per_human",
           "winning_rate", "advantage_probability", "passed", "n_annotators_tested", "n_annotators_skipped",
           "n_model_missing", "winning_rate_answered_only", "note"]


def model(dbt, session):
    dbt.config(materialized="table")
    import pandas as pd

    from rater1001.ablation_tables import finish
    from rater1001.stats.alt_test_ratings import alt_test_from_counts, annotator_p_values

    # raters with equal outcome counts share their p-value and decision: one row per distinct count
    # tuple with the number of raters (a few hundred rows per group, not one per rater)
    keys = "condition_id, dimension, scoring, emotion, n_human_better, n_tie, n_model_better, n_model_missing"
    counts = (dbt.ref("alt_test_rater_outcomes").aggregate(f"{keys}, count(*) as n_annotators", keys)
              .order(keys).df().reset_index(drop=True))
    epsilons = [float(e) for e in str(dbt.config.get("alt_test_epsilons") or "0.1,0.15,0.2").split(",")]
    q = float(dbt.config.get("alt_test_q") or 0.05)
    min_all = int(dbt.config.get("alt_test_min_instances") or 30)
    min_emotion = int(dbt.config.get("alt_test_min_instances_per_emotion") or 10)
    # all raters of all groups in one vectorised t-test per epsilon (rows with equal counts share it)
    p_by_eps = {eps: annotator_p_values(counts["n_human_better"], counts["n_tie"], counts["n_model_better"], eps)
                for eps in epsilons}
    # answered-only: the same comparisons without the images the model left unanswered
    answered = counts.assign(n_human_better=counts["n_human_better"] - counts["n_model_missing"])
    p_answered = {eps: annotator_p_values(answered["n_human_better"], answered["n_tie"], answered["n_model_better"], eps)
                  for eps in epsilons}
    rows = []
    group = ["condition_id", "dimension", "scoring", "emotion"]
    for ((cond, dim, scoring, emotion), part), (_, answered_part) in zip(counts.groupby(group, sort=True),
                                                                        answered.groupby(group, sort=True)):
        min_n = min_all if emotion == "all" else min_emotion
        rows_of = part.index.to_numpy()
        for eps in epsilons:
            r = alt_test_from_counts(part, epsilon=eps, q=q, min_instances_per_human=min_n, p_values=p_by_eps[eps][rows_of],
                                     weight="n_annotators", per_annotator_frame=False)
            a = alt_test_from_counts(answered_part, epsilon=eps, q=q, min_instances_per_human=min_n,
                                     p_values=p_answered[eps][rows_of], weight="n_annotators", per_annotator_frame=False)
            rows.append({"condition_id": cond, "dimension": dim, "scoring": scoring, "emotion": emotion,
                         "epsilon": eps, "q": q, "min_instances_per_human": min_n,
                         **{k: v for k, v in r.items() if k != "per_annotator"},
                         "n_model_missing": int((part["n_model_missing"] * part["n_annotators"]).sum()),
                         "winning_rate_answered_only": a["winning_rate"]})
    return finish(pd.DataFrame(rows), COLUMNS, dbt.ref("int_study_provenance").df())
