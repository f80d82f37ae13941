"""The oracle: every statistic the report's answer and the agreement marts show, recomputed from a
study folder's landed Parquet (data/raw/*.parquet) and its study.yml, sharing no code with
rater1001 (numpy, pandas, scipy, scikit-learn and the `krippendorff` package only).

Definitions, written from the paper and docs/stats.md, not from the project's code:
* alpha: Krippendorff's alpha of the raters x stimuli matrix (the `krippendorff` package), per
  dimension and scope ('all', and each level of the category factor when the study has one; a
  study without a category has the 'all' scope only). "+ model": the condition is one more row of
  the matrix, a missing answer a blank cell. delta alpha = alpha(humans + model) - alpha(humans).
* z of a model answer x_j: (x_j - M_j) / S_j with the stimulus's human mean and SD (ddof 1).
  A stimulus whose human SD is 0 or undefined (< 2 ratings) is out of W1SD ("zero SD"); of the
  others, a stimulus without a value from the condition (no row, or a blank value) is a missing
  answer and counts against the model: W1SD = #(|z| <= 1) / (scored + missing); mean |z| is over
  the scored stimuli.
* human leave-one-out z of rating y_h: (y_h - M') / S' with the other ratings' mean and SD (ddof 1;
  needs 3 ratings); S' = 0 leaves the rating out.
* agreement: over the stimuli the condition answered, d = human mean - model value; bias, SD_d
  (ddof 1), limits bias -/+ 1.96 SD_d, MAE, sqrt(bias^2 + 2/pi SD_d^2), Pearson r (scipy; undefined
  below 3 pairs or on a constant side); human LOO MAE = mean |y_h - M'| over ratings of stimuli with
  >= 2 ratings; human pairwise MAE = mean |y_a - y_b| over all pairs of ratings of a stimulus,
  pooled.
* classification: every stimulus with a category counts; a missing answer (no row, or no label)
  is a wrong answer. Accuracy, Cohen's kappa, macro F1 over the category's labels (scikit-learn).
  The human row is the raters' plurality label (a tie is no label).
* audit slices: the same classification figures within each level of each audit factor, and of
  each pair of audit factors.
* rater audit: per rater attribute level, the share of that level's labels (or ratings, rounded
  model value equal to the rating) that agree with the condition's answer on the same stimulus; a
  missing answer disagrees (the missing-answer policy).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import yaml
from scipy import stats
from sklearn.metrics import cohen_kappa_score, f1_score

METRICS = ("interval", "ordinal", "nominal")
ALPHA_COLUMNS = [
    "dimension",
    "scope",
    "condition_id",
    "metric",
    "alpha",
    "delta_alpha",
    "human_alpha",
    "n_units",
    "n_values",
    "n_model_values",
]
Z_COLUMNS = [
    "condition_id",
    "dimension",
    "scope",
    "mean_abs_z",
    "w1sd",
    "w1sd_answered_only",
    "n_images",
    "n_zero_sd_images",
    "n_missing_model_values",
]
MISSING = "\x00missing"  # a missing label, its own class (never equal to a declared label)


def _memo(fn):
    """Keep a table per study (the checks ask for the same tables again)."""

    def wrapper(landed, *args):
        key = (fn.__name__, args)
        if key not in landed.cache:
            landed.cache[key] = fn(landed, *args)
        return landed.cache[key].copy()

    wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
    return wrapper


@dataclass(eq=False)
class Landed:
    root: Path
    study: dict
    stimuli: pd.DataFrame
    raters: pd.DataFrame
    ratings: pd.DataFrame
    predictions: pd.DataFrame
    conditions: list[str]
    cache: dict = field(default_factory=dict)

    @property
    def category(self) -> str | None:
        cats = [f["name"] for f in self.study.get("factors", []) if f.get("role") == "category"]
        return cats[0] if cats else None

    @property
    def audit(self) -> list[str]:
        return [f["name"] for f in self.study.get("factors", []) if f.get("role") == "audit"]

    @property
    def attributes(self) -> list[str]:
        return list(self.study.get("rater_attributes", []))

    @property
    def dims(self) -> list[str]:
        return list(self.study.get("dimensions", []))

    @property
    def model_dims(self) -> list[str]:
        return list(self.study.get("model_dimensions", self.dims))

    def scopes(self) -> list[str]:
        if self.category is None:
            return ["all"]
        return ["all", *sorted(self.stimuli[self.category].dropna().unique())]

    def scope_items(self, scope: str) -> pd.Index:
        if scope == "all":
            return pd.Index(self.stimuli["image_id"])
        return pd.Index(self.stimuli.loc[self.stimuli[self.category] == scope, "image_id"])

    def model_values(self, condition: str, dim: str) -> pd.Series:
        """The condition's value per stimulus (first run), NaN where missing; index image_id."""
        key = ("model_values", condition, dim)
        if key not in self.cache:
            p = self.predictions[self.predictions["condition_id"] == condition]
            values = p.drop_duplicates("image_id").set_index("image_id")[dim] if dim in p else pd.Series()
            self.cache[key] = values.astype(float)
        return self.cache[key].copy()


