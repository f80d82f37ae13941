-- Per human rating: where it falls against the OTHER raters of the same image (the human
-- leave-one-out baseline), from the image's sufficient statistics via the
-- closed forms in macros/leave_one_out.sql (exact integer sums, so an SD that is 0 is exactly 0).
-- loo_z is NULL when the other ratings have SD 0.
select
    r.rater_id,
    r.image_id,
    r.dimension,
    s.emotion,
    s.race,
    s.gender,
    r.rating,
    s.n_ratings,
    s.human_mean,
    s.human_sd,
    {{ loo_mean('s.n_ratings', 's.rating_sum', 'r.rating') }} as loo_mean,
    {{ loo_sd('s.n_ratings', 's.rating_sum', 's.rating_sumsq', 'r.rating') }} as loo_sd,
    {{ zscore('r.rating',
              loo_mean('s.n_ratings', 's.rating_sum', 'r.rating'),
              loo_sd('s.n_ratings', 's.rating_sum', 's.rating_sumsq', 'r.rating')) }} as loo_z,
    abs(r.rating - {{ loo_mean('s.n_ratings', 's.rating_sum', 'r.rating') }}) as loo_abs_error
from {{ ref('int_human_ratings_long') }} r
join {{ ref('int_image_human_stats') }} s
  on s.image_id = r.image_id and s.dimension = r.dimension
