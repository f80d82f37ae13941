select
    rater_id,
    gender,
    cast(age as integer) as age
from {{ source('landing', 'raters') }}
