-- The per-instance step of the Alternative Annotator Test (Calderon, Reichart & Dror 2025;
-- python/rater1001/stats/alt_test.py) for each model condition against each individual human
-- rater, on every model dimension, counted per (condition, dimension, scoring, emotion, rater).
-- On image i rated by rater h, the "others" are the image's other human ratings. Scores:
--   neg_abs_error: -|label - mean of the others|          (mean of the others = int_human_loo.loo_mean)
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
with model_long as (
    select condition_id, image_id, dimension, model_value as x
    from {{ ref('int_model_vs_human_long') }}
),
value_counts as (
    select
        image_id, dimension, value, n,
        coalesce(sum(n) over (partition by image_id, dimension order by value
                              rows between unbounded preceding and 1 preceding), 0) as n_below
    from {{ ref('int_image_value_counts') }}
),
model_position as (
    -- how many of the image's ratings lie below / at the model's answer
    select m.condition_id, m.image_id, m.dimension, m.x,
           sum(case when v.value < m.x then v.n else 0 end) as x_below_all,
           sum(case when v.value = m.x then v.n else 0 end) as x_equal_all
    from model_long m
    join value_counts v using (image_id, dimension)
    group by m.condition_id, m.image_id, m.dimension, m.x
),
human as (
    select l.rater_id, l.image_id, l.dimension, l.emotion, l.rating, l.n_ratings, l.loo_mean,
           v.n_below as y_below_all, v.n as y_equal_all
    from {{ ref('int_human_loo') }} l
    join value_counts v on v.image_id = l.image_id and v.dimension = l.dimension and v.value = l.rating
    where l.n_ratings >= 2
),
scored as (
    select
        m.condition_id, h.dimension, h.emotion, h.rater_id, m.x is null as model_missing,
        round(-abs(h.rating - h.loo_mean), 9) as s_h_abs,
        round(-abs(m.x - h.loo_mean), 9) as s_f_abs,
        round(-abs((h.y_below_all + 0.5 * (h.y_equal_all - 1)) / (h.n_ratings - 1) - 0.5), 9) as s_h_rank,
        round(-abs((m.x_below_all - case when h.rating < m.x then 1 else 0 end
                    + 0.5 * (m.x_equal_all - case when h.rating = m.x then 1 else 0 end))
                   / (h.n_ratings - 1) - 0.5), 9) as s_f_rank
    from human h
    join model_position m on m.image_id = h.image_id and m.dimension = h.dimension
),
-- both scorings counted in one pass over the comparisons (one row per comparison, two outcome
-- columns), then one output row per scoring: half the rows through the grouping of a union
outcomes as (
    select condition_id, dimension, emotion, rater_id, model_missing,
           case when model_missing then 1 else sign(s_h_abs - s_f_abs) end as outcome_abs,
           case when model_missing then 1 else sign(s_h_rank - s_f_rank) end as outcome_rank
    from scored
),
counted as (
    select
        condition_id, dimension, emotion, rater_id,
        count(*) filter (where outcome_abs > 0) as abs_human_better,
        count(*) filter (where outcome_abs = 0) as abs_tie,
        count(*) filter (where outcome_abs < 0) as abs_model_better,
        count(*) filter (where outcome_rank > 0) as rank_human_better,
        count(*) filter (where outcome_rank = 0) as rank_tie,
        count(*) filter (where outcome_rank < 0) as rank_model_better,
        count(*) filter (where model_missing) as n_model_missing
    from outcomes
    group by grouping sets ((condition_id, dimension, emotion, rater_id), (condition_id, dimension, rater_id))
)
select condition_id, dimension, 'neg_abs_error' as scoring, coalesce(emotion, 'all') as emotion, rater_id,
       abs_human_better as n_human_better, abs_tie as n_tie, abs_model_better as n_model_better, n_model_missing
from counted
union all
select condition_id, dimension, 'rank' as scoring, coalesce(emotion, 'all') as emotion, rater_id,
       rank_human_better, rank_tie, rank_model_better, n_model_missing
from counted
