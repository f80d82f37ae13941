"""The warehouse's known wrong answers today (issue 31), as (check, predicate on the landed
study, reason). A comparison they name is marked xfail(strict=True, raises=AssertionError): the
oracle still states the right answer; when a fix lands the comparison passes, the strict mark
fails the test, and its entry here is removed. The matrix and the acceptance studies share it."""

from __future__ import annotations

import numpy as np
import oracle_calc as oc
import pytest
from oracle_checks import CHECKS, applies


def _unanswered_zero_sd(landed: oc.Landed) -> bool:
    """A stimulus with human SD 0 (or one rating) that a condition did not answer, on a model
    dimension."""
    for dim in landed.model_dims:
        g = landed.ratings.dropna(subset=[dim]).groupby("image_id")[dim]
        zero = set(g.std(ddof=1)[~(g.std(ddof=1) > 0)].index)
        for cond in landed.conditions:
            x = landed.model_values(cond, dim)
            if any(i not in x.index or np.isnan(x.get(i, np.nan)) for i in zero):
                return True
    return False


def _never_answered(landed: oc.Landed) -> bool:
    """A condition has no row at all for some stimulus."""
    everything = set(landed.stimuli["image_id"])
    p = landed.predictions
    return any(everything - set(p.loc[p["condition_id"] == c, "image_id"]) for c in landed.conditions)


# (check, predicate on the landed study, reason): the warehouse's known wrong answers today.
NO_CATEGORY = lambda s: s.category is None  # noqa: E731
KNOWN_BUGS = [
    ("alpha_ordinal", NO_CATEGORY, "issue 31: ordinal alpha wrong without a category (NULL slot in the join)"),
    ("alpha_nominal", NO_CATEGORY, "issue 31: nominal alpha wrong without a category (NULL slot in the join)"),
    ("no_null_keys", NO_CATEGORY, "issue 31: the absent category is a NULL in join and group keys"),
    ("calibration_builds", NO_CATEGORY, "issue 31: calibration_scores crashes with identity_id and no category"),
    ("verdicts", NO_CATEGORY, "issue 31: no verdict for a ratings-only study"),
    ("rater_audit", NO_CATEGORY, "issue 31: rater attributes are analysed for labels only"),
    ("audit_anova", NO_CATEGORY, "issue 31: the absent category is a NULL stratum key"),
    ("audit_anova", lambda s: len(s.audit) >= 3, "issue 31: a third audit factor is ignored"),
    (
        "answer_numbers",
        _never_answered,
        "issue 31: the answer's W1SD, delta alpha and kappa skip stimuli a condition never answered",
    ),
    ("audit_slices", lambda s: len(s.audit) >= 3, "issue 31: a third audit factor is ignored"),
    # Found by the oracle, same family as the answer's (the missing-answer policy of docs/stats.md:
    # a stimulus a condition never answered is a missing answer and counts against it).
    (
        "classification",
        lambda s: s.category is not None and _never_answered(s),
        "issue 31: classification_summary leaves out stimuli a condition never answered (missing-answer policy)",
    ),
    (
        "classification_by_label",
        lambda s: s.category is not None and _never_answered(s),
        "issue 31: classification_by_emotion leaves out stimuli a condition never answered (missing-answer policy)",
    ),
    (
        "audit_slices",
        lambda s: s.category is not None and _never_answered(s),
        "issue 31: demographic_slices leaves out stimuli a condition never answered (missing-answer policy)",
    ),
    (
        "rater_audit",
        lambda s: s.category is not None and _never_answered(s),
        "issue 31: demographic_rater_agreement leaves out stimuli a condition never answered (missing-answer policy)",
    ),
    (
        "calibration_missing_answers",
        lambda s: s.category is not None and _never_answered(s),
        "issue 31: calibration_scores leaves out stimuli a condition never answered (W1SD, alpha; missing-answer policy)",
    ),
    (
        "zscores_model",
        _unanswered_zero_sd,
        "issue 31: zscore_summary counts an unanswered stimulus of human SD 0 as a missing answer, not as zero SD",
    ),
    (
        "query_headline",
        _unanswered_zero_sd,
        "issue 31: query_condition_headline's W1SD counts an unanswered stimulus of human SD 0 as missing",
    ),
]


def known_bug(check: str, landed: oc.Landed) -> str | None:
    reasons = [reason for name, applies_to, reason in KNOWN_BUGS if name == check and applies_to(landed)]
    return "; ".join(reasons) or None


def oracle_check(root, landed: oc.Landed, check: str, request) -> None:
    """One test: run a check on a built study folder, marked xfail(strict) where a known bug
    applies (raises=AssertionError: an error of the oracle itself is never an expected failure)."""
    if not applies(check, landed):
        pytest.skip(f"{check} has nothing to compare in this study")
    reason = known_bug(check, landed)
    if reason:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason, raises=AssertionError))
    result = CHECKS[check](root, landed)
    assert result.compared > 0 or result.problems
    assert not result.problems, "\n".join(result.problems[:20])
