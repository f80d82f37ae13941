{#- One row per call and axis. The axes are the contract's verdict_<axis> columns the study
    declares (study.yml judge.axes, default all four); their labels and order live in the judge_axes
    seed. A NULL verdict (not parsed) is kept: the consistency rule needs to know an order was
    attempted but unreadable. single_order_ok: a verdict of one order stands alone (a human, or
    every judge of a study that declares judge.orders: one). -#}
{%- set axes = study_setting('judge_axes') %}
{%- set one_order = study_setting('judge_orders') == 'one' %}
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
        parse_status,
        {% if one_order %}true{% else %}judge_kind = 'human'{% endif %} as single_order_ok
    from judge_verdicts
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
)

select * from unpivoted
