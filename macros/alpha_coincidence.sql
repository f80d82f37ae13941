{#-
  Krippendorff's alpha for any metric via the coincidence matrix (Krippendorff 2011; paper
  section 3.4.3): one GROUP BY (unit, value) gives n_uv, then

      o_ck = sum_u n_uc * (n_uk - [c = k]) / (m_u - 1)        (pairable units, m_u >= 2)
      n_c  = sum_k o_ck,  n = sum_c n_c
      alpha = 1 - (n - 1) * sum_ck o_ck d_ck / sum_ck n_c n_k d_ck

  with d_ck: nominal [c != k]; interval (c - k)^2; ratio ((c - k) / (c + k))^2;
  ordinal (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2.
  Python twin: rater1001.stats.alpha.alpha_from_value_counts (same tests, same references).
-#}

{% macro alpha_delta(level, c, k, cum_c, cum_k, n_c, n_k) -%}
    {%- if level == 'nominal' -%}
        (case when {{ c }} = {{ k }} then 0.0 else 1.0 end)
    {%- elif level == 'interval' -%}
        power(cast({{ c }} as double) - {{ k }}, 2)
    {%- elif level == 'ratio' -%}
        (case when {{ c }} + {{ k }} = 0 then 0.0
              else power((cast({{ c }} as double) - {{ k }}) / ({{ c }} + {{ k }}), 2) end)
    {%- elif level == 'ordinal' -%}
        {#- sum of marginals from the lower to the higher value, minus half of each end's -#}
        power(case when {{ c }} <= {{ k }}
                   then {{ cum_k }} - {{ cum_c }} + ({{ n_c }} - {{ n_k }}) / 2.0
                   else {{ cum_c }} - {{ cum_k }} + ({{ n_k }} - {{ n_c }}) / 2.0 end, 2)
    {%- else -%}
        {{ exceptions.raise_compiler_error("alpha level must be nominal, ordinal, interval or ratio, got " ~ level) }}
    {%- endif -%}
{%- endmacro %}

{#- weight (optional): a column holding how many identical (unit, value) ratings a row stands for,
    so a caller can pass pre-counted values instead of one row per rating.
    order (optional): the declared level order of text labels (display_order of
    seeds/factor_labels.csv); the labels' positions in it are the values. Without it, ordinal,
    interval and ratio alpha on text labels is a run-time error (alphabetical order is not an
    order), and so is a label outside the order. Python twin: rater1001.stats.alpha.alpha(order=). -#}
{% macro _ordered_value(value, level, order) -%}
    {%- if order is not none -%}
        {%- set pos -%}
        list_position([{% for o in order %}'{{ o | replace("'", "''") }}'{% if not loop.last %}, {% endif %}{% endfor %}], {{ value }})
        {%- endset -%}
        case when {{ value }} is not null and {{ pos }} is null
             then error('column {{ value }}: value ' || {{ value }} || ' is not in the declared level order')
             else {{ pos }} end
    {%- elif level != 'nominal' -%}
        case when typeof({{ value }}) = 'VARCHAR'
             then error('{{ level }} alpha on the text labels of column {{ value }} needs their declared level order')
             else {{ value }} end
    {%- else -%}
        {{ value }}
    {%- endif -%}
{%- endmacro %}

{% macro alpha_coincidence(relation, unit, value, level='interval', group_by=[], weight=none, order=none) -%}
    {%- set gcols = group_by | join(', ') -%}
    {%- set gsel %}{% for g in group_by %}{{ g }}, {% endfor %}{% endset -%}
    with _nuv as (
        select {{ gsel }} {{ unit }} as _unit, {{ _ordered_value(value, level, order) }} as _value,
               {% if weight %}sum({{ weight }}){% else %}count(*){% endif %} as n_uv
        from {{ relation }}
        where {{ value }} is not null
        group by all
    ),

    _units as (
        select {{ gsel }} _unit, sum(n_uv) as m_u
        from _nuv group by {{ gsel }} _unit
        having sum(n_uv) >= 2
    ),

    _pairable as (
        select _nuv.*, _units.m_u from _nuv inner join _units using ({{ gsel }} _unit)
    ),

    _coincidence as (
        select {{ gsel }} value_c._value as c, value_k._value as k,
               sum(case when value_c._value = value_k._value then value_c.n_uv * (value_c.n_uv - 1)
                        else value_c.n_uv * value_k.n_uv end
                   / (value_c.m_u - 1.0)) as o_ck
        from _pairable as value_c inner join _pairable as value_k using ({{ gsel }} _unit)
        group by {{ gsel }} value_c._value, value_k._value
    ),

    _unit_counts as (
        select {{ gsel }} count(*) as n_units from _units {% if group_by %}group by {{ gcols }}{% endif %}
    )

    select * from ({{ alpha_from_coincidence('_coincidence', '_unit_counts', level, group_by) }})
{%- endmacro %}

{#- The alpha of a coincidence matrix: `coincidence` has the group_by columns, c, k and o_ck (one row
    per value pair that occurs); `unit_counts` the group_by columns and n_units (pairable units).
    Split from alpha_coincidence so that a caller who builds o_ck another way (alpha_delta adds a
    model's values to the human matrix without repeating the human ratings per condition) shares
    the same marginals, distances and alpha. -#}
{% macro alpha_from_coincidence(coincidence, unit_counts, level='interval', group_by=[]) -%}
    {%- set gcols = group_by | join(', ') -%}
    {%- set gsel %}{% for g in group_by %}{{ g }}, {% endfor %}{% endset -%}
    with _marginals as (
        select {{ gsel }} c as v, sum(o_ck) as n_v
        from {{ coincidence }} group by {{ gsel }} c
    ),

    _cumulative as (
        select *, sum(n_v) over (
            {% if group_by %}partition by {{ gcols }}{% endif %} order by v
            rows between unbounded preceding and current row) as cum_v
        from _marginals
    ),

    _n as (
        select {{ gsel }} sum(n_v) as n_values from _marginals {% if group_by %}group by {{ gcols }}{% endif %}
    ),

    -- one join at a time: left to itself, the planner joined the marginals with themselves on
    -- the group columns first (values x values rows per group), then with the matrix
    _with_c as materialized (
        select pairs.*, mc.cum_v as cum_c, mc.n_v as n_c
        from {{ coincidence }} as pairs
        inner join _cumulative as mc on mc.v = pairs.c {% for g in group_by %}and mc.{{ g }} = pairs.{{ g }} {% endfor %}
    ),

    _observed as (
        select {% for g in group_by %}pairs.{{ g }}, {% endfor %}sum(pairs.o_ck * {{ alpha_delta(level, 'pairs.c', 'pairs.k', 'pairs.cum_c', 'mk.cum_v', 'pairs.n_c', 'mk.n_v') }}) as d_obs
        from _with_c as pairs
        inner join _cumulative as mk on mk.v = pairs.k {% for g in group_by %}and mk.{{ g }} = pairs.{{ g }} {% endfor %}
        {% if group_by %}group by {% for g in group_by %}pairs.{{ g }}{% if not loop.last %}, {% endif %}{% endfor %}{% endif %}
    ),

    {%- if level in ('nominal', 'interval', 'ordinal') %}

    -- sum_ck n_c n_k d_ck without the values x values join (continuous model values make that
    -- quadratic in the study's size): nominal n^2 - sum n_v^2; interval 2 n sum n_v (v - mean)^2;
    -- ordinal the same on the mid-rank position cum_v - n_v / 2, since its d_ck is the squared
    -- difference of those positions
    _positions as (
        select *, {% if level == 'ordinal' %}cum_v - n_v / 2.0{% else %}cast(v as double){% endif %} as _x,
               sum(n_v) over ({% if group_by %}partition by {{ gcols }}{% endif %}) as _n
        from _cumulative
    ),

    _centred as (
        select *, _x - sum(n_v * _x) over ({% if group_by %}partition by {{ gcols }}{% endif %}) / _n as _dx
        from _positions
    ),

    _expected as (
        select {{ gsel }}
               {% if level == 'nominal' %}max(_n) * max(_n) - sum(n_v * n_v){% else %}2 * max(_n) * sum(n_v * _dx * _dx){% endif %} as d_exp
        from _centred
        {% if group_by %}group by {{ gcols }}{% endif %}
    )
    {%- else %}

    _expected as (
        select {% for g in group_by %}mc.{{ g }}, {% endfor %}
               sum(mc.n_v * mk.n_v * {{ alpha_delta(level, 'mc.v', 'mk.v', 'mc.cum_v', 'mk.cum_v', 'mc.n_v', 'mk.n_v') }}) as d_exp
        from _cumulative as mc
        inner join _cumulative as mk on true {% for g in group_by %}and mk.{{ g }} = mc.{{ g }} {% endfor %}
        {% if group_by %}group by {% for g in group_by %}mc.{{ g }}{% if not loop.last %}, {% endif %}{% endfor %}{% endif %}
    )
    {%- endif %}

    select
        {% for g in group_by %}_n.{{ g }}, {% endfor %}
        '{{ level }}' as metric,
        case when _n.n_values >= 2 and _expected.d_exp > 0
             then 1 - (_n.n_values - 1) * _observed.d_obs / _expected.d_exp
        end as alpha,
        cast(_unit_counts.n_units as bigint) as n_units,
        cast(round(_n.n_values) as bigint) as n_values,
        case when coalesce(_n.n_values, 0) < 2 then 'fewer than two pairable values'
             when _expected.d_exp <= 0 then 'no variation among pairable values'
        end as alpha_null_reason
    from _n
    {% if group_by -%}
    inner join _observed using ({{ gcols }})
    inner join _expected using ({{ gcols }})
    inner join {{ unit_counts }} as _unit_counts using ({{ gcols }})
    {%- else -%}
    cross join _observed cross join _expected cross join {{ unit_counts }} as _unit_counts
    {%- endif %}
{%- endmacro %}
