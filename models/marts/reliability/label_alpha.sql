-- Krippendorff's nominal alpha of the forced-choice labels (paper 3.4.3's alpha, on labels): the
-- human raters' chosen labels per stimulus, alone ('human') and with each model condition's label
-- added as one more rater (as alpha_delta does for ratings), over all stimuli; and the humans
-- alone within each level of each declared rater attribute (who agrees with whom), the
-- perspectivist slice of a study whose raters carry demographics. A study without forced-choice
-- labels builds an empty table. Replicate runs other than the first are ignored, as elsewhere.
{%- set attributes = var('rater_attributes', ['gender']) %}
with human as (
    select h.image_id, h.chosen_emotion as label
        {%- for a in attributes %}, cast(r.{{ a }} as varchar) as attr_{{ a }}{% endfor %}
    from {{ ref('stg_human_ratings') }} h
    join {{ ref('stg_raters') }} r using (rater_id)
    where h.chosen_emotion is not null
),
model as (
    select condition_id, image_id, predicted_emotion as label
    from {{ ref('stg_model_predictions') }}
    where predicted_emotion is not null
    qualify run_id = min(run_id) over (partition by condition_id)
),
conditions as (
    select distinct condition_id from model
),
pools as (
    select 'all' as slice_by, 'all' as slice_level, 'human' as condition_id, image_id, label from human
    union all
    select 'all', 'all', c.condition_id, h.image_id, h.label from human h cross join conditions c
    union all
    select 'all', 'all', condition_id, image_id, label from model
    where image_id in (select image_id from human)
    {%- for a in attributes %}
    union all
    select '{{ a }}', attr_{{ a }}, 'human', image_id, label from human where attr_{{ a }} is not null
    {%- endfor %}
),
alphas as (
    {{ alpha_coincidence('pools', 'image_id', 'label', 'nominal', ['slice_by', 'slice_level', 'condition_id']) }}
),
model_counts as (
    select condition_id, count(*) as n_model_values from model
    where image_id in (select image_id from human) group by condition_id
)
select
    a.slice_by,
    a.slice_level,
    a.condition_id,
    a.alpha,
    case when a.condition_id <> 'human' then a.alpha - h.alpha end as delta_alpha,
    h.alpha as human_alpha,
    a.n_units,
    a.n_values,
    cast(coalesce(mc.n_model_values, 0) as bigint) as n_model_values,
    a.alpha_null_reason,
    p.data_origin
from alphas a
left join alphas h
  on h.condition_id = 'human' and h.slice_by = a.slice_by and h.slice_level = a.slice_level
left join model_counts mc on mc.condition_id = a.condition_id
cross join {{ ref('int_study_provenance') }} p
