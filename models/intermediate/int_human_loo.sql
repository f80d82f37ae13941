-- Per human rating: where it falls against the OTHER raters of the same image (the human
-- leave-one-out baseline), from the image's sufficient statistics via the
-- closed forms in macros/leave_one_out.sql (exact integer sums, so an SD that is 0 is exactly 0).
-- loo_z is NULL when the other ratings have SD 0.
{%- set loo_mean_sql = loo_mean('image_human_stats.n_ratings', 'image_human_stats.rating_sum', 'ratings.rating') %}
{%- set loo_sd_sql = loo_sd(
    'image_human_stats.n_ratings', 'image_human_stats.rating_sum', 'image_human_stats.rating_sumsq', 'ratings.rating'
) %}

with ratings as (
    select * from {{ ref('int_human_ratings_long') }}
),

image_human_stats as (
    select * from {{ ref('int_image_human_stats') }}
),

final as (
    select
        ratings.rater_id,
        ratings.image_id,
        ratings.dimension,
        image_human_stats.category,
        image_human_stats.audit_1,
        image_human_stats.audit_2,
        ratings.rating,
        image_human_stats.n_ratings,
        image_human_stats.human_mean,
        image_human_stats.human_sd,
        {{ loo_mean_sql }} as loo_mean,
        {{ loo_sd_sql }} as loo_sd,
        {{ zscore('ratings.rating', loo_mean_sql, loo_sd_sql) }} as loo_z,
        abs(ratings.rating - {{ loo_mean_sql }}) as loo_abs_error
    from ratings
    inner join image_human_stats
        on ratings.image_id = image_human_stats.image_id and ratings.dimension = image_human_stats.dimension
)

select * from final
