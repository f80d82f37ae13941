{#-
  Bland-Altman columns for a GROUP BY over per-image rows (paper section 3.4.2, Tables 4/4a/5/5a;
  Supplement S4). d_j = human mean - model (positive: the model rates lower than humans).
  Python twin: rater1001.stats.agreement.bland_altman (tests/python/test_twins.py).
  Rows where either side is NULL are left out by the aggregates; n counts the pairs used.
-#}
{% macro bland_altman_columns(human_mean, model, z=1.96) -%}
    count({{ human_mean }} - {{ model }}) as n,
    avg({{ human_mean }} - {{ model }}) as bias,
    stddev_samp({{ human_mean }} - {{ model }}) as sd_d,
    avg({{ human_mean }} - {{ model }}) - {{ z }} * stddev_samp({{ human_mean }} - {{ model }}) as loa_lower,
    avg({{ human_mean }} - {{ model }}) + {{ z }} * stddev_samp({{ human_mean }} - {{ model }}) as loa_upper,
    -- +inf for a pure offset (SD_d at most 1e-12 |bias|, a rounding residue; bias not 0), NULL when
    -- both are 0: as stats.agreement.systematicity
    case when stddev_samp({{ human_mean }} - {{ model }}) > 1e-12 * abs(avg({{ human_mean }} - {{ model }}))
         then abs(avg({{ human_mean }} - {{ model }})) / stddev_samp({{ human_mean }} - {{ model }})
         when stddev_samp({{ human_mean }} - {{ model }}) <= 1e-12 * abs(avg({{ human_mean }} - {{ model }}))
             and avg({{ human_mean }} - {{ model }}) <> 0
         then 'infinity'::double
    end as systematicity,
    avg(abs({{ human_mean }} - {{ model }})) as mae,
    -- Supplement S4's folded-normal approximation MAE ~ sqrt(bias^2 + (2/pi) SD_d^2)
    sqrt(power(avg({{ human_mean }} - {{ model }}), 2)
         + (2 / pi()) * power(stddev_samp({{ human_mean }} - {{ model }}), 2)) as mae_folded_normal
{%- endmacro %}
