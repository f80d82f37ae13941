-- The human leave-one-out z distribution per (dimension, category) as a density histogram, the grey
-- reference curve of Figures 4f / 5f. 72,000 LOO z values per dimension are too many to ship to
-- a browser; the histogram is one GROUP BY here instead of a computation in the report code.
-- Ratings whose LOO SD is 0 (no z) are counted in n_without_z, not dropped silently.
{%- set width = var('report_z_bin_width', 0.25) %}
with human_loo as (
    select * from {{ ref('int_human_loo') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

loo as (
    select
        dimension,
        category,
        loo_z
    from human_loo
),

totals as (
    select
        dimension,
        category,
        count(loo_z) as n_with_z,
        count(*) - count(loo_z) as n_without_z
    from loo
    group by dimension, category
),

bins as (
    select
        dimension,
        category,
        floor(loo_z / {{ width }}) as bin,
        count(*) as n
    from loo
    where loo_z is not null
    group by dimension, category, floor(loo_z / {{ width }})
),

final as (
    select
        bins.dimension,
        bins.category,
        cast(bins.bin * {{ width }} as double) as bin_lower,
        cast((bins.bin + 1) * {{ width }} as double) as bin_upper,
        cast(bins.n as bigint) as n,
        bins.n / (totals.n_with_z * {{ width }}) as density,
        cast(totals.n_with_z as bigint) as n_with_z,
        cast(totals.n_without_z as bigint) as n_without_z,
        study_provenance.data_origin
    from bins
    inner join totals using (dimension, category)
    cross join study_provenance
)

select * from final
order by dimension, category, bin_lower
