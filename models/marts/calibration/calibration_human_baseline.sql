-- The human yardstick of each (emotion, dimension) cell for the calibration verdicts: the human
-- leave-one-out W1SD and mean |z| (macros/zscore_summary.sql over int_human_loo) and the mean
-- per-image human SD of the emotion (the LoA-width rule of seeds/verdict_rules.csv).
with loo as (
    select emotion, dimension, {{ zscore_summary_columns('loo_z') }}
    from {{ ref('int_human_loo') }}
    group by emotion, dimension
),
sd as (
    select emotion, dimension, avg(human_sd) as mean_human_sd
    from {{ ref('int_image_human_stats') }}
    group by emotion, dimension
)
select
    loo.emotion,
    loo.dimension,
    loo.w1sd as loo_w1sd,
    loo.mean_abs_z as loo_mean_abs_z,
    loo.n_images as n_loo_ratings,
    loo.n_zero_sd_images as n_loo_undefined,
    sd.mean_human_sd,
    p.data_origin
from loo
left join sd using (emotion, dimension)
cross join {{ ref('int_study_provenance') }} p
