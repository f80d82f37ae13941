-- Per (condition, race, gender, intended emotion, predicted label): how many images. The
-- demographic slices (accuracy, macro-F1) and the GLMM likelihood-ratio tests of correctness are
-- functions of these counts alone; an unparsed answer keeps predicted_emotion NULL (wrong).
select
    condition_id,
    race,
    gender,
    true_emotion,
    predicted_emotion,
    count(*) as n_images
from {{ ref('int_model_vs_human') }}
group by all
