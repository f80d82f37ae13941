-- Per (image, dimension, value): how many human ratings took that value. The multiset of an
-- image's ratings without rater identities: enough for a without-replacement subsample of k
-- ratings (small-pool analysis) and for the coincidence matrix.
with ratings as (
    select * from {{ ref('int_human_ratings_long') }}
),

value_counts as (
    select
        image_id,
        dimension,
        rating as value,
        count(*) as n
    from ratings
    group by image_id, dimension, rating
)

select * from value_counts
