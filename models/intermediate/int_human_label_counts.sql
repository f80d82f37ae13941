-- One row per (image, forced-choice label a human rater chose): how many of the image's raters
-- chose it. The scan over individual ratings happens here, once; the demographic slices read
-- these per-image counts to give the human row of Tables 7 / 7a. Ratings without a label (the
-- real study collected none) are left out, so a study without human labels has no rows.
select
    r.image_id,
    s.race,
    s.gender,
    s.emotion as true_emotion,
    r.chosen_emotion,
    count(*) as n_labels
from {{ ref('stg_human_ratings') }} r
join {{ ref('stg_stimuli') }} s using (image_id)
where r.chosen_emotion is not null
group by all
