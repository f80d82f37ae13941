-- Section 2.5's naturalness means per emotion (the paper: 5.26 for fear to 6.94 for happy) and
-- over all images ('all'). Naturalness is an optional dimension: a study that does not declare
-- it (study.yml dimensions) has no naturalness ratings, and this table is empty.
with nat as (
    select h.image_id, h.rating, s.emotion
    from {{ ref('int_human_ratings_long') }} h
    join {{ ref('stg_stimuli') }} s using (image_id)
    where h.dimension = 'naturalness'
),
image_means as (
    select image_id, emotion, avg(rating) as image_mean from nat group by image_id, emotion
),
per_emotion as (
    select
        case when grouping(emotion) = 1 then 'all' else emotion end as emotion,
        count(*) as n_ratings,
        count(distinct image_id) as n_images,
        avg(rating) as mean_naturalness,
        stddev_samp(rating) as sd_ratings
    from nat
    group by grouping sets ((emotion), ())
    -- a study without the category factor has no per-emotion rows, only 'all'
    having grouping(emotion) = 1 or emotion is not null
),
image_spread as (
    select case when grouping(emotion) = 1 then 'all' else emotion end as emotion,
           stddev_samp(image_mean) as sd_image_means
    from image_means
    group by grouping sets ((emotion), ())
    having grouping(emotion) = 1 or emotion is not null
),
paper as (
    select emotion, value as paper_mean
    from {{ ref('paper_reported_values') }}
    where analysis = 'naturalness' and statistic = 'mean'
)
select
    e.emotion,
    e.n_ratings,
    e.n_images,
    e.mean_naturalness,
    e.sd_ratings,
    i.sd_image_means,
    p.paper_mean,
    prov.data_origin
from per_emotion e
join image_spread i using (emotion)
left join paper p using (emotion)
cross join {{ ref('int_study_provenance') }} prov
where e.n_ratings > 0
