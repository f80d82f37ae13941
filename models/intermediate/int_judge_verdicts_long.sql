{#- One row per call and axis. The axes are the contract's verdict_<axis> columns; their labels
    and order live in the judge_axes seed. A NULL verdict (not parsed) is kept: the consistency
    rule needs to know an order was attempted but unreadable. -#}
{%- set axes = ['empathy', 'naturalness', 'coherence', 'overall'] %}
with judge_verdicts as (
    select * from {{ ref('stg_judge_verdicts') }}
),

unpivoted as (
    {%- for axis in axes %}
    select
        judge_id,
        judge_kind,
        sample_id,
        variant,
        candidate_a,
        candidate_b,
        presentation_order,
        '{{ axis }}' as axis,
        verdict_{{ axis }} as position_verdict,
        parse_status
    from judge_verdicts
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
)

select * from unpivoted
