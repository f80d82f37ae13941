"""A judge study's verdicts as its files code them (pure; docs/init.md, "A judge study"): which
columns hold verdicts, what each value means (1 / 2 / tie, a / b, "Output (a)", 0 = tie beside 1
and 2), what a swapped order's verdict names, and the judge_verdicts rows they land as."""

from __future__ import annotations

import re
import unicodedata

import pandas as pd

from .guess import InitError, condition_slug

# A verdict column has a handful of values (1 / 2 / tie and perhaps an unparsed answer or two).
MAX_VERDICT_VALUES = 10
# Two columns of one verdict file for the two orders: `swap = False` (answer 1 shown first), `swap = True`.
SWAP = re.compile(r"swap\w*\W*(false|true)", re.I)
# A code's wording around the position: "Output (a)", "Response 2", "answer_1", "model b".
CODE_WORDING = re.compile(r"^(?:output|response|answer|model|assistant|candidate|system)?[\s_#-]*\(?([^()]*?)\)?\.?$")
CODES = {"1": "1", "a": "1", "2": "2", "b": "2", "tie": "tie", "draw": "tie", "equal": "tie", "both": "tie", "0": "0"}


def code(value) -> str | None:
    """A verdict's code ('1', '2', 'tie'; '0' is decided per column), None when it is none."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    text = unicodedata.normalize("NFKC", str(value)).strip().lower()
    match = CODE_WORDING.match(text)
    return CODES.get(match.group(1).strip()) if match else None


def column_codes(values: pd.Series, source: str, column: str) -> pd.Series:
    """Each value's verdict ('1' / '2' / 'tie', None: no verdict). A 0 beside 1 and 2 is a tie
    (PandaLM's coding); a 0 beside only one of them could be the first answer: refused."""
    codes = values.map(code)
    seen = set(codes.dropna())
    if "0" in seen:
        if not {"1", "2"} <= seen:
            raise InitError(
                f"{source}: column {column!r} holds 0 and {', '.join(sorted(seen - {'0'}))} only: 0 could be a tie or "
                "the first answer; recode it as 1 / 2 / tie"
            )
        codes = codes.replace("0", "tie")
    return codes


def is_verdict_column(values: pd.Series) -> bool:
    present = values.dropna()
    codes = present.map(code)
    return (
        not present.empty
        and present.nunique() <= MAX_VERDICT_VALUES
        and codes.notna().mean() >= 0.5
        and bool(set(codes.dropna()) & {"1", "2"})
    )


def checked_verdict_column(frame: pd.DataFrame, column: str, source: str) -> pd.Series:
    """A column named (or looking like) a verdict column must hold verdict codes, mostly."""
    if column not in frame.columns:
        raise InitError(f"{source}: --verdict-col {column!r}: no such column (columns: {', '.join(frame.columns)})")
    if not is_verdict_column(frame[column]):
        odd = [v for v in frame[column].dropna().unique() if code(v) is None][:3]
        raise InitError(
            f"{source}: column {column!r} is not a verdict column: values {', '.join(map(repr, odd))} are no verdict "
            f"code (1 / 2 / tie, a / b, 0 = tie beside 1 and 2, 'Output (a)', 'Response 2'); pass --ignore {column!r} "
            "if it holds no verdicts"
        )
    return column_codes(frame[column], source, column)


def judge_rows(pairs: pd.DataFrame, codes: pd.Series, raw: pd.Series, judge: str, kind: str, order: str):
    """One judge's verdicts in one order, landed by position ('1' = the answer shown first) from
    codes naming the answer ('1' = the pairs file's first answer, candidate_a)."""
    keep = raw.notna()
    verdict = codes[keep]
    if order == "BA":
        verdict = verdict.map({"1": "2", "2": "1", "tie": "tie"})
    return pd.DataFrame(
        {
            "judge_id": condition_slug(judge),
            "judge_kind": kind,
            "judge_model": judge if kind == "llm" else None,
            "sample_id": pairs["sample_id"][keep].to_numpy(),
            "variant": "text",
            "candidate_a": pairs["candidate_a"][keep].to_numpy(),
            "candidate_b": pairs["candidate_b"][keep].to_numpy(),
            "order": order,
            "verdict_overall": verdict.to_numpy(),
            "raw_text": raw[keep].astype(str).to_numpy(),
            "parse_status": verdict.notna().map({True: "ok", False: "failed"}).to_numpy(),
        }
    )


def unparsed_note(source: str, column: str, raw: pd.Series, codes: pd.Series) -> str | None:
    bad = raw[raw.notna() & codes.isna()]
    if bad.empty:
        return None
    counts = ", ".join(f"{v!r} {n}" for v, n in bad.value_counts().items())
    return (
        f"{source}, column {column!r}: {len(bad)} answer(s) are no verdict ({counts}): landed unparsed "
        "(parse_status failed, the answer in raw_text, no verdict)"
    )


def swapped(codes: dict[str, pd.Series]) -> tuple[pd.Series, str]:
    """The swapped order's verdicts as the answer they name in the pairs file's numbering (LLMBar's
    `winner`), or by position. Read as names when the two orders agree on most decided pairs: a
    verdict by position flips with the order for any judge that reads the answers."""
    both = codes["AB"].isin(["1", "2"]) & codes["BA"].isin(["1", "2"])
    agree = int((codes["AB"][both] == codes["BA"][both]).sum())
    if agree * 2 > both.sum():
        return codes["BA"], f"agrees with order AB on {agree} of {both.sum()} pairs: names the answer, not the position"
    by_answer = codes["BA"].map({"1": "2", "2": "1", "tie": "tie"})  # shown second is answer 1
    return by_answer, f"differs from order AB on {both.sum() - agree} of {both.sum()} pairs: names the position"


def code_why(values: pd.Series) -> str:
    return "verdict codes " + " / ".join(sorted(map(str, values.dropna().unique()))[:6])
