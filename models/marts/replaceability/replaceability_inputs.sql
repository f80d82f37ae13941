-- The inputs of every replaceability verdict, one row per (category, measure, condition): for
-- valence / arousal the condition's per-category W1SD, mean |z|, interval delta alpha (the category's
-- and the condition's pooled over all images: the rules' delta_alpha_scope picks one), Bland-Altman
-- bias and SD_d and number of distinct values, beside the same category's human LOO W1SD, mean |z|
-- and mean per-image human SD; for classification the one-vs-rest and within-category kappas,
-- recall and precision.
-- replaceability_verdicts applies seeds/verdict_rules.csv to exactly these rows. Only conditions of
-- the 'replaceability' pool (seeds/condition_pools.csv: VLMs; FER baselines are not counted).
-- A study without a category has its verdicts at 'all', its one stratum (macros/all_scope.sql).
with condition_pools as (
    select * from {{ ref('int_condition_pools') }}
),

zscore_summary as (
    select * from {{ ref('zscore_summary') }}
),

image_human_stats as (
    select * from {{ ref('int_image_human_stats') }}
),

alpha_delta as (
    select * from {{ ref('alpha_delta') }}
),

dimensional_agreement as (
    select * from {{ ref('dimensional_agreement') }}
),

response_diversity as (
    select * from {{ ref('response_diversity') }}
),

classification_by_category as (
    select * from {{ ref('classification_by_category') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

pool as (
    select condition_id from condition_pools
    where pool = 'replaceability'
),

model_z as (
    select
        condition_id,
        dimension,
        category,
        w1sd,
        mean_abs_z
    from zscore_summary
    where
        condition_id <> 'human_loo' and {{ verdict_scope('category') }}
        and condition_id in (select condition_id from pool)
),

loo as (
    select
        dimension,
        category,
        w1sd as human_loo_w1sd,
        mean_abs_z as human_loo_mean_abs_z
    from zscore_summary
    where condition_id = 'human_loo' and {{ verdict_scope('category') }}
),

human_sd as (
    select
        dimension,
        category,
        avg(human_sd) as human_sd
    from image_human_stats
    group by dimension, category
),

dimension_rows as (
    select
        model_z.category,
        model_z.dimension as measure,
        model_z.condition_id,
        model_z.w1sd,
        model_z.mean_abs_z,
        alpha_category.delta_alpha,
        alpha_pooled.delta_alpha as delta_alpha_pooled,
        dimensional_agreement.bias,
        dimensional_agreement.sd_d,
        response_diversity.n_unique,
        cast(null as double) as kappa,
        cast(null as double) as kappa_within,
        cast(null as double) as recall,
        cast(null as double) as "precision",
        loo.human_loo_w1sd,
        loo.human_loo_mean_abs_z,
        human_sd.human_sd
    from model_z
    left join alpha_delta as alpha_category
        on
            model_z.condition_id = alpha_category.condition_id
            and model_z.dimension = alpha_category.dimension
            and model_z.category = alpha_category.category
            and alpha_category.metric = 'interval'
    left join alpha_delta as alpha_pooled
        on
            model_z.condition_id = alpha_pooled.condition_id
            and model_z.dimension = alpha_pooled.dimension
            and alpha_pooled.category = 'all'
            and alpha_pooled.metric = 'interval'
    left join dimensional_agreement
        on
            model_z.condition_id = dimensional_agreement.condition_id
            and model_z.dimension = dimensional_agreement.dimension
            and model_z.category = dimensional_agreement.category
    left join response_diversity
        on
            model_z.condition_id = response_diversity.condition_id
            and model_z.dimension = response_diversity.dimension
            and model_z.category = response_diversity.category
    left join loo on model_z.dimension = loo.dimension and model_z.category = loo.category
    left join human_sd on model_z.dimension = human_sd.dimension and model_z.category = human_sd.category
),

classification_rows as (
    select
        category,
        'classification' as measure,
        condition_id,
        cast(null as double) as w1sd,
        cast(null as double) as mean_abs_z,
        cast(null as double) as delta_alpha,
        cast(null as double) as delta_alpha_pooled,
        cast(null as double) as bias,
        cast(null as double) as sd_d,
        cast(null as bigint) as n_unique,
        kappa_one_vs_rest as kappa,
        kappa_within,
        recall,
        "precision",
        cast(null as double) as human_loo_w1sd,
        cast(null as double) as human_loo_mean_abs_z,
        cast(null as double) as human_sd
    from classification_by_category
    where condition_id <> 'human' and condition_id in (select condition_id from pool)
),

final as (
    select
        both_measures.*,
        study_provenance.data_origin
    from (
        select * from dimension_rows
        union all
        select * from classification_rows
    ) as both_measures
    cross join study_provenance
)

select * from final
