-- Where the model's answers fall inside each image's human distribution (paper 3.4.3, Tables
-- 4d/4e/5d/5e): per (condition | 'human_loo', dimension, category | 'all') mean |z|, W1SD (share of
-- |z| <= 1) and counts, with macros/zscore_summary.sql. Model rows count images; the 'human_loo'
-- baseline counts human ratings, each scored against the other raters of its image.
-- A missing model answer counts against the model: w1sd counts it as outside 1 SD; the share over
-- answered images (w1sd_answered_only) and the count (n_missing_model_values) stand beside it.
-- A stimulus whose human SD is 0 or undefined has no z whoever answers it: it is out of W1SD
-- (n_zero_sd_images), answered or not, and never a missing answer (docs/stats.md).
{%- set model_dims = study_setting('model_dimensions') %}
with model_vs_human_long as (
    select * from {{ ref('int_model_vs_human_long') }}
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

model_all as (
    select
        condition_id,
        dimension,
        category,
        z,
        model_value
    from model_vs_human_long
),

model_grid as (
    -- every slice the condition was asked about, also when it answered none of it
    select distinct
        condition_id,
        dimension,
        category
    from ({{ with_all_scope('model_all') }})
),

model_rows as (
    select
        condition_id,
        dimension,
        category,
        z
    from model_all
    where model_value is not null
),

model_scoped as (
    {{ with_all_scope('model_rows') }}
),

human_rows as (
    select
        'human_loo' as condition_id,
        dimension,
        category,
        loo_z as z
    from human_loo
    where dimension in (
        {%- for dim in model_dims -%}
        '{{ dim }}'{% if not loop.last %}, {% endif %}
        {%- endfor -%}
    )
),

human_scoped as (
    {{ with_all_scope('human_rows') }}
),

model_summaries as (
    select
        condition_id,
        dimension,
        category,
        {{ zscore_summary_columns('z') }}
    from model_scoped
    group by condition_id, dimension, category
),

summaries as (
    select
        model_grid.condition_id,
        model_grid.dimension,
        model_grid.category,
        'image' as counted_unit,
        model_summaries.mean_abs_z,
        model_summaries.w1sd,
        coalesce(model_summaries.n_images, 0) as n_images,
        coalesce(model_summaries.n_zero_sd_images, 0) as n_zero_sd_images
    from model_grid
    left join model_summaries using (condition_id, dimension, category)
    union all
    select
        condition_id,
        dimension,
        category,
        'rating' as counted_unit,
        {{ zscore_summary_columns('z') }}
    from human_scoped
    group by condition_id, dimension, category
),

stimulus_counts as (
    -- the stimuli the humans rated on the dimension: those with an SD > 0 can be scored
    select
        dimension,
        category,
        count(*) filter (where human_sd > 0) as n_scorable,
        count(*) filter (where not coalesce(human_sd > 0, false)) as n_zero_sd
    from ({{ with_all_scope('image_human_stats') }})
    group by dimension, category
),

with_missing as (
    select
        summaries.* replace (
            case
                when summaries.condition_id <> 'human_loo'
                    then coalesce(stimulus_counts.n_zero_sd, 0)
                else summaries.n_zero_sd_images
            end as n_zero_sd_images
        ),
        case
            when summaries.condition_id <> 'human_loo'
                then coalesce(stimulus_counts.n_scorable, 0) - summaries.n_images
        end as n_missing
    from summaries
    left join stimulus_counts
        on summaries.dimension = stimulus_counts.dimension and summaries.category = stimulus_counts.category
),

final as (
    select
        with_missing.condition_id,
        with_missing.dimension,
        with_missing.category,
        with_missing.mean_abs_z,
        {{ w1sd_counting_missing('with_missing.w1sd', 'with_missing.n_images', 'with_missing.n_missing') }} as w1sd,
        with_missing.w1sd as w1sd_answered_only,
        cast(with_missing.n_images as bigint) as n_images,
        cast(with_missing.n_zero_sd_images as bigint) as n_zero_sd_images,
        cast(with_missing.n_missing as bigint) as n_missing_model_values,
        with_missing.counted_unit,
        study_provenance.data_origin
    from with_missing
    cross join study_provenance
)

select * from final
