-- The text of each text stimulus (study.yml stimulus_kind: text), verbatim from the landing's
-- stimuli.text column; an image study has no rows.
select image_id, text
from {{ source('landing', 'stimuli') }}
where text is not null
