"""The Alt-Test's per-instance step (Calderon, Reichart & Dror, ACL 2025): the scorings (how well a
label agrees with the other humans' labels of an instance) and the outcome of each comparison of a
left-out annotator with the model (:func:`instance_outcomes`). stats.alt_test tests these
outcomes per annotator. The rating studies' two scorings (neg_abs_error, rank) have a SQL twin, the
macros alt_test_scores and alt_test_outcome (macros/alt_test_outcomes.sql) that models/marts/alt_test/
alt_test_rater_outcomes.sql counts per rater (docs/architecture.md, "SQL twins")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

ScoringFunction = Callable[[Any, list], float]


def accuracy_score(label: Any, others: list) -> float:
    """Share of the other annotators' labels equal to this label (the test's accuracy scoring).

    Parameters
    ----------
    label : object
        The scored label (the model's, or the left-out human's).
    others : list
        The other humans' labels of the same instance.

    Returns
    -------
    float

    Notes
    -----
    s = (1 / |others|) sum_o 1[label = o].

    References
    ----------
    Calderon, Reichart & Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge: How to
    Statistically Justify Replacing Human Annotators with LLMs", ACL (arXiv 2501.10970), section 3 (the alignment scoring functions).

    Examples
    --------
    >>> accuracy_score("a", ["a", "b", "a", "c"])
    0.5
    """
    return float(np.mean([label == o for o in others]))


def neg_rmse_score(value: float, others: list) -> float:
    """Minus the root mean squared difference to the other annotators' values (higher is better).

    Parameters
    ----------
    value : float
        The scored rating.
    others : list of float
        The other humans' ratings of the same instance.

    Returns
    -------
    float

    Notes
    -----
    s = -sqrt((1 / |others|) sum_o (value - o)^2).

    References
    ----------
    Calderon, Reichart & Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge: How to
    Statistically Justify Replacing Human Annotators with LLMs", ACL (arXiv 2501.10970), section 3 (RMSE for continuous annotations).

    Examples
    --------
    3 against 1 and 5: both 2 away:

    >>> neg_rmse_score(3, [1, 5])
    -2.0
    """
    return -float(np.sqrt(np.mean([(float(value) - float(o)) ** 2 for o in others])))


def neg_abs_error_score(value: float, others: list) -> float:
    """Minus the absolute difference to the other annotators' mean, to 9 decimals (ratings).

    Parameters
    ----------
    value : float
        The scored rating.
    others : list of float
        The other humans' ratings of the same instance.

    Returns
    -------
    float

    Notes
    -----
    s = round(-|value - mean(others)|, 9): rounded so that float noise never breaks a tie between
    the left-out human and the model (the SQL twin rounds the same way).

    References
    ----------
    docs/ablations.md, "Alternative Annotator Test" (the negative absolute error to the other
    raters' mean).

    Examples
    --------
    >>> neg_abs_error_score(3, [1, 2, 2])
    -1.333333333
    """
    return round(-abs(float(value) - float(np.mean(np.asarray(others, dtype=float)))), 9)


def rank_score(value: float, others: list) -> float:
    """How central a rating sits among the other annotators' ratings, to 9 decimals (ratings).

    Parameters
    ----------
    value : float
        The scored rating.
    others : list of float
        The other humans' ratings of the same instance.

    Returns
    -------
    float

    Notes
    -----
    s = round(-|F(value) - 1/2|, 9) with F the mid-rank percentile among the others,
    F(v) = (#{o < v} + #{o = v} / 2) / |others|: robust to how each rater uses the scale.

    References
    ----------
    docs/ablations.md, "Alternative Annotator Test" (our reading of "and by rank").

    Examples
    --------
    3 among 1, 3, 5 sits in the middle (F = 1/2); 5 at the top (F = 5/6):

    >>> rank_score(3, [1, 3, 5]), rank_score(5, [1, 3, 5])
    (-0.0, -0.333333333)
    """
    o = np.asarray(others, dtype=float)
    v = float(value)
    return round(-abs((int((o < v).sum()) + 0.5 * int((o == v).sum())) / len(o) - 0.5), 9)


SCORING: dict[str, ScoringFunction] = {
    "accuracy": accuracy_score,
    "neg_rmse": neg_rmse_score,
    "neg_abs_error": neg_abs_error_score,
    "rank": rank_score,
}
# The score of a missing model answer: the worst the scoring can give.
MISSING_SCORE: dict[str, float] = {"accuracy": 0.0}


def is_missing(answer) -> bool:
    """Whether a model answer is missing.

    Parameters
    ----------
    answer : object
        The model's label or rating.

    Returns
    -------
    bool
        True for None, NaN or an empty / blank string.

    Notes
    -----
    A missing answer counts against the model: 0 for accuracy, -inf for other scorings (the
    tool's missing-answer policy, docs/stats.md).

    References
    ----------
    docs/stats.md, "Missing model answers: one policy".

    Examples
    --------
    >>> [is_missing(a) for a in (None, " ", float("nan"), 0)]
    [True, True, True, False]
    """
    if answer is None:
        return True
    if isinstance(answer, str):
        return answer.strip() == ""
    try:
        return bool(pd.isna(answer))
    except (TypeError, ValueError):
        return False


def instance_outcomes(
    human: pd.DataFrame,
    model: pd.Series | dict,
    *,
    scoring: str | ScoringFunction = "accuracy",
    min_humans_per_instance: int = 2,
) -> pd.DataFrame:
    """Each annotator against the model on each instance: who scores at least as well.

    Parameters
    ----------
    human : pandas.DataFrame
        annotator_id, instance_id, label (one label per annotator and instance; NaN labels left out).
    model : pandas.Series or dict
        instance_id -> the model's label (missing = None / NaN / blank: scored worst).
    scoring : {"accuracy", "neg_rmse", "neg_abs_error", "rank"} or callable, default "accuracy"
        Alignment of a label with the other humans' labels (higher is better).
    min_humans_per_instance : int, default 2
        Instances with fewer annotators, and instances absent from ``model``, are left out.

    Returns
    -------
    pandas.DataFrame
        annotator_id, instance_id, w_human, w_model (1.0 / 0.0), model_missing (bool); rows by
        annotator, then instance, each in order of its string.

    Raises
    ------
    ValueError
        An annotator labelled an instance more than once.

    Notes
    -----
    s_h and s_f score the annotator's label and the model's against the other annotators' labels
    of the instance; W^h = 1[s_h >= s_f], W^f = 1[s_f >= s_h] (a tie sets both). A missing model
    answer scores :data:`MISSING_SCORE` (accuracy 0) or -inf: the annotator wins.

    References
    ----------
    Calderon, Reichart & Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge", ACL
    (arXiv 2501.10970), section 3; docs/stats.md, "Missing model answers: one policy".

    Examples
    --------
    a and b say x on instance 1; the model says y there and nothing on instance 2, which b says x:

    >>> import pandas as pd
    >>> human = pd.DataFrame({"annotator_id": ["a", "b", "a", "b"], "instance_id": [1, 1, 2, 2],
    ...                       "label": ["x", "x", "x", "x"]})
    >>> instance_outcomes(human, {1: "y", 2: None})[["w_human", "w_model", "model_missing"]].to_numpy().tolist()
    [[1.0, 0.0, False], [1.0, 0.0, True], [1.0, 0.0, False], [1.0, 0.0, True]]
    """
    score = SCORING[scoring] if isinstance(scoring, str) else scoring
    missing_score = MISSING_SCORE.get(scoring, -np.inf) if isinstance(scoring, str) else -np.inf
    model = pd.Series(model, dtype="object") if isinstance(model, dict) else model
    missing = {i for i, a in model.items() if is_missing(a)}
    h = human[["annotator_id", "instance_id", "label"]].dropna(subset=["label"])
    dup = h.duplicated(["annotator_id", "instance_id"])
    if dup.any():
        r = h[dup].iloc[0]
        raise ValueError(f"annotator {r['annotator_id']!r} labelled instance {r['instance_id']!r} more than once")
    per_instance = h.groupby("instance_id")["annotator_id"].nunique()
    keep = set(per_instance[per_instance >= min_humans_per_instance].index) & set(model.index)
    h = h[h["instance_id"].isin(keep)]
    labels = {(a, i): lab for a, i, lab in h.itertuples(index=False)}
    annotators_of = h.groupby("instance_id")["annotator_id"].apply(list).to_dict()
    rows = []
    for annotator in sorted(h["annotator_id"].unique(), key=str):
        for i in sorted(h.loc[h["annotator_id"] == annotator, "instance_id"], key=str):
            others = [labels[(o, i)] for o in annotators_of[i] if o != annotator]
            s_h = score(labels[(annotator, i)], others)
            s_f = missing_score if i in missing else score(model[i], others)
            rows.append((annotator, i, 1.0 if s_h >= s_f else 0.0, 1.0 if s_f >= s_h else 0.0, i in missing))
    return pd.DataFrame(rows, columns=["annotator_id", "instance_id", "w_human", "w_model", "model_missing"])
