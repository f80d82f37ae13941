-- The inputs of every replaceability verdict, one row per (emotion, measure, condition): for
-- valence / arousal the condition's per-emotion W1SD, mean |z|, interval delta alpha (the emotion's
-- and the condition's pooled over all images: the rules' delta_alpha_scope picks one), Bland-Altman
-- bias and SD_d and number of distinct values, beside the same emotion's human LOO W1SD, mean |z|
-- and mean per-image human SD; for classification the one-vs-rest kappa, recall and precision.
-- replaceability_verdicts applies seeds/verdict_rules.csv to exactly these rows. Only conditions of
-- the 'replaceability' pool (seeds/condition_pools.csv: VLMs; FER baselines are not counted).
with pool as (
    select condition_id from {{ ref('int_condition_pools') }} where pool = 'replaceability'
),
z as (
    select condition_id, dimension, emotion, w1sd, mean_abs_z
    from {{ ref('zscore_summary') }}
    where condition_id <> 'human_loo' and emotion <> 'all'
      and condition_id in (select condition_id from pool)
),
loo as (
    select dimension, emotion, w1sd as human_loo_w1sd, mean_abs_z as human_loo_mean_abs_z
    from {{ ref('zscore_summary') }}
    where condition_id = 'human_loo' and emotion <> 'all'
),
human_sd as (
    select dimension, emotion, avg(human_sd) as human_sd
    from {{ ref('int_image_human_stats') }}
    group by dimension, emotion
),
dimension_rows as (
    select
        z.emotion,
        z.dimension as measure,
        z.condition_id,
        z.w1sd,
        z.mean_abs_z,
        a.delta_alpha,
        ap.delta_alpha as delta_alpha_pooled,
        d.bias,
        d.sd_d,
        v.n_unique,
        cast(null as double) as kappa,
        cast(null as double) as recall,
        cast(null as double) as "precision",
        l.human_loo_w1sd,
        l.human_loo_mean_abs_z,
        h.human_sd
    from z
    left join {{ ref('alpha_delta') }} a
      on a.condition_id = z.condition_id and a.dimension = z.dimension and a.emotion = z.emotion
     and a.metric = 'interval'
    left join {{ ref('alpha_delta') }} ap
      on ap.condition_id = z.condition_id and ap.dimension = z.dimension and ap.emotion = 'all'
     and ap.metric = 'interval'
    left join {{ ref('dimensional_agreement') }} d
      on d.condition_id = z.condition_id and d.dimension = z.dimension and d.emotion = z.emotion
    left join {{ ref('response_diversity') }} v
      on v.condition_id = z.condition_id and v.dimension = z.dimension and v.emotion = z.emotion
    left join loo l on l.dimension = z.dimension and l.emotion = z.emotion
    left join human_sd h on h.dimension = z.dimension and h.emotion = z.emotion
),
classification_rows as (
    select
        emotion,
        'classification' as measure,
        condition_id,
        cast(null as double), cast(null as double), cast(null as double), cast(null as double),
        cast(null as double), cast(null as double), cast(null as bigint),
        kappa_one_vs_rest, recall, "precision",
        cast(null as double), cast(null as double), cast(null as double)
    from {{ ref('classification_by_emotion') }}
    where condition_id <> 'human' and condition_id in (select condition_id from pool)
)
select u.*, p.data_origin
from (select * from dimension_rows union all select * from classification_rows) u
cross join {{ ref('int_study_provenance') }} p
