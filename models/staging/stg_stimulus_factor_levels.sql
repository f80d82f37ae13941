-- Every declared stimulus factor in long form: one row per (stimulus, factor) with the stimulus's
-- level, for any number of factors (the slots of stg_stimuli hold only the category and the first
-- two audit factors). A stimulus without a level of a factor has no row for it, so no key is NULL.
{%- set factors = study_setting('study_factors') %}
with source as (
    select * from {{ source('landing', 'stimuli') }}
),

levels as (
    {%- if factors | length == 0 %}
    select
        image_id,
        cast(null as varchar) as factor,
        cast(null as varchar) as role,
        cast(null as integer) as position,
        cast(null as varchar) as level
    from source
    where false
    {%- else %}
    {%- for factor in factors %}
    select
        image_id,
        '{{ factor.name }}' as factor,
        '{{ factor.role }}' as role,
        {{ loop.index }} as position,
        cast("{{ factor.name }}" as varchar) as level
    from source
    where "{{ factor.name }}" is not null
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
    {%- endif %}
)

select * from levels
