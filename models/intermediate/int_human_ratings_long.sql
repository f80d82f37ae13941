-- One row per (rater, image, dimension) with a non-null rating: the raw rater x image matrix in
-- long form, which every per-image statistic and alpha's sufficient statistics group over.
-- A study without dimensions (labels only) has an empty matrix.
with human_ratings as (
    select * from {{ ref('stg_human_ratings') }}
),

unpivoted as (
    {%- if study_setting('dimensions') | length == 0 %}
    select
        rater_id,
        image_id,
        cast(null as varchar) as dimension,
        cast(null as integer) as rating
    from human_ratings
    where false
    {%- else %}
    unpivot human_ratings
    on {{ study_setting('dimensions') | join(', ') }}
    into name dimension value rating
    {%- endif %}
),

ratings_long as (
    select
        rater_id,
        image_id,
        dimension,
        cast(rating as integer) as rating
    from unpivoted
    where rating is not null
)

select * from ratings_long