def load(root: Path) -> Landed:
    raw = root / "data" / "raw"

    def read(name):
        path = raw / f"{name}.parquet"
        return pd.read_parquet(path) if path.exists() else pd.DataFrame()

    study = yaml.safe_load((root / "study.yml").read_text(encoding="utf-8"))
    conditions = read("model_conditions")
    predictions = read("model_predictions")
    if predictions.empty:
        predictions = pd.DataFrame(columns=["condition_id", "image_id"])
    return Landed(
        root,
        study,
        read("stimuli"),
        read("raters"),
        read("human_ratings"),
        predictions,
        sorted(conditions["condition_id"]) if not conditions.empty else [],
    )


# --- alpha ---------------------------------------------------------------------------------------


def _alpha(matrix: np.ndarray, metric: str) -> tuple[float, int, int]:
    """(alpha, pairable units, pairable values) of a raters x units matrix with NaN for blanks."""
    counts = np.sum(~np.isnan(matrix), axis=0)
    pairable = counts >= 2
    n_units, n_values = int(pairable.sum()), int(counts[pairable].sum())
    data = matrix[:, pairable]
    if n_values == 0 or np.unique(data[~np.isnan(data)]).size < 2:
        return math.nan, n_units, n_values
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=metric)), n_units, n_values


@_memo
def alpha_table(landed: Landed, metrics=METRICS) -> pd.DataFrame:
    """dimension, scope, condition_id ('human' or a condition), metric, alpha, delta_alpha,
    human_alpha, n_units, n_values, n_model_values."""
    rows = []
    r = landed.ratings
    for dim in landed.dims:
        wide = r.pivot_table(index="rater_id", columns="image_id", values=dim, aggfunc="first")
        for scope in landed.scopes():
            items = [i for i in landed.scope_items(scope) if i in wide.columns and wide[i].notna().any()]
            if not items:
                continue
            human = wide[items].to_numpy(dtype=float)
            for metric in metrics:
                a, nu, nv = _alpha(human, metric)
                rows.append(
                    dict(
                        dimension=dim,
                        scope=scope,
                        condition_id="human",
                        metric=metric,
                        alpha=a,
                        delta_alpha=math.nan,
                        human_alpha=a,
                        n_units=nu,
                        n_values=nv,
                        n_model_values=0,
                    )
                )
                if dim not in landed.model_dims:
                    continue
                for cond in landed.conditions:
                    x = landed.model_values(cond, dim).reindex(items).to_numpy(dtype=float)
                    n_model = int(np.sum(~np.isnan(x)))
                    am, num, nvm = _alpha(np.vstack([human, x]), metric) if n_model else (math.nan, nu, nv)
                    rows.append(
                        dict(
                            dimension=dim,
                            scope=scope,
                            condition_id=cond,
                            metric=metric,
                            alpha=am,
                            delta_alpha=am - a,
                            human_alpha=a,
                            n_units=num,
                            n_values=nvm,
                            n_model_values=n_model,
                        )
                    )
    return pd.DataFrame(rows, columns=ALPHA_COLUMNS)


# --- z-scores ------------------------------------------------------------------------------------


def _human_stats(landed: Landed, dim: str) -> pd.DataFrame:
    g = landed.ratings.dropna(subset=[dim]).groupby("image_id")[dim]
    return pd.DataFrame({"n": g.size(), "mean": g.mean(), "sd": g.std(ddof=1)})


