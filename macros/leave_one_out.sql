{#-
  Leave-one-out statistics of one rating y_h among an image's n ratings with mean M and sum of
  squared deviations SS (DESIGN.md section 4). Removing y_h:
      M^(-h)  = (n M - y_h) / (n - 1)
      SS^(-h) = SS - (y_h - M)^2 * n / (n - 1)
      S^(-h)  = sqrt(SS^(-h) / (n - 2))
  so the human LOO baseline is a window query instead of n re-aggregations per image.
  S^(-h) needs n >= 3; NULL otherwise (a mean of one value has no spread).
-#}
{% macro loo_mean(n, mean, y) -%}
    (({{ n }} * {{ mean }} - {{ y }}) / nullif({{ n }} - 1, 0))
{%- endmacro %}

{% macro loo_ss(n, ss, mean, y) -%}
    greatest({{ ss }} - power({{ y }} - {{ mean }}, 2) * {{ n }} / nullif({{ n }} - 1, 0), 0)
{%- endmacro %}

{% macro loo_sd(n, ss, mean, y) -%}
    case when {{ n }} >= 3
         then sqrt({{ loo_ss(n, ss, mean, y) }} / ({{ n }} - 2))
    end
{%- endmacro %}
