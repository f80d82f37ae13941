{#-
  z-score summary columns for a GROUP BY (paper 3.4.3, Tables 4d/4e/5d/5e): mean |z|, W1SD (share
  of |z| <= 1, inclusive) over rows whose z is defined, the count of those rows, and the count of
  rows whose z is NULL because the reference SD was 0 (reported, never silently dropped).
  Python twin: rater1001.stats.zscores.summarise (tests/python/test_twins.py).
-#}
{% macro zscore_summary_columns(z, threshold=1.0) -%}
    avg(abs({{ z }})) as mean_abs_z,
    avg(case when abs({{ z }}) <= {{ threshold }} then 1.0 when {{ z }} is not null then 0.0 end) as w1sd,
    count({{ z }}) as n_images,
    count(*) - count({{ z }}) as n_zero_sd_images
{%- endmacro %}


{#- W1SD with every missing model answer counted as outside 1 SD (the missing-answer policy):
    within / (scored + missing); 0 when all are missing. Python twin:
    rater1001.stats.zscores.w1sd_counting_missing. -#}
{% macro w1sd_counting_missing(w1sd_answered, n_scored, n_missing) -%}
    (case when {{ n_scored }} + coalesce({{ n_missing }}, 0) > 0
          then coalesce({{ w1sd_answered }}, 0) * {{ n_scored }} / ({{ n_scored }} + coalesce({{ n_missing }}, 0)) end)
{%- endmacro %}
