{#-
  Leave-one-out statistics of one rating y_h among an image's n ratings with sum T and sum of
  squares Q. Removing y_h leaves n' = n - 1 ratings with T' = T - y_h and
  Q' = Q - y_h^2, and
      M^(-h)  = T' / n'
      SS^(-h) = (n' Q' - T'^2) / n'
      S^(-h)  = sqrt(SS^(-h) / (n' - 1))          (needs n >= 3; NULL otherwise)
  so the human LOO baseline is a window query instead of n re-aggregations per image.

  Why sums and not (mean, SS): the older form SS - (y - M)^2 n / (n - 1) subtracts two doubles and
  leaves a residue (1.8e-8 for ratings 3, 3, 4 leaving out the 4) where the exact SD is 0, which
  turned an undefined z into 5.5e7. On an integer scale T, Q and n' Q' - T'^2 are integers, so the
  numerator is exact. For a non-integer scale the numerator is set to 0 when it is below a tolerance
  relative to the size of the terms it is the difference of (n' Q'), i.e. relative to the scale of
  the ratings, never relative to 0.0.
  Python twin: rater1001.stats.zscores (loo_mean, loo_ss, loo_sd).
-#}
{% macro loo_mean(n, total, y) -%}
    (cast({{ total }} - {{ y }} as double) / nullif({{ n }} - 1, 0))
{%- endmacro %}

{% macro _loo_scaled_ss(n, total, total_sq, y) -%}
    cast(({{ n }} - 1) * ({{ total_sq }} - {{ y }} * {{ y }}) - ({{ total }} - {{ y }}) * ({{ total }} - {{ y }}) as double)
{%- endmacro %}

{% macro loo_ss(n, total, total_sq, y, rel_tol=1e-12) -%}
    case when {{ n }} >= 2 then
        case when {{ _loo_scaled_ss(n, total, total_sq, y) }}
                  <= {{ rel_tol }} * ({{ n }} - 1) * cast({{ total_sq }} - {{ y }} * {{ y }} as double)
             then 0.0
             else {{ _loo_scaled_ss(n, total, total_sq, y) }} / ({{ n }} - 1)
        end
    end
{%- endmacro %}

{% macro loo_sd(n, total, total_sq, y) -%}
    case when {{ n }} >= 3
         then sqrt({{ loo_ss(n, total, total_sq, y) }} / ({{ n }} - 2))
    end
{%- endmacro %}
