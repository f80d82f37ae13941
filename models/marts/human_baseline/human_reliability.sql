-- Section 3.2's human baseline in one row per dimension: Krippendorff's alpha of the human pool
-- at the ordinal level (as 3.2 reports it) beside the interval level (as 3.4.3's delta alpha uses
-- it), both from alpha_delta, with the rater and image variance of human_variance_components and
-- the paper's printed numbers (seeds/paper_reported_values.csv).
with alpha_delta as (
    select * from {{ ref('alpha_delta') }}
),

human_variance_components as (
    select * from {{ ref('human_variance_components') }}
),

paper_reported_values as (
    select * from {{ ref('paper_reported_values') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

alpha as (
    select
        dimension,
        max(alpha) filter (where metric = 'ordinal') as alpha_ordinal,
        max(alpha) filter (where metric = 'interval') as alpha_interval,
        max(alpha) filter (where metric = 'nominal') as alpha_nominal,
        max(n_units) filter (where metric = 'interval') as n_units,
        max(n_values) filter (where metric = 'interval') as n_values
    from alpha_delta
    where condition_id = 'human' and category = 'all'
    group by dimension
),

paper as (
    select
        dimension,
        max(value) filter (where statistic = 'alpha_ordinal') as paper_alpha_ordinal,
        max(value) filter (where statistic = 'rater_variance') as paper_rater_variance,
        max(value) filter (where statistic = 'rater_to_image_ratio') as paper_rater_to_image_ratio
    from paper_reported_values
    where analysis = 'human_reliability' and category = 'all'
    group by dimension
),

final as (
    select
        alpha.dimension,
        alpha.alpha_ordinal,
        alpha.alpha_interval,
        alpha.alpha_nominal,
        paper.paper_alpha_ordinal,
        human_variance_components.rater_variance,
        human_variance_components.image_variance,
        human_variance_components.residual_variance,
        human_variance_components.rater_to_image_ratio,
        paper.paper_rater_variance,
        paper.paper_rater_to_image_ratio,
        human_variance_components.formula as variance_formula,
        alpha.n_units,
        alpha.n_values,
        human_variance_components.n_raters,
        study_provenance.data_origin
    from alpha
    left join human_variance_components using (dimension)
    left join paper using (dimension)
    cross join study_provenance
)

select * from final
