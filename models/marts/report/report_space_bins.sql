-- Figures 4a / 4b, the rating space, as counts per bin instead of one point per stimulus: the
-- human per-stimulus means (condition_id 'human') and each condition's answers, for every ordered
-- pair of model dimensions, rounded to the nearest multiple of the var report_space_bin_width
-- (default 0.25; integer answers stay on their integers). The report's size then depends on the
-- study's factors and scale, never on how many stimuli it has. The centroid (the figures' diamond)
-- is the exact mean of the unbinned points of a (condition, pair, category).
{%- set width = var('report_space_bin_width', 0.25) %}
{%- set dims = study_setting('model_dimensions') %}
with image_human_stats as (
    select * from {{ ref('int_image_human_stats') }}
),

model_vs_human as (
    select * from {{ ref('int_model_vs_human') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

human_wide as (
    select
        image_id,
        any_value(category) as category
        {%- for dim in dims %},
        max(human_mean) filter (where dimension = '{{ dim }}') as mean_{{ dim }}
        {%- endfor %}
    from image_human_stats
    group by image_id
),

points as (
    select
        cast(null as varchar) as condition_id,
        cast(null as varchar) as x_dimension,
        cast(null as varchar) as y_dimension,
        cast(null as varchar) as category,
        cast(null as double) as x_value,
        cast(null as double) as y_value
    where false
    {%- for x in dims %}{%- for y in dims %}{%- if x != y %}
    union all
    select
        'human' as condition_id,
        '{{ x }}' as x_dimension,
        '{{ y }}' as y_dimension,
        category,
        mean_{{ x }} as x_value,
        mean_{{ y }} as y_value
    from human_wide
    union all
    select
        condition_id,
        '{{ x }}' as x_dimension,
        '{{ y }}' as y_dimension,
        true_category as category,
        model_{{ x }} as x_value,
        model_{{ y }} as y_value
    from model_vs_human
    {%- endif %}{%- endfor %}{%- endfor %}
),

bins as (
    select
        condition_id,
        x_dimension,
        y_dimension,
        category,
        round(x_value / {{ width }}) * {{ width }} as x_bin,
        round(y_value / {{ width }}) * {{ width }} as y_bin,
        count(*) as n,
        sum(x_value) as x_sum,
        sum(y_value) as y_sum
    from points
    where x_value is not null and y_value is not null
    group by all
),

final as (
    select
        bins.condition_id,
        bins.x_dimension,
        bins.y_dimension,
        bins.category,
        cast(bins.x_bin as double) as x_bin,
        cast(bins.y_bin as double) as y_bin,
        cast(bins.n as bigint) as n,
        sum(bins.x_sum) over cell / sum(bins.n) over cell as centroid_x,
        sum(bins.y_sum) over cell / sum(bins.n) over cell as centroid_y,
        cast(sum(bins.n) over cell as bigint) as n_points,
        study_provenance.data_origin
    from bins
    cross join study_provenance
    window cell as (partition by bins.condition_id, bins.x_dimension, bins.y_dimension, bins.category)
)

select * from final
order by condition_id, x_dimension, y_dimension, category, x_bin, y_bin
