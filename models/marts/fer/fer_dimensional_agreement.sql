-- Tables S2 / S3: the FER baselines' valence and arousal agreement with the human image means
-- (the dimensional_agreement rows of kind fer, all categories pooled), beside the paper's r and MAE.
-- A FER model without valence/arousal output has no row.
with dimensional_agreement as (
    select * from {{ ref('dimensional_agreement') }}
),

model_conditions as (
    select * from {{ ref('stg_model_conditions') }}
),

paper_supplement_s1 as (
    select * from {{ ref('paper_supplement_s1') }}
),

study_provenance as (
    select * from {{ ref('int_study_provenance') }}
),

final as (
    select
        dimensional_agreement.dimension,
        dimensional_agreement.condition_id,
        coalesce(model_conditions.short_name, model_conditions.display_name, dimensional_agreement.condition_id)
            as model,
        dimensional_agreement.n,
        dimensional_agreement.pearson_r,
        dimensional_agreement.mae,
        dimensional_agreement.bias,
        dimensional_agreement.sd_d,
        paper_supplement_s1.pearson_r as paper_pearson_r,
        paper_supplement_s1.mae as paper_mae,
        study_provenance.data_origin
    from dimensional_agreement
    inner join model_conditions using (condition_id)
    left join paper_supplement_s1
        on
            dimensional_agreement.condition_id = paper_supplement_s1.condition_id
            and paper_supplement_s1.paper_table = case dimensional_agreement.dimension
                when 'valence' then 'Table S2' when 'arousal' then 'Table S3'
            end
    cross join study_provenance
    where model_conditions.kind = 'fer' and dimensional_agreement.category = 'all' and dimensional_agreement.n > 0
)

select * from final
