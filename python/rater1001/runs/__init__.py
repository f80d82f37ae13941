"""The model-calling runs: `infer` (emotion models rate stimuli) and `judge` (an LLM judges
pairs of answers), both on the run core `runner` (ledger, retries, concurrency, cost)."""
