{#- Fails on values outside the study's rating scale [var scale_min, var scale_max]. -#}
{% test within_scale(model, column_name) %}
select {{ column_name }} as value
from {{ model }}
where {{ column_name }} < {{ var('scale_min') }} or {{ column_name }} > {{ var('scale_max') }}
{% endtest %}
