"""The rater_type x emotion LMM: estimates, variance components and Satterthwaite df against the
closed forms of a balanced split-plot design, and lmerTest's published sleepstudy df."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rater1001.stats import lmm

EMOTIONS = ["happy", "sad", "fear"]


def balanced(seed=0, per_emotion=30):
    rng = np.random.default_rng(seed)
    emotion = np.repeat(EMOTIONS, per_emotion)
    u = rng.normal(0, 1.0, len(emotion))
    offset = pd.Series({"happy": 0.0, "sad": -2.0, "fear": -1.0})[emotion].to_numpy()
    human = 6 + offset + u + rng.normal(0, 0.6, len(emotion))
    model = 6.5 + 1.5 * offset + u + rng.normal(0, 0.6, len(emotion))  # exaggerates polarity
    return human, model, emotion, np.arange(len(emotion))


def closed_form(human, model, emotion):
    """Balanced split plot: images (whole plots) within emotion, rater type within image."""
    df = pd.DataFrame({"h": human, "m": model, "e": emotion})
    n_img, n_emo = len(df), df.e.nunique()
    d = df.m - df.h
    ms_res = ((d - d.groupby(df.e).transform("mean")) ** 2).sum() / 2 / (n_img - n_emo)
    avg = (df.m + df.h) / 2
    ms_img = 2 * ((avg - avg.groupby(df.e).transform("mean")) ** 2).sum() / (n_img - n_emo)
    dfr = n_img - n_emo
    between_df = (ms_img + ms_res) ** 2 / (ms_img**2 / dfr + ms_res**2 / dfr)
    ref = df[df.e == EMOTIONS[0]]
    return dict(ms_res=ms_res, ms_img=ms_img, within_df=dfr, between_df=between_df,
                intercept=ref.h.mean(), rater_effect=(ref.m - ref.h).mean(), per_emotion=len(ref))


def test_balanced_design_matches_closed_form_satterthwaite():
    human, model, emotion, image = balanced()
    res = lmm.fit_rater_type_lmm(human, model, emotion, image, EMOTIONS)
    cf = closed_form(human, model, emotion)
    fe = res.fixed_effects.set_index("term")
    assert fe.loc["(Intercept)", "estimate"] == pytest.approx(cf["intercept"], abs=1e-6)
    assert fe.loc["rater_type[model]", "estimate"] == pytest.approx(cf["rater_effect"], abs=1e-6)
    assert res.residual_variance == pytest.approx(cf["ms_res"], rel=1e-5)
    assert res.image_variance == pytest.approx((cf["ms_img"] - cf["ms_res"]) / 2, rel=1e-4)
    assert fe.loc["rater_type[model]", "se"] == pytest.approx(np.sqrt(2 * cf["ms_res"] / cf["per_emotion"]), rel=1e-5)
    # Within-image contrasts get the split-plot error df exactly; between-image ones the
    # Satterthwaite combination of the two mean squares.
    for term in ["rater_type[model]", "rater_type[model]:emotion[sad]", "rater_type[model]:emotion[fear]"]:
        assert fe.loc[term, "df"] == pytest.approx(cf["within_df"], rel=1e-4)
    for term in ["(Intercept)", "emotion[sad]", "emotion[fear]"]:
        assert fe.loc[term, "df"] == pytest.approx(cf["between_df"], rel=1e-4)
    assert (fe.df_method == lmm.DF_METHOD).all()
    # The simulated polarity exaggeration is an interaction the LR test must find.
    assert res.interaction_df == 2 and res.interaction_p < 1e-3


@pytest.mark.filterwarnings("ignore::Warning")  # pandas deprecation inside mixedlm's dataset loader
def test_sleepstudy_df_equal_lmertest():
    # lmerTest: summary(lmer(Reaction ~ Days + (1 | Subject), sleepstudy)) prints df 22.81 and 161.
    import mixedlm

    fit = mixedlm.lmer("Reaction ~ Days + (1|Subject)", mixedlm.load_sleepstudy())
    df = mixedlm.satterthwaite_df(fit).df
    assert df[0] == pytest.approx(22.81, abs=0.01) and df[1] == pytest.approx(161.0, abs=0.01)


def test_missing_predictions_and_unknown_emotions():
    human, model, emotion, image = balanced(seed=1)
    model[:5] = np.nan
    res = lmm.fit_rater_type_lmm(human, model, emotion, image, EMOTIONS)
    assert res.n_images == len(image) - 5 and res.n_obs == 2 * res.n_images and res.n_excluded_images == 5
    with pytest.raises(ValueError, match=r"emotions \['surprise'\] are not in the declared label set"):
        lmm.fit_rater_type_lmm(human[:2], model[:2], ["surprise", "happy"], [0, 1], EMOTIONS)


def test_no_image_variance_is_a_singular_fit_not_a_crash():
    rng = np.random.default_rng(2)
    emotion = np.repeat(EMOTIONS, 40)
    human = 5 + rng.normal(0, 0.3, len(emotion))  # images do not differ at all
    model = np.where(emotion == "happy", 9.0, 5 + rng.normal(0, 0.5, len(emotion)))  # constant on happy
    res = lmm.fit_rater_type_lmm(human, model, emotion, np.arange(len(emotion)), EMOTIONS)
    fe = res.fixed_effects.set_index("term")
    assert res.image_variance < 0.01 * res.residual_variance
    assert fe.loc["rater_type[model]", "estimate"] == pytest.approx(9 - human[emotion == "happy"].mean(), abs=1e-6)
    assert np.isfinite(fe.df).all() and np.isfinite(fe.p).all()


def test_a_fit_that_did_not_converge_is_an_error_with_the_optimiser_message(monkeypatch):
    """mixedlm's own verdict is read: a fit it reports as not converged gives no estimate, and the
    mart turns the error into fit_error with NULL statistics."""
    import mixedlm

    from rater1001.marts.agreement import lmm_table

    real = mixedlm.lmer

    def not_converged(formula, data, REML=True):
        fit = real(formula, data, REML=REML)
        if not REML:  # the ML fits of the likelihood-ratio test
            monkeypatch.setattr(fit, "converged", False, raising=False)
            monkeypatch.setattr(fit, "message", "ABNORMAL_TERMINATION_IN_LNSRCH", raising=False)
        return fit

    human, model, emotion, image = balanced(seed=3)
    assert lmm.fit_rater_type_lmm(human, model, emotion, image, EMOTIONS).fixed_effects.shape[0] > 0
    monkeypatch.setattr(mixedlm, "lmer", not_converged)
    with pytest.raises(lmm.FitDidNotConverge, match=r"full ML fit did not converge \(ABNORMAL_TERMINATION_IN_LNSRCH\)"):
        lmm.fit_rater_type_lmm(human, model, emotion, image, EMOTIONS)
    long = pd.DataFrame({"condition_id": "c", "dimension": "valence", "human_mean": human, "model_value": model,
                         "emotion": emotion, "image_id": image})
    mart = lmm_table(long, EMOTIONS)
    assert len(mart) == 1 and mart["estimate"].isna().all()
    assert mart["fit_error"].item().startswith("FitDidNotConverge: the full ML fit did not converge")
