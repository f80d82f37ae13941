"""The Alternative Annotator Test (alt-test; Calderon, Reichart & Dror, ACL 2025, arXiv 2501.10970;
reference procedure in github.com/nitaytech/AltTest, `alt_test` of alt_test_example.ipynb).

Can a model replace the human annotators? For each human h (leave-one-annotator-out), on every
instance i that h annotated: score the model's label and h's label against the *other* humans'
labels of i (the scorings of stats.alt_test_scoring: accuracy = share of equal labels; neg_rmse,
neg_abs_error, rank for ratings).
W^f_i = 1 if the model scores at least as well as h, W^h_i = 1 if h scores at least as well as the
model (a tie sets both). Test H0: mean(W^h - W^f) >= epsilon against H1: < epsilon, one-sided
one-sample t-test; epsilon is the cost-benefit allowance (0.2 expert, 0.15 skilled, 0.1 crowd
annotators). Benjamini-Yekutieli at q over the humans; the winning rate omega is the share of
humans whose H0 is rejected (the model passes at omega >= 0.5) and the average advantage
probability rho is the mean over humans of mean(W^f).

Generic: annotations are a long frame (annotator_id, instance_id, label); the judge study uses
pair verdicts as labels; the ablations' Alt-Test scores ratings by neg_abs_error and rank, counted
in SQL at scale (alt_test_rater_outcomes, stats.alt_test_ratings).

A missing model answer counts against the model (the tool's one missing-answer policy,
docs/stats.md). An instance the model was asked about (present in `model`) but left unanswered
(NaN / None / empty) gets the worst score the scoring can give: 0 for accuracy (it matches no
human label; this is exactly what the reference does with a blank label, so a left-out human who
also matched nobody ties) and -inf for neg_rmse and custom scorings (a loss). Instances absent
from `model` altogether are outside the test, as in the reference. Dropping unanswered instances
instead would score the model only where it chose to answer: on real data with 25 of 100 answers
blanked that turned the reference's winning rate 0.25 (fail) into 0.50 (pass).
The result reports n_missing_model beside the figures.

Degenerate t-tests: when W^h - W^f is constant (e.g. the left-out annotator and the model agree on
every instance, so both indicators are always 1 and the difference is always 0), the standard
error is 0. scipy's one-sample t-test (which the reference calls) then gives t = -inf and p = 0
when the constant is below epsilon (a win for the model), t = +inf and p = 1 above it, and NaN only
when it equals epsilon (never a win). We keep exactly that behaviour and say so in the
annotator's note.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .alt_test_scoring import ScoringFunction, instance_outcomes, is_missing
from .multiple_testing import benjamini_yekutieli

EPSILON_BY_EXPERTISE = {"expert": 0.2, "skilled": 0.15, "crowd": 0.1}


@dataclass(frozen=True)
class AltTestResult:
    winning_rate: float  # omega: share of tested annotators the model beats
    advantage_probability: float  # rho
    passed: bool  # omega >= 0.5
    epsilon: float
    q: float
    n_annotators_tested: int
    n_instances: int  # instances with at least min_humans_per_instance humans that the model was asked about
    per_annotator: pd.DataFrame  # annotator_id, n_instances, mean_w_human, mean_w_model, p_value, rejected, note
    note: str | None = None
    n_missing_model: int = 0  # of n_instances, those the model left unanswered (scored as above)
    winning_rate_answered_only: float = float("nan")  # omega over the answered instances only (shown beside)


def alt_test(
    human: pd.DataFrame,
    model: pd.Series | dict,
    *,
    epsilon: float = 0.2,
    q: float = 0.05,
    scoring: str | ScoringFunction = "accuracy",
    min_humans_per_instance: int = 2,
    min_instances_per_human: int = 30,
) -> AltTestResult:
    """The Alternative Annotator Test: can the model replace the human annotators?

    Parameters
    ----------
    human : pandas.DataFrame
        annotator_id, instance_id, label (one label per annotator and instance).
    model : pandas.Series or dict
        instance_id -> the model's label (missing = None / NaN / blank: scored worst).
    epsilon : float, default 0.2
        Cost-benefit allowance (0.2 expert, 0.15 skilled, 0.1 crowd annotators).
    q : float, default 0.05
        Benjamini-Yekutieli level.
    scoring : {"accuracy", "neg_rmse", "neg_abs_error", "rank"} or callable, default "accuracy"
        Alignment of a label with the other humans' labels (higher is better;
        stats.alt_test_scoring).
    min_humans_per_instance : int, default 2
    min_instances_per_human : int, default 30
        Annotators with fewer instances are not tested.

    Returns
    -------
    AltTestResult
        winning_rate (omega), advantage_probability (rho), passed (omega >= 0.5), the settings,
        n_annotators_tested, n_instances, per_annotator (n_instances, mean_w_human, mean_w_model,
        p_value, rejected, note), n_missing_model and winning_rate_answered_only.

    Raises
    ------
    ValueError
        An annotator labelled an instance more than once.

    Notes
    -----
    For each human h and instance i: s_h and s_f score h's and the model's label against the
    other humans' labels; W^h_i = 1[s_h >= s_f], W^f_i = 1[s_f >= s_h]
    (:func:`rater1001.stats.alt_test_scoring.instance_outcomes`). H0_h: mean(W^h - W^f) >=
    epsilon, one-sided one-sample t-test; BY at q over the tested humans (:func:`decide`);
    omega = share rejected, rho = mean over humans of mean(W^f).

    References
    ----------
    Calderon, Reichart & Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge: How to
    Statistically Justify Replacing Human Annotators with LLMs", ACL (arXiv 2501.10970), section 3 and the reference procedure (github.com/nitaytech/AltTest); docs/ablations.md.

    Examples
    --------
    Three annotators label four instances x; c says y on instances 3 and 4; the model says x.
    a and b tie the model everywhere (differences 0, a constant below epsilon: p = 0); c's
    differences (0, 0, -1, -1) give t = (-.5 - .2) / (sqrt(1/3) / 2) = -2.42 on 3 df, p = .0469,
    above BY's third threshold .0273: omega = 2/3, rho = 1:

    >>> import pandas as pd
    >>> human = pd.DataFrame([(a, i, "y" if a == "c" and i > 2 else "x") for a in "abc" for i in range(1, 5)],
    ...                      columns=["annotator_id", "instance_id", "label"])
    >>> r = alt_test(human, {i: "x" for i in range(1, 5)}, epsilon=0.2, min_instances_per_human=4)
    >>> round(r.winning_rate, 4), r.advantage_probability, r.passed, round(float(r.per_annotator["p_value"].iloc[2]), 4)
    (0.6667, 1.0, True, 0.0469)
    """
    model = pd.Series(model, dtype="object") if isinstance(model, dict) else model
    missing = {i for i, a in model.items() if is_missing(a)}
    outcomes = instance_outcomes(human, model, scoring=scoring, min_humans_per_instance=min_humans_per_instance)
    by_annotator = {a: o for a, o in outcomes.groupby("annotator_id", sort=False)}
    keep = set(outcomes["instance_id"])

    rows = []
    for annotator in sorted(human["annotator_id"].dropna().unique(), key=str):
        o = by_annotator.get(annotator, outcomes.iloc[:0])
        if len(o) < min_instances_per_human:
            rows.append(
                (
                    annotator,
                    len(o),
                    np.nan,
                    np.nan,
                    np.nan,
                    False,
                    f"skipped: {len(o)} instances < {min_instances_per_human}",
                )
            )
            continue
        w_human, w_model = o["w_human"].to_numpy(), o["w_model"].to_numpy()
        diff = w_human - w_model
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # constant differences: see the module notes
            p = float(stats.ttest_1samp(diff, epsilon, alternative="less").pvalue)
        note = None
        if np.ptp(diff) == 0:
            note = (
                f"W_human - W_model is constant ({diff[0]:g}): t = -inf/+inf (p = {p:g}) as in the reference"
                if not np.isnan(p)
                else "W_human - W_model is constant and equal to epsilon: p undefined"
            )
        rows.append((annotator, len(o), float(np.mean(w_human)), float(np.mean(w_model)), p, False, note))
    per = pd.DataFrame(
        rows, columns=["annotator_id", "n_instances", "mean_w_human", "mean_w_model", "p_value", "rejected", "note"]
    )
    tested = per["mean_w_model"].notna().to_numpy()
    rejected, omega, rho = decide(per["p_value"].to_numpy(float), per["mean_w_model"].to_numpy(float), tested, q)
    per["rejected"] = rejected
    n_missing = len(keep & missing)
    answered_only = omega
    if n_missing:
        answered_only = alt_test(
            human,
            model[[i not in missing for i in model.index]],
            epsilon=epsilon,
            q=q,
            scoring=scoring,
            min_humans_per_instance=min_humans_per_instance,
            min_instances_per_human=min_instances_per_human,
        ).winning_rate
    if not tested.any():
        return AltTestResult(
            float("nan"),
            float("nan"),
            False,
            epsilon,
            q,
            0,
            len(keep),
            per,
            note=f"no annotator has at least {min_instances_per_human} instances shared with others",
            n_missing_model=n_missing,
            winning_rate_answered_only=answered_only,
        )
    return AltTestResult(
        omega,
        rho,
        omega >= 0.5,
        epsilon,
        q,
        int(tested.sum()),
        len(keep),
        per,
        n_missing_model=n_missing,
        winning_rate_answered_only=answered_only,
    )


def decide(p_values: np.ndarray, mean_w_model: np.ndarray, tested: np.ndarray, q: float = 0.05, weight=None):
    """The test's decision over annotators: rejections, winning rate and advantage probability.

    Parameters
    ----------
    p_values : numpy.ndarray
        Per annotator.
    mean_w_model : numpy.ndarray
        Per annotator, mean W^f (the model at least as good).
    tested : numpy.ndarray of bool
        Annotators with enough instances.
    q : float, default 0.05
    weight : array_like of int, optional
        How many annotators each row stands for (rows of equal outcome counts).

    Returns
    -------
    tuple of (numpy.ndarray, float, float)
        (rejected per annotator, omega, rho); omega and rho are NaN when nobody was tested.

    Notes
    -----
    Benjamini-Yekutieli at q among the tested annotators (:func:`benjamini_yekutieli`);
    omega = share of tested annotators rejected (the model passes at omega >= 0.5);
    rho = mean of mean W^f over the tested annotators (weighted by ``weight``).

    References
    ----------
    Calderon, Reichart & Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge: How to
    Statistically Justify Replacing Human Annotators with LLMs", ACL (arXiv 2501.10970), section 3 (the winning rate and the average advantage probability).

    Examples
    --------
    One annotator beaten outright (p = 0), one not (p = 1), one not tested:

    >>> import numpy as np
    >>> decide(np.array([0.0, 1.0, np.nan]), np.array([1.0, 0.0, np.nan]), np.array([True, True, False]))
    (array([ True, False, False]), 0.5, 0.5)
    """
    rejected = np.zeros(len(p_values), bool)
    if not tested.any():
        return rejected, float("nan"), float("nan")
    if weight is None:
        rejected[tested] = benjamini_yekutieli(p_values[tested], q)
        return rejected, float(rejected[tested].mean()), float(mean_w_model[tested].mean())
    w = np.asarray(weight, dtype=np.int64)[tested]
    rejected[tested] = benjamini_yekutieli(p_values[tested], q, weight=w)
    return (rejected, float(w[rejected[tested]].sum() / w.sum()), float(np.average(mean_w_model[tested], weights=w)))
