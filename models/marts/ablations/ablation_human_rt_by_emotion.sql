-- Human median response time per intended emotion and rating dimension (the RT column of Table
-- 4A-3), pooled over all ratings of the emotion's images. Every declared dimension has an RT
-- column (rt_<dimension>_ms); a study without dimensions gets an empty table.
{%- set rt_dims = var('dimensions') %}
with ratings as (
    select r.*, s.emotion
    from {{ ref('stg_human_ratings') }} r
    join {{ ref('stg_stimuli') }} s using (image_id)
),
long as (
    {%- if rt_dims | length == 0 %}
    select cast(null as varchar) as emotion, cast(null as varchar) as dimension,
           cast(null as double) as rt_ms
    where false
    {%- endif %}
    {%- for d in rt_dims %}
    select emotion, '{{ d }}' as dimension, rt_{{ d }}_ms as rt_ms from ratings
    {%- if not loop.last %} union all{% endif %}
    {%- endfor %}
)
select
    l.emotion,
    l.dimension,
    count(l.rt_ms) as n_ratings,
    median(l.rt_ms) as median_rt_ms,
    p.data_origin
from long l
cross join {{ ref('int_study_provenance') }} p
group by l.emotion, l.dimension, p.data_origin
