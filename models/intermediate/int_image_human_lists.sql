-- Per (image, dimension): the image's human ratings and their leave-one-out |z| as lists, so the
-- bootstraps (p_sig, k-human diversity) run in Python over one row per image instead of one row
-- per rating. Lists are ordered by rater_id (deterministic bootstraps).
with human_loo as (
    select * from {{ ref('int_human_loo') }}
),

image_lists as (
    select
        image_id,
        dimension,
        any_value(category) as category,
        count(*) as n_ratings,
        list(rating order by rater_id) as ratings,
        coalesce(list(abs(loo_z) order by rater_id) filter (where loo_z is not null), []) as loo_abs_z
    from human_loo
    group by image_id, dimension
)

select * from image_lists
