-- Sufficient statistics of the rater-type LMM (lmm_rater_type), per (condition, dimension, category):
-- with two rows per image (the human mean and the model), the model - human difference and the
-- sum of the two are independent, so the REML and ML fits need only each cell's count, mean and
-- sum of squared deviations of both (docs/marts_agreement.md, "lmm_rater_type in closed form").
-- The scan over one row per (condition, image, dimension) happens here, once.
select
    condition_id,
    dimension,
    category,
    {{ rater_type_cell_stats('human_mean', 'model_value') }}
from {{ ref('int_model_vs_human_long') }}
group by all
