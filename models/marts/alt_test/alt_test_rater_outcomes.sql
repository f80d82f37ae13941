-- The per-instance step of the Alternative Annotator Test (Calderon, Reichart & Dror 2025;
-- python/rater1001/stats/alt_test.py) for each model condition against each individual human
-- rater, on every model dimension, counted per (condition, dimension, scoring, category, rater).
-- On image i rated by rater h, the "others" are the image's other human ratings. The scorings
-- (neg_abs_error: -|label - mean of the others|; rank: how central the label sits among the
-- others) and the outcome of each comparison (human better, tie, model better) are the
-- alt_test_scores and alt_test_outcome macros (macros/alt_test_outcomes.sql, twin of
-- stats.alt_test_scoring.instance_outcomes).
-- Images need at least one other rating (alt_test's min_humans_per_instance = 2) and a model row.
-- A model row without a value (no answer, or an answer that did not parse) counts against the model
-- (the tool's missing-answer policy, stats.alt_test): the human wins that comparison outright
-- (outcome +1), and n_model_missing counts those comparisons so answered-only figures can be
-- derived beside (n_human_better - n_model_missing).
--
-- Both scores of a rater depend on the image, the rater's value and the model's value only, so the
-- outcomes are computed once per (condition, image, dimension, human value) from the image's value
-- counts, and each rating then picks the outcomes of its value: no score is computed per
-- (condition, rating) comparison. The counting is the scan: one row per (condition, rating) would
-- be 187 M rows at 100x. So the conditions are numbered and taken in chunks of `slots`; each
-- outcome of a chunk is one integer holding a `bits`-bit field per condition (1 where that
-- condition's comparison has the outcome), summing these per rater sums every field at once, and
-- the fields are read back per condition at the end (a rater with 2^bits ratings of one dimension
-- stops the build with an error rather than overflowing a field). docs/performance.md.

{%- set slots = 7 %}
{%- set bits = 16 %}
{%- set packed_flags = [
    ('abs_human_better', alt_test_outcome('abs', 'human_better')),
    ('abs_tie', alt_test_outcome('abs', 'tie')),
    ('rank_human_better', alt_test_outcome('rank', 'human_better')),
    ('rank_tie', alt_test_outcome('rank', 'tie')),
    ('n_model_missing', 'model_missing'),
    ('n_compared', 'true'),
] %}

-- The tables read twice are scanned twice (not materialized) rather than held: at 100x they are
-- 3 M and 3.7 M rows, and what the query holds decides whether it spills (docs/performance.md).
with value_counts as not materialized (
    select * from {{ ref('int_image_value_counts') }}
),

image_stats as (
    select * from {{ ref('int_image_human_stats') }}
),

model_answers as not materialized (
    select * from {{ ref('int_model_vs_human_long') }}
),

ratings as (
    select * from {{ ref('int_human_ratings_long') }}
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
        model_answers.category,
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
        model_positions.category,
        human_values.value,
        {{ alt_test_scores('human_values.value', 'model_positions.model_value', 'human_values.loo_mean',
                           'human_values.n_ratings', 'human_values.n_below', 'human_values.n_equal',
                           'model_positions.x_below_all', 'model_positions.x_equal_all') | indent(8) }}
    from model_positions
    inner join human_values
        on model_positions.image_id = human_values.image_id and model_positions.dimension = human_values.dimension
),

conditions as (
    -- conditions are counted in chunks of {{ slots }}, each a {{ bits }}-bit field of one integer
    select
        condition_id,
        cast((condition_number - 1) // {{ slots }} as integer) as chunk,
        cast({{ bits }} * ((condition_number - 1) % {{ slots }}) as integer) as shift
    from (select condition_id, row_number() over (order by condition_id) as condition_number
          from (select distinct condition_id from model_answers) as distinct_conditions) as numbered
),

packed_values as (
    -- per (image, dimension, value, chunk): which of the chunk's conditions the rater of that value
    -- beats, ties with, ... as bits, so that a rating joins one row per chunk, not per condition
    select
        scored_values.image_id,
        scored_values.dimension,
        scored_values.category,
        scored_values.value,
        conditions.chunk,
        {%- for name, flag in packed_flags %}
        sum(cast({{ flag }} as hugeint) << conditions.shift) as {{ name }}{{ "," if not loop.last }}
        {%- endfor %}
    from scored_values
    inner join conditions on scored_values.condition_id = conditions.condition_id
    group by all
),

packed_counts as (
    -- each rating takes the row of its value; the sums count per field (< 2^{{ bits }}, checked).
    -- One aggregate gives the rater's rows per category and, marked by is_total, over categories
    -- (a rollup of the category, so the per-category rows are not held to be summed again); a study without
    -- a category has one stratum, 'all' already (stg_stimuli), and no total beside it
    select
        packed_values.dimension,
        packed_values.category,
        {%- if has_category() %}
        grouping(packed_values.category) = 1 as is_total,
        {%- else %}
        false as is_total,
        {%- endif %}
        ratings.rater_id,
        packed_values.chunk,
        count(*) as n_ratings,
        {%- for name, flag in packed_flags %}
        sum(packed_values.{{ name }}) as {{ name }}{{ "," if not loop.last }}
        {%- endfor %}
    from ratings
    inner join packed_values
        on ratings.image_id = packed_values.image_id
        and ratings.dimension = packed_values.dimension
        and ratings.rating = packed_values.value
    {%- if has_category() %}
    group by packed_values.dimension, ratings.rater_id, packed_values.chunk, rollup (packed_values.category)
    {%- else %}
    group by packed_values.dimension, packed_values.category, ratings.rater_id, packed_values.chunk
    {%- endif %}
),

unpacked as (
    -- one row per condition of the chunk that met the rater in the scope
    select
        conditions.condition_id,
        packed_counts.dimension,
        case when packed_counts.is_total then 'all' else packed_counts.category end as category,
        packed_counts.rater_id,
        {%- for name, flag in packed_flags %}
        cast((packed_counts.{{ name }} >> conditions.shift) & {{ 2 ** bits - 1 }} as bigint) as {{ name }},
        {%- endfor %}
        case when packed_counts.n_ratings >= {{ 2 ** bits }}
             then error('alt_test_rater_outcomes: rater ' || packed_counts.rater_id || ' has '
                        || packed_counts.n_ratings || ' ratings of one dimension; at most '
                        || {{ 2 ** bits - 1 }} || ' fit the packed counts')
        end as overflow
    from packed_counts
    inner join conditions on packed_counts.chunk = conditions.chunk
),

counted as (
    select
        condition_id,
        dimension,
        category,
        rater_id,
        abs_human_better,
        abs_tie,
        n_compared - abs_human_better - abs_tie as abs_model_better,
        rank_human_better,
        rank_tie,
        n_compared - rank_human_better - rank_tie as rank_model_better,
        n_model_missing
    from unpacked
    where n_compared > 0 and overflow is null
),

final as (
    -- both scorings' rows from one pass over the counts (a union of two selects would hold them)
    select
        counted.condition_id,
        counted.dimension,
        scorings.scoring,
        counted.category,
        counted.rater_id,
        case when scorings.is_rank then counted.rank_human_better else counted.abs_human_better end
            as n_human_better,
        case when scorings.is_rank then counted.rank_tie else counted.abs_tie end as n_tie,
        case when scorings.is_rank then counted.rank_model_better else counted.abs_model_better end
            as n_model_better,
        counted.n_model_missing
    from counted
    cross join (values ('neg_abs_error', false), ('rank', true)) as scorings (scoring, is_rank)
)

select * from final
