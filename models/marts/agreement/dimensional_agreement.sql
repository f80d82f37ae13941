-- Dimensional agreement of each condition with the per-image human mean (paper 3.4.2, Tables 4,
-- 4a, 4b, 5, 5a, 5b, S5, S8): per (condition, dimension, emotion | 'all') Pearson r and the
-- Bland-Altman columns (macros/bland_altman.sql), beside the human baselines of Table S8 for the
-- same slice. Images without a model value or without a human mean are left out and counted.
with pairs as (
    select * from {{ ref('int_model_vs_human_long') }}
),
scoped as (
    select condition_id, dimension, emotion, image_id, human_mean, model_value from pairs
    union all
    select condition_id, dimension, 'all', image_id, human_mean, model_value from pairs
),
stimuli as (
    select emotion, count(*) as n_stimuli from {{ ref('stg_stimuli') }} group by emotion
    union all
    select 'all', count(*) from {{ ref('stg_stimuli') }}
),
agreement as (
    select
        condition_id,
        dimension,
        emotion,
        {{ bland_altman_columns('human_mean', 'model_value') }},
        corr(human_mean, model_value) as r_raw,
        -- min = max on the paired values: a side is constant, Pearson undefined
        min(model_value) filter (where human_mean is not null) = max(model_value) filter (where human_mean is not null) as model_constant,
        min(human_mean) filter (where model_value is not null) = max(human_mean) filter (where model_value is not null) as human_constant
    from scoped
    group by condition_id, dimension, emotion
),
human_ratings as (
    select dimension, emotion, image_id, rating, loo_abs_error from {{ ref('int_human_loo') }}
    where dimension in ({% for d in var('model_dimensions') %}'{{ d }}'{% if not loop.last %}, {% endif %}{% endfor %})
),
human_scoped as (
    select dimension, emotion, image_id, rating, loo_abs_error from human_ratings
    union all
    select dimension, 'all', image_id, rating, loo_abs_error from human_ratings
),
loo_mae as (
    select dimension, emotion, avg(loo_abs_error) as human_loo_mae
    from human_scoped group by dimension, emotion
),
pairwise_mae as (
    {{ human_pairwise_mae('human_scoped', 'image_id', 'rating', ['dimension', 'emotion']) }}
)
select
    a.condition_id,
    a.dimension,
    a.emotion,
    a.n,
    cast(coalesce(s.n_stimuli, 0) - a.n as bigint) as n_excluded_images,
    case when a.n >= 3 and not a.model_constant and not a.human_constant then a.r_raw end as pearson_r,
    case when a.n < 3 then 'fewer than 3 images with both values'
         when a.model_constant then 'model gives one constant value (SD 0)'
         when a.human_constant then 'human means are constant (SD 0)'
    end as pearson_r_null_reason,
    a.bias,
    a.sd_d,
    a.loa_lower,
    a.loa_upper,
    a.systematicity,
    a.mae,
    a.mae_folded_normal,
    l.human_loo_mae,
    w.human_pairwise_mae,
    a.mae / nullif(l.human_loo_mae, 0) as mae_to_human_loo_mae,
    p.data_origin
from agreement a
left join stimuli s on s.emotion = a.emotion
left join loo_mae l on l.dimension = a.dimension and l.emotion = a.emotion
left join pairwise_mae w on w.dimension = a.dimension and w.emotion = a.emotion
cross join {{ ref('int_study_provenance') }} p
