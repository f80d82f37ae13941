"""Classification metrics against hand computation from the confusion counts (the paper's 3.4.1
formulas) and scikit-learn."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.stats import classification as C
from rater1001.stats import kappa as K
from sklearn import metrics

LABELS = ["happy", "sad", "angry", "fearful", "disgusted", "neutral"]


def simulated(seed=0, n_per=40, sad_to_neutral=0.6):
    rng = np.random.default_rng(seed)
    truth = np.repeat(LABELS, n_per)
    pred = truth.copy()
    flip = rng.random(len(truth)) < 0.15
    pred[flip] = rng.choice(LABELS, flip.sum())
    sad = (truth == "sad") & (rng.random(len(truth)) < sad_to_neutral)  # sad absorbed into neutral
    pred[sad] = "neutral"
    return truth, pred


def test_summary_equals_paper_formulas_from_confusion_counts():
    truth, pred = simulated()
    s = C.summary(truth, pred, LABELS)
    cm = pd.crosstab(pd.Categorical(truth, LABELS), pd.Categorical(pred, LABELS), dropna=False).to_numpy()
    n = cm.sum()
    po = np.trace(cm) / n
    pe = (cm.sum(axis=1) * cm.sum(axis=0)).sum() / n**2
    assert s.accuracy == pytest.approx(po)
    assert s.kappa == pytest.approx((po - pe) / (1 - pe), abs=1e-12)
    tp = np.diag(cm)
    prec, rec = tp / cm.sum(axis=0), tp / cm.sum(axis=1)
    f1 = 2 * prec * rec / (prec + rec)
    assert s.f1_macro == pytest.approx(f1.mean(), abs=1e-12)
    per = C.by_label(truth, pred, LABELS).set_index("category")
    np.testing.assert_allclose(per.loc[LABELS, "precision"], prec)
    np.testing.assert_allclose(per.loc[LABELS, "recall"], rec)
    assert per.loc["sad", "recall"] < 0.5 and per.loc["neutral", "precision"] < 0.8  # the simulated absorption


def test_one_vs_rest_kappa_and_sklearn_agree():
    truth, pred = simulated(seed=1)
    per = C.by_label(truth, pred, LABELS).set_index("category")
    for lab in LABELS:
        t, p = truth == lab, pred == lab
        po = (t == p).mean()
        pe = t.mean() * p.mean() + (1 - t.mean()) * (1 - p.mean())
        assert per.loc[lab, "kappa"] == pytest.approx((po - pe) / (1 - pe), abs=1e-12)
    assert C.summary(truth, pred, LABELS).kappa == pytest.approx(metrics.cohen_kappa_score(truth, pred))


def test_missing_predictions_count_as_wrong_and_never_predicted_label_is_visible():
    truth = np.array(["happy", "sad", "sad", "neutral"])
    pred = np.array(["happy", None, "neutral", "neutral"], dtype=object)
    s = C.summary(truth, pred, ["happy", "sad", "neutral"])
    assert (s.n, s.n_missing, s.accuracy) == (4, 1, 0.5)
    assert s.accuracy_answered_only == pytest.approx(2 / 3)  # beside it: 2 of the 3 answered
    per = C.by_label(truth, pred, ["happy", "sad", "neutral"]).set_index("category")
    assert (
        np.isnan(per.loc["sad", "precision"]) and per.loc["sad", "recall"] == 0 and per.loc["sad", "n_predicted"] == 0
    )
    cm = C.confusion(truth, pred, ["happy", "sad", "neutral"]).set_index(["true_category", "predicted_category"]).n
    assert cm[("sad", "missing")] == 1 and cm[("sad", "neutral")] == 1 and cm.sum() == 4
    with pytest.raises(ValueError, match=r"truth labels \['surprised'\]"):
        C.summary(["surprised"], ["happy"], ["happy"])


def test_predictions_outside_the_label_set_are_wrong_not_dropped():
    truth = ["happy", "happy", "sad", "sad"]
    pred = ["happy", "surprised", "sad", "sad"]
    s = C.summary(truth, pred, ["happy", "sad"])
    assert s.accuracy == 0.75
    assert s.kappa == pytest.approx(metrics.cohen_kappa_score(truth, pred))
    cm = C.confusion(truth, pred, ["happy", "sad"]).set_index(["true_category", "predicted_category"]).n
    assert cm[("happy", "surprised")] == 1 and cm.sum() == 4


def test_kappa_of_a_label_nobody_used_is_nan_without_a_warning():
    """A forced-choice option no image has and nobody chose (FER+'s 'unknown' as a plurality
    label): its one-vs-rest kappa is 0/0. NaN, decided here, not a scikit-learn warning per call;
    every other label's kappa is still scikit-learn's."""
    import warnings

    truth = np.array(["happy", "sad", "sad", "happy", "sad"])
    pred = np.array(["happy", "sad", "happy", "happy", "sad"])
    labels = ["happy", "sad", "angry"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = C.by_label(truth, pred, labels).set_index("category")
        one_label = C.summary(np.array(["sad"] * 3), np.array(["sad"] * 3), labels)
    assert np.isnan(table.loc["angry", "kappa"])
    assert table.loc["sad", "kappa"] == pytest.approx(metrics.cohen_kappa_score(truth == "sad", pred == "sad"))
    assert np.isnan(one_label.kappa) and one_label.band is None and one_label.accuracy == 1.0


@settings(max_examples=80, deadline=None)
@given(
    k=st.integers(1, 4),
    rows=st.lists(st.tuples(st.integers(0, 3), st.integers(-1, 4), st.integers(1, 3)), min_size=1, max_size=50),
    weighted=st.booleans(),
)
def test_summary_is_scikit_learns_accuracy_f1_and_kappa_to_the_last_bit(k, rows, weighted):
    """summary's one count table against scikit-learn's accuracy_score, f1_score (macro,
    zero_division=0) and cohen_kappa_score on the same answers: bit-identical, so a kappa of
    exactly 0 keeps its Landis & Koch band. Predictions: -1 missing, k.. outside the label set."""
    labels = [f"l{i}" for i in range(k)]
    truth = [labels[t % k] for t, _, _ in rows]
    pred = [None if p < 0 else f"l{p}" for _, p, _ in rows]
    weight = np.array([w for _, _, w in rows], dtype=float) if weighted else None
    got = C.summary(truth, pred, labels, weight)
    filled = np.array(["__missing__" if p is None else p for p in pred], dtype=object)
    truth = np.array(truth, dtype=object)
    everything = labels + sorted(set(filled) - set(labels))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kappa = metrics.cohen_kappa_score(truth, filled, labels=everything, sample_weight=weight)
        f1 = metrics.f1_score(truth, filled, labels=labels, average="macro", zero_division=0, sample_weight=weight)
    assert got.accuracy == metrics.accuracy_score(truth, filled, sample_weight=weight)
    assert got.f1_macro == f1
    if len(set(truth) | set(filled)) < 2:
        assert np.isnan(got.kappa) and got.band is None
    else:
        assert got.kappa == kappa or (np.isnan(got.kappa) and np.isnan(kappa))
        assert got.band == K.landis_koch_band(kappa)


def test_summary_table_macro_f1_skips_a_declared_label_no_stimulus_shows():
    """A declared label absent from the truth (FER+'s sample has no 'contempt' face) must not pull
    every condition's macro-F1 down: the raters' vote equal to the truth scores 1, and a model's
    F1 equals scikit-learn's over the labels present as truth."""
    import pandas as pd
    from rater1001.marts.classification import summary_table
    from sklearn.metrics import f1_score

    truth = ["happy", "sad", "sad", "angry", "happy", "angry"]
    model = ["happy", "sad", "happy", "contempt", "happy", None]
    frame = pd.DataFrame(
        {
            "condition_id": ["human"] * 6 + ["m"] * 6,
            "true_category": truth * 2,
            "predicted_category": truth + model,
        }
    )
    out = summary_table(frame, ["angry", "contempt", "happy", "sad"]).set_index("condition_id")
    assert out.loc["human", "f1_macro"] == 1.0
    expected = f1_score(
        truth, [p or "__missing__" for p in model], labels=["angry", "happy", "sad"], average="macro", zero_division=0
    )
    assert abs(out.loc["m", "f1_macro"] - expected) < 1e-12
