-- The declared stimulus factors (study.yml) and the warehouse role slot each fills
-- (docs/study_shape.md, "Factor names"): where a user-facing output finds a slot's declared name.
{%- set factors = var('study_factors') %}
{%- if factors | length == 0 %}
select cast(null as varchar) as factor, cast(null as varchar) as role,
       cast(null as varchar) as slot, cast(null as integer) as position
where false
{%- else %}
{%- for f in factors %}
select '{{ f.name }}' as factor, '{{ f.role }}' as role,
       {% if f.slot %}'{{ f.slot }}'{% else %}cast(null as varchar){% endif %} as slot,
       {{ loop.index }} as position
{%- if not loop.last %}
union all
{%- endif %}
{%- endfor %}
{%- endif %}
