"""What the two offline HTML pages share, the data-quality page (rater1001.quality.report) and the
study report (rater1001.report): the shipped Hangul font (`fonts`) and the escaped HTML table
(`table`). The gate imports this and not the report package (and with it vl-convert)."""
