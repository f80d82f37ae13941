select
    sample_id,
    category,
    situation,
    turns,
    cast(json_array_length(turns) as integer) as n_turns,
    next_speaker,
    source
from {{ source('judge_landing', 'dialogues') }}
