{{ config(materialized='view') }}
-- For ad hoc queries: every judged pair with its two presentation orders side by side: the raw
-- position verdict and parse status of the AB and the BA order (int_judge_verdicts_long) beside the
-- winners they mean and the consolidated verdict (judge_pair_verdicts).
with orders as (
    select * from {{ ref('int_judge_verdicts_long') }}
),

pair_verdicts as (
    select * from {{ ref('judge_pair_verdicts') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

final as (
    select
        pair_verdicts.judge_id,
        pair_verdicts.judge_kind,
        pair_verdicts.sample_id,
        pair_verdicts.category,
        pair_verdicts.variant,
        pair_verdicts.axis,
        pair_verdicts.candidate_a,
        pair_verdicts.candidate_b,
        order_ab.position_verdict as position_verdict_ab,
        order_ab.parse_status as parse_status_ab,
        order_ba.position_verdict as position_verdict_ba,
        order_ba.parse_status as parse_status_ba,
        pair_verdicts.winner_ab,
        pair_verdicts.winner_ba,
        pair_verdicts.is_consistent,
        pair_verdicts.final_verdict,
        pair_verdicts.winner_candidate,
        study_provenance.data_origin
    from pair_verdicts
    left join orders as order_ab
        on
            order_ab.presentation_order = 'AB'
            and (
                order_ab.judge_id, order_ab.sample_id, order_ab.variant,
                order_ab.candidate_a, order_ab.candidate_b, order_ab.axis
            ) = (
                pair_verdicts.judge_id, pair_verdicts.sample_id, pair_verdicts.variant,
                pair_verdicts.candidate_a, pair_verdicts.candidate_b, pair_verdicts.axis
            )
    left join orders as order_ba
        on
            order_ba.presentation_order = 'BA'
            and (
                order_ba.judge_id, order_ba.sample_id, order_ba.variant,
                order_ba.candidate_a, order_ba.candidate_b, order_ba.axis
            ) = (
                pair_verdicts.judge_id, pair_verdicts.sample_id, pair_verdicts.variant,
                pair_verdicts.candidate_a, pair_verdicts.candidate_b, pair_verdicts.axis
            )
    cross join study_provenance
)

select * from final
