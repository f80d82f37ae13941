-- Krippendorff's nominal alpha of the forced-choice labels (paper 3.4.3's alpha, on labels): the
-- human raters' chosen labels per stimulus, alone ('human') and with each model condition's label
-- added as one more rater (as alpha_delta does for ratings), over all stimuli; and the humans
-- alone within each level of each declared rater attribute (who agrees with whom), the
-- perspectivist slice of a study whose raters carry demographics. A study without forced-choice
-- labels builds an empty table. Replicate runs other than the first are ignored, as elsewhere.
{%- set attributes = study_setting('rater_attributes', ['gender']) %}
with human_ratings as (
    select * from {{ ref('stg_human_ratings') }}
),

raters as (
    select * from {{ ref('stg_raters') }}
),

model_predictions as (
    select * from {{ ref('stg_model_predictions') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

human as (
    select
        human_ratings.image_id,
        human_ratings.chosen_category as label
        {%- for attribute in attributes %},
        cast(raters.{{ attribute }} as varchar) as attr_{{ attribute }}
        {%- endfor %}
    from human_ratings
    inner join raters using (rater_id)
    where human_ratings.chosen_category is not null
),

model as (
    select
        condition_id,
        image_id,
        predicted_category as label
    from model_predictions
    where predicted_category is not null
    qualify run_id = min(run_id) over (partition by condition_id)
),

conditions as (
    select distinct condition_id from model
),

-- the humans' labels counted per stimulus (and attribute level) before they are repeated for each
-- condition: the coincidence matrix reads counts (alpha_coincidence's weight), so a condition's
-- pool repeats a stimulus's few distinct labels, not every rating
human_counts as (
    select
        'all' as slice_by,
        'all' as slice_level,
        image_id,
        label,
        count(*) as n
    from human
    group by all
    {%- for attribute in attributes %}
    union all
    select
        '{{ attribute }}' as slice_by,
        attr_{{ attribute }} as slice_level,
        image_id,
        label,
        count(*) as n
    from human
    where attr_{{ attribute }} is not null
    group by all
    {%- endfor %}
),

pools as (
    select
        slice_by,
        slice_level,
        'human' as condition_id,
        image_id,
        label,
        n
    from human_counts
    union all
    select
        human_counts.slice_by,
        human_counts.slice_level,
        conditions.condition_id,
        human_counts.image_id,
        human_counts.label,
        human_counts.n
    from human_counts
    cross join conditions
    where human_counts.slice_by = 'all'
    union all
    select
        'all' as slice_by,
        'all' as slice_level,
        condition_id,
        image_id,
        label,
        1 as n
    from model
    where image_id in (select image_id from human)
),

alphas as (
    {{ alpha_coincidence(
        'pools', 'image_id', 'label', 'nominal', ['slice_by', 'slice_level', 'condition_id'], weight='n'
    ) }}
),

model_counts as (
    select
        condition_id,
        count(*) as n_model_values
    from model
    where image_id in (select image_id from human)
    group by condition_id
),

final as (
    select
        alphas.slice_by,
        alphas.slice_level,
        alphas.condition_id,
        alphas.alpha,
        case
            when alphas.condition_id <> 'human' then {{ delta_alpha('alphas.alpha', 'human_alphas.alpha') }}
        end as delta_alpha,
        human_alphas.alpha as human_alpha,
        alphas.n_units,
        alphas.n_values,
        cast(coalesce(model_counts.n_model_values, 0) as bigint) as n_model_values,
        alphas.alpha_null_reason,
        study_provenance.data_origin
    from alphas
    left join alphas as human_alphas
        on
            human_alphas.condition_id = 'human'
            and alphas.slice_by = human_alphas.slice_by
            and alphas.slice_level = human_alphas.slice_level
    left join model_counts on alphas.condition_id = model_counts.condition_id
    cross join study_provenance
)

select * from final
