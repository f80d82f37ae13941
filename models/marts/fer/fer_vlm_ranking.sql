-- Table S1: every model condition (VLMs and FER baselines) ranked by accuracy, with kappa, type
-- and thinking, beside the paper's rank, accuracy and kappa where the paper printed the condition.
select
    rank() over (order by s.accuracy desc nulls last) as rank,
    s.condition_id,
    coalesce(c.short_name, c.display_name, s.condition_id) as model,
    c.kind,
    c.thinking,
    c.thinking_budget,
    s.n,
    s.accuracy,
    s.kappa,
    p.paper_rank,
    p.accuracy as paper_accuracy,
    p.kappa as paper_kappa,
    pr.data_origin
from {{ ref('classification_summary') }} s
left join {{ ref('stg_model_conditions') }} c using (condition_id)
left join {{ ref('paper_supplement_s1') }} p on p.condition_id = s.condition_id and p.paper_table = 'Table S1'
cross join {{ ref('int_study_provenance') }} pr
where s.condition_id <> 'human'
