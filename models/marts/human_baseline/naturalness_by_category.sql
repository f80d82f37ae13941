-- Section 2.5's naturalness means per category (the paper: 5.26 for fear to 6.94 for happy) and
-- over all images ('all'). Naturalness is an optional dimension: a study that does not declare
-- it (study.yml dimensions) has no naturalness ratings, and this table is empty.
with human_ratings_long as (
    select * from {{ ref('int_human_ratings_long') }}
),

stimuli as (
    select * from {{ ref('stg_stimuli') }}
),

paper_reported_values as (
    select * from {{ ref('paper_reported_values') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

naturalness as (
    select
        human_ratings_long.image_id,
        human_ratings_long.rating,
        stimuli.category
    from human_ratings_long
    inner join stimuli using (image_id)
    where human_ratings_long.dimension = 'naturalness'
),

image_means as (
    select
        image_id,
        category,
        avg(rating) as image_mean
    from naturalness
    group by image_id, category
),

per_category as (
    select
        case when grouping(category) = 1 then 'all' else category end as category,
        count(*) as n_ratings,
        count(distinct image_id) as n_images,
        avg(rating) as mean_naturalness,
        stddev_samp(rating) as sd_ratings
    from naturalness
    group by rollup (category)
    -- a study without the category factor has no per-category rows, only 'all' (stg_stimuli)
    having grouping(category) = 1 or category <> 'all'
),

image_spread as (
    select
        case when grouping(category) = 1 then 'all' else category end as category,
        stddev_samp(image_mean) as sd_image_means
    from image_means
    group by rollup (category)
    having grouping(category) = 1 or category <> 'all'
),

paper as (
    select
        category,
        value as paper_mean
    from paper_reported_values
    where analysis = 'naturalness' and statistic = 'mean'
),

final as (
    select
        per_category.category,
        per_category.n_ratings,
        per_category.n_images,
        per_category.mean_naturalness,
        per_category.sd_ratings,
        image_spread.sd_image_means,
        paper.paper_mean,
        study_provenance.data_origin
    from per_category
    inner join image_spread using (category)
    left join paper using (category)
    cross join study_provenance
    where per_category.n_ratings > 0
)

select * from final
