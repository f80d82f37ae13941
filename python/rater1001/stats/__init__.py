"""Pure statistical functions: one home per formula. No I/O here; dbt Python models, the CLI and
the tests call these on frames or arrays they already hold."""
