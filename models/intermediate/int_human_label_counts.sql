-- One row per (image, forced-choice label a human rater chose): how many of the image's raters
-- chose it. The scan over individual ratings happens here, once; the demographic slices read
-- these per-image counts to give the human row of Tables 7 / 7a. Ratings without a label (the
-- real study collected none) are left out, so a study without human labels has no rows. The
-- counts group by (image, label) alone, and the stimulus's slots join after: no key is NULL.
with human_ratings as (
    select * from {{ ref('stg_human_ratings') }}
),

stimuli as (
    select * from {{ ref('stg_stimuli') }}
),

label_counts as (
    select
        image_id,
        chosen_category,
        count(*) as n_labels
    from human_ratings
    where chosen_category is not null
    group by image_id, chosen_category
)

select
    label_counts.image_id,
    stimuli.audit_1,
    stimuli.audit_2,
    stimuli.category as true_category,
    label_counts.chosen_category,
    label_counts.n_labels
from label_counts
inner join stimuli on label_counts.image_id = stimuli.image_id