@_memo
def zscore_table(landed: Landed) -> pd.DataFrame:
    """condition_id (or 'human_loo'), dimension, scope, mean_abs_z, w1sd, w1sd_answered_only,
    n_images (scored stimuli; ratings for human_loo), n_zero_sd_images, n_missing_model_values."""
    rows = []
    for dim in landed.model_dims:
        h = _human_stats(landed, dim)
        for scope in landed.scopes():
            items = [i for i in landed.scope_items(scope) if i in h.index]
            hs = h.loc[items]
            zero = ~(hs["sd"] > 0)
            for cond in landed.conditions:
                x = landed.model_values(cond, dim).reindex(items)
                if x.notna().sum() == 0:
                    continue  # the condition gives no value on this dimension
                missing = (~zero) & x.isna().to_numpy()
                z = ((x - hs["mean"]) / hs["sd"])[(~zero) & x.notna()]
                within = int((z.abs() <= 1).sum())
                scored = len(z)
                rows.append(
                    dict(
                        condition_id=cond,
                        dimension=dim,
                        scope=scope,
                        mean_abs_z=z.abs().mean() if scored else math.nan,
                        w1sd=within / (scored + int(missing.sum())) if scored + missing.sum() else math.nan,
                        w1sd_answered_only=within / scored if scored else math.nan,
                        n_images=scored,
                        n_zero_sd_images=int(zero.sum()),
                        n_missing_model_values=int(missing.sum()),
                    )
                )
            loo = _loo_z(landed, dim, set(items))
            rows.append(
                dict(
                    condition_id="human_loo",
                    dimension=dim,
                    scope=scope,
                    mean_abs_z=np.mean(np.abs(loo)) if len(loo) else math.nan,
                    w1sd=np.mean(np.abs(loo) <= 1) if len(loo) else math.nan,
                    w1sd_answered_only=math.nan,
                    n_images=len(loo),
                    n_zero_sd_images=math.nan,
                    n_missing_model_values=math.nan,
                )
            )
    return pd.DataFrame(rows, columns=Z_COLUMNS)


def _loo_z(landed: Landed, dim: str, items: set) -> np.ndarray:
    out = []
    r = landed.ratings.dropna(subset=[dim])
    for _item, vals in r[r["image_id"].isin(items)].groupby("image_id")[dim]:
        v = vals.to_numpy(dtype=float)
        if len(v) < 3:
            continue
        for h in range(len(v)):
            others = np.delete(v, h)
            sd = np.std(others, ddof=1)
            if sd > 0:
                out.append((v[h] - others.mean()) / sd)
    return np.asarray(out)


# --- agreement ----------------------------------------------------------------------------------


@_memo
def agreement_table(landed: Landed) -> pd.DataFrame:
    rows = []
    for dim in landed.model_dims:
        h = _human_stats(landed, dim)
        r = landed.ratings.dropna(subset=[dim])
        for scope in landed.scopes():
            items = [i for i in landed.scope_items(scope) if i in h.index]
            loo_abs, pair_abs = [], []
            for _, vals in r[r["image_id"].isin(items)].groupby("image_id")[dim]:
                v = vals.to_numpy(dtype=float)
                if len(v) >= 2:
                    loo_abs += [abs(v[k] - np.delete(v, k).mean()) for k in range(len(v))]
                    pair_abs += [abs(a - b) for a, b in itertools.combinations(v, 2)]
            loo_mae = float(np.mean(loo_abs)) if loo_abs else math.nan
            for cond in landed.conditions:
                x = landed.model_values(cond, dim).reindex(items)
                if x.notna().sum() == 0:
                    continue
                ok = x.notna()
                m, xv = h.loc[items, "mean"][ok.to_numpy()].to_numpy(), x[ok].to_numpy()
                d = m - xv
                n = len(d)
                bias = d.mean()
                sd_d = d.std(ddof=1) if n >= 2 else math.nan
                defined = n >= 3 and np.ptp(xv) > 0 and np.ptp(m) > 0
                rows.append(
                    dict(
                        condition_id=cond,
                        dimension=dim,
                        scope=scope,
                        n=n,
                        pearson_r=stats.pearsonr(m, xv)[0] if defined else math.nan,
                        bias=bias,
                        sd_d=sd_d,
                        loa_lower=bias - 1.96 * sd_d,
                        loa_upper=bias + 1.96 * sd_d,
                        mae=np.abs(d).mean(),
                        mae_folded_normal=math.sqrt(bias**2 + 2 / math.pi * sd_d**2),
                        human_loo_mae=loo_mae,
                        human_pairwise_mae=float(np.mean(pair_abs)) if pair_abs else math.nan,
                    )
                )
    return pd.DataFrame(rows)


# --- classification ------------------------------------------------------------------------------


@_memo
def answers(landed: Landed) -> dict[str, pd.Series]:
    """Each condition's label per stimulus (MISSING where it gave none), and 'human' = the
    raters' plurality label (a tie: no label). Index: every stimulus with a category."""
    cat = landed.category
    truth = landed.stimuli.set_index("image_id")[cat].dropna()
    out = {}
    if cat in landed.ratings:
        counts = landed.ratings.dropna(subset=[cat]).groupby(["image_id", cat]).size()
        vote = {}
        for item, c in counts.groupby(level=0):
            top = c[c == c.max()]
            vote[item] = top.index[0][1] if len(top) == 1 else MISSING
        out["human"] = pd.Series(vote).reindex(truth.index).fillna(MISSING)
    for cond in landed.conditions:
        p = landed.predictions[landed.predictions["condition_id"] == cond].drop_duplicates("image_id")
        labels = p.set_index("image_id")[cat] if cat in p else pd.Series(dtype=object)
        out[cond] = labels.reindex(truth.index).fillna(MISSING)
    return out


