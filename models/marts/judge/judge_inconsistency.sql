-- Per judge, pair of candidates, variant and axis: how often the two presentation orders disagree.
with pair_verdicts as (
    select * from {{ ref('judge_pair_verdicts') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

inconsistency as (
    select
        pair_verdicts.judge_id,
        pair_verdicts.judge_kind,
        pair_verdicts.candidate_a,
        pair_verdicts.candidate_b,
        pair_verdicts.variant,
        pair_verdicts.axis,
        count(*) filter (where pair_verdicts.is_complete) as n_pairs_complete,
        count(*) filter (where not pair_verdicts.is_complete) as n_pairs_incomplete,
        count(*) filter (where pair_verdicts.is_complete and pair_verdicts.is_consistent = false) as n_inconsistent,
        case
            when count(*) filter (where pair_verdicts.is_complete) > 0
                then cast(
                    count(*) filter (where pair_verdicts.is_complete and pair_verdicts.is_consistent = false) as double
                )
                / count(*) filter (where pair_verdicts.is_complete)
        end as inconsistency_rate,
        any_value(study_provenance.data_origin) as data_origin
    from pair_verdicts
    cross join study_provenance
    where pair_verdicts.judge_kind = 'llm'
    group by
        pair_verdicts.judge_id,
        pair_verdicts.judge_kind,
        pair_verdicts.candidate_a,
        pair_verdicts.candidate_b,
        pair_verdicts.variant,
        pair_verdicts.axis
)

select * from inconsistency
