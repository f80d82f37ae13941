-- Figure 1 (the study pipeline) as data, drawn from the project itself: the landed inputs with
-- their sizes, the quality gate, the dbt layers with the number of models dbt's graph holds in
-- each, one node per mart folder (models/marts/<question>/), and the report. element 'node' rows
-- place a stage on a grid (col, row); element 'edge' rows join two stages. Lanes follow the
-- paper's colours: stimuli, human, models, warehouse, analysis.
{%- set layers = {'staging': 0, 'intermediate': 0} %}
{%- set folders = {} %}
{%- if execute %}
{%- for node in graph.nodes.values() if node.resource_type == 'model' and node.package_name == project_name %}
{%- if node.fqn | length > 2 and node.fqn[1] == 'marts' %}
{%- do folders.update({node.fqn[2]: folders.get(node.fqn[2], 0) + 1}) %}
{%- elif node.fqn[1] in layers %}
{%- do layers.update({node.fqn[1]: layers[node.fqn[1]] + 1}) %}
{%- endif %}
{%- endfor %}
{%- endif %}
{%- set folder_names = folders.keys() | list | sort %}
{%- set n_rows = [folder_names | length, 2] | max %}
{%- set mid = (n_rows - 1) / 2 %}
with nodes as (
    select 'stimuli' as node_id, 'stimuli' as lane, 'Stimuli' as label,
           (select count(*) from {{ ref('stg_stimuli') }}) || ' stimuli' as detail, 0 as col, {{ mid }} as row
    union all
    select 'human_ratings', 'human', 'Human ratings',
           (select count(distinct rater_id) || ' raters, ' || count(*) || ' ratings' from {{ ref('stg_human_ratings') }}),
           1, {{ mid - 1 }}
    union all
    select 'model_runs', 'models', 'Model runs',
           (select count(*) || ' conditions' from {{ ref('stg_model_conditions') }}) || ', '
           || (select count(*) from {{ ref('stg_model_predictions') }}) || ' predictions',
           1, {{ mid + 1 }}
    union all
    select 'quality_gate', 'warehouse', 'Quality gate',
           (select coalesce(gate_status, 'not checked') from {{ ref('int_study_provenance') }}), 2, {{ mid }}
    union all
    select 'staging', 'warehouse', 'Staging', '{{ layers.staging }} models', 3, {{ mid }}
    union all
    select 'intermediate', 'warehouse', 'Intermediate', '{{ layers.intermediate }} models', 4, {{ mid }}
    {%- for f in folder_names %}
    union all
    select 'marts/{{ f }}', 'analysis', '{{ f }}', '{{ folders[f] }} table{{ "s" if folders[f] != 1 else "" }}', 5,
           {{ loop.index0 + (n_rows - folder_names | length) / 2 }}
    {%- endfor %}
    union all
    select 'report', 'analysis', 'Report', 'tables and figures', 6, {{ mid }}
),
edges(from_node, to_node) as (
    values ('stimuli', 'human_ratings'), ('stimuli', 'model_runs'), ('human_ratings', 'quality_gate'),
           ('model_runs', 'quality_gate'), ('quality_gate', 'staging'), ('staging', 'intermediate')
    {%- for f in folder_names %}, ('intermediate', 'marts/{{ f }}'), ('marts/{{ f }}', 'report'){% endfor %}
)
select 'node' as element, n.node_id, n.lane, n.label, n.detail, cast(n.col as double) as col,
       cast(n.row as double) as row, cast(null as varchar) as to_node, cast(null as double) as to_col,
       cast(null as double) as to_row, prov.data_origin
from nodes n
cross join {{ ref('int_study_provenance') }} prov
union all
select 'edge', e.from_node, a.lane, a.label, null, a.col, a.row, e.to_node, b.col, b.row, prov.data_origin
from edges e
join nodes a on a.node_id = e.from_node
join nodes b on b.node_id = e.to_node
cross join {{ ref('int_study_provenance') }} prov