def _classification(truth: pd.Series, pred: pd.Series) -> dict:
    labels = sorted(truth.unique())
    correct = truth.to_numpy() == pred.to_numpy()
    answered = pred.to_numpy() != MISSING
    return dict(
        n=len(truth),
        n_missing=int((~answered).sum()),
        accuracy=correct.mean(),
        accuracy_answered_only=correct[answered].mean() if answered.any() else math.nan,
        f1_macro=f1_score(truth, pred, labels=labels, average="macro", zero_division=0),
        kappa=cohen_kappa_score(truth, pred) if len(set(truth) | set(pred)) > 1 else math.nan,
    )


@_memo
def classification_table(landed: Landed) -> pd.DataFrame:
    if landed.category is None:
        return pd.DataFrame()
    truth = landed.stimuli.set_index("image_id")[landed.category].dropna()
    return pd.DataFrame([dict(condition_id=c, **_classification(truth, p)) for c, p in answers(landed).items()])


@_memo
def classification_by_label_table(landed: Landed) -> pd.DataFrame:
    if landed.category is None:
        return pd.DataFrame()
    truth = landed.stimuli.set_index("image_id")[landed.category].dropna()
    rows = []
    for cond, pred in answers(landed).items():
        for label in sorted(truth.unique()):
            t, p = truth == label, pred == label
            tp = int((t & p).sum())
            precision = tp / p.sum() if p.sum() else math.nan
            recall = tp / t.sum()
            f1 = 0.0 if not tp else 2 * precision * recall / (precision + recall)
            rows.append(
                dict(
                    condition_id=cond,
                    label=label,
                    precision=precision,
                    recall=recall,
                    f1=f1,
                    support=int(t.sum()),
                    n_predicted=int(p.sum()),
                    kappa_one_vs_rest=cohen_kappa_score(t, p) if t.nunique() + p.nunique() > 2 else math.nan,
                )
            )
    return pd.DataFrame(rows)


@_memo
def audit_slices_table(landed: Landed) -> pd.DataFrame:
    """Per condition (and 'human': every rater's own label, as the paper's Table 7), slice_type =
    an audit factor or a pair 'a_b', slice = its level ('x:y' for a pair): n, n_missing, accuracy,
    f1_macro."""
    if landed.category is None or not landed.audit:
        return pd.DataFrame()
    st = landed.stimuli.set_index("image_id")
    truth_all = st[landed.category].dropna()
    given = answers(landed)
    if "human" in given:
        labelled = landed.ratings.dropna(subset=[landed.category])
        labelled = labelled[labelled["image_id"].isin(truth_all.index)]
        given["human"] = pd.Series(labelled[landed.category].to_numpy(), index=labelled["image_id"].to_numpy())
    rows = []
    for cond, pred in given.items():
        truth = truth_all.reindex(pred.index)
        groups = [(f, st.loc[pred.index, f].astype(str)) for f in landed.audit]
        groups += [
            (f"{a}_{b}", st.loc[pred.index, a].astype(str) + ":" + st.loc[pred.index, b].astype(str))
            for a, b in itertools.combinations(landed.audit, 2)
        ]
        for slice_type, level in groups:
            for value in sorted(level.unique()):
                mask = (level == value).to_numpy()
                c = _classification(truth[mask], pred[mask])
                rows.append(
                    dict(
                        condition_id=cond,
                        slice_type=slice_type,
                        slice=value,
                        n=c["n"],
                        n_missing=c["n_missing"],
                        accuracy=c["accuracy"],
                        f1_macro=c["f1_macro"],
                    )
                )
    return pd.DataFrame(rows)


