def model(dbt, session):
    from rater1001.marts import small_pools

    return small_pools.small_pool_alpha(
        dbt.ref("int_model_vs_human"),
        dbt.ref("int_image_value_counts"),
        dbt.ref("int_study_provenance"),
        ks=dbt.config.get("small_pool_ks"),
        replicates=dbt.config.get("small_pool_replicates"),
        seed=dbt.config.get("small_pool_seed"),
    )
