-- One row per (condition, image): the label each condition gave, beside the intended label. When
-- the humans' forced-choice labels exist (stg_human_ratings.chosen_emotion), a 'human' pseudo-
-- condition holds each image's majority (plurality) label; a tie between top labels has no
-- majority and gives NULL, which the classification marts count as a miss (as an unparsed model
-- answer), with the tie shown in human_vote_tied. Conditions that do not classify are left out.
-- The truth every row is scored against is the declared choice classification_truth
-- (seeds/analysis_choices.csv): the intended label (default) or the human majority label, which
-- is NULL where the humans tied or gave no label (such an image is then left out).
with votes as (
    select image_id, chosen_emotion, count(*) as n
    from {{ ref('stg_human_ratings') }}
    where chosen_emotion is not null
    group by image_id, chosen_emotion
),
ranked as (
    select *,
           sum(n) over (partition by image_id) as n_votes,
           max(n) over (partition by image_id) as top_n
    from votes
),
majority as (
    select image_id,
           any_value(n_votes) as n_votes,
           any_value(top_n) as top_n,
           count(*) filter (where n = top_n) as n_top_labels,
           min(chosen_emotion) filter (where n = top_n) as top_label
    from ranked
    group by image_id
),
truth as (
    select coalesce(max(value) filter (where choice = 'classification_truth'), 'intended') as truth
    from {{ ref('analysis_choices') }}
),
majority_label as (
    select image_id, case when n_top_labels = 1 then top_label end as label from majority
),
human as (
    select
        'human' as condition_id,
        m.image_id,
        s.emotion as true_emotion,
        case when m.n_top_labels = 1 then m.top_label end as predicted_emotion,
        cast(m.n_votes as bigint) as human_n_votes,
        m.top_n / m.n_votes as human_vote_share,
        m.n_top_labels > 1 as human_vote_tied
    from majority m
    join {{ ref('stg_stimuli') }} s using (image_id)
),
models as (
    select
        condition_id,
        image_id,
        true_emotion,
        predicted_emotion,
        cast(null as bigint) as human_n_votes,
        cast(null as double) as human_vote_share,
        cast(null as boolean) as human_vote_tied
    from {{ ref('int_model_vs_human') }}
    -- A condition that never gave a label and never failed to parse one does not classify (a
    -- ratings-only study's models); a study without a category factor has nothing to classify.
    where true_emotion is not null
      and condition_id in (select condition_id from {{ ref('int_model_vs_human') }}
                           where predicted_emotion is not null or parse_path = 'failed')
),
scored as (
    select u.* replace (
               case when t.truth = 'human_majority' then ml.label else u.true_emotion end as true_emotion),
           t.truth
    from (select * from models union all select * from human) u
    cross join truth t
    left join majority_label ml using (image_id)
)
select s.*, p.data_origin
from scored s
cross join {{ ref('int_study_provenance') }} p
where s.true_emotion is not null
