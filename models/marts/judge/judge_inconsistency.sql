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
    end as inconsistency_rate,
    any_value(p.data_origin) as data_origin
from {{ ref('judge_pair_verdicts') }} v
cross join {{ ref('int_study_provenance') }} p
where judge_kind = 'llm'
group by v.judge_id, v.judge_kind, v.candidate_a, v.candidate_b, v.variant, v.axis
