-- Tables S2 / S3: the FER baselines' valence and arousal agreement with the human image means
-- (the dimensional_agreement rows of kind fer, all emotions pooled), beside the paper's r and MAE.
-- A FER model without valence/arousal output has no row.
select
    d.dimension,
    d.condition_id,
    coalesce(c.short_name, c.display_name, d.condition_id) as model,
    d.n,
    d.pearson_r,
    d.mae,
    d.bias,
    d.sd_d,
    p.pearson_r as paper_pearson_r,
    p.mae as paper_mae,
    pr.data_origin
from {{ ref('dimensional_agreement') }} d
join {{ ref('stg_model_conditions') }} c using (condition_id)
left join {{ ref('paper_supplement_s1') }} p
  on p.condition_id = d.condition_id
 and p.paper_table = case d.dimension when 'valence' then 'Table S2' when 'arousal' then 'Table S3' end
cross join {{ ref('int_study_provenance') }} pr
where c.kind = 'fer' and d.emotion = 'all' and d.n > 0
