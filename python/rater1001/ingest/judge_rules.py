"""Rules of the judge_verdicts table beyond its columns and keys (docs/judge.md, "Bad input"):
a verdict on an axis the study does not declare (study.yml judge.axes), and one presentation of a
pair judged twice with different answers. The pair may be written either way round ((K, P, AB)
shows K first, as (P, K, BA) does), so the repeat is found on the unordered pair and the
candidate shown first."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..study import JUDGE_AXES, Study
from .failures import Failure, _fail, _joined

VERDICT_COLUMNS = [f"verdict_{a}" for a in JUDGE_AXES]


def check_judge_verdicts(frame: pd.DataFrame, study: Study, failures: list[Failure]) -> None:
    for axis in JUDGE_AXES:
        column = f"verdict_{axis}"
        if axis in study.judge_axes or column not in frame:
            continue
        _fail(
            failures,
            column,
            "undeclared_axis",
            frame[column].notna().to_numpy(),
            frame[column].astype("str"),
            f"a verdict on axis {axis}, which the study does not declare (study.yml judge.axes: "
            f"{', '.join(study.judge_axes)})",
        )
    _check_repeated_presentations(frame, failures)


def _check_repeated_presentations(frame: pd.DataFrame, failures: list[Failure]) -> None:
    key = ["judge_id", "sample_id", "variant", "candidate_a", "candidate_b", "order"]
    usable = frame[key].notna().all(axis=1)
    f = frame[usable]
    a, b = f["candidate_a"].astype(str), f["candidate_b"].astype(str)
    first = np.where(f["order"] == "AB", a, b)
    low, high = np.minimum(a.to_numpy(object), b.to_numpy(object)), np.maximum(a.to_numpy(object), b.to_numpy(object))
    # the answers as pair verdicts (which candidate won), so both ways of writing the pair compare
    answers = []
    for c in VERDICT_COLUMNS:
        v = f[c].astype(object) if c in f else pd.Series(None, index=f.index, dtype=object)
        won_first = v.eq("1").to_numpy(bool)
        won_second = v.eq("2").to_numpy(bool)
        second = np.where(first == a.to_numpy(object), b.to_numpy(object), a.to_numpy(object))
        answers.append(np.where(won_first, first, np.where(won_second, second, v.fillna("").to_numpy(object))))
    presentation = pd.DataFrame(
        {
            "judge_id": f["judge_id"],
            "sample_id": f["sample_id"],
            "variant": f["variant"],
            "low": low,
            "high": high,
            "first": first,
        },
        index=f.index,
    )
    answer = (
        pd.Series(["|".join(map(str, t)) for t in zip(*answers)], index=f.index) if len(f) else pd.Series([], dtype=str)
    )
    group = presentation.groupby(list(presentation.columns), sort=False)
    repeated = group["first"].transform("size").gt(1) & answer.groupby(
        [presentation[c] for c in presentation.columns], sort=False
    ).transform("nunique").gt(1)
    mask = np.zeros(len(frame), dtype=bool)
    mask[np.flatnonzero(usable.to_numpy())[repeated.to_numpy(bool)]] = True
    shown = _joined(frame, key)
    _fail(
        failures,
        "judge_id,sample_id,variant,candidate_a,candidate_b,order",
        "judged_twice",
        mask,
        shown,
        "the same pair shown in the same order was judged more than once with different answers; every copy is "
        "rejected",
    )
