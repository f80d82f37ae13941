{#-
  z of a value against a human distribution with mean `mean` and sample SD `sd`:
  z = (x - M) / S. NULL when S is 0 or NULL: such images are counted and reported by the marts,
  never given an infinite z.
-#}
{% macro zscore(x, mean, sd) -%}
    (({{ x }} - {{ mean }}) / nullif({{ sd }}, 0))
{%- endmacro %}
