-- Per (condition, audit factor, level, intended category, correct): how many stimuli, for every
-- declared audit factor (the long form stg_stimulus_factor_levels). The GLMM likelihood-ratio
-- tests of correctness are functions of these counts alone. An unparsed or never-given answer is
-- wrong (correct false), so no key is NULL; a stimulus without a level of a factor has no row
-- for it.
with answers as (
    select
        condition_id,
        image_id,
        true_category,
        coalesce(predicted_category = true_category, false) as correct
    from {{ ref('int_model_vs_human') }}
    where true_category is not null
)

select
    answers.condition_id,
    levels.factor,
    levels.level,
    answers.true_category,
    answers.correct,
    count(*) as n_images
from answers
inner join {{ ref('stg_stimulus_factor_levels') }} as levels
    on answers.image_id = levels.image_id and levels.role = 'audit'
group by all
