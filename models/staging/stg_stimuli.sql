select
    image_id,
    identity_id,
    race,
    gender,
    emotion,
    file_path
from {{ source('landing', 'stimuli') }}
