{#-
  The Alternative Annotator Test's per-instance outcome (Calderon, Reichart & Dror 2025;
  docs/ablations.md) of a rater's `value` against the model's `model_value` on one image, scored
  against the image's other ratings (the rater's own left out), as boolean columns:
    model_missing                          the model gave no value: the rater wins outright
    abs_human_better, abs_tie              neg_abs_error: -|label - others_mean|
    rank_human_better, rank_tie            rank: -|F(label) - 1/2|, F(v) = (#others < v
                                           + #others = v / 2) / #others (mid-rank percentile)
  "model better" is neither. Scores are rounded to 9 decimals so float noise never breaks a tie.
  Arguments: others_mean, the mean of the image's other ratings (the loo_mean macro); n, the
  image's ratings (the rater's included, n >= 2); n_below / n_equal, its ratings below / equal to
  `value`; model_n_below / model_n_equal, its ratings below / equal to `model_value`.
  Python twin: rater1001.stats.alt_test_scoring.instance_outcomes with the scorings neg_abs_error
  and rank (tests/python/test_twins.py).
-#}
{% macro alt_test_outcomes(value, model_value, others_mean, n, n_below, n_equal, model_n_below, model_n_equal) -%}
    {%- set human_abs = _alt_test_neg_abs_error(value, others_mean) %}
    {%- set model_abs = _alt_test_neg_abs_error(model_value, others_mean) %}
    {%- set human_rank = _alt_test_rank(n_below, '(' ~ n_equal ~ ' - 1)', n) %}
    {#- the rater's own rating is not among the others the model is placed in #}
    {%- set model_rank = _alt_test_rank(
        '(' ~ model_n_below ~ ' - case when ' ~ value ~ ' < ' ~ model_value ~ ' then 1 else 0 end)',
        '(' ~ model_n_equal ~ ' - case when ' ~ value ~ ' = ' ~ model_value ~ ' then 1 else 0 end)',
        n) %}
    {{ model_value }} is null as model_missing,
    {{ model_value }} is null or {{ human_abs }} > {{ model_abs }} as abs_human_better,
    {{ model_value }} is not null and {{ human_abs }} = {{ model_abs }} as abs_tie,
    {{ model_value }} is null or {{ human_rank }} > {{ model_rank }} as rank_human_better,
    {{ model_value }} is not null and {{ human_rank }} = {{ model_rank }} as rank_tie
{%- endmacro %}

{% macro _alt_test_neg_abs_error(x, others_mean) -%}
    round(-abs({{ x }} - {{ others_mean }}), 9)
{%- endmacro %}

{% macro _alt_test_rank(others_below, others_equal, n) -%}
    round(-abs(({{ others_below }} + 0.5 * {{ others_equal }}) / ({{ n }} - 1) - 0.5), 9)
{%- endmacro %}
