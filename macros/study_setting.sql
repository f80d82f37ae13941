{#- A setting of the study being built, by its var's name (dimensions, model_dimensions,
    stimulus_factors, factor_slots, study_factors, rater_attributes, scale_min, scale_max). Every
    model and test reads the study's settings through this macro, never through var().

    `rater1001 build` passes the settings as JSON in RATER1001_STUDY, read only when a node is
    compiled for a run. Passed as --vars, which dbt hashes into its parse state, each shape of
    study cost a full parse of the project; an env var read while parsing is recorded, and its
    files re-parsed in the next folder. So nothing dbt parses may depend on a setting: no ref,
    source or config (configs are rendered at parse time; the Python models' settings come from
    build_config_dict below). While parsing, and in a plain `dbt build` without the variable, the
    value is var(name): dbt_project.yml's defaults or the user's --vars (docs/performance.md,
    "Parse: the study's settings out of the parse"). -#}
{% macro study_setting(name, default=none) -%}
{%- set settings = fromjson(env_var('RATER1001_STUDY', '{}')) if execute else {} -%}
{%- if name in settings -%}
{{- return(settings[name]) -}}
{%- endif -%}
{{- return(var(name) if default is none else var(name, default)) -}}
{%- endmacro %}


{#- dbt's build_config_dict writes the config values a Python model reads (dbt.config.get) into
    its compiled code; those rendered from the yml are the parse's. A key named after a study
    setting (calibration_scores' scale_min and scale_max) takes the run's value instead. `model`
    is this node's own copy of its dict. -#}
{% macro build_config_dict(model) -%}
{%- for key in model.config.config_keys_used if key in ['scale_min', 'scale_max'] -%}
{%- do model.config.update({key: study_setting(key)}) -%}
{%- endfor -%}
{{- dbt.build_config_dict(model) -}}
{%- endmacro %}
