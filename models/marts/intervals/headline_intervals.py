"""Bootstrap percentile intervals (images resampled, seeded) for the headline numbers: human
alpha, alpha with each model and delta alpha, W1SD, and Cohen's kappa, overall and per emotion."""

COLUMNS = ["condition_id", "dimension", "emotion", "statistic", "estimate", "lo", "hi", "n_images",
           "replicates", "seed", "level"]


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.ablation_tables import finish, headline_intervals, model_dimensions

    rows = dbt.ref("int_model_vs_human").df()
    stats = dbt.ref("int_image_human_stats").df()
    replicates = int(dbt.config.get("interval_replicates") or 500)
    seed = int(dbt.config.get("interval_seed") or 42)
    dims = model_dimensions(rows) or [d for d in ("valence", "arousal") if d in set(stats["dimension"])]
    # The study's intended categories: those of rated images and of predicted ones (a labels-only
    # study has no rated dimension, so no image statistics).
    labels = sorted(set(stats["emotion"].dropna()) | set(rows["true_emotion"].dropna()))
    out = headline_intervals(rows, stats, dims, labels, replicates, seed)
    return finish(out, COLUMNS, dbt.ref("int_study_provenance").df())
