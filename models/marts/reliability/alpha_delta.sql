-- Krippendorff's alpha of the human pool and of the pool plus each model condition as one more
-- rater (paper 3.4.3, Tables 4c/5c), per (dimension, category | 'all', condition | 'human', metric).
-- interval: closed form over per-image sufficient statistics (macros/alpha_sufficient_statistics.sql);
-- the model adds (1, x, x^2) to each image it rated. Other metrics in var `alpha_metrics` (default
-- ordinal, nominal): the coincidence matrix of the human value counts with the model's values
-- added per condition (below), and the alpha of each by the coincidence macro.
-- delta_alpha = alpha(human + model) - alpha(human) of the same slice and metric.
-- m, c, k and o_ck keep the notation of the alpha macros, which read those columns.
{%- set model_dims = study_setting('model_dimensions') -%}
{%- set model_dim_list -%}
    ({% for dim in model_dims %}'{{ dim }}'{% if not loop.last %}, {% endif %}{% endfor %})
{%- endset -%}
{#- A unit's ordered pairs of values c, k (c = k: a pair of two of its c ratings), from its
    counts counts_c and counts_k: the unit pairs and the unrated units' pairs below. -#}
{%- set n_pairs = "cast(counts_c.n * (counts_k.n - (counts_c.value = counts_k.value)::int) as double)" -%}
{%- set other_metrics = var('alpha_metrics', ['interval', 'ordinal', 'nominal'])
    | reject('equalto', 'interval') | list %}

with image_human_stats as (
    select * from {{ ref('int_image_human_stats') }}
),

model_conditions as (
    select * from {{ ref('stg_model_conditions') }}
),

model_vs_human_long as (
    select * from {{ ref('int_model_vs_human_long') }}
),

image_value_counts as (
    select * from {{ ref('int_image_value_counts') }}
),

stimuli as (
    select * from {{ ref('stg_stimuli') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

unit_stats as (
    select
        dimension,
        category as scope,
        image_id,
        n_ratings as m,
        cast(rating_sum as double) as total,
        cast(rating_sumsq as double) as total_sq
    from image_human_stats
),

scoped_units as (
    {{ with_all_scope('unit_stats', scope='scope', of_category=true) }}
),

model_values as (
    select
        condition_id,
        dimension,
        image_id,
        model_value
    from model_vs_human_long
    where model_value is not null
),

-- every condition x model dimension x unit; units the condition did not rate keep the human stats
plus_units as (
    select
        model_conditions.condition_id,
        scoped_units.dimension,
        scoped_units.scope,
        scoped_units.image_id,
        {{ with_extra_rater_columns('scoped_units.m', 'scoped_units.total', 'scoped_units.total_sq',
                                    'model_values.model_value') }},
        (model_values.model_value is not null)::int as model_rated
    from scoped_units
    cross join model_conditions
    left join model_values
        on model_conditions.condition_id = model_values.condition_id
        and scoped_units.dimension = model_values.dimension
        and scoped_units.image_id = model_values.image_id
    where scoped_units.dimension in {{ model_dim_list }}
),

-- not materialized: read once by each of its two readers as the join streams, rather than held
-- (conditions x units rows, 7.5 M at 100x)
all_units as not materialized (
    select
        'human' as condition_id,
        dimension,
        scope,
        image_id,
        m,
        total,
        total_sq,
        0 as model_rated
    from scoped_units
    union all
    select * from plus_units
),

model_counts as (
    select
        condition_id,
        dimension,
        scope,
        sum(model_rated) as n_model_values
    from all_units
    group by condition_id, dimension, scope
),

interval_alpha as (
    select
        *,
        'interval' as metric
    from (
        {{ alpha_interval_from_stats('all_units', ['condition_id', 'dimension', 'scope']) }}
    ) as interval_stats
),
{%- if other_metrics %}

-- The coincidence matrix o_ck of the human ratings per (dimension, category) and, for each condition,
-- of the ratings plus its values, without repeating the ratings per condition. With n_uv the
-- human counts of unit u, m_u = sum_v n_uv, p_uck = n_uc * (n_uk - [c = k]) (the column n_pairs),
-- and x_u the model's value: human o_ck = sum_{m_u >= 2} p_uck / (m_u - 1); adding x_u gives a rated unit
-- (n_uc + [c = x_u]) * (n_uk + [k = x_u] - [c = k]) / m_u = p_uck / m_u + ([c = x_u] n_uk + n_uc [k = x_u]) / m_u,
-- so  o'_ck = human o_ck - sum_{rated u} p_uck / (m_u (m_u - 1)) + M_ck + M_kc  with
-- M_ck = sum_{rated u} [c = x_u] n_uk / m_u. The middle sum is taken as the sum over all units
-- minus the units the condition left unrated (few), and 'all' is the sum of the categories' matrices
-- (o_ck adds over units; without a category the one stratum is 'all' already). Checked against the direct coincidence matrix in tests.
human_counts as (
    select
        image_value_counts.dimension,
        stimuli.category as scope,
        image_value_counts.image_id,
        cast(image_value_counts.value as double) as value,
        image_value_counts.n,
        sum(image_value_counts.n) over (
            partition by image_value_counts.dimension, image_value_counts.image_id
        ) as m
    from image_value_counts
    inner join stimuli using (image_id)
),

-- not materialized: aggregated as the self-join streams (values^2 rows per unit, 22 M at 100x),
-- never held
unit_pairs as not materialized (
    select
        counts_c.dimension,
        counts_c.scope,
        counts_c.image_id,
        counts_c.m,
        counts_c.value as c,
        counts_k.value as k,
        {{ n_pairs }} as n_pairs
    from human_counts as counts_c
    inner join human_counts as counts_k using (dimension, scope, image_id)
    where counts_c.m >= 2
),

human_coincidence as (
    select
        dimension,
        scope,
        c,
        k,
        sum(n_pairs / (m - 1)) as o_ck,
        sum(n_pairs / (m * (m - 1))) as o_rated_shift
    from unit_pairs
    group by all
),

model_dimension_units as (
    select distinct
        dimension,
        image_id
    from human_counts
    where dimension in {{ model_dim_list }}
),

-- materialized: the few (condition, unit) pairs a condition left unrated, found before they meet
-- the unit pairs; left inlined, the planner crossed the conditions with the unit pairs first and
-- anti-joined that (190 M rows at 100x), which spilled ~15 GB whenever memory ran short
unrated as materialized (
    select
        model_conditions.condition_id,
        model_dimension_units.dimension,
        model_dimension_units.image_id
    from model_dimension_units
    cross join model_conditions
    anti join model_values
        on model_conditions.condition_id = model_values.condition_id
        and model_dimension_units.dimension = model_values.dimension
        and model_dimension_units.image_id = model_values.image_id
),

model_pairs as (
    select
        model_values.condition_id,
        human_counts.dimension,
        human_counts.scope,
        model_values.model_value as c,
        human_counts.value as k,
        sum(human_counts.n / human_counts.m) as o_ck
    from model_values
    inner join human_counts
        on model_values.dimension = human_counts.dimension and model_values.image_id = human_counts.image_id
    group by all
),

condition_parts as (
    select
        model_conditions.condition_id,
        human_coincidence.dimension,
        human_coincidence.scope,
        human_coincidence.c,
        human_coincidence.k,
        human_coincidence.o_ck - human_coincidence.o_rated_shift as o_ck
    from human_coincidence
    cross join model_conditions
    where human_coincidence.dimension in {{ model_dim_list }}
    union all
    -- the unrated units' pairs: the counts joined to the few unrated units first, so that the
    -- join's table holds those units, not the unit pairs
    select
        unrated.condition_id,
        counts_c.dimension,
        counts_c.scope,
        counts_c.value as c,
        counts_k.value as k,
        {{ n_pairs }}
        / (counts_c.m * (counts_c.m - 1)) as o_ck
    from unrated
    inner join human_counts as counts_c
        on unrated.dimension = counts_c.dimension and unrated.image_id = counts_c.image_id
    inner join human_counts as counts_k
        on
            counts_c.dimension = counts_k.dimension
            and counts_c.scope = counts_k.scope
            and counts_c.image_id = counts_k.image_id
    where counts_c.m >= 2
    union all
    select condition_id, dimension, scope, c, k, o_ck from model_pairs
    union all
    select condition_id, dimension, scope, k, c, o_ck from model_pairs
),

category_coincidence as (
    select 'human' as condition_id, dimension, scope, c, k, o_ck from human_coincidence
    union all
    select
        condition_id,
        dimension,
        scope,
        c,
        k,
        sum(o_ck) as o_ck
    from condition_parts
    group by all
),

coincidence as (
    select * from category_coincidence
    {%- if has_category() %}
    union all
    select
        condition_id,
        dimension,
        'all' as scope,
        c,
        k,
        sum(o_ck) as o_ck
    from category_coincidence
    group by all
    {%- endif %}
),

-- pairable units: the human's (m_u >= 2), plus for a condition its rated units with one rating
pairable_units as (
    select distinct
        dimension,
        scope,
        image_id
    from human_counts
    where m >= 2
),

unit_sizes as (
    select distinct
        dimension,
        scope,
        image_id,
        m
    from human_counts
),

category_units as (
    select
        'human' as condition_id,
        dimension,
        scope,
        count(*) as n_units
    from pairable_units
    group by all
    union all
    select
        model_conditions.condition_id,
        unit_sizes.dimension,
        unit_sizes.scope,
        count(*) filter (where unit_sizes.m >= 2 or model_values.image_id is not null) as n_units
    from unit_sizes
    cross join model_conditions
    left join model_values
        on model_conditions.condition_id = model_values.condition_id
        and unit_sizes.dimension = model_values.dimension
        and unit_sizes.image_id = model_values.image_id
    where unit_sizes.dimension in {{ model_dim_list }}
    group by all
),

unit_counts as (
    select * from category_units
    {%- if has_category() %}
    union all
    select
        condition_id,
        dimension,
        'all' as scope,
        sum(n_units) as n_units
    from category_units
    group by all
    {%- endif %}
),
{%- for metric in other_metrics %}

coincidence_{{ metric }} as (
    select * from (
        {{ alpha_from_coincidence('coincidence', 'unit_counts', metric, ['condition_id', 'dimension', 'scope']) }}
    ) as coincidence_alpha
),
{%- endfor %}
{%- endif %}

alphas as (
    select condition_id, dimension, scope, metric, alpha, n_units, n_values, alpha_null_reason
    from interval_alpha
    {%- for metric in other_metrics %}
    union all
    select condition_id, dimension, scope, metric, alpha, n_units, n_values, alpha_null_reason
    from coincidence_{{ metric }}
    {%- endfor %}
),

checked as (
    select
        alphas.condition_id,
        alphas.dimension,
        alphas.scope as category,
        alphas.metric,
        case when alphas.condition_id = 'human' or model_counts.n_model_values > 0 then alphas.alpha end as alpha,
        alphas.n_units,
        alphas.n_values,
        cast(model_counts.n_model_values as bigint) as n_model_values,
        case
            when alphas.condition_id <> 'human' and coalesce(model_counts.n_model_values, 0) = 0
                then 'condition has no values on this dimension and {{ factor_name("category") }}'
            else alphas.alpha_null_reason
        end as alpha_null_reason
    from alphas
    left join model_counts
        on alphas.condition_id = model_counts.condition_id
        and alphas.dimension = model_counts.dimension
        and alphas.scope = model_counts.scope
),

final as (
    select
        condition_rows.dimension,
        condition_rows.category,
        condition_rows.condition_id,
        condition_rows.metric,
        condition_rows.alpha,
        case
            when condition_rows.condition_id <> 'human'
                then {{ delta_alpha('condition_rows.alpha', 'human_rows.alpha') }}
        end as delta_alpha,
        human_rows.alpha as human_alpha,
        condition_rows.n_units,
        condition_rows.n_values,
        condition_rows.n_model_values,
        condition_rows.alpha_null_reason,
        study_provenance.data_origin
    from checked as condition_rows
    left join checked as human_rows
        on human_rows.condition_id = 'human'
        and condition_rows.dimension = human_rows.dimension
        and condition_rows.category = human_rows.category
        and condition_rows.metric = human_rows.metric
    cross join study_provenance
)

select * from final