@_memo
def rater_agreement_table(landed: Landed) -> pd.DataFrame:
    """Per condition, rater attribute and level: n_raters, n_labels (the level's answers; a
    stimulus the condition did not answer counts as a disagreement), n_agree, agreement. Labels
    when the study has a category, else each model dimension's ratings against the rounded model
    value."""
    if not landed.attributes:
        return pd.DataFrame()
    rows = []
    r = landed.ratings.merge(landed.raters, on="rater_id", how="left")
    for cond in landed.conditions:
        if landed.category is not None:
            pairs = [(landed.category, answers(landed)[cond].replace(MISSING, np.nan))]
        else:
            pairs = [(d, landed.model_values(cond, d).round()) for d in landed.model_dims]
        for column, model in pairs:
            # every answer the raters gave; a stimulus the condition did not answer disagrees
            given = r.dropna(subset=[column])
            agree = given[column].to_numpy() == model.reindex(given["image_id"]).to_numpy()
            for attribute in landed.attributes:
                for level in sorted(landed.raters[attribute].dropna().unique()):
                    mask = (given[attribute] == level).to_numpy()
                    rows.append(
                        dict(
                            condition_id=cond,
                            measure=column,
                            attribute=attribute,
                            level=level,
                            n_raters=int(given.loc[mask, "rater_id"].nunique()),
                            n_labels=int(mask.sum()),
                            n_agree=int(agree[mask].sum()),
                            agreement=agree[mask].mean() if mask.any() else math.nan,
                        )
                    )
    return pd.DataFrame(rows)


# --- the answer's headline numbers -----------------------------------------------------------------


@_memo
def headline_table(landed: Landed) -> pd.DataFrame:
    """The point estimates the report's answer shows per condition: interval delta alpha and W1SD
    of each model dimension over every stimulus ('all'), the human LOO W1SD beside it, and kappa."""
    rows = []
    a = alpha_table(landed, ("interval",))
    z = zscore_table(landed)
    for _, row in a[(a["scope"] == "all") & (a["condition_id"] != "human")].iterrows():
        rows.append(
            dict(
                condition_id=row["condition_id"],
                dimension=row["dimension"],
                statistic="delta_alpha",
                estimate=row["delta_alpha"],
            )
        )
    for _, row in z[(z["scope"] == "all") & (z["condition_id"] != "human_loo")].iterrows():
        rows.append(
            dict(condition_id=row["condition_id"], dimension=row["dimension"], statistic="w1sd", estimate=row["w1sd"])
        )
    c = classification_table(landed)
    for _, row in c.iterrows():
        if row["condition_id"] != "human":
            rows.append(
                dict(
                    condition_id=row["condition_id"],
                    dimension=landed.category,
                    statistic="kappa",
                    estimate=row["kappa"],
                )
            )
    return pd.DataFrame(rows)


# --- the bias audit by stimulus factors ------------------------------------------------------------


def _dummies(levels: pd.Series) -> np.ndarray:
    """Treatment-coded columns of a factor (first level dropped)."""
    values = sorted(levels.unique())
    return (
        np.column_stack([(levels == v).to_numpy(dtype=float) for v in values[1:]])
        if len(values) > 1
        else (np.empty((len(levels), 0)))
    )


def _fit(y: np.ndarray, X: np.ndarray) -> tuple[float, int]:
    """(residual sum of squares, rank) of the least-squares fit of y on X."""
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ beta
    return float(resid @ resid), int(np.linalg.matrix_rank(X))


def _nested_f(y, small, large, ss_total) -> dict:
    rss_s, r_s = _fit(y, small)
    rss_l, r_l = _fit(y, large)
    df_num, df_den = r_l - r_s, len(y) - r_l
    out = dict(
        df_num=df_num,
        df_den=df_den,
        ss_term=rss_s - rss_l,
        ss_total=ss_total,
        f_value=math.nan,
        eta_sq=math.nan,
        p_raw=math.nan,
    )
    if df_num > 0 and df_den > 0 and rss_l > 1e-12 * max(1.0, ss_total):
        f = ((rss_s - rss_l) / df_num) / (rss_l / df_den)
        out.update(f_value=f, eta_sq=(rss_s - rss_l) / ss_total, p_raw=float(stats.f.sf(f, df_num, df_den)))
    return out


