"""Pure statistical functions: one home per formula. No I/O here; dbt Python models, the CLI and
the tests call these on frames or arrays they already hold.
Agreement and replaceability (paper 3.4.1-3.4.3, 4.1-4.4, 4.6, S3, S4; docs/stats.md):
alpha (Krippendorff, sufficient statistics + coincidence), zscores (z, W1SD, human LOO),
agreement (Pearson, Bland-Altman, MAE, human MAE baselines), classification (accuracy, kappa,
F1, confusion, Landis-Koch), bootstrap (p_sig) with signed_rank (its test), k_human_diversity, diversity, lmm
(rating ~ rater_type * category + (1 | image_id), Satterthwaite df), verdicts (Table 8),
variance_components (rater vs image variance of the human ratings, 3.2)."""
