-- Each condition's z-scores per (dimension, category) as a histogram on the bins of
-- report_loo_z_histogram (the same var report_z_bin_width): the model rows of Figures 4f / 5f,
-- one row per occupied bin instead of one tick per stimulus. Stimuli without a z (unanswered,
-- unparsed, human SD 0) are counted in n_without_z. z is rounded to 9 decimals before it is binned:
-- with integer ratings a z often sits exactly on a bin edge (0.5 when the SD is twice the
-- difference), and the SD's last bits vary with DuckDB's parallel aggregation, so two builds of one
-- landing would put that stimulus in neighbouring bins.
{%- set width = var('report_z_bin_width', 0.25) %}
with model_vs_human_long as (
    select * from {{ ref('int_model_vs_human_long') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

bins as (
    select
        condition_id,
        dimension,
        category,
        floor(round(z, 9) / {{ width }}) as bin,
        count(z) as n,
        count(*) - count(z) as n_missing
    from model_vs_human_long
    group by all
),

final as (
    select
        bins.condition_id,
        bins.dimension,
        bins.category,
        cast(bins.bin * {{ width }} as double) as bin_lower,
        cast((bins.bin + 1) * {{ width }} as double) as bin_upper,
        cast(bins.n as bigint) as n,
        bins.n / sum(bins.n) over cell as share,
        cast(sum(bins.n) over cell as bigint) as n_with_z,
        cast(sum(bins.n_missing) over cell as bigint) as n_without_z,
        study_provenance.data_origin
    from bins
    cross join study_provenance
    window cell as (partition by bins.condition_id, bins.dimension, bins.category)
)

select * from final
where bin_lower is not null
order by condition_id, dimension, category, bin_lower
