-- Krippendorff's alpha of the human pool and of the pool plus each model condition as one more
-- rater (paper 3.4.3, Tables 4c/5c), per (dimension, emotion | 'all', condition | 'human', metric).
-- interval: closed form over per-image sufficient statistics (macros/alpha_sufficient_statistics.sql);
-- the model adds (1, x, x^2) to each image it rated. Other metrics in var `alpha_metrics` (default
-- ordinal, nominal): the coincidence-matrix macro over the long ratings plus the model's values.
-- delta_alpha = alpha(human + model) - alpha(human) of the same slice and metric.
{%- set model_dims = var('model_dimensions') -%}
{%- set model_dim_list -%}({% for d in model_dims %}'{{ d }}'{% if not loop.last %}, {% endif %}{% endfor %}){%- endset -%}
{%- set other_metrics = var('alpha_metrics', ['interval', 'ordinal', 'nominal']) | reject('equalto', 'interval') | list %}
with unit_stats as (
    select dimension, emotion, image_id, n_ratings as m, cast(rating_sum as double) as total,
           cast(rating_sumsq as double) as total_sq
    from {{ ref('int_image_human_stats') }}
),
scoped_units as (
    select dimension, emotion as scope, image_id, m, total, total_sq from unit_stats
    union all
    select dimension, 'all', image_id, m, total, total_sq from unit_stats
),
conditions as (
    select condition_id from {{ ref('stg_model_conditions') }}
),
model_values as (
    select condition_id, dimension, image_id, model_value
    from {{ ref('int_model_vs_human_long') }}
    where model_value is not null
),
-- every condition x model dimension x unit; units the condition did not rate keep the human stats
plus_units as (
    select c.condition_id, u.dimension, u.scope, u.image_id,
           u.m + (v.model_value is not null)::int as m,
           u.total + coalesce(v.model_value, 0) as total,
           u.total_sq + coalesce(v.model_value * v.model_value, 0) as total_sq,
           (v.model_value is not null)::int as model_rated
    from scoped_units u
    cross join conditions c
    left join model_values v
      on v.condition_id = c.condition_id and v.dimension = u.dimension and v.image_id = u.image_id
    where u.dimension in {{ model_dim_list }}
),
all_units as (
    select 'human' as condition_id, dimension, scope, image_id, m, total, total_sq, 0 as model_rated
    from scoped_units
    union all
    select * from plus_units
),
model_counts as (
    select condition_id, dimension, scope, sum(model_rated) as n_model_values
    from all_units group by condition_id, dimension, scope
),
interval_alpha as (
    select *, 'interval' as metric from (
        {{ alpha_interval_from_stats('all_units', ['condition_id', 'dimension', 'scope']) }}
    )
){% if other_metrics %},
-- (unit, value) counts of the human ratings; each condition's relation is these counts plus its
-- own values with weight 1, so the ratings are never copied once per condition
human_counts as (
    select h.dimension, s.emotion as scope, h.image_id, cast(h.rating as double) as value, count(*) as n
    from {{ ref('int_human_ratings_long') }} h
    join {{ ref('stg_stimuli') }} s using (image_id)
    group by h.dimension, s.emotion, h.image_id, h.rating
),
human_scoped as (
    select * from human_counts
    union all
    select dimension, 'all', image_id, value, n from human_counts
),
long_values as (
    select 'human' as condition_id, dimension, scope, image_id, value, n from human_scoped
    union all
    select c.condition_id, h.dimension, h.scope, h.image_id, h.value, h.n
    from human_scoped h cross join conditions c
    where h.dimension in {{ model_dim_list }}
    union all
    select v.condition_id, v.dimension, h.scope, v.image_id, v.model_value, 1
    from model_values v
    join (select distinct dimension, scope, image_id from human_scoped) h
      on h.dimension = v.dimension and h.image_id = v.image_id
),
{%- for metric in other_metrics %}
coincidence_{{ metric }} as (
    select * from (
        {{ alpha_coincidence('long_values', 'image_id', 'value', metric, ['condition_id', 'dimension', 'scope'], weight='n') }}
    )
){% if not loop.last %},{% endif %}
{%- endfor %}
{%- endif %},
alphas as (
    select condition_id, dimension, scope, metric, alpha, n_units, n_values, alpha_null_reason from interval_alpha
    {%- for metric in other_metrics %}
    union all
    select condition_id, dimension, scope, metric, alpha, n_units, n_values, alpha_null_reason from coincidence_{{ metric }}
    {%- endfor %}
),
checked as (
    select a.condition_id, a.dimension, a.scope as emotion, a.metric,
           case when a.condition_id = 'human' or mc.n_model_values > 0 then a.alpha end as alpha,
           a.n_units, a.n_values,
           cast(mc.n_model_values as bigint) as n_model_values,
           case when a.condition_id <> 'human' and coalesce(mc.n_model_values, 0) = 0
                then 'condition has no values on this dimension and emotion'
                else a.alpha_null_reason end as alpha_null_reason
    from alphas a
    left join model_counts mc
      on mc.condition_id = a.condition_id and mc.dimension = a.dimension and mc.scope = a.scope
)
select
    c.dimension,
    c.emotion,
    c.condition_id,
    c.metric,
    c.alpha,
    case when c.condition_id <> 'human' then c.alpha - h.alpha end as delta_alpha,
    h.alpha as human_alpha,
    c.n_units,
    c.n_values,
    c.n_model_values,
    c.alpha_null_reason,
    p.data_origin
from checked c
left join checked h
  on h.condition_id = 'human' and h.dimension = c.dimension and h.emotion = c.emotion and h.metric = c.metric
cross join {{ ref('int_study_provenance') }} p
