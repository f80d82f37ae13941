"""'Did you mean' hints for misspelt labels, enum values and column names (difflib)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

# difflib's ratio cut-off: 0.6 catches one or two typos in a short label ('hapy', 'sadd', 'Femal')
# without proposing unrelated words.
CUTOFF = 0.6


def closest(value: str, choices: Iterable[str]) -> str | None:
    """The choice most similar to value, compared case-insensitively; None when nothing is close."""
    by_folded: dict[str, str] = {}
    for c in choices:
        by_folded.setdefault(c.casefold(), c)
    match = difflib.get_close_matches(value.casefold(), list(by_folded), n=1, cutoff=CUTOFF)
    return by_folded[match[0]] if match else None


def label_hint(value: str, spellings: Mapping[str, str], canonical: Iterable[str]) -> str:
    """Hint for a label outside a factor's set. spellings maps every accepted spelling (canonical,
    Korean, aliases; case-folded, as Study.label_map gives it) to its canonical label."""
    allowed = f"expected one of {', '.join(canonical)}"
    match = closest(value, spellings)
    if match is None:
        return allowed
    target = spellings[match]
    shown = f"'{target}'" if match == target.casefold() else f"'{match}' (= {target})"
    return f"did you mean {shown}? ({allowed})"


def enum_hint(value: str, options: Iterable[str]) -> str:
    options = list(options)
    allowed = f"expected one of {', '.join(options)}"
    match = closest(value, options)
    return f"did you mean '{match}'? ({allowed})" if match else allowed


def column_hint(name: str, candidates: Iterable[str]) -> str:
    match = closest(name, candidates)
    return f" (did you mean {match!r}?)" if match else ""
