-- The declared rater attributes in long form, one row per (rater, attribute) with a value: what
-- the audit by rater attribute slices by, whatever the study names its attributes.
{%- set attributes = study_setting('rater_attributes') %}
-- (source is unused in the rendering for a study without rater attributes)
with source as (  -- noqa: ST03
    select * from {{ source('landing', 'raters') }}
),

unpivoted as (
    {%- if attributes | length == 0 %}
    select
        cast(null as varchar) as rater_id,
        cast(null as varchar) as attribute,
        cast(null as varchar) as level
    where false
    {%- else %}
    {%- for attribute in attributes %}
    select
        rater_id,
        '{{ attribute }}' as attribute,
        cast({{ attribute }} as varchar) as level
    from source
    where {{ attribute }} is not null
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
    {%- endif %}
)

select * from unpivoted
