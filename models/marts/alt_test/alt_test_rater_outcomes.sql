-- The per-instance step of the Alternative Annotator Test (Calderon, Reichart & Dror 2025;
-- python/rater1001/stats/alt_test.py) for each model condition against each individual human
-- rater, on every model dimension, counted per (condition, dimension, scoring, emotion, rater).
-- On image i rated by rater h, the "others" are the image's other human ratings. Scores:
--   neg_abs_error: -|label - mean of the others|          (mean of the others: the loo_mean macro)
--   rank:          -|F_others(label) - 1/2|, F_others(v) = (#others < v + #others = v / 2) / #others,
--                  i.e. how central the label sits among the others (mid-rank percentile; robust
--                  to how the scale is used).
-- outcome = +1 when the human scores strictly better, -1 when the model does, 0 on a tie (both
-- W indicators 1). Scores are rounded to 9 decimals so float noise never breaks a tie.
-- Images need at least one other rating (alt_test's min_humans_per_instance = 2) and a model row.
-- A model row without a value (no answer, or an answer that did not parse) counts against the model
-- (the tool's missing-answer policy, stats.alt_test): the human wins that comparison outright
-- (outcome +1), and n_model_missing counts those comparisons so answered-only figures can be
-- derived beside (n_human_better - n_model_missing).
--
-- Both scores of a rater depend on the image, the rater's value and the model's value only, so the
-- outcomes are computed once per (condition, image, dimension, human value) from the image's value
-- counts, and each rating then picks the outcome of its value: no score is computed per
-- (condition, rating) comparison (docs/performance.md).

with

value_counts as (
    select image_id, dimension, value, n
    from {{ ref('int_image_value_counts') }}
),

image_stats as (
    select image_id, dimension, n_ratings, rating_sum
    from {{ ref('int_image_human_stats') }}
),

model_answers as (
    select condition_id, image_id, dimension, emotion, model_value
    from {{ ref('int_model_vs_human_long') }}
),

ratings as (
    select rater_id, image_id, dimension, rating
    from {{ ref('int_human_ratings_long') }}
),

ranked_values as (
    -- how many of the image's ratings lie below each value
    select
        image_id,
        dimension,
        value,
        n,
        coalesce(sum(n) over (partition by image_id, dimension order by value
                              rows between unbounded preceding and 1 preceding), 0) as n_below
    from value_counts
),

human_values as (
    -- a rater who gave `value`, against the image's other ratings
    select
        ranked_values.image_id,
        ranked_values.dimension,
        ranked_values.value,
        ranked_values.n_below,
        ranked_values.n as n_equal,
        image_stats.n_ratings,
        {{ loo_mean('image_stats.n_ratings', 'image_stats.rating_sum', 'ranked_values.value') }} as loo_mean
    from ranked_values
    inner join image_stats
        on ranked_values.image_id = image_stats.image_id and ranked_values.dimension = image_stats.dimension
    where image_stats.n_ratings >= 2
),

model_positions as (
    -- how many of the image's ratings lie below / at the model's answer
    select
        model_answers.condition_id,
        model_answers.image_id,
        model_answers.dimension,
        model_answers.emotion,
        model_answers.model_value,
        sum(case when value_counts.value < model_answers.model_value then value_counts.n else 0 end) as x_below_all,
        sum(case when value_counts.value = model_answers.model_value then value_counts.n else 0 end) as x_equal_all
    from model_answers
    inner join value_counts
        on model_answers.image_id = value_counts.image_id and model_answers.dimension = value_counts.dimension
    group by all
),

scored_values as (
    select
        model_positions.condition_id,
        model_positions.image_id,
        model_positions.dimension,
        model_positions.emotion,
        human_values.value,
        model_positions.model_value is null as model_missing,
        round(-abs(human_values.value - human_values.loo_mean), 9) as human_abs,
        round(-abs(model_positions.model_value - human_values.loo_mean), 9) as model_abs,
        round(-abs((human_values.n_below + 0.5 * (human_values.n_equal - 1)) / (human_values.n_ratings - 1) - 0.5),
              9) as human_rank,
        -- the rater's own rating is not among the others the model is placed in
        round(-abs((model_positions.x_below_all
                    - case when human_values.value < model_positions.model_value then 1 else 0 end
                    + 0.5 * (model_positions.x_equal_all
                             - case when human_values.value = model_positions.model_value then 1 else 0 end))
                   / (human_values.n_ratings - 1) - 0.5), 9) as model_rank
    from model_positions
    inner join human_values
        on model_positions.image_id = human_values.image_id and model_positions.dimension = human_values.dimension
),

value_outcomes as (
    select
        condition_id,
        image_id,
        dimension,
        emotion,
        value,
        model_missing,
        case when model_missing then 1 else sign(human_abs - model_abs) end as outcome_abs,
        case when model_missing then 1 else sign(human_rank - model_rank) end as outcome_rank
    from scored_values
),

per_emotion as (
    -- each rating takes the outcome of its value; both scorings counted in one pass
    select
        value_outcomes.condition_id,
        value_outcomes.dimension,
        value_outcomes.emotion,
        ratings.rater_id,
        count(*) filter (where value_outcomes.outcome_abs > 0) as abs_human_better,
        count(*) filter (where value_outcomes.outcome_abs = 0) as abs_tie,
        count(*) filter (where value_outcomes.outcome_abs < 0) as abs_model_better,
        count(*) filter (where value_outcomes.outcome_rank > 0) as rank_human_better,
        count(*) filter (where value_outcomes.outcome_rank = 0) as rank_tie,
        count(*) filter (where value_outcomes.outcome_rank < 0) as rank_model_better,
        count(*) filter (where value_outcomes.model_missing) as n_model_missing
    from ratings
    inner join value_outcomes
        on ratings.image_id = value_outcomes.image_id
        and ratings.dimension = value_outcomes.dimension
        and ratings.rating = value_outcomes.value
    group by all
),

counted as (
    -- the rater's total over emotions from the per-emotion counts, not from the comparisons again;
    -- grouping(), not coalesce, marks the total row: a study without a category has a NULL stratum
    select
        condition_id,
        dimension,
        emotion,
        rater_id,
        grouping(emotion) as is_total,
        cast(sum(abs_human_better) as bigint) as abs_human_better,
        cast(sum(abs_tie) as bigint) as abs_tie,
        cast(sum(abs_model_better) as bigint) as abs_model_better,
        cast(sum(rank_human_better) as bigint) as rank_human_better,
        cast(sum(rank_tie) as bigint) as rank_tie,
        cast(sum(rank_model_better) as bigint) as rank_model_better,
        cast(sum(n_model_missing) as bigint) as n_model_missing
    from per_emotion
    group by grouping sets ((condition_id, dimension, emotion, rater_id), (condition_id, dimension, rater_id))
)

select
    condition_id,
    dimension,
    'neg_abs_error' as scoring,
    case when is_total = 1 then 'all' else emotion end as emotion,
    rater_id,
    abs_human_better as n_human_better,
    abs_tie as n_tie,
    abs_model_better as n_model_better,
    n_model_missing
from counted
union all
select
    condition_id,
    dimension,
    'rank' as scoring,
    case when is_total = 1 then 'all' else emotion end as emotion,
    rater_id,
    rank_human_better as n_human_better,
    rank_tie as n_tie,
    rank_model_better as n_model_better,
    n_model_missing
from counted
