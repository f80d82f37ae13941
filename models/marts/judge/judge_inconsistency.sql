-- Per judge, pair of candidates, variant and axis: how often the two presentation orders disagree.
select
    judge_id,
    judge_kind,
    candidate_a,
    candidate_b,
    variant,
    axis,
    count(*) filter (where is_complete) as n_pairs_complete,
    count(*) filter (where not is_complete) as n_pairs_incomplete,
    count(*) filter (where is_complete and is_consistent = false) as n_inconsistent,
    case when count(*) filter (where is_complete) > 0
        then (count(*) filter (where is_complete and is_consistent = false))::double
             / count(*) filter (where is_complete)
    end as inconsistency_rate
from {{ ref('judge_pair_verdicts') }}
where judge_kind = 'llm'
group by all
