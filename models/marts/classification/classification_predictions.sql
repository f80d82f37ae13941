-- One row per (condition, image): the label each condition gave, beside the intended label. When
-- the humans' forced-choice labels exist (stg_human_ratings.chosen_category), a 'human' pseudo-
-- condition holds each image's majority (plurality) label; a tie between top labels has no
-- majority and gives NULL, which the classification marts count as a miss (as an unparsed model
-- answer), with the tie shown in human_vote_tied. Conditions that do not classify are left out.
-- The truth every row is scored against is the declared choice classification_truth
-- (seeds/analysis_choices.csv): the intended label (default) or the human majority label, which
-- is NULL where the humans tied or gave no label (such an image is then left out).
with human_ratings as (
    select * from {{ ref('stg_human_ratings') }}
),

stimuli as (
    select * from {{ ref('stg_stimuli') }}
),

model_vs_human as (
    select * from {{ ref('int_model_vs_human') }}
),

analysis_choices as (
    select * from {{ ref('analysis_choices') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

votes as (
    select
        image_id,
        chosen_category,
        count(*) as n
    from human_ratings
    where chosen_category is not null
    group by image_id, chosen_category
),

ranked as (
    select
        *,
        sum(n) over (partition by image_id) as n_votes,
        max(n) over (partition by image_id) as top_n
    from votes
),

majority as (
    select
        image_id,
        any_value(n_votes) as n_votes,
        any_value(top_n) as top_n,
        count(*) filter (where n = top_n) as n_top_labels,
        min(chosen_category) filter (where n = top_n) as top_label
    from ranked
    group by image_id
),

truth as (
    select coalesce(max(value) filter (where choice = 'classification_truth'), 'intended') as truth
    from analysis_choices
),

majority_label as (
    select
        image_id,
        case when n_top_labels = 1 then top_label end as label
    from majority
),

human as (
    select
        'human' as condition_id,
        majority.image_id,
        stimuli.category as true_category,
        case when majority.n_top_labels = 1 then majority.top_label end as predicted_category,
        cast(majority.n_votes as bigint) as human_n_votes,
        majority.top_n / majority.n_votes as human_vote_share,
        majority.n_top_labels > 1 as human_vote_tied
    from majority
    inner join stimuli using (image_id)
),

models as (
    select
        condition_id,
        image_id,
        true_category,
        predicted_category,
        cast(null as bigint) as human_n_votes,
        cast(null as double) as human_vote_share,
        cast(null as boolean) as human_vote_tied
    from model_vs_human
    -- A condition that never gave a label and never failed to parse one does not classify (a
    -- ratings-only study's models); a study without a category factor has nothing to classify.
    where
        {{ has_category() | lower }}
        and condition_id in (
            select classifying.condition_id from model_vs_human as classifying
            where classifying.predicted_category is not null or classifying.parse_path = 'failed'
        )
),

scored as (
    select
        predictions.* replace (
            case
                when truth.truth = 'human_majority' then majority_label.label else predictions.true_category
            end as true_category
        ),
        truth.truth
    from (
        select * from models
        union all
        select * from human
    ) as predictions
    cross join truth
    left join majority_label using (image_id)
),

final as (
    select
        scored.*,
        study_provenance.data_origin
    from scored
    cross join study_provenance
    where scored.true_category is not null
)

select * from final
