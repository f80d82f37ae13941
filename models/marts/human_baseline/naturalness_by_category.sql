-- Section 2.5's naturalness means per category (the paper: 5.26 for fear to 6.94 for happy) and
-- over all images ('all'). Naturalness is an optional dimension: a study that does not declare
-- it (study.yml dimensions) has no naturalness ratings, and this table is empty.
-- Read from the per-image sufficient statistics (int_image_human_stats), not the ratings: a
-- category's n, mean and SD are sums of its images' n, sum and sum of squares, so the work is one
-- row per image.
with image_human_stats as (
    select * from {{ ref('int_image_human_stats') }}
),

paper_reported_values as (
    select * from {{ ref('paper_reported_values') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

image_means as (
    select
        category,
        n_ratings,
        rating_sum,
        rating_sumsq,
        human_mean as image_mean
    from image_human_stats
    where dimension = 'naturalness'
),

category_sums as (
    select
        case when grouping(category) = 1 then 'all' else category end as category,
        cast(sum(n_ratings) as bigint) as n_ratings,
        count(*) as n_images,
        sum(rating_sum) as rating_sum,
        sum(rating_sumsq) as rating_sumsq,
        stddev_samp(image_mean) as sd_image_means
    from image_means
    group by rollup (category)
    -- a study without the category factor has no per-category rows, only 'all' (stg_stimuli)
    having grouping(category) = 1 or category <> 'all'
),

per_category as (
    -- the ratings' SD from integer sums: n Q - T^2 is exact on the integer scale
    select
        category,
        n_ratings,
        n_images,
        sd_image_means,
        cast(rating_sum as double) / n_ratings as mean_naturalness,
        case
            when n_ratings >= 2
                then sqrt(
                    cast(n_ratings * rating_sumsq - rating_sum * rating_sum as double) / (n_ratings * (n_ratings - 1))
                )
        end as sd_ratings
    from category_sums
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
        per_category.sd_image_means,
        paper.paper_mean,
        study_provenance.data_origin
    from per_category
    left join paper using (category)
    cross join study_provenance
    where per_category.n_ratings > 0
)

select * from final
