-- Krippendorff's alpha of the human pool and of the pool plus each model condition as one more
-- rater (paper 3.4.3, Tables 4c/5c), per (dimension, emotion | 'all', condition | 'human', metric).
-- interval: closed form over per-image sufficient statistics (macros/alpha_sufficient_statistics.sql);
-- the model adds (1, x, x^2) to each image it rated. Other metrics in var `alpha_metrics` (default
-- ordinal, nominal): the coincidence matrix of the human value counts with the model's values
-- added per condition (below), and the alpha of each by the coincidence macro.
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
-- The coincidence matrix o_ck of the human ratings per (dimension, emotion) and, for each condition,
-- of the ratings plus its values, without repeating the ratings per condition. With n_uv the
-- human counts of unit u, m_u = sum_v n_uv, p_uck = n_uc * (n_uk - [c = k]), and x_u the model's
-- value: human o_ck = sum_{m_u >= 2} p_uck / (m_u - 1); adding x_u gives a rated unit
-- (n_uc + [c = x_u]) * (n_uk + [k = x_u] - [c = k]) / m_u = p_uck / m_u + ([c = x_u] n_uk + n_uc [k = x_u]) / m_u,
-- so  o'_ck = human o_ck - sum_{rated u} p_uck / (m_u (m_u - 1)) + M_ck + M_kc  with
-- M_ck = sum_{rated u} [c = x_u] n_uk / m_u. The middle sum is taken as the sum over all units
-- minus the units the condition left unrated (few), and 'all' is the sum of the emotions' matrices
-- (o_ck adds over units). Checked against the direct coincidence matrix in tests.
human_counts as (
    select v.dimension, s.emotion as scope, v.image_id, cast(v.value as double) as value, v.n,
           sum(v.n) over (partition by v.dimension, v.image_id) as m
    from {{ ref('int_image_value_counts') }} v
    join {{ ref('stg_stimuli') }} s using (image_id)
),
unit_pairs as (
    select a.dimension, a.scope, a.image_id, a.m, a.value as c, b.value as k,
           cast(a.n * (b.n - (a.value = b.value)::int) as double) as p
    from human_counts a join human_counts b using (dimension, scope, image_id)
    where a.m >= 2
),
human_coincidence as (
    select dimension, scope, c, k, sum(p / (m - 1)) as o_ck, sum(p / (m * (m - 1))) as o_rated_shift
    from unit_pairs group by all
),
unrated as (
    select c.condition_id, u.dimension, u.image_id
    from (select distinct dimension, image_id from human_counts where dimension in {{ model_dim_list }}) u
    cross join conditions c
    anti join model_values v
      on v.condition_id = c.condition_id and v.dimension = u.dimension and v.image_id = u.image_id
),
model_pairs as (
    select v.condition_id, h.dimension, h.scope, v.model_value as c, h.value as k, sum(h.n / h.m) as o_ck
    from model_values v
    join human_counts h on h.dimension = v.dimension and h.image_id = v.image_id
    group by all
),
condition_parts as (
    select c.condition_id, h.dimension, h.scope, h.c, h.k, h.o_ck - h.o_rated_shift as o_ck
    from human_coincidence h cross join conditions c
    where h.dimension in {{ model_dim_list }}
    union all
    select u.condition_id, p.dimension, p.scope, p.c, p.k, p.p / (p.m * (p.m - 1))
    from unrated u join unit_pairs p using (dimension, image_id)
    union all
    select condition_id, dimension, scope, c, k, o_ck from model_pairs
    union all
    select condition_id, dimension, scope, k, c, o_ck from model_pairs
),
emotion_coincidence as (
    select 'human' as condition_id, dimension, scope, c, k, o_ck from human_coincidence
    union all
    select condition_id, dimension, scope, c, k, sum(o_ck) from condition_parts group by all
),
coincidence as (
    select * from emotion_coincidence
    union all
    select condition_id, dimension, 'all', c, k, sum(o_ck) from emotion_coincidence group by all
),
-- pairable units: the human's (m_u >= 2), plus for a condition its rated units with one rating
emotion_units as (
    select 'human' as condition_id, dimension, scope, count(*) as n_units
    from (select distinct dimension, scope, image_id from unit_pairs) group by all
    union all
    select c.condition_id, u.dimension, u.scope,
           count(*) filter (where u.m >= 2 or v.image_id is not null)
    from (select distinct dimension, scope, image_id, m from human_counts) u
    cross join conditions c
    left join model_values v
      on v.condition_id = c.condition_id and v.dimension = u.dimension and v.image_id = u.image_id
    where u.dimension in {{ model_dim_list }}
    group by all
),
unit_counts as (
    select * from emotion_units
    union all
    select condition_id, dimension, 'all', sum(n_units) from emotion_units group by all
),
{%- for metric in other_metrics %}
coincidence_{{ metric }} as (
    select * from (
        {{ alpha_from_coincidence('coincidence', 'unit_counts', metric, ['condition_id', 'dimension', 'scope']) }}
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
