-- Per (image, dimension, value): how many human ratings took that value, and the leave-one-out |z|
-- of a rating of that value against the image's other ratings (the same for every rater who gave
-- it: macros/leave_one_out.sql on the image's sufficient statistics). The multiset of an image's
-- ratings without rater identities: all a resample of its humans needs (the bootstrap p_sig, the
-- k-human spread, the small-pool subsampling), at most one row per scale point instead of one
-- per rating.
{%- set loo_mean_sql = loo_mean('stats.n_ratings', 'stats.rating_sum', 'value_counts.value') %}
{%- set loo_sd_sql = loo_sd('stats.n_ratings', 'stats.rating_sum', 'stats.rating_sumsq', 'value_counts.value') %}

with ratings as (
    select * from {{ ref('int_human_ratings_long') }}
),

stats as (
    select * from {{ ref('int_image_human_stats') }}
),

value_counts as (
    select
        image_id,
        dimension,
        rating as value,
        count(*) as n
    from ratings
    group by image_id, dimension, rating
),

final as (
    select
        value_counts.image_id,
        value_counts.dimension,
        stats.category,
        value_counts.value,
        value_counts.n,
        abs({{ zscore('value_counts.value', loo_mean_sql, loo_sd_sql) }}) as loo_abs_z
    from value_counts
    inner join stats
        on value_counts.image_id = stats.image_id and value_counts.dimension = stats.dimension
)

select * from final
