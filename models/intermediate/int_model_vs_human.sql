-- One row per (condition, image): the model's answer beside the image's human statistics and
-- design factors. Bland-Altman differences follow the paper's sign (human mean minus model), and z
-- places the model's value in the image's human distribution. When a condition has several runs,
-- its first run_id (in sort order) is the primary run used here; replicate runs stay in staging.
-- Every condition has a row for every stimulus: a stimulus the condition never answered (no
-- prediction row) is a missing answer (docs/stats.md), with NULL run, label and values, so every
-- mart that reads this counts it against the condition as it counts an unparsed answer.
with model_predictions as (
    select * from {{ ref('stg_model_predictions') }}
),

stimuli as (
    select * from {{ ref('stg_stimuli') }}
),

image_human_stats as (
    select * from {{ ref('int_image_human_stats') }}
),

primary_run as (
    select *
    from model_predictions
    qualify row_number() over (partition by condition_id, image_id order by run_id) = 1
),

asked as (
    select
        conditions.condition_id,
        stimuli.image_id
    from (select distinct condition_id from primary_run) as conditions
    cross join stimuli
),

beside_humans as (
    select
        asked.condition_id,
        asked.image_id,
        primary_run.run_id,
        stimuli.identity_id,
        stimuli.audit_1,
        stimuli.audit_2,
        stimuli.category as true_category,
        primary_run.predicted_category,
        case
            when primary_run.predicted_category is not null
                then primary_run.predicted_category = stimuli.category
        end as correct,
        primary_run.parse_path,
        primary_run.thinking_tokens
        {%- for dim in study_setting('model_dimensions') %},
        primary_run.model_{{ dim }},
        human_{{ dim }}.n_ratings as human_n_{{ dim }},
        human_{{ dim }}.human_mean as human_mean_{{ dim }},
        human_{{ dim }}.human_sd as human_sd_{{ dim }},
        human_{{ dim }}.human_mean - primary_run.model_{{ dim }} as d_{{ dim }},
        {{ zscore('primary_run.model_' ~ dim, 'human_' ~ dim ~ '.human_mean', 'human_' ~ dim ~ '.human_sd') }}
            as z_{{ dim }}
        {%- endfor %}
    from asked
    inner join stimuli on asked.image_id = stimuli.image_id
    left join primary_run on asked.condition_id = primary_run.condition_id and asked.image_id = primary_run.image_id
    {%- for dim in study_setting('model_dimensions') %}
    left join image_human_stats as human_{{ dim }}
        on asked.image_id = human_{{ dim }}.image_id and human_{{ dim }}.dimension = '{{ dim }}'
    {%- endfor %}
)

select * from beside_humans
