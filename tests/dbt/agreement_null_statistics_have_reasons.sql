-- Issue 3: a NULL agreement statistic always says why (never a silent gap). Returns offending rows.
select 'alpha_delta' as mart, condition_id, dimension || '/' || category || '/' || metric as detail
from {{ ref('alpha_delta') }}
where alpha is null and alpha_null_reason is null
union all
select 'dimensional_agreement', condition_id, dimension || '/' || category
from {{ ref('dimensional_agreement') }}
where pearson_r is null and pearson_r_null_reason is null
