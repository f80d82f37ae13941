{#-
  Human pairwise MAE (paper Supplement S4, Table S8): mean |y_a - y_b| over all unordered pairs of
  ratings of the same unit, pooled over units, from the GROUP BY (unit, value) counts c_v:
      per unit  sum_{v < w} c_v c_w |v - w|,   pairs m (m - 1) / 2
  so it never forms the ~1,225 rating pairs of each image. Python twin:
  rater1001.stats.agreement.human_pairwise_mae (tests/python/test_twins.py). Emits a complete SELECT: group columns, human_pairwise_mae,
  n_rating_pairs.
-#}
{% macro human_pairwise_mae(relation, unit, value, group_by=[]) -%}
    {%- set gsel %}{% for g in group_by %}{{ g }}, {% endfor %}{% endset -%}
    with _counts as (
        select {{ gsel }} {{ unit }} as _unit, cast({{ value }} as double) as _value, count(*) as c
        from {{ relation }}
        where {{ value }} is not null
        group by {{ gsel }} {{ unit }}, {{ value }}
    ),

    _abs as (
        select {% for g in group_by %}lower_value.{{ g }}, {% endfor %}
               sum(lower_value.c * higher_value.c * (higher_value._value - lower_value._value)) as abs_sum
        from _counts as lower_value
        inner join _counts as higher_value
            on higher_value._unit = lower_value._unit and higher_value._value > lower_value._value
            {% for g in group_by %}and higher_value.{{ g }} = lower_value.{{ g }} {% endfor %}
        {% if group_by %}group by {% for g in group_by %}lower_value.{{ g }}{% if not loop.last %}, {% endif %}{% endfor %}{% endif %}
    ),

    _pairs as (
        select {{ gsel }} sum(m * (m - 1) / 2) as n_pairs
        from (select {{ gsel }} _unit, sum(c) as m from _counts group by {{ gsel }} _unit)
        {% if group_by %}group by {{ group_by | join(', ') }}{% endif %}
    )

    select {% for g in group_by %}_pairs.{{ g }}, {% endfor %}
           coalesce(_abs.abs_sum, 0) / nullif(_pairs.n_pairs, 0) as human_pairwise_mae,
           cast(_pairs.n_pairs as bigint) as n_rating_pairs
    from _pairs
    left join _abs {% if group_by %}using ({{ group_by | join(', ') }}){% else %}on true{% endif %}
{%- endmacro %}
