{{ config(materialized='view') }}
-- For ad hoc queries: every judged pair with its two presentation orders side by side: the raw
-- position verdict and parse status of the AB and the BA order (stg_judge_verdicts) beside the
-- winners they mean and the consolidated verdict (judge_pair_verdicts).
with orders as (
    select * from {{ ref('stg_judge_verdicts') }}
)
select
    p.judge_id,
    p.judge_kind,
    p.sample_id,
    p.category,
    p.variant,
    p.axis,
    p.candidate_a,
    p.candidate_b,
    ab.position_verdict as position_verdict_ab,
    ab.parse_status as parse_status_ab,
    ba.position_verdict as position_verdict_ba,
    ba.parse_status as parse_status_ba,
    p.winner_ab,
    p.winner_ba,
    p.is_consistent,
    p.final_verdict,
    p.winner_candidate,
    prov.data_origin
from {{ ref('judge_pair_verdicts') }} p
left join orders ab
  on ab.presentation_order = 'AB' and (ab.judge_id, ab.sample_id, ab.variant, ab.candidate_a, ab.candidate_b, ab.axis)
     = (p.judge_id, p.sample_id, p.variant, p.candidate_a, p.candidate_b, p.axis)
left join orders ba
  on ba.presentation_order = 'BA' and (ba.judge_id, ba.sample_id, ba.variant, ba.candidate_a, ba.candidate_b, ba.axis)
     = (p.judge_id, p.sample_id, p.variant, p.candidate_a, p.candidate_b, p.axis)
cross join {{ ref('int_study_provenance') }} prov