@_memo
def audit_anova_table(landed: Landed) -> pd.DataFrame:
    """The rating bias d = human mean - model value by the audit factors, within each category
    stratum ('all' without a category): for each factor, the main-effects model without it against
    the one with every factor (type II); for each pair a:b, the main-effects model against it plus
    the a x b interaction. F, eta^2 = SS_term / SS_total, p; BH q within each (condition,
    dimension) over the defined tests."""
    from statsmodels.stats.multitest import multipletests

    if not landed.audit or not landed.model_dims:
        return pd.DataFrame()
    st = landed.stimuli.set_index("image_id")
    rows = []
    for dim in landed.model_dims:
        h = _human_stats(landed, dim)["mean"]
        for cond in landed.conditions:
            x = landed.model_values(cond, dim)
            family = []
            for scope in landed.scopes()[1:] if landed.category else ["all"]:
                items = [i for i in landed.scope_items(scope) if i in h.index and not np.isnan(x.get(i, np.nan))]
                if not items:
                    continue
                y = (h.loc[items] - x.loc[items]).to_numpy(dtype=float)
                ss_total = float(np.sum((y - y.mean()) ** 2))
                dummies = {f: _dummies(st.loc[items, f].astype(str)) for f in landed.audit}
                one = np.ones((len(items), 1))

                def main(fs, one=one, dummies=dummies):
                    return np.column_stack([one, *[dummies[f] for f in fs]])

                everything = main(landed.audit)
                for f in landed.audit:
                    others = [g for g in landed.audit if g != f]
                    family.append(
                        dict(term=f, scope=scope, n=len(items), **_nested_f(y, main(others), everything, ss_total))
                    )
                for a, b in itertools.combinations(landed.audit, 2):
                    inter = [
                        dummies[a][:, [i]] * dummies[b][:, [j]]
                        for i in range(dummies[a].shape[1])
                        for j in range(dummies[b].shape[1])
                    ]
                    family.append(
                        dict(
                            term=f"{a}:{b}",
                            scope=scope,
                            n=len(items),
                            **_nested_f(y, everything, np.column_stack([everything, *inter]), ss_total),
                        )
                    )
            p = np.array([r["p_raw"] for r in family], dtype=float)
            ok = ~np.isnan(p)
            q = np.full(len(p), math.nan)
            if ok.any():
                q[ok] = multipletests(p[ok], method="fdr_bh")[1]
            for r, qv in zip(family, q, strict=True):
                rows.append(dict(condition_id=cond, dimension=dim, q_bh=qv, family_size=int(ok.sum()), **r))
    return pd.DataFrame(rows)


def _bias(landed: Landed, cond: str, dim: str, items) -> pd.Series:
    """d = human mean - model value per stimulus of items where both exist; index image_id."""
    h = _human_stats(landed, dim)["mean"]
    x = landed.model_values(cond, dim)
    d = h.reindex(items) - x.reindex(items)
    return d.dropna()


@_memo
def audit_omnibus_table(landed: Landed) -> pd.DataFrame:
    """Per condition, model dimension and audit factor, over every stimulus with a level of the
    factor and a bias value: the factor's main effect (bias ~ factor + category against bias ~
    category) and its interaction with the category (bias ~ factor * category against the
    additive model; none without a category). F, eta^2, p by least squares."""
    if not landed.audit or not landed.model_dims:
        return pd.DataFrame()
    st = landed.stimuli.set_index("image_id")
    rows = []
    for dim in landed.model_dims:
        for cond in landed.conditions:
            for f in landed.audit:
                d = _bias(landed, cond, dim, st.index[st[f].notna()])
                if d.empty:
                    continue
                y = d.to_numpy(dtype=float)
                ss_total = float(np.sum((y - y.mean()) ** 2))
                one = np.ones((len(y), 1))
                F = _dummies(st.loc[d.index, f].astype(str))
                C = _dummies(st.loc[d.index, landed.category].astype(str)) if landed.category else one[:, :0]
                additive = np.column_stack([one, F, C])
                tests = [(f, np.column_stack([one, C]), additive)]
                if landed.category:
                    inter = [F[:, [i]] * C[:, [j]] for i in range(F.shape[1]) for j in range(C.shape[1])]
                    tests.append((f"{f}:{landed.category}", additive, np.column_stack([additive, *inter])))
                for term, small, large in tests:
                    rows.append(
                        dict(
                            condition_id=cond,
                            dimension=dim,
                            factor=f,
                            term=term,
                            n=len(y),
                            **_nested_f(y, small, large, ss_total),
                        )
                    )
    return pd.DataFrame(rows)


@_memo
def audit_tukey_table(landed: Landed) -> pd.DataFrame:
    """Where the oracle's stratified ANOVA (audit_anova_table) finds a pair's interaction a:b
    significant (q_BH < .05) in a stratum: statsmodels' pairwise_tukeyhsd of the bias over that
    stratum's a x b cells (the stimuli the ANOVA used), one row per pair of cells."""
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    anova = audit_anova_table(landed)
    if anova.empty:
        return pd.DataFrame()
    pairs = {f"{a}:{b}": (a, b) for a, b in itertools.combinations(landed.audit, 2)}
    hits = anova[anova["term"].isin(list(pairs)) & (anova["q_bh"] < 0.05)]
    st = landed.stimuli.set_index("image_id")
    rows = []
    for hit in hits.itertuples(index=False):
        a, b = pairs[hit.term]
        items = landed.scope_items(hit.scope) if landed.category else st.index
        d = _bias(landed, hit.condition_id, hit.dimension, items)
        groups = (st.loc[d.index, a].astype(str) + ":" + st.loc[d.index, b].astype(str)).to_numpy()
        res = pairwise_tukeyhsd(d.to_numpy(dtype=float), groups)
        for (i, j), diff, p, (lo, hi), rej in zip(
            itertools.combinations(range(len(res.groupsunique)), 2),
            res.meandiffs,
            res.pvalues,
            res.confint,
            res.reject,
            strict=True,
        ):
            rows.append(
                dict(
                    condition_id=hit.condition_id,
                    dimension=hit.dimension,
                    scope=hit.scope,
                    term=hit.term,
                    group1=res.groupsunique[i],
                    group2=res.groupsunique[j],
                    meandiff=float(diff),
                    p_adj=float(p),
                    lower=float(lo),
                    upper=float(hi),
                    reject=float(bool(rej)),
                )
            )
    return pd.DataFrame(rows)


