-- A NULL statistic in the demographic audit always says why (issue 4: defined results with
-- reasons, never a silent gap). Returns the offending rows.
select 'demographic_glmm_lrt' as mart, condition_id, factor as detail
from {{ ref('demographic_glmm_lrt') }}
where chi2 is null and reason is null
union all
select 'demographic_stratified_anova', condition_id, dimension || '/' || category || '/' || term
from {{ ref('demographic_stratified_anova') }}
where f_value is null and reason is null
union all
select 'demographic_omnibus', condition_id, dimension || '/' || factor || '/' || term
from {{ ref('demographic_omnibus') }}
where f_value is null and reason is null
union all
select 'demographic_slices', condition_id, slice_type
from {{ ref('demographic_slices') }}
where f1_gap_pp is null and gap_reason is null
