"""`rater1001 judge`: the pairwise LLM-as-a-judge protocol of the lab log (docs/judge.md):
pair plans (anchor-only, round-robin), the Korean judge prompt as a versioned template,
both presentation orders for every pair, a tolerant verdict parser, the run on the shared runner
core (rater1001.runs.runner), and the SIMULATED demo study (judge.simulate)."""