_GRID = np.linspace(-12.0, 12.0, 4801)  # b ~ N(0, 1): the integrand is negligible beyond +-12
_LOG_PRIOR = stats.norm.logpdf(_GRID)


def _glmm_loglik(params: np.ndarray, X: np.ndarray, k: np.ndarray, n: np.ndarray, group: np.ndarray) -> float:
    """log L of k successes in n ~ Binomial(logistic(X beta + sigma b_g)), b_g ~ N(0, 1), without
    binomial coefficients (0/1 data aggregated): per group, the integral over b by the trapezoidal
    rule on a fine fixed grid (exponentially accurate for a smooth, fast-decaying integrand).
    k log p + (n - k) log(1 - p) is written n log p - (n - k) eta, as log(1 - p) = log p - eta: one
    log_expit per cell and grid point."""
    from scipy.special import log_expit

    beta, sigma = params[:-1], abs(params[-1])
    lin = (X @ beta)[:, None] + sigma * _GRID[None, :]
    per_cell = n[:, None] * log_expit(lin) - (n - k)[:, None] * lin
    total = 0.0
    for g in np.unique(group):
        logf = per_cell[group == g].sum(0) + _LOG_PRIOR
        top = logf.max()
        total += top + math.log(np.trapezoid(np.exp(logf - top), _GRID))
    return total


def _glmm_fit(X: np.ndarray, k: np.ndarray, n: np.ndarray, group: np.ndarray) -> tuple[float, float]:
    """(maximised log-likelihood, sigma): Nelder-Mead from the logistic regression's fit, then
    a bounded quasi-Newton polish; the better of the two."""
    from scipy import optimize

    def logistic_nll(b):
        eta = X @ b
        return -float(np.sum(k * eta - n * np.logaddexp(0, eta)))

    start = np.append(optimize.minimize(logistic_nll, np.zeros(X.shape[1]), method="BFGS").x, 0.5)

    def nll(p):
        return -_glmm_loglik(p, X, k, n, group)

    nm = optimize.minimize(nll, start, method="Nelder-Mead", options=dict(xatol=1e-10, fatol=1e-13, maxiter=40000))
    x0 = np.append(nm.x[:-1], abs(nm.x[-1]))
    bounds = [(None, None)] * X.shape[1] + [(0.0, None)]
    polish = optimize.minimize(nll, x0, method="L-BFGS-B", bounds=bounds, options=dict(ftol=1e-15, gtol=1e-10))
    best = polish if polish.fun <= nm.fun else nm
    return -float(best.fun), abs(float(best.x[-1]))


