"""`rater1001 init RATINGS [--stimuli F ...] [--raters F] [--predictions F ...]` (or a judge study's
`init PAIRS --verdicts F ...`): guess the study's shape from the user's own files and set the
study up (`study_files.init_study`, `judge_files.init_judge`; docs/init.md)."""

from .guess import InitError, Options
from .study_files import InitResult, init_study

__all__ = ["InitError", "InitResult", "Options", "init_study"]
