-- Per (condition, audit_1, audit_2, intended category, predicted label): how many images. The
-- demographic slices (accuracy, macro-F1) and the GLMM likelihood-ratio tests of correctness are
-- functions of these counts alone; an unparsed answer keeps predicted_category NULL (wrong).
select
    condition_id,
    audit_1,
    audit_2,
    true_category,
    predicted_category,
    count(*) as n_images
from {{ ref('int_model_vs_human') }}
group by all
