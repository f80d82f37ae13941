-- Agreement and replaceability figures split by the human-disagreement tercile of the image
-- (int_image_disagreement; "Beyond Correlation", ICLR 2025): is a model human-like only where the
-- humans agree? Per (condition, dimension, tercile, with 'all' for every image): the model's W1SD
-- and mean |z| beside the human LOO W1SD and mean |z| of the same images, Bland-Altman bias / SD_d /
-- MAE, Pearson r and delta alpha (interval alpha of the tercile's images with the model added as
-- one more rater minus without). Images with an undefined tercile (SD undefined) are left out.
with model_vs_human_long as (
    select * from {{ ref('int_model_vs_human_long') }}
),

image_disagreement as (
    select * from {{ ref('int_image_disagreement') }}
),

human_loo as (
    select * from {{ ref('int_human_loo') }}
),

image_human_stats as (
    select * from {{ ref('int_image_human_stats') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

model_long as (
    select
        condition_id,
        image_id,
        dimension,
        model_value,
        human_mean,
        z
    from model_vs_human_long
),

model_terciles as (
    select
        model_long.*,
        image_disagreement.disagreement_tercile as tercile
    from model_long
    left join image_disagreement using (image_id, dimension)
),

-- each image under its tercile (none when undefined) and under 'all'
rows_split as (
    select * from ({{ with_all_scope('model_terciles', scope='tercile') }})
    where tercile is not null
),

model_stats as (
    select
        condition_id,
        dimension,
        tercile,
        {{ zscore_summary_columns('z') }},
        {{ bland_altman_columns('human_mean', 'model_value') }},
        {{ pearson_columns('human_mean', 'model_value') }}
    from rows_split
    group by condition_id, dimension, tercile
),

human_terciles as (
    select
        human_loo.*,
        image_disagreement.disagreement_tercile as tercile
    from human_loo
    left join image_disagreement using (image_id, dimension)
),

human_split as (
    select * from ({{ with_all_scope('human_terciles', scope='tercile') }})
    where tercile is not null
),

human_stats as (
    select
        dimension,
        tercile,
        {{ zscore_summary_columns('loo_z') }}
    from human_split
    group by dimension, tercile
),

unit_stats as (
    -- per image: human sufficient statistics, and the same with the model's answer added
    select
        rows_split.condition_id,
        rows_split.dimension,
        rows_split.tercile,
        rows_split.image_id,
        image_human_stats.n_ratings as m,
        image_human_stats.rating_sum as total,
        image_human_stats.rating_sumsq as total_sq,
        {{ with_extra_rater_columns('image_human_stats.n_ratings', 'image_human_stats.rating_sum',
                                    'image_human_stats.rating_sumsq', 'rows_split.model_value', suffix='_plus') }}
    from rows_split
    inner join image_human_stats
        on rows_split.image_id = image_human_stats.image_id and rows_split.dimension = image_human_stats.dimension
),

alpha_human as (
    select * from ({{ alpha_interval_from_stats('unit_stats', group_by=['condition_id', 'dimension', 'tercile']) }})
),

alpha_plus as (
    select * from (
        {{ alpha_interval_from_stats('unit_stats', group_by=['condition_id', 'dimension', 'tercile'],
                                     m='m_plus', total='total_plus', total_sq='total_sq_plus') }}
    )
),

final as (
    select
        model_stats.condition_id,
        model_stats.dimension,
        model_stats.tercile,
        model_stats.n_images,
        model_stats.n_zero_sd_images,
        model_stats.w1sd,
        model_stats.mean_abs_z,
        human_stats.w1sd as human_loo_w1sd,
        human_stats.mean_abs_z as human_loo_mean_abs_z,
        model_stats.w1sd - human_stats.w1sd as w1sd_minus_human,
        model_stats.bias,
        model_stats.sd_d,
        model_stats.mae,
        model_stats.pearson_r,
        model_stats.pearson_null_reason,
        alpha_human.alpha as alpha_human,
        alpha_plus.alpha as alpha_with_model,
        {{ delta_alpha('alpha_plus.alpha', 'alpha_human.alpha') }} as delta_alpha,
        study_provenance.data_origin
    from model_stats
    left join human_stats using (dimension, tercile)
    left join alpha_human using (condition_id, dimension, tercile)
    left join alpha_plus using (condition_id, dimension, tercile)
    cross join study_provenance
)

select * from final
