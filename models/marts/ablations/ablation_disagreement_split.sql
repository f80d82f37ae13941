-- Agreement and replaceability figures split by the human-disagreement tercile of the image
-- (int_image_disagreement; "Beyond Correlation", ICLR 2025): is a model human-like only where the
-- humans agree? Per (condition, dimension, tercile, with 'all' for every image): the model's W1SD
-- and mean |z| beside the human LOO W1SD and mean |z| of the same images, Bland-Altman bias / SD_d /
-- MAE, Pearson r and delta alpha (interval alpha of the tercile's images with the model added as
-- one more rater minus without). Images with an undefined tercile (SD undefined) are left out.
with model_long as (
    select condition_id, image_id, dimension, model_value, human_mean, z
    from {{ ref('int_model_vs_human_long') }}
),
rows_split as (
    select ml.*, d.disagreement_tercile as tercile
    from model_long ml
    join {{ ref('int_image_disagreement') }} d using (image_id, dimension)
    where d.disagreement_tercile is not null
    union all
    select ml.*, 'all' as tercile
    from model_long ml
),
model_stats as (
    select condition_id, dimension, tercile,
           {{ zscore_summary_columns('z') }},
           {{ bland_altman_columns('human_mean', 'model_value') }},
           corr(human_mean, model_value) as pearson_r,
           case when stddev_samp(model_value) = 0 then 'model gives one constant value (SD 0)'
                when count(model_value) < 3 then 'fewer than 3 images with both values' end as pearson_null_reason
    from rows_split
    group by condition_id, dimension, tercile
),
human_split as (
    select l.*, d.disagreement_tercile as tercile
    from {{ ref('int_human_loo') }} l
    join {{ ref('int_image_disagreement') }} d using (image_id, dimension)
    where d.disagreement_tercile is not null
    union all
    select l.*, 'all' as tercile from {{ ref('int_human_loo') }} l
),
human_stats as (
    select dimension, tercile, {{ zscore_summary_columns('loo_z') }}
    from human_split
    group by dimension, tercile
),
unit_stats as (
    -- per image: human sufficient statistics, and the same with the model's answer added
    select r.condition_id, r.dimension, r.tercile, r.image_id,
           s.n_ratings as m, s.rating_sum as total, s.rating_sumsq as total_sq,
           s.n_ratings + case when r.model_value is null then 0 else 1 end as m_plus,
           s.rating_sum + coalesce(r.model_value, 0) as total_plus,
           s.rating_sumsq + coalesce(r.model_value * r.model_value, 0) as total_sq_plus
    from rows_split r
    join {{ ref('int_image_human_stats') }} s on s.image_id = r.image_id and s.dimension = r.dimension
),
alpha_human as (
    select * from ({{ alpha_interval_from_stats('unit_stats', group_by=['condition_id', 'dimension', 'tercile']) }})
),
alpha_plus as (
    select * from ({{ alpha_interval_from_stats('unit_stats', group_by=['condition_id', 'dimension', 'tercile'],
                                               m='m_plus', total='total_plus', total_sq='total_sq_plus') }})
)
select
    ms.condition_id,
    ms.dimension,
    ms.tercile,
    ms.n_images,
    ms.n_zero_sd_images,
    ms.w1sd,
    ms.mean_abs_z,
    hs.w1sd as human_loo_w1sd,
    hs.mean_abs_z as human_loo_mean_abs_z,
    ms.w1sd - hs.w1sd as w1sd_minus_human,
    ms.bias,
    ms.sd_d,
    ms.mae,
    ms.pearson_r,
    ms.pearson_null_reason,
    ah.alpha as alpha_human,
    ap.alpha as alpha_with_model,
    ap.alpha - ah.alpha as delta_alpha,
    p.data_origin
from model_stats ms
left join human_stats hs using (dimension, tercile)
left join alpha_human ah using (condition_id, dimension, tercile)
left join alpha_plus ap using (condition_id, dimension, tercile)
cross join {{ ref('int_study_provenance') }} p
