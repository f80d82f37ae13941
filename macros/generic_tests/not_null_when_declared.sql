{#- not_null for a factor column that study.yml declares (var `declared_var`: factor_slots or
    rater_attributes); an undeclared factor column may be empty. A column that carries a role slot
    under another name (true_emotion, ...) names its `slot`. -#}
{% test not_null_when_declared(model, column_name, declared_var='factor_slots', slot=none) %}
select {{ column_name }} as value
from {{ model }}
where {{ column_name }} is null
{%- if (slot or column_name) not in var(declared_var) %}
  and false
{%- endif %}
{% endtest %}
