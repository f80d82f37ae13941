-- Dimensional agreement of each condition with the per-image human mean (paper 3.4.2, Tables 4,
-- 4a, 4b, 5, 5a, 5b, S5, S8): per (condition, dimension, category | 'all') Pearson r and the
-- Bland-Altman columns (macros/bland_altman.sql), beside the human baselines of Table S8 for the
-- same slice. Images without a model value or without a human mean are left out and counted.
{%- set model_dims = study_setting('model_dimensions') %}
with model_vs_human_long as (
    select * from {{ ref('int_model_vs_human_long') }}
),

stimuli as (
    select * from {{ ref('stg_stimuli') }}
),

human_loo as (
    select * from {{ ref('int_human_loo') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

pairs as (
    select
        condition_id,
        dimension,
        category,
        image_id,
        human_mean,
        model_value
    from model_vs_human_long
),

scoped as (
    {{ with_all_scope('pairs') }}
),

stimulus_counts as (
    select
        category,
        count(*) as n_stimuli
    from ({{ with_all_scope('stimuli') }})
    group by category
),

agreement as (
    select
        condition_id,
        dimension,
        category,
        {{ bland_altman_columns('human_mean', 'model_value') }},
        {{ pearson_columns('human_mean', 'model_value', reason='pearson_r_null_reason') }}
    from scoped
    group by condition_id, dimension, category
),

human_ratings as (
    select
        dimension,
        category,
        image_id,
        rating,
        loo_abs_error
    from human_loo
    where dimension in (
        {%- for dim in model_dims -%}
        '{{ dim }}'{% if not loop.last %}, {% endif %}
        {%- endfor -%}
    )
),

human_scoped as (
    {{ with_all_scope('human_ratings') }}
),

loo_mae as (
    select
        dimension,
        category,
        avg(loo_abs_error) as human_loo_mae
    from human_scoped
    group by dimension, category
),

pairwise_mae as (
    {{ human_pairwise_mae('human_scoped', 'image_id', 'rating', ['dimension', 'category']) }}
),

final as (
    select
        agreement.condition_id,
        agreement.dimension,
        agreement.category,
        agreement.n,
        cast(coalesce(stimulus_counts.n_stimuli, 0) - agreement.n as bigint) as n_excluded_images,
        agreement.pearson_r,
        agreement.pearson_r_null_reason,
        agreement.bias,
        agreement.sd_d,
        agreement.loa_lower,
        agreement.loa_upper,
        agreement.systematicity,
        agreement.mae,
        agreement.mae_folded_normal,
        loo_mae.human_loo_mae,
        pairwise_mae.human_pairwise_mae,
        agreement.mae / nullif(loo_mae.human_loo_mae, 0) as mae_to_human_loo_mae,
        study_provenance.data_origin
    from agreement
    left join stimulus_counts on agreement.category = stimulus_counts.category
    left join loo_mae on agreement.dimension = loo_mae.dimension and agreement.category = loo_mae.category
    left join pairwise_mae
        on agreement.dimension = pairwise_mae.dimension and agreement.category = pairwise_mae.category
    cross join study_provenance
)

select * from final
