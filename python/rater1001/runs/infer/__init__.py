"""`rater1001 infer`: ask vision-language models for an emotion label and dimensional ratings of
each stimulus, with the paper's prompts (Supplement S2), parsing cascade (S2.4) and backends
(Table 1), on top of the generic run core in rater1001.runs.runner."""
