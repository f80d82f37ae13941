-- Per (image, dimension): the human ratings' sufficient statistics and the image's design factors.
-- n, sum and sum of squares are what interval alpha and every later mean/SD need; ss is the sum of
-- squared deviations computed stably (var_samp * (n - 1)) rather than as sumsq - sum^2/n.
with ratings as (
    select * from {{ ref('int_human_ratings_long') }}
),
per_image as (
    select
        image_id,
        dimension,
        count(*) as n_ratings,
        sum(rating) as rating_sum,
        sum(rating * rating) as rating_sumsq,
        avg(rating) as human_mean,
        stddev_samp(rating) as human_sd,
        coalesce(var_samp(rating) * (count(*) - 1), 0) as human_ss,
        median(rating) as human_median,
        min(rating) as human_min,
        max(rating) as human_max
    from ratings
    group by image_id, dimension
)
select
    p.image_id,
    p.dimension,
    s.identity_id,
    s.race,
    s.gender,
    s.emotion,
    p.n_ratings,
    p.rating_sum,
    p.rating_sumsq,
    p.human_mean,
    p.human_sd,
    p.human_ss,
    p.human_median,
    p.human_min,
    p.human_max
from per_image p
join {{ ref('stg_stimuli') }} s using (image_id)
