-- Per (image, dimension): the human ratings' sufficient statistics and the image's design factors.
-- n, sum and sum of squares are what interval alpha and every later mean/SD need; ss is the sum of
-- squared deviations computed stably (var_samp * (n - 1)) rather than as sumsq - sum^2/n.
with ratings as (
    select * from {{ ref('int_human_ratings_long') }}
),

stimuli as (
    select * from {{ ref('stg_stimuli') }}
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
),

with_factors as (
    select
        per_image.image_id,
        per_image.dimension,
        stimuli.identity_id,
        stimuli.audit_1,
        stimuli.audit_2,
        stimuli.category,
        per_image.n_ratings,
        per_image.rating_sum,
        per_image.rating_sumsq,
        per_image.human_mean,
        per_image.human_sd,
        per_image.human_ss,
        per_image.human_median,
        per_image.human_min,
        per_image.human_max
    from per_image
    inner join stimuli using (image_id)
)

select * from with_factors
