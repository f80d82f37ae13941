-- Table S1: every model condition (VLMs and FER baselines) ranked by accuracy, with kappa, type
-- and thinking, beside the paper's rank, accuracy and kappa where the paper printed the condition.
with classification_summary as (
    select * from {{ ref('classification_summary') }}
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
        rank() over (order by classification_summary.accuracy desc nulls last) as rank,
        classification_summary.condition_id,
        coalesce(model_conditions.short_name, model_conditions.display_name, classification_summary.condition_id)
            as model,
        model_conditions.kind,
        model_conditions.thinking,
        model_conditions.thinking_budget,
        classification_summary.n,
        classification_summary.accuracy,
        classification_summary.kappa,
        paper_supplement_s1.paper_rank,
        paper_supplement_s1.accuracy as paper_accuracy,
        paper_supplement_s1.kappa as paper_kappa,
        study_provenance.data_origin
    from classification_summary
    left join model_conditions using (condition_id)
    left join paper_supplement_s1
        on
            classification_summary.condition_id = paper_supplement_s1.condition_id
            and paper_supplement_s1.paper_table = 'Table S1'
    cross join study_provenance
    where classification_summary.condition_id <> 'human'
)

select * from final
