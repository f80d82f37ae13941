-- One row per (rater, image, dimension) with a non-null rating: the raw rater x image matrix in
-- long form, which every per-image statistic and alpha's sufficient statistics group over.
with ratings as (
    select * from {{ ref('stg_human_ratings') }}
),
unpivoted as (
    unpivot ratings
    on {{ var('dimensions') | join(', ') }}
    into name dimension value rating
)
select
    rater_id,
    image_id,
    dimension,
    cast(rating as integer) as rating
from unpivoted
where rating is not null