@_memo
def audit_glmm_table(landed: Landed) -> pd.DataFrame:
    """Per condition and audit factor, over every stimulus with a level of the factor: the
    likelihood-ratio test of correct ~ factor + (1 | category) against correct ~ 1 + (1 |
    category), both fitted by maximum likelihood (the marginal likelihood integrated by scipy's
    quadrature, maximised by scipy.optimize); a missing answer is wrong. chi2 = 2 (l_full -
    l_null) on levels - 1 df. NaN where it cannot be fitted (one level, no variance in correct)."""
    if landed.category is None or not landed.audit:
        return pd.DataFrame()
    st = landed.stimuli.set_index("image_id")
    rows = []
    for cond in landed.conditions:
        p = landed.predictions[landed.predictions["condition_id"] == cond].drop_duplicates("image_id")
        answer = p.set_index("image_id")[landed.category].reindex(st.index)
        correct = (answer == st[landed.category]).fillna(False).astype(float)
        for f in landed.audit:
            items = st.index[st[f].notna() & st[landed.category].notna()]
            y, levels = correct.loc[items].to_numpy(), st.loc[items, f].astype(str)
            group = st.loc[items, landed.category].astype(str).to_numpy()
            row = dict(
                condition_id=cond,
                factor=f,
                n_obs=len(items),
                n_levels=levels.nunique(),
                n_groups=len(set(group)),
                df=math.nan,
                chi2=math.nan,
                p_value=math.nan,
                loglik_full=math.nan,
                loglik_null=math.nan,
                random_intercept_sd=math.nan,
                random_intercept_sd_null=math.nan,
            )
            if len(items) and 0 < y.sum() < len(y) and levels.nunique() > 1:
                cells = pd.DataFrame({"g": group, "level": levels.to_numpy(), "y": y})
                cells = cells.groupby(["g", "level"])["y"].agg(["sum", "size"]).reset_index()
                one = np.ones((len(cells), 1))
                full = np.column_stack([one, _dummies(cells["level"])])
                data = (cells["sum"].to_numpy(float), cells["size"].to_numpy(float), cells["g"].to_numpy())
                l_full, s_full = _glmm_fit(full, *data)
                l_null, s_null = _glmm_fit(one, *data)
                chi2 = max(0.0, 2 * (l_full - l_null))
                df = full.shape[1] - 1
                row.update(
                    df=df,
                    chi2=chi2,
                    p_value=float(stats.chi2.sf(chi2, df)),
                    loglik_full=l_full,
                    loglik_null=l_null,
                    random_intercept_sd=s_full,
                    random_intercept_sd_null=s_null,
                )
            rows.append(row)
    return pd.DataFrame(rows)


# --- calibration: the uncalibrated row of each (condition, dimension, category level) --------------


@_memo
def calibration_none_table(landed: Landed) -> pd.DataFrame:
    """calibration_scores' method 'none' rows (the scores before calibration) per condition, model
    dimension and category level: n_scored and mean |z| over the level's scored stimuli (answered,
    human SD > 0); MAE, bias = mean(human mean - model), its SD and the distinct answers over the
    answered ones; W1SD
    under the missing-answer policy with its counts; interval alpha of the level's stimuli without
    and with the condition, its delta and the delta over every stimulus; the level's human LOO W1SD."""
    if landed.category is None:
        return pd.DataFrame()
    a = alpha_table(landed, ("interval",))
    z = zscore_table(landed)
    rows = []
    for dim in landed.model_dims:
        h = _human_stats(landed, dim)
        for cond in landed.conditions:
            x_all = landed.model_values(cond, dim)
            if x_all.notna().sum() == 0:
                continue
            pooled = a[(a.dimension == dim) & (a.scope == "all") & (a.condition_id == cond)]["delta_alpha"]
            for scope in landed.scopes()[1:]:
                items = [i for i in landed.scope_items(scope) if i in h.index]
                hs, x = h.loc[items], x_all.reindex(items)
                scored = (hs["sd"] > 0).to_numpy() & x.notna().to_numpy()
                answered = x.notna().to_numpy()
                d = (hs["mean"] - x)[answered]
                zz = ((hs["mean"] - x)[scored] / hs["sd"][scored]).abs()
                al = a[(a.dimension == dim) & (a.scope == scope) & (a.condition_id == cond)]
                zr = z[(z.dimension == dim) & (z.scope == scope) & (z.condition_id == cond)]
                loo = z[(z.dimension == dim) & (z.scope == scope) & (z.condition_id == "human_loo")]
                rows.append(
                    dict(
                        condition_id=cond,
                        dimension=dim,
                        scope=scope,
                        method="none",
                        n_scored=int(scored.sum()),
                        mean_abs_z=zz.mean() if len(zz) else math.nan,
                        mae=d.abs().mean() if len(d) else math.nan,
                        bias=d.mean() if len(d) else math.nan,
                        sd_d=d.std(ddof=1) if len(d) >= 2 else math.nan,
                        n_unique=int(x[answered].nunique()),
                        w1sd=zr["w1sd"].iloc[0] if len(zr) else math.nan,
                        n_missing=zr["n_missing_model_values"].iloc[0] if len(zr) else math.nan,
                        n_zero_sd=zr["n_zero_sd_images"].iloc[0] if len(zr) else math.nan,
                        alpha_human=al["human_alpha"].iloc[0] if len(al) else math.nan,
                        alpha_with_model=al["alpha"].iloc[0] if len(al) else math.nan,
                        delta_alpha=al["delta_alpha"].iloc[0] if len(al) else math.nan,
                        delta_alpha_pooled=pooled.iloc[0] if len(pooled) else math.nan,
                        loo_w1sd=loo["w1sd"].iloc[0] if len(loo) else math.nan,
                    )
                )
    return pd.DataFrame(rows)
