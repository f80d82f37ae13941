"""Demographic bias audit (paper 3.4.4 and 4.5, Supplement S5; docs/stats.md).

Expected input (`predictions`): one row per (condition_id, image_id) with

    condition_id       model condition
    image_id           stimulus
    race, gender       stimulus factors (any declared label sets)
    emotion            ground-truth (intended) emotion label
    predicted_emotion  the model's label (NULL when parsing failed: counts as wrong)
    correct            bool, predicted_emotion == emotion
    d_valence, d_arousal, ...
                       Bland-Altman difference per dimension, d = human_mean - model_value
                       (docs/demographics.md). The paper's 3.4.4 writes model - human; F, eta^2 and p are
                       sign-free, Tukey mean differences carry the sign of the input column.

Every function is pure (frames in, frames out). Rows where a test is undefined carry NULL
statistics and a `reason`; nothing is dropped silently.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.sandbox.stats.multicomp import tukeyhsd
from statsmodels.stats.multitest import multipletests

from . import classification
from .glmm import DEFAULT_N_AGQ, likelihood_ratio_test, treatment_design

SLICE_TYPES = ("race", "gender", "race_gender")
STRATIFIED_TERMS = ("race", "gender", "race:gender")
ALPHA = 0.05


def _require(frame: pd.DataFrame, columns, where: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(f"{where}: input frame has no column(s) {missing}; "
                       f"it has {list(frame.columns)}")


def _require_complete(frame: pd.DataFrame, columns, where: str) -> None:
    """Design columns (condition, stimulus factors, true emotion) come from the data contract and
    must be present on every row; a gap there is a data error, not something to skip."""
    for col in columns:
        missing = frame[col].isna()
        if missing.any():
            row = frame.index[missing.to_numpy()][0]
            image = frame.at[row, "image_id"] if "image_id" in frame.columns else "?"
            raise ValueError(f"{where}: row {row} (image_id={image!r}) has no value in column "
                             f"{col!r}; {int(missing.sum())} such rows")


def _bias_column(dimension: str) -> str:
    return f"d_{dimension}"


# --------------------------------------------------------------------------- classification slices

def _slice_keys(frame: pd.DataFrame) -> dict[str, pd.Series]:
    return {
        "race": frame["race"].astype(str),
        "gender": frame["gender"].astype(str),
        "race_gender": frame["race"].astype(str) + ":" + frame["gender"].astype(str),
    }


def slice_metrics(predictions: pd.DataFrame, weight: str | None = None) -> pd.DataFrame:
    """Accuracy and macro-F1 per (condition_id, slice_type, slice) (Tables 7, 7a, Figure 7b).

    Macro-F1 averages over the ground-truth labels present in the slice (classification.summary
    with that label set). A label that never occurs as truth in the slice is not averaged in:
    its F1 would be 0 or undefined only because of how the slice was cut, not because of the
    model; predicting it still costs recall of the true label. A NULL prediction is wrong.
    Columns: condition_id, slice_type, slice, race, gender, n, n_unparsed, accuracy, f1_macro,
    n_labels (labels averaged in F1). `weight` names a column of how many identical answers a row
    stands for (pooled human labels come as per-image counts, not one row per rating)."""
    _require(predictions, ["condition_id", "race", "gender", "emotion", "predicted_emotion"],
             "slice_metrics")
    _require_complete(predictions, ["condition_id", "race", "gender", "emotion"], "slice_metrics")
    d = predictions
    rows = []
    for slice_type, key in _slice_keys(d).items():
        for (condition, value), part in d.groupby([d["condition_id"], key], sort=True):
            labels = sorted(part["emotion"].dropna().astype(str).unique())
            s = classification.summary(part["emotion"].astype(str),
                                       part["predicted_emotion"].astype(object), labels,
                                       weight=None if weight is None else part[weight])
            race = part["race"].iloc[0] if slice_type in ("race", "race_gender") else None
            gender = part["gender"].iloc[0] if slice_type in ("gender", "race_gender") else None
            rows.append(dict(condition_id=condition, slice_type=slice_type, slice=value,
                             race=race, gender=gender, n=s.n, n_unparsed=s.n_missing,
                             accuracy=s.accuracy, f1_macro=s.f1_macro, n_labels=len(labels)))
    return pd.DataFrame(rows)


def slice_gaps(slices: pd.DataFrame) -> pd.DataFrame:
    """Largest gap (max - min, percentage points) across the slices of each (condition_id,
    slice_type), on F1 and on accuracy, with the slices at either end (Table 7 "최대 delta",
    Table 7a |Woman - Man|, Figure 7b's six-cell delta). Computed from unrounded values."""
    rows = []
    for (condition, slice_type), part in slices.groupby(["condition_id", "slice_type"], sort=True):
        row = dict(condition_id=condition, slice_type=slice_type, n_slices=len(part))
        for metric, name in (("f1_macro", "f1"), ("accuracy", "accuracy")):
            vals = part.set_index("slice")[metric].dropna()
            if len(vals) < 2:
                row.update({f"{name}_gap_pp": None, f"{name}_max_slice": None,
                            f"{name}_min_slice": None})
                row["reason"] = "fewer than two slices: no gap"
                continue
            row.update({f"{name}_gap_pp": 100.0 * float(vals.max() - vals.min()),
                        f"{name}_max_slice": vals.idxmax(), f"{name}_min_slice": vals.idxmin()})
        rows.append(row)
    out = pd.DataFrame(rows)
    if "reason" not in out:
        out["reason"] = None
    return out


# --------------------------------------------------------------------------- GLMM LR tests

def glmm_lrt_table(predictions: pd.DataFrame, factors=("race", "gender"),
                   n_agq: int = DEFAULT_N_AGQ, weight: str | None = None) -> pd.DataFrame:
    """correct ~ factor + (1 | emotion) vs correct ~ 1 + (1 | emotion), per condition and factor,
    by maximum likelihood (glmm.likelihood_ratio_test). One row per (condition_id, factor).
    `weight` names a column of how many images a row stands for (per-cell counts)."""
    _require(predictions, ["condition_id", "correct", "emotion", *factors], "glmm_lrt_table")
    _require_complete(predictions, ["condition_id", "correct", "emotion", *factors], "glmm_lrt_table")
    rows = []
    for condition, part in predictions.groupby("condition_id", sort=True):
        for factor in factors:
            test = likelihood_ratio_test(part, factor, response="correct", group="emotion",
                                         n_agq=n_agq, weight=weight)
            rows.append(dict(condition_id=condition, factor=factor, **test.as_row()))
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- nested linear models

def _dummies(values: pd.Series) -> np.ndarray:
    """Treatment-coded columns (no intercept) of a categorical; first sorted level is reference."""
    return treatment_design(pd.Series(values))[0][:, 1:]


def _interaction(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.shape[1] == 0 or b.shape[1] == 0:
        return np.empty((a.shape[0], 0))
    return np.column_stack([a[:, i] * b[:, j] for i in range(a.shape[1]) for j in range(b.shape[1])])


@dataclass(frozen=True)
class _LinearFit:
    rss: float
    rank: int
    n: int

    @property
    def df_resid(self) -> int:
        return self.n - self.rank


def _ols(y: np.ndarray, X: np.ndarray) -> _LinearFit:
    """Least squares through the p x p normal equations, pseudo-inverted by eigendecomposition.

    The designs are a handful of 0/1 dummy columns (well conditioned), and solving the small
    p x p system avoids multithreaded LAPACK on a tall matrix, which was 50x slower on a busy
    2-core machine. The rank (hence every df) comes from the eigenvalues, so an empty cell or a
    single-level factor lowers it instead of failing."""
    if X.shape[1] == 0:
        return _LinearFit(rss=float(y @ y), rank=0, n=len(y))
    eigval, eigvec = np.linalg.eigh(X.T @ X)
    keep = eigval > max(eigval.max(), 1.0) * 1e-10
    coef = eigvec[:, keep] @ ((eigvec[:, keep].T @ (X.T @ y)) / eigval[keep])
    resid = y - X @ coef
    return _LinearFit(rss=float(resid @ resid), rank=int(keep.sum()), n=len(y))


def _wls_cells(means: np.ndarray, counts: np.ndarray, within_ss: float, X: np.ndarray) -> _LinearFit:
    """The least-squares fit of one row per observation, from its cells: rows of a cell share
    their design row, so RSS = the within-cell sum of squares + the cell means' least squares
    weighted by the counts (rows scaled by sqrt(count)); X'X, hence the rank, is the same."""
    root = np.sqrt(counts)
    fit = _ols(root * means, root[:, None] * X)
    return _LinearFit(rss=within_ss + fit.rss, rank=fit.rank, n=int(counts.sum()))


def _f_test(small: _LinearFit, large: _LinearFit, ss_total: float) -> dict:
    df_num, df_den = large.rank - small.rank, large.df_resid
    ss_term = max(0.0, small.rss - large.rss)
    out = dict(df_num=df_num, df_den=df_den, ss_term=ss_term, ss_total=ss_total, f_value=None,
               eta_sq=None, p_raw=None, reason=None)
    tiny = 1e-12 * max(1.0, ss_total)
    if ss_total <= tiny:
        out["reason"] = "bias has zero variance in this stratum"
    elif df_num <= 0:
        out["reason"] = "term not estimable from these data (single level or missing cells)"
    elif df_den <= 0:
        out["reason"] = "no residual degrees of freedom (one image per cell)"
    elif large.rss <= tiny:
        out["reason"] = "the larger model fits exactly: no residual variance"
    else:
        f = (ss_term / df_num) / (large.rss / df_den)
        out.update(f_value=f, eta_sq=ss_term / ss_total, p_raw=float(stats.f.sf(f, df_num, df_den)))
    return out


def nested_f_test(y: np.ndarray, X_small: np.ndarray, X_large: np.ndarray) -> dict:
    """F test of X_small nested in X_large (R's anova(m_small, m_large)): the extra sum of squares
    over the extra rank, against the larger model's residual mean square. eta^2 is the extra sum
    of squares over the total (corrected) sum of squares of y (paper 3.4.4). Degrees of freedom are
    matrix ranks of the data actually used, so missing cells lower them instead of breaking."""
    y = np.asarray(y, dtype=float)
    ss_total = float(np.sum((y - y.mean()) ** 2)) if len(y) else 0.0
    return _f_test(_ols(y, X_small), _ols(y, X_large), ss_total)


def nested_f_test_cells(means, counts, within_ss, X_small: np.ndarray, X_large: np.ndarray) -> dict:
    """`nested_f_test` from per-cell aggregates of a design whose rows are constant within a
    cell: each cell's count, mean and within-cell sum of squared deviations, and one design row
    per cell. The same statistics (algebraically) without one row per observation."""
    means, counts = np.asarray(means, dtype=float), np.asarray(counts, dtype=float)
    within = float(np.sum(within_ss))
    grand = float(counts @ means / counts.sum()) if counts.sum() > 0 else 0.0
    ss_total = within + float(counts @ (means - grand) ** 2)
    return _f_test(_wls_cells(means, counts, within, X_small), _wls_cells(means, counts, within, X_large),
                   ss_total)


def _factorial_designs(race: pd.Series, gender: pd.Series) -> dict[str, np.ndarray]:
    """The paper's four models of a stratum: M_gen = gender, M_race = race, M_add = race + gender,
    M_full = race * gender (treatment-coded, one row per observation or per cell)."""
    one = np.ones((len(race), 1))
    R, G = _dummies(race.astype(str)), _dummies(gender.astype(str))
    m_add = np.hstack([one, R, G])
    return dict(gen=np.hstack([one, G]), race=np.hstack([one, R]), add=m_add,
                full=np.hstack([m_add, _interaction(R, G)]))


TERM_MODELS = (("race", "gen", "add"), ("gender", "race", "add"), ("race:gender", "add", "full"))


def stratum_factorial_tests(stratum: pd.DataFrame, bias: str) -> list[dict]:
    """The paper's three nested F tests within one emotion stratum, one row per image, from the
    four models M_full = race*gender, M_add = race+gender, M_race = race, M_gen = gender:
    race: M_gen vs M_add; gender: M_race vs M_add; race:gender: M_add vs M_full."""
    y = stratum[bias].to_numpy(dtype=float)
    m = _factorial_designs(stratum["race"], stratum["gender"])
    return [dict(term=term, **nested_f_test(y, m[small], m[large])) for term, small, large in TERM_MODELS]


def stratum_factorial_tests_cells(cells: pd.DataFrame) -> list[dict]:
    """`stratum_factorial_tests` from the stratum's race x gender cells (columns race, gender,
    n_bias, bias_mean, bias_ss; int_bias_cells). Cells without a bias value are left out."""
    cells = cells[cells["n_bias"] > 0]
    m = _factorial_designs(cells["race"], cells["gender"])
    args = (cells["bias_mean"].to_numpy(dtype=float), cells["n_bias"].to_numpy(dtype=float),
            cells["bias_ss"].to_numpy(dtype=float))
    return [dict(term=term, **nested_f_test_cells(*args, m[small], m[large]))
            for term, small, large in TERM_MODELS]


CELL_KEYS = ["condition_id", "dimension", "emotion", "race", "gender"]


def bias_cells(predictions: pd.DataFrame, dimensions=("valence", "arousal")) -> pd.DataFrame:
    """One row per image -> int_bias_cells' shape: per (condition_id, dimension, emotion, race,
    gender) the rows, the rows with a bias value, and the bias' mean and sum of squared deviations
    (about the cell's own mean)."""
    parts = []
    for dimension in dimensions:
        d = predictions.assign(dimension=dimension, _b=predictions[_bias_column(dimension)].astype(float))
        g = d.groupby(CELL_KEYS, sort=True, dropna=False)["_b"]
        out = g.agg(n_rows="size", n_bias="count", bias_mean="mean")
        out["bias_ss"] = g.var(ddof=0) * out["n_bias"]  # NaN without values, as SQL's var_pop
        parts.append(out.reset_index())
    if not parts:
        return pd.DataFrame(columns=[*CELL_KEYS, "n_rows", "n_bias", "bias_mean", "bias_ss"])
    return pd.concat(parts, ignore_index=True)


def benjamini_hochberg(p_values: pd.Series, alpha: float = ALPHA) -> tuple[pd.Series, pd.Series]:
    """BH q-values and reject flags (statsmodels fdr_bh) over the non-NULL p-values; NULL stays
    NULL and is not counted in the family."""
    q = pd.Series(np.nan, index=p_values.index, dtype=float)
    sig = pd.Series(pd.NA, index=p_values.index, dtype="boolean")
    ok = p_values.notna()
    if ok.any():
        reject, q_vals, _, _ = multipletests(p_values[ok].astype(float), alpha=alpha,
                                             method="fdr_bh")
        q[ok], sig[ok] = q_vals, reject
    return q, sig


def _usable(part: pd.DataFrame, bias: str) -> tuple[pd.DataFrame, int]:
    """Rows with a bias value, and how many lacked one (reported as n_missing, never hidden)."""
    keep = part[bias].notna()
    return part[keep], int((~keep).sum())


def stratified_anova(predictions: pd.DataFrame, dimensions=("valence", "arousal"),
                     alpha: float = ALPHA) -> pd.DataFrame:
    """Per (condition_id, dimension, emotion, term): df_num, df_den, f_value, eta_sq, p_raw,
    q_bh (BH within each (condition_id, dimension) family), significant (q_bh < alpha),
    n (images used), n_missing (rows without a bias value), reason (Tables 7b, 7c).
    One row per image in; computed on its cells (`stratified_anova_cells`)."""
    bias_cols = [_bias_column(d) for d in dimensions]
    _require(predictions, ["condition_id", "emotion", "race", "gender", *bias_cols],
             "stratified_anova")
    _require_complete(predictions, ["condition_id", "emotion", "race", "gender"], "stratified_anova")
    return stratified_anova_cells(bias_cells(predictions, dimensions), alpha)


def stratified_anova_cells(cells: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """`stratified_anova` from int_bias_cells (per condition, dimension, emotion, race, gender:
    n_rows, n_bias, bias_mean, bias_ss)."""
    _require(cells, [*CELL_KEYS, "n_rows", "n_bias", "bias_mean", "bias_ss"], "stratified_anova_cells")
    _require_complete(cells, ["condition_id", "dimension", "emotion", "race", "gender"],
                      "stratified_anova_cells")
    rows = []
    for (condition, dimension, emotion), stratum in cells.groupby(CELL_KEYS[:3], sort=True):
        n = int(stratum["n_bias"].sum())
        n_missing = int(stratum["n_rows"].sum()) - n
        for test in stratum_factorial_tests_cells(stratum):
            rows.append(dict(condition_id=condition, dimension=dimension, emotion=emotion,
                             n=n, n_missing=n_missing, **test))
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    out["q_bh"], out["significant"] = np.nan, pd.Series(pd.NA, index=out.index, dtype="boolean")
    for _, idx in out.groupby(["condition_id", "dimension"]).groups.items():
        q, sig = benjamini_hochberg(out.loc[idx, "p_raw"], alpha)
        out.loc[idx, "q_bh"], out.loc[idx, "significant"] = q, sig
    out["family_size"] = out.groupby(["condition_id", "dimension"])["p_raw"].transform("count")
    cols = ["condition_id", "dimension", "emotion", "term", "df_num", "df_den", "f_value",
            "eta_sq", "p_raw", "q_bh", "significant", "family_size", "ss_term", "ss_total", "n",
            "n_missing", "reason"]
    return out[cols]


TUKEY_COLUMNS = ["condition_id", "dimension", "emotion", "group1", "group2", "meandiff", "p_adj",
                 "lower", "upper", "reject"]


def tukey_cells(predictions: pd.DataFrame, anova: pd.DataFrame,
                alpha: float = ALPHA) -> pd.DataFrame:
    """Tukey HSD over the race x gender cells (statsmodels' tukeyhsd, as pairwise_tukeyhsd runs it)
    for every (condition_id, dimension, emotion) whose race:gender interaction is significant
    after BH. meandiff = mean(group2) - mean(group1) of the bias column as given. One row per
    image in; computed on its cells (`tukey_from_cells`)."""
    dims = sorted(set(anova["dimension"])) if len(anova) else []
    return tukey_from_cells(bias_cells(predictions, dims), anova, alpha)


def tukey_from_cells(cells: pd.DataFrame, anova: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """`tukey_cells` from int_bias_cells: HSD needs only each group's count and mean and the
    pooled within-group variance (sum of the cells' squared deviations over N - k)."""
    hits = anova[(anova["term"] == "race:gender") & (anova["significant"].fillna(False))]
    by_stratum = {key: part for key, part in cells[cells["n_bias"] > 0].groupby(CELL_KEYS[:3], sort=False)}
    rows = []
    for hit in hits.itertuples(index=False):
        used = by_stratum[(hit.condition_id, hit.dimension, hit.emotion)]
        groups = (used["race"].astype(str) + ":" + used["gender"].astype(str)).to_numpy()
        order = np.argsort(groups, kind="stable")  # pairwise_tukeyhsd's groups: np.unique, sorted
        groups, used = groups[order], used.iloc[order]
        nobs = used["n_bias"].to_numpy(dtype=float)
        var = float(used["bias_ss"].sum()) / (nobs.sum() - len(nobs))
        (first, second), reject, diffs, _, confint, _, _, _, pvalues = tukeyhsd(
            used["bias_mean"].to_numpy(dtype=float), nobs, var, alpha=alpha)
        for i, j, diff, p, (lo, hi), rej in zip(first, second, diffs, pvalues, confint, reject):
            rows.append(dict(condition_id=hit.condition_id, dimension=hit.dimension,
                             emotion=hit.emotion, group1=groups[i], group2=groups[j],
                             meandiff=float(diff), p_adj=float(p), lower=float(lo),
                             upper=float(hi), reject=bool(rej)))
    return pd.DataFrame(rows, columns=TUKEY_COLUMNS)


def omnibus_tests(predictions: pd.DataFrame, dimensions=("valence", "arousal"),
                  factors=("race", "gender")) -> pd.DataFrame:
    """The archived v10.6 analyses (Tables S5.1-S5.4), per (condition_id, dimension, factor):
    main effect  bias ~ factor + emotion  vs  bias ~ emotion;
    interaction  bias ~ factor * emotion  vs  bias ~ factor + emotion."""
    bias_cols = [_bias_column(d) for d in dimensions]
    _require(predictions, ["condition_id", "emotion", *factors, *bias_cols], "omnibus_tests")
    _require_complete(predictions, ["condition_id", "emotion", *factors], "omnibus_tests")
    rows = []
    for condition, part in predictions.groupby("condition_id", sort=True):
        for dimension, bias in zip(dimensions, bias_cols):
            for factor in factors:
                used, n_missing = _usable(part, bias)
                y = used[bias].to_numpy(dtype=float)
                one = np.ones((len(y), 1))
                F, E = _dummies(used[factor].astype(str)), _dummies(used["emotion"].astype(str))
                m_emo, m_add = np.hstack([one, E]), np.hstack([one, F, E])
                m_int = np.hstack([m_add, _interaction(F, E)])
                for term, small, large in ((factor, m_emo, m_add),
                                           (f"{factor}:emotion", m_add, m_int)):
                    rows.append(dict(condition_id=condition, dimension=dimension, factor=factor,
                                     term=term, n=len(used), n_missing=n_missing,
                                     **nested_f_test(y, small, large)))
    return pd.DataFrame(rows)


def significance_counts(anova: pd.DataFrame) -> pd.DataFrame:
    """Per (condition_id, dimension, term): in how many emotion strata the term is significant
    after BH, out of the strata where it could be tested ("valence - race significant in k/6")."""
    g = anova.groupby(["condition_id", "dimension", "term"], sort=True)
    out = g.agg(n_significant=("significant", lambda s: int(s.fillna(False).sum())),
                n_tested=("p_raw", "count"), n_strata=("emotion", "nunique")).reset_index()
    out["label"] = out["n_significant"].astype(str) + "/" + out["n_tested"].astype(str)
    return out
