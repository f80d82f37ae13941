{#-
  Landis & Koch (1977) band of a kappa, as quoted in the paper's 3.4.1 (< .00 poor, .00-.20
  slight, .21-.40 fair, .41-.60 moderate, .61-.80 substantial, .81-1.00 almost perfect; upper
  edges inclusive). Python twin: rater1001.stats.classification.landis_koch_band.
-#}
{% macro landis_koch_band(kappa) -%}
    case
        when {{ kappa }} is null or isnan(cast({{ kappa }} as double)) then null
        when {{ kappa }} < 0 then 'poor'
        when {{ kappa }} <= 0.20 then 'slight'
        when {{ kappa }} <= 0.40 then 'fair'
        when {{ kappa }} <= 0.60 then 'moderate'
        when {{ kappa }} <= 0.80 then 'substantial'
        else 'almost perfect'
    end
{%- endmacro %}
