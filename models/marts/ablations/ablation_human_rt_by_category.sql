-- Human median response time per intended category and rating dimension (the RT column of Table
-- 4A-3), pooled over all ratings of the category's images. Every declared dimension has an RT
-- column (rt_<dimension>_ms); a study without dimensions gets an empty table.
{%- set rt_dims = study_setting('dimensions') %}
with human_ratings as (
    select * from {{ ref('stg_human_ratings') }}
),

stimuli as (
    select * from {{ ref('stg_stimuli') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

-- (ratings is unused in the rendering for a study without dimensions)
ratings as (  -- noqa: ST03
    select
        human_ratings.*,
        stimuli.category
    from human_ratings
    inner join stimuli using (image_id)
),

response_times as (
    {%- if rt_dims | length == 0 %}
    select
        cast(null as varchar) as category,
        cast(null as varchar) as dimension,
        cast(null as double) as rt_ms
    where false
    {%- endif %}
    {%- for dim in rt_dims %}
    select
        category,
        '{{ dim }}' as dimension,
        rt_{{ dim }}_ms as rt_ms
    from ratings
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
),

final as (
    select
        response_times.category,
        response_times.dimension,
        count(response_times.rt_ms) as n_ratings,
        median(response_times.rt_ms) as median_rt_ms,
        study_provenance.data_origin
    from response_times
    cross join study_provenance
    group by response_times.category, response_times.dimension, study_provenance.data_origin
)

select * from final
