-- Per (image, dimension): which human-disagreement tercile the image falls in, from its human SD
-- (the "Beyond Correlation" split: is a model human-like only where humans agree?). Cut points are
-- the 1/3 and 2/3 quantiles (continuous) of the human SD over all images of the dimension; an
-- image exactly on a cut point goes to the lower tercile, so ties never split arbitrarily. Images
-- with an undefined SD (fewer than 2 ratings) get tercile NULL. SDs are rounded to 9 decimals
-- first: images with the same multiset of integer ratings have mathematically equal SDs, and
-- integer ratings make such ties common right at the cut points, so float noise in the last bits
-- must not decide the tercile.
with sds as (
    select *, round(human_sd, 9) as human_sd_rounded from {{ ref('int_image_human_stats') }}
),
cuts as (
    select
        dimension,
        quantile_cont(human_sd_rounded, 1.0 / 3) as sd_cut_low,
        quantile_cont(human_sd_rounded, 2.0 / 3) as sd_cut_high
    from sds
    where human_sd is not null
    group by dimension
)
select
    s.image_id,
    s.dimension,
    s.emotion,
    s.human_sd,
    c.sd_cut_low,
    c.sd_cut_high,
    case
        when s.human_sd is null then null
        when s.human_sd_rounded <= c.sd_cut_low then 'low'
        when s.human_sd_rounded <= c.sd_cut_high then 'mid'
        else 'high'
    end as disagreement_tercile
from sds s
left join cuts c using (dimension)
