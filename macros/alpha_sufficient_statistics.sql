{#-
  Krippendorff's interval alpha from per-unit sufficient statistics (docs/stats.md; paper
  section 3.4.3). Python twin: rater1001.stats.alpha.alpha_interval_from_sufficient; both are
  tested against Krippendorff (2011) and the `krippendorff` package (tests/python/test_twins.py).

      alpha_interval = 1 - (sum_u m_u * s_u^2) / (n * s_tot^2)

  over pairable units (m_u >= 2); n = sum of their m_u; s_u^2, s_tot^2 sample variances.
  Adding a rater who rated unit u with value x only adds (1, x, x^2) to that unit's row, so
  "human + model" is a join on the stats relation, never a rebuild of the rater x image matrix.

  `stats` may be a relation name or a parenthesised subquery.
  group_by: list of column names (e.g. ['dimension', 'category']) computed independently.
-#}

{% macro alpha_unit_stats(relation, unit, value, group_by=[]) -%}
    select
        {% for g in group_by %}{{ g }}, {% endfor %}
        {{ unit }} as unit_id,
        count({{ value }}) as m,
        sum(cast({{ value }} as double)) as total,
        sum(cast({{ value }} as double) * cast({{ value }} as double)) as total_sq
    from {{ relation }}
    where {{ value }} is not null
    group by {% for g in group_by %}{{ g }}, {% endfor %}{{ unit }}
{%- endmacro %}

{% macro alpha_interval_from_stats(stats, group_by=[], m='m', total='total', total_sq='total_sq') -%}
    with _pairable as (
        select *,
               -- within-unit sum of squared deviations, clamped against rounding below zero
               greatest({{ total_sq }} - {{ total }} * {{ total }} / {{ m }}, 0) as _ss_u
        from {{ stats }} as _stats
        where {{ m }} >= 2
    ),

    _per_group as (
        select
            {% for g in group_by %}{{ g }}, {% endfor %}
            count(*) as n_units,
            sum({{ m }}) as n_values,
            sum({{ m }} * _ss_u / ({{ m }} - 1)) as sum_m_s2,
            greatest(sum({{ total_sq }}) - sum({{ total }}) * sum({{ total }}) / sum({{ m }}), 0) as ss_total
        from _pairable
        {% if group_by %}group by {{ group_by | join(', ') }}{% endif %}
    )

    select
        {% for g in group_by %}{{ g }}, {% endfor %}
        case when n_values >= 2 and ss_total > 0
             then 1 - sum_m_s2 / (n_values * ss_total / (n_values - 1))
        end as alpha,
        cast(n_units as bigint) as n_units,
        cast(n_values as bigint) as n_values,
        case when coalesce(n_values, 0) < 2 then 'fewer than two pairable values'
             when ss_total <= 0 then 'no variation among pairable values'
        end as alpha_null_reason
    from _per_group
{%- endmacro %}

{#- A unit's sufficient statistics after one more rater (the model) whose value on it is `extra`
    (NULL where it did not rate the unit, which then keeps the pool's): each rated unit gains
    (1, x, x^2). Columns m, total, total_sq, each with `suffix`. Python twin:
    rater1001.stats.alpha_sums.with_extra_rater. -#}
{% macro with_extra_rater_columns(m, total, total_sq, extra, suffix='') -%}
    {{ m }} + case when {{ extra }} is null then 0 else 1 end as m{{ suffix }},
    {{ total }} + coalesce({{ extra }}, 0) as total{{ suffix }},
    {{ total_sq }} + coalesce({{ extra }} * {{ extra }}, 0) as total_sq{{ suffix }}
{%- endmacro %}
