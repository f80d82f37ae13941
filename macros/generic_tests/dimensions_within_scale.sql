{#- Fails on ratings outside the study's scale in every column the study declares: one column per
    name in the study setting `dims_var` (dimensions or model_dimensions), prefixed with `prefix`.
    Generated from study.yml, so a study with one dimension tests exactly that column. -#}
{% test dimensions_within_scale(model, dims_var, prefix='') %}
{%- set dims = study_setting(dims_var) %}
{%- if dims | length == 0 %}
select null as dimension, null as value where false
{%- else %}
{%- for dim in dims %}
select '{{ prefix ~ dim }}' as dimension, {{ prefix ~ dim }} as value
from {{ model }}
where {{ prefix ~ dim }} < {{ study_setting('scale_min') }} or {{ prefix ~ dim }} > {{ study_setting('scale_max') }}
{%- if not loop.last %}
union all
{%- endif %}
{%- endfor %}
{%- endif %}
{% endtest %}
