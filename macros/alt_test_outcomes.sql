{#-
  The Alternative Annotator Test's per-instance outcome (Calderon, Reichart & Dror 2025;
  docs/ablations.md) of a rater's `value` against the model's `model_value` on one image, each
  scored against the image's other ratings (the rater's own left out). Two steps, so that a
  caller computes each score once and compares it in an aggregate:
    alt_test_scores: columns model_missing, human_abs, model_abs (neg_abs_error:
      -|label - others_mean|), human_rank, model_rank (rank: -|F(label) - 1/2|,
      F(v) = (#others < v + #others = v / 2) / #others, the mid-rank percentile), rounded to 9
      decimals so float noise never breaks a tie. Arguments: others_mean, the mean of the image's
      other ratings (the loo_mean macro); n, the image's ratings (the rater's included, n >= 2);
      n_below / n_equal, its ratings below / equal to `value`; model_n_below / model_n_equal, its
      ratings below / equal to `model_value`.
    alt_test_outcome(scoring, outcome): over those columns, whether the comparison under scoring
      'abs' or 'rank' has the outcome 'human_better' (a missing model value is the rater's win)
      or 'tie'; "model better" is neither.
  Python twin: rater1001.stats.alt_test_scoring.instance_outcomes with the scorings neg_abs_error
  and rank (tests/python/test_twins.py).
-#}
{% macro alt_test_scores(value, model_value, others_mean, n, n_below, n_equal, model_n_below, model_n_equal) -%}
    {{ model_value }} is null as model_missing,
    round(-abs({{ value }} - {{ others_mean }}), 9) as human_abs,
    round(-abs({{ model_value }} - {{ others_mean }}), 9) as model_abs,
    round(-abs(({{ n_below }} + 0.5 * ({{ n_equal }} - 1)) / ({{ n }} - 1) - 0.5), 9) as human_rank,
    -- the rater's own rating is not among the others the model is placed in
    round(-abs(({{ model_n_below }}
                - case when {{ value }} < {{ model_value }} then 1 else 0 end
                + 0.5 * ({{ model_n_equal }}
                         - case when {{ value }} = {{ model_value }} then 1 else 0 end))
               / ({{ n }} - 1) - 0.5), 9) as model_rank
{%- endmacro %}

{% macro alt_test_outcome(scoring, outcome) -%}
    {%- if outcome == 'human_better' -%}
        model_missing or human_{{ scoring }} > model_{{ scoring }}
    {%- elif outcome == 'tie' -%}
        not model_missing and human_{{ scoring }} = model_{{ scoring }}
    {%- else -%}
        {{ exceptions.raise_compiler_error("alt_test_outcome: outcome is 'human_better' or 'tie', not " ~ outcome) }}
    {%- endif -%}
{%- endmacro %}
