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
with stimuli as (
    select * from {{ ref('stg_stimuli') }}
),

human_ratings as (
    select * from {{ ref('stg_human_ratings') }}
),

model_conditions as (
    select * from {{ ref('stg_model_conditions') }}
),

model_predictions as (
    select * from {{ ref('stg_model_predictions') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

nodes as (
    select
        'stimuli' as node_id,
        'stimuli' as lane,
        'Stimuli' as label,
        (select count(*) from stimuli) || ' stimuli' as detail,
        0 as col,
        {{ mid }} as row
    union all
    select
        'human_ratings' as node_id,
        'human' as lane,
        'Human ratings' as label,
        (select count(distinct rater_id) || ' raters, ' || count(*) || ' ratings' from human_ratings) as detail,
        1 as col,
        {{ mid - 1 }} as row
    union all
    select
        'model_runs' as node_id,
        'models' as lane,
        'Model runs' as label,
        (select count(*) || ' conditions' from model_conditions) || ', '
        || (select count(*) from model_predictions) || ' predictions' as detail,
        1 as col,
        {{ mid + 1 }} as row
    union all
    select
        'quality_gate' as node_id,
        'warehouse' as lane,
        'Quality gate' as label,
        (select coalesce(gate_status, 'not checked') from study_provenance) as detail,
        2 as col,
        {{ mid }} as row
    union all
    select
        'staging' as node_id,
        'warehouse' as lane,
        'Staging' as label,
        '{{ layers.staging }} models' as detail,
        3 as col,
        {{ mid }} as row
    union all
    select
        'intermediate' as node_id,
        'warehouse' as lane,
        'Intermediate' as label,
        '{{ layers.intermediate }} models' as detail,
        4 as col,
        {{ mid }} as row
    {%- for folder in folder_names %}
    {%- set n_tables = folders[folder] %}
    union all
    select
        'marts/{{ folder }}' as node_id,
        'analysis' as lane,
        '{{ folder }}' as label,
        '{{ n_tables }} table{{ "s" if n_tables != 1 else "" }}' as detail,
        5 as col,
        {{ loop.index0 + (n_rows - folder_names | length) / 2 }} as row
    {%- endfor %}
    union all
    select
        'report' as node_id,
        'analysis' as lane,
        'Report' as label,
        'tables and figures' as detail,
        6 as col,
        {{ mid }} as row
),

edges (from_node, to_node) as (
    values
    ('stimuli', 'human_ratings'),
    ('stimuli', 'model_runs'),
    ('human_ratings', 'quality_gate'),
    ('model_runs', 'quality_gate'),
    ('quality_gate', 'staging'),
    ('staging', 'intermediate')
    {%- for folder in folder_names %},
    ('intermediate', 'marts/{{ folder }}'),
    ('marts/{{ folder }}', 'report')
    {%- endfor %}
),

final as (
    select
        'node' as element,
        nodes.node_id,
        nodes.lane,
        nodes.label,
        nodes.detail,
        cast(nodes.col as double) as col,
        cast(nodes.row as double) as row,
        -- a node row ends at itself, so the grain (element, node_id, to_node) has no NULL key
        nodes.node_id as to_node,
        cast(null as double) as to_col,
        cast(null as double) as to_row,
        study_provenance.data_origin
    from nodes
    cross join study_provenance
    union all
    select
        'edge' as element,
        edges.from_node as node_id,
        from_nodes.lane,
        from_nodes.label,
        null as detail,
        from_nodes.col,
        from_nodes.row,
        edges.to_node,
        to_nodes.col as to_col,
        to_nodes.row as to_row,
        study_provenance.data_origin
    from edges
    inner join nodes as from_nodes on edges.from_node = from_nodes.node_id
    inner join nodes as to_nodes on edges.to_node = to_nodes.node_id
    cross join study_provenance
)

select * from final
