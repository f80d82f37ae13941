-- Where the model's answers fall inside each image's human distribution (paper 3.4.3, Tables
-- 4d/4e/5d/5e): per (condition | 'human_loo', dimension, emotion | 'all') mean |z|, W1SD (share of
-- |z| <= 1) and counts, with macros/zscore_summary.sql. Model rows count images; the 'human_loo'
-- baseline counts human ratings, each scored against the other raters of its image.
-- A missing model answer counts against the model: w1sd counts it as outside 1 SD; the share over
-- answered images (w1sd_answered_only) and the count (n_missing_model_values) stand beside it.
with model_all as (
    select condition_id, dimension, emotion, z, model_value from {{ ref('int_model_vs_human_long') }}
),
model_grid as (
    -- every slice the condition was asked about, also when it answered none of it
    select distinct condition_id, dimension, emotion from model_all
    union
    select distinct condition_id, dimension, 'all' from model_all
),
model_rows as (
    select condition_id, dimension, emotion, z from model_all where model_value is not null
),
model_scoped as (
    select condition_id, dimension, emotion, z from model_rows
    union all
    select condition_id, dimension, 'all', z from model_rows
),
human_rows as (
    select dimension, emotion, loo_z from {{ ref('int_human_loo') }}
    where dimension in ({% for d in var('model_dimensions') %}'{{ d }}'{% if not loop.last %}, {% endif %}{% endfor %})
),
human_scoped as (
    select 'human_loo' as condition_id, dimension, emotion, loo_z as z from human_rows
    union all
    select 'human_loo', dimension, 'all', loo_z from human_rows
),
model_summaries as (
    select condition_id, dimension, emotion, {{ zscore_summary_columns('z') }}
    from model_scoped group by condition_id, dimension, emotion
),
summaries as (
    select g.condition_id, g.dimension, g.emotion, 'image' as counted_unit, s.mean_abs_z, s.w1sd,
           coalesce(s.n_images, 0) as n_images, coalesce(s.n_zero_sd_images, 0) as n_zero_sd_images
    from model_grid g
    left join model_summaries s using (condition_id, dimension, emotion)
    union all
    select condition_id, dimension, emotion, 'rating' as counted_unit, {{ zscore_summary_columns('z') }}
    from human_scoped group by condition_id, dimension, emotion
),
stimuli as (
    select emotion, count(*) as n_stimuli from {{ ref('stg_stimuli') }} group by emotion
    union all
    select 'all', count(*) from {{ ref('stg_stimuli') }}
)
select
    s.condition_id,
    s.dimension,
    s.emotion,
    s.mean_abs_z,
    {{ w1sd_counting_missing('s.w1sd', 's.n_images', 'm.n_missing') }} as w1sd,
    s.w1sd as w1sd_answered_only,
    cast(s.n_images as bigint) as n_images,
    cast(s.n_zero_sd_images as bigint) as n_zero_sd_images,
    cast(m.n_missing as bigint) as n_missing_model_values,
    s.counted_unit,
    p.data_origin
from summaries s
left join stimuli st on st.emotion = s.emotion
cross join lateral (
    select case when s.condition_id <> 'human_loo' then st.n_stimuli - s.n_images - s.n_zero_sd_images end as n_missing
) m
cross join {{ ref('int_study_provenance') }} p
