{#- not_null for a factor column that study.yml declares (var `declared_var`: stimulus_factors or
    rater_attributes); an undeclared factor column may be empty. -#}
{% test not_null_when_declared(model, column_name, declared_var) %}
select {{ column_name }} as value
from {{ model }}
where {{ column_name }} is null
{%- if column_name not in var(declared_var) %}
  and false
{%- endif %}
{% endtest %}
