"""The table builders behind the dbt Python models: one module per folder of models/marts/ that
has Python models (ablations, agreement, alt_test, calibration, classification, demographics,
difficulty, diversity, human_baseline, intervals, judge, replaceability, small_pools, zscores),
and `_shared` for what they have in common (reading a relation, the 'all' scope, data_origin,
condition pools, model dimensions, typing an output frame with the columns and data_type its
yml declares).

Each Python model is the same three lines: it imports its folder's module and returns the function
named like the model, handing it its refs and config values. They are spelled in the model file
because dbt finds a Python model's dependencies and config keys by reading that file's source.
The builder groups the frames and calls rater1001.stats; no statistic is defined in this package.

The folders fer, query, reliability, report and study_design hold SQL models only and have no
module here.
"""
