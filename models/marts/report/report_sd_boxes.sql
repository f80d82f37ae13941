-- Figure 6's boxplots of the per-stimulus SD (response_diversity_images), one row per box instead
-- of one value per stimulus: quartiles by linear interpolation (quantile_cont, as Vega-Lite's own
-- boxplot) and Tukey's whiskers, the most extreme SDs within 1.5 IQR of the box. The points
-- beyond the whiskers are counted (n_outside), not drawn.
with response_diversity_images as (
    select * from {{ ref('response_diversity_images') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

with_quartiles as (
    select
        dimension,
        category,
        source,
        sd,
        quantile_cont(sd, 0.25) over box as q1,
        quantile_cont(sd, 0.5) over box as median,
        quantile_cont(sd, 0.75) over box as q3
    from response_diversity_images
    where sd is not null
    window box as (partition by dimension, category, source)
),

boxes as (
    select
        dimension,
        category,
        source,
        count(*) as n,
        any_value(q1) as q1,
        any_value(median) as median,
        any_value(q3) as q3,
        min(sd) filter (where sd >= q1 - 1.5 * (q3 - q1)) as whisker_low,
        max(sd) filter (where sd <= q3 + 1.5 * (q3 - q1)) as whisker_high,
        count(*) filter (where sd < q1 - 1.5 * (q3 - q1) or sd > q3 + 1.5 * (q3 - q1)) as n_outside
    from with_quartiles
    group by dimension, category, source
),

final as (
    select
        boxes.dimension,
        boxes.category,
        boxes.source,
        cast(boxes.n as bigint) as n,
        boxes.q1,
        boxes.median,
        boxes.q3,
        boxes.whisker_low,
        boxes.whisker_high,
        cast(boxes.n_outside as bigint) as n_outside,
        study_provenance.data_origin
    from boxes
    cross join study_provenance
)

select * from final
order by dimension, category, source
