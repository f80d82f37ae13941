"""Small rater pools (Limitation 12): human alpha and delta alpha of each condition when every
image keeps only k of its human ratings (drawn without replacement, images resampled, seeded)."""

COLUMNS = ["dimension", "k", "condition_id", "n_images", "n_images_excluded", "replicates", "seed",
           "resample_images", "human_alpha", "human_alpha_lo", "human_alpha_hi", "alpha_with_model",
           "alpha_with_model_lo", "alpha_with_model_hi", "delta_alpha", "delta_alpha_lo", "delta_alpha_hi",
           "share_delta_positive"]


def model(dbt, session):
    dbt.config(materialized="table")
    from rater1001.ablation_tables import finish, model_dimensions, small_pool_table

    rows = dbt.ref("int_model_vs_human").df()
    counts = dbt.ref("int_image_value_counts").df()
    ks = [int(k) for k in str(dbt.config.get("small_pool_ks") or "2,3,5,10,20,50").split(",")]
    replicates = int(dbt.config.get("small_pool_replicates") or 100)
    seed = int(dbt.config.get("small_pool_seed") or 42)
    out = small_pool_table(counts, rows, model_dimensions(rows), ks, replicates, seed)
    return finish(out[out["condition_id"].notna()] if len(out) else out, COLUMNS,
                  dbt.ref("int_study_provenance").df())
