-- The declared stimulus factors (study.yml) and the warehouse role slot each fills
-- (docs/study_shape.md, "Factor names"): where a user-facing output finds a slot's declared name.
-- No source: the factors are the study's declaration (var `study_factors`), not landed data.
{%- set factors = study_setting('study_factors') %}
with factors as (
    {%- if factors | length == 0 %}
    select
        cast(null as varchar) as factor,
        cast(null as varchar) as role,
        cast(null as varchar) as slot,
        cast(null as integer) as position
    where false
    {%- else %}
    {%- for factor in factors %}
    select
        '{{ factor.name }}' as factor,
        '{{ factor.role }}' as role,
        {% if factor.slot %}'{{ factor.slot }}'{% else %}cast(null as varchar){% endif %} as slot,
        {{ loop.index }} as position
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
    {%- endif %}
)

select * from factors
