"""Bradley-Terry strengths of pairwise comparisons with Davidson's (1970) ties, fitted by maximum
likelihood within each connected component of the comparison graph (the judge's rankings)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize, stats

from .fits import GRADIENT_TOLERANCE, central_gradient, optimiser_warnings_recorded_by_the_caller


@dataclass(frozen=True)
class BradleyTerryFit:
    strengths: pd.DataFrame  # item, log_strength, se, ci_low, ci_high, n_comparisons, note
    tie_parameter: float  # Davidson's nu (0 when the data hold no ties)
    log_likelihood: float
    reference: str
    converged: bool = True  # False: every estimate but the reference's is NULL with the reason as note


def _davidson_negloglik(params, i_idx, j_idx, w_i, w_j, t, free_mask, with_ties):
    n_items = free_mask.size
    theta = np.zeros(n_items)
    theta[free_mask] = params[: free_mask.sum()]
    log_nu = params[-1] if with_ties else -np.inf
    ti, tj = theta[i_idx], theta[j_idx]
    tie_term = log_nu + 0.5 * (ti + tj)
    log_denom = np.logaddexp(np.logaddexp(ti, tj), tie_term) if with_ties else np.logaddexp(ti, tj)
    ll = w_i * (ti - log_denom) + w_j * (tj - log_denom)
    if with_ties:
        ll = ll + t * (tie_term - log_denom)
    return -ll.sum()


def _wins_losses_ties(comparisons, items) -> dict[str, tuple[int, int, int]]:
    """(wins, losses, ties) of each of `items` over the (item_i, item_j, outcome) comparisons, in
    one pass."""
    score = {it: [0, 0, 0] for it in items}
    for a, b, outcome in comparisons:
        if outcome == "i":
            winner, loser = a, b
        elif outcome == "j":
            winner, loser = b, a
        elif outcome == "tie":
            for it in (a, b):  # a self-comparison's tie counts on both sides, as it does in the fit
                if it in score:
                    score[it][2] += 1
            continue
        else:
            continue
        if winner in score:
            score[winner][0] += 1
        if loser in score:
            score[loser][1] += 1
    return {it: tuple(v) for it, v in score.items()}


def bradley_terry_davidson(comparisons: pd.DataFrame, reference: str, alpha: float = 0.05) -> BradleyTerryFit:
    """Maximum-likelihood Bradley-Terry strengths with Davidson ties.

    Parameters
    ----------
    comparisons : pandas.DataFrame
        One row per comparison: item_i, item_j, outcome in {"i", "j", "tie"}.
    reference : str
        The item whose log strength is fixed at 0.
    alpha : float, default 0.05
        1 - confidence level of the Wald intervals.

    Returns
    -------
    BradleyTerryFit
        strengths (item, log_strength relative to the reference, se, ci_low, ci_high,
        n_comparisons, note), tie_parameter (nu; 0 without ties), log_likelihood, reference,
        converged. Items whose strength is not finite (no wins and no ties, or no losses and no
        ties: perfect separation) or that are not connected to the reference are left out of the
        fit with a note and NULL strength; a fit that does not converge has NULL estimates.

    Notes
    -----
    P(i beats j) = pi_i / D, P(tie) = nu sqrt(pi_i pi_j) / D, D = pi_i + pi_j + nu sqrt(pi_i pi_j),
    maximised over log pi (BFGS); se from the inverse observed information. With two items the
    model is saturated: log(pi_i / pi_j) = log(W / L), nu = T / sqrt(W L) and
    se = sqrt(1 / W + 1 / L).

    References
    ----------
    Bradley & Terry (1952), "Rank analysis of incomplete block designs", Biometrika 39, 324-345;
    Davidson (1970), "On extending the Bradley-Terry model to accommodate ties in paired comparison
    experiments", JASA 65(329), 317-328; the lab log's pairwise judge study (docs/judge.md).

    Examples
    --------
    A beats B 4 times, loses once, ties twice: log strength log 4 = 1.386294, se sqrt(1/4 + 1) =
    1.118034, nu = 2 / sqrt(4) = 1:

    >>> import pandas as pd
    >>> c = pd.DataFrame({"item_i": "A", "item_j": "B", "outcome": ["i"] * 4 + ["j"] + ["tie"] * 2})
    >>> fit = bradley_terry_davidson(c, reference="B")
    >>> a = fit.strengths.set_index("item").loc["A"]
    >>> round(float(a["log_strength"]), 5), round(float(a["se"]), 5), round(fit.tie_parameter, 5)
    (1.38629, 1.11803, 1.0)
    """
    # plain Python tuples, looped over below (a frame's rows one by one cost more than the fit)
    item_i, item_j = (comparisons[c].to_numpy(object) for c in ("item_i", "item_j"))
    outcomes = [None if pd.isna(o) else o for o in comparisons["outcome"].to_numpy(object)]
    data = list(zip(item_i, item_j, outcomes))
    items_all = sorted(set(item_i) | set(item_j) | {reference})
    notes: dict[str, str] = {}
    while True:
        score = _wins_losses_ties(data, (it for it in items_all if it not in notes))
        bad = [
            it
            for it, (w, l, t) in score.items()
            if it != reference and (w + l + t == 0 or (t == 0 and (w == 0 or l == 0)))
        ]
        if not bad:
            break
        for it in bad:
            w, l, t = score[it]
            notes[it] = (
                "no comparisons"
                if w + l + t == 0
                else "not finite: no wins and no ties"
                if w == 0
                else "not finite: no losses and no ties"
            )
        dropped = set(bad)
        data = [c for c in data if c[0] not in dropped and c[1] not in dropped]
    # Connectivity to the reference (otherwise the strengths are not identified).
    neighbours: dict[str, set] = {}
    for a, b, _ in data:
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    reach, frontier = {reference}, [reference]
    while frontier:
        for y in neighbours.get(frontier.pop(), ()):
            if y not in reach:
                reach.add(y)
                frontier.append(y)
    for it in items_all:
        if it not in reach and it not in notes:
            notes[it] = "not connected to the reference"
    data = [c for c in data if c[0] in reach and c[1] in reach]
    items = [it for it in items_all if it in reach]

    index = {it: k for k, it in enumerate(items)}
    # outcomes per ordered pair (item_i, item_j), pairs in sorted order: the sum in the likelihood
    # runs in this order
    per_pair: dict[tuple, list[int]] = {}
    for a, b, outcome in data:
        if pd.isna(a) or pd.isna(b):
            continue
        counts = per_pair.setdefault((a, b), [0, 0, 0])
        for k, kind in enumerate(("i", "j", "tie")):
            counts[k] += outcome == kind
    pairs = sorted(per_pair)
    i_idx = np.array([index[a] for a, _ in pairs], dtype=int)
    j_idx = np.array([index[b] for _, b in pairs], dtype=int)
    w_i, w_j, t = np.array([per_pair[p] for p in pairs], dtype=float).reshape(-1, 3).T
    free_mask = np.array([it != reference for it in items])
    with_ties = bool(t.sum() > 0)
    n_params = int(free_mask.sum()) + (1 if with_ties else 0)
    n_by_item = dict.fromkeys(items_all, 0)
    for a, b, _ in data:
        n_by_item[a] += 1
        n_by_item[b] += a != b

    theta = np.zeros(len(items))
    cov = np.zeros((0, 0))
    nu, loglik = 0.0, float("nan")
    converged = True
    if n_params > 0 and len(data):
        args = (i_idx, j_idx, w_i, w_j, t, free_mask, with_ties)
        with optimiser_warnings_recorded_by_the_caller():
            res = optimize.minimize(
                _davidson_negloglik,
                np.zeros(n_params),
                args=args,
                method="BFGS",
                options={"gtol": 1e-10, "maxiter": 10_000},
            )
        # gtol 1e-10 is rarely met exactly ("precision loss" at the optimum); the gradient decides.
        gradient = np.max(np.abs(central_gradient(lambda p: _davidson_negloglik(p, *args), res.x)))
        if not (res.success or gradient < GRADIENT_TOLERANCE):
            for it in items:
                if it != reference:
                    notes[it] = (
                        f"not estimated: the fit did not converge ({res.message}; largest gradient {gradient:.2g})"
                    )
            converged = False
        import statsmodels.tools.numdiff as nd

        hess = nd.approx_hess3(res.x, lambda p: _davidson_negloglik(p, *args))
        cov = np.linalg.pinv(hess)
        theta[free_mask] = res.x[: free_mask.sum()]
        nu = float(np.exp(res.x[-1])) if with_ties else 0.0
        loglik = -float(res.fun)
    z = stats.norm.ppf(1 - alpha / 2)
    free_pos = {it: k for k, it in enumerate(it for it in items if it != reference)}
    rows = []
    for it in items_all:
        if it in notes:
            rows.append((it, np.nan, np.nan, np.nan, np.nan, n_by_item[it], notes[it]))
            continue
        est = float(theta[index[it]])
        if it == reference:
            rows.append((it, 0.0, 0.0, 0.0, 0.0, n_by_item[it], "reference (fixed at 0)"))
            continue
        se = float(np.sqrt(max(cov[free_pos[it], free_pos[it]], 0.0))) if cov.size else np.nan
        rows.append((it, est, se, est - z * se, est + z * se, n_by_item[it], None))
    table = pd.DataFrame(rows, columns=["item", "log_strength", "se", "ci_low", "ci_high", "n_comparisons", "note"])
    if not converged:
        nu, loglik = float("nan"), float("nan")
    return BradleyTerryFit(table, nu, loglik, reference, converged)


def comparison_components(comparisons: pd.DataFrame) -> list[list[str]]:
    """The connected components of a comparison graph, largest first.

    Parameters
    ----------
    comparisons : pandas.DataFrame
        One row per comparison: item_i, item_j (the outcome is not read).

    Returns
    -------
    list of list of str
        Each component's items, sorted; components ordered by size (descending), then by their
        first item.

    Notes
    -----
    Bradley-Terry strengths are identified up to one constant per component: items of two
    components were never compared, directly or through others, so their strengths cannot be put
    on one scale. scipy's ``connected_components`` on the undirected adjacency matrix.

    References
    ----------
    Ford (1957), "Solution of a ranking problem from binary comparisons", American Mathematical
    Monthly 64(8), 28-33 (the connectivity condition for a unique maximum).

    Examples
    --------
    >>> import pandas as pd
    >>> c = pd.DataFrame({"item_i": ["A", "B", "X"], "item_j": ["B", "C", "Y"]})
    >>> comparison_components(c)
    [['A', 'B', 'C'], ['X', 'Y']]
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    item_i, item_j = (comparisons[c].to_numpy(object) for c in ("item_i", "item_j"))  # not value by value from Arrow
    items = sorted(set(item_i) | set(item_j))
    if not items:
        return []
    index = {it: k for k, it in enumerate(items)}
    i = np.fromiter((index[a] for a in item_i), dtype=int, count=len(item_i))
    j = np.fromiter((index[b] for b in item_j), dtype=int, count=len(item_j))
    graph = coo_matrix((np.ones(len(i)), (i, j)), shape=(len(items), len(items)))
    _, label = connected_components(graph, directed=False)
    groups: dict[int, list[str]] = {}
    for it, lab in zip(items, label):
        groups.setdefault(int(lab), []).append(it)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0]))
