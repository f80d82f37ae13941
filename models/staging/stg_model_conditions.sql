select *
from {{ source('landing', 'model_conditions') }}
