-- The human yardstick of each (category, dimension) cell for the calibration verdicts: the human
-- leave-one-out W1SD and mean |z| (macros/zscore_summary.sql over int_human_loo) and the mean
-- per-image human SD of the category (the LoA-width rule of seeds/verdict_rules.csv).
with human_loo as (
    select * from {{ ref('int_human_loo') }}
),

image_human_stats as (
    select * from {{ ref('int_image_human_stats') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

loo as (
    select
        category,
        dimension,
        {{ zscore_summary_columns('loo_z') }}
    from human_loo
    group by category, dimension
),

human_sd as (
    select
        category,
        dimension,
        avg(human_sd) as mean_human_sd
    from image_human_stats
    group by category, dimension
),

final as (
    select
        loo.category,
        loo.dimension,
        loo.w1sd as loo_w1sd,
        loo.mean_abs_z as loo_mean_abs_z,
        loo.n_images as n_loo_ratings,
        loo.n_zero_sd_images as n_loo_undefined,
        human_sd.mean_human_sd,
        study_provenance.data_origin
    from loo
    left join human_sd using (category, dimension)
    cross join study_provenance
)

select * from final
