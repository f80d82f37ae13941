{#-
  Delta alpha of one more rater (paper section 3.4.3, Tables 4c/5c): alpha of the pool with the
  extra rater (the model) minus alpha of the pool without it, both of the same slice and metric.
  Python twin: rater1001.stats.alpha.delta_alpha (docs/architecture.md, "SQL twins").
-#}
{% macro delta_alpha(alpha_with_extra, alpha_without_extra) -%}
    ({{ alpha_with_extra }} - {{ alpha_without_extra }})
{%- endmacro %}
