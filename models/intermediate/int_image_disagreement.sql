-- Per (image, dimension): which human-disagreement tercile the image falls in, from its human SD
-- (the "Beyond Correlation" split: is a model human-like only where humans agree?). Cut points are
-- the 1/3 and 2/3 quantiles (continuous) of the human SD over all images of the dimension; an
-- image exactly on a cut point goes to the lower tercile, so ties never split arbitrarily. Images
-- with an undefined SD (fewer than 2 ratings) get tercile NULL. SDs are rounded to 9 decimals
-- first: images with the same multiset of integer ratings have mathematically equal SDs, and
-- integer ratings make such ties common right at the cut points, so float noise in the last bits
-- must not decide the tercile.
with image_human_stats as (
    select * from {{ ref('int_image_human_stats') }}
),

sds as (
    select
        *,
        round(human_sd, 9) as human_sd_rounded
    from image_human_stats
),

cuts as (
    select
        dimension,
        quantile_cont(human_sd_rounded, 1.0 / 3) as sd_cut_low,
        quantile_cont(human_sd_rounded, 2.0 / 3) as sd_cut_high
    from sds
    where human_sd is not null
    group by dimension
),

terciles as (
    select
        sds.image_id,
        sds.dimension,
        sds.category,
        sds.human_sd,
        cuts.sd_cut_low,
        cuts.sd_cut_high,
        case
            when sds.human_sd is null then null
            when sds.human_sd_rounded <= cuts.sd_cut_low then 'low'
            when sds.human_sd_rounded <= cuts.sd_cut_high then 'mid'
            else 'high'
        end as disagreement_tercile
    from sds
    left join cuts using (dimension)
)

select * from terciles
