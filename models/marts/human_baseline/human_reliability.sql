-- Section 3.2's human baseline in one row per dimension: Krippendorff's alpha of the human pool
-- at the ordinal level (as 3.2 reports it) beside the interval level (as 3.4.3's delta alpha uses
-- it), both from alpha_delta, with the rater and image variance of human_variance_components and
-- the paper's printed numbers (seeds/paper_reported_values.csv).
with alpha as (
    select
        dimension,
        max(alpha) filter (where metric = 'ordinal') as alpha_ordinal,
        max(alpha) filter (where metric = 'interval') as alpha_interval,
        max(alpha) filter (where metric = 'nominal') as alpha_nominal,
        max(n_units) filter (where metric = 'interval') as n_units,
        max(n_values) filter (where metric = 'interval') as n_values
    from {{ ref('alpha_delta') }}
    where condition_id = 'human' and emotion = 'all'
    group by dimension
),
paper as (
    select
        dimension,
        max(value) filter (where statistic = 'alpha_ordinal') as paper_alpha_ordinal,
        max(value) filter (where statistic = 'rater_variance') as paper_rater_variance,
        max(value) filter (where statistic = 'rater_to_image_ratio') as paper_rater_to_image_ratio
    from {{ ref('paper_reported_values') }}
    where analysis = 'human_reliability' and emotion = 'all'
    group by dimension
)
select
    a.dimension,
    a.alpha_ordinal,
    a.alpha_interval,
    a.alpha_nominal,
    p.paper_alpha_ordinal,
    v.rater_variance,
    v.image_variance,
    v.residual_variance,
    v.rater_to_image_ratio,
    p.paper_rater_variance,
    p.paper_rater_to_image_ratio,
    v.formula as variance_formula,
    a.n_units,
    a.n_values,
    v.n_raters,
    prov.data_origin
from alpha a
left join {{ ref('human_variance_components') }} v using (dimension)
left join paper p using (dimension)
cross join {{ ref('int_study_provenance') }} prov
