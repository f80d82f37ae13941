"""A pairwise judge study's shape from its published files (pure; docs/init.md, "A judge study"):
the pairs file (a row per pair: the prompt, two answers, the humans' verdicts, perhaps the two
candidates' names) and a verdict file per LLM judge, joined by the pair id (or by row). The result
is the three judge landing tables, the candidate catalog and the rows of the 'why' table."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import pandas as pd

from .guess import (
    MAX_LABELS,
    MAX_LEVELS,
    Guess,
    InitError,
    answer_column_pairs,
    condition_slug,
    is_free_text,
    pick,
)
from .verdicts import (
    MAX_VERDICT_VALUES,
    SWAP,
    checked_verdict_column,
    code_why,
    is_verdict_column,
    judge_rows,
    swapped,
    unparsed_note,
)

ID_HINT = re.compile(r"^(id|idx|index|key|uid|pair)$|[_ .-](id|idx)$|^pair[_ .-]?id", re.I)
VERDICT_HINT = re.compile(r"annotat|label|verdict|winner|prefer|choice|judg|result|rater|gold|human", re.I)
JUDGE_HINT = re.compile(r"judge|model|evaluator|annotator|rater|system", re.I)
CATEGORY_HINT = re.compile(r"categor|task|type|domain|genre|topic|app|kind|subset", re.I)
NAME_SEPARATORS = (" vs. ", " vs ", "|", ";", ",", "_")


@dataclass
class PairsOptions:
    """What the flags settle (None / empty: guess)."""

    pair_col: str | None = None
    verdict_cols: tuple[str, ...] = ()  # in the pairs file (humans) or a verdict file (its judge)
    judge_col: str | None = None  # a verdict file of several judges, a row per judge x pair
    category: str | None = None
    ignore: tuple[str, ...] = ()


@dataclass
class VerdictFile:
    frame: pd.DataFrame
    source: str  # file name
    judge: str  # the judge's name as written (GPT-4); its id is the slug (gpt-4)


@dataclass
class JudgeProposal:
    tables: dict[str, pd.DataFrame]
    catalog: pd.DataFrame
    orders: str  # one | both
    guesses: list[Guess] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def shape(self) -> JudgeProposal:
        """The guesses and notes, where a rating study's proposal keeps them (InitResult reads them)."""
        return self


def answers_of(frame: pd.DataFrame, source: str) -> tuple[str, str]:
    pairs = answer_column_pairs(frame)
    if not pairs:
        raise InitError(
            f"{source}: no two columns hold two answers per row to compare (text columns named alike but for a final "
            "1/2 or a/b: response1 / response2, output_a / output_b)"
        )
    if len(pairs) > 1:
        named = " and ".join(f"{a!r} / {b!r}" for a, b in pairs)
        raise InitError(f"{source}: the two answers are ambiguous: {named} all fit; leave out the others with --ignore")
    a, b = pairs[0]
    same = frame[a].fillna("") == frame[b].fillna("")
    if same.all():
        raise InitError(
            f"{source}: columns {a!r} and {b!r} hold the same text on every row: the two answers cannot be told apart"
        )
    return a, b


def pair_ids(frame: pd.DataFrame, options: PairsOptions, taken: set[str], source: str) -> tuple[str | None, str]:
    if options.pair_col is not None:
        if options.pair_col not in frame.columns:
            raise InitError(f"{source}: --pair-col {options.pair_col!r}: no such column")
        if frame[options.pair_col].isna().any() or frame[options.pair_col].duplicated().any():
            raise InitError(f"{source}: --pair-col {options.pair_col!r} does not name each row once")
        return options.pair_col, "--pair-col"
    unique = [
        c
        for c in frame.columns
        if c not in taken
        and frame[c].notna().all()
        and not frame[c].duplicated().any()
        and not frame[c].astype(str).str.contains(r"\s").any()
    ]
    if not unique:
        return None, ""
    return pick(unique, ID_HINT, "pair id", "--pair-col", source)


def split_names(values: pd.Series) -> tuple[str, pd.DataFrame] | None:
    """A column naming both candidates of a row (`bloom-7b_llama-7b`): the separator and the two
    names, when one separator occurs once in every value and at most 30 names are used (a row
    naming one candidate twice is refused by the caller)."""
    text = values.astype(str)
    for sep in NAME_SEPARATORS:
        if values.notna().all() and (text.str.count(re.escape(sep)) == 1).all():
            parts = text.str.split(sep, n=1, expand=True).apply(lambda c: c.str.strip())
            if pd.unique(parts.to_numpy().ravel()).size <= MAX_LEVELS:
                return sep, parts
    return None


def candidate_names(frame: pd.DataFrame, taken: set[str], source: str) -> tuple[str | None, pd.DataFrame | None]:
    found = {c: parts for c in frame.columns if c not in taken and (parts := split_names(frame[c])) is not None}
    if not found:
        return None, None
    column, _ = pick(
        list(found), re.compile(r"model|cmp|pair|system|candidate", re.I), "candidates' names", "--ignore", source
    )
    parts = found[column][1]
    clash = parts[0] == parts[1]
    if clash.any():
        row = int(clash.to_numpy().argmax())
        raise InitError(
            f"{source}: row {row + 2}: column {column!r} names {parts.iloc[row, 0]!r} on both sides "
            f"({frame[column].iloc[row]!r}): the two answers cannot be told apart"
        )
    return column, parts


def category_of(frame: pd.DataFrame, options: PairsOptions, taken: set[str], source: str) -> str | None:
    if options.category is not None:
        if options.category not in frame.columns:
            raise InitError(f"{source}: --category {options.category!r}: no such column")
        return options.category
    labels = [
        c
        for c in frame.columns
        if c not in taken
        and frame[c].notna().all()
        and frame[c].nunique() <= MAX_LABELS
        and frame[c].nunique() < len(frame) / 2
        and not is_free_text(frame[c])
    ]
    if not labels:
        return None
    return pick(labels, CATEGORY_HINT, "pairs' category", "--category", source)[0]


def join(pairs: pd.DataFrame, pair_col: str | None, v: VerdictFile) -> tuple[pd.DataFrame, str]:
    """The verdict file's rows aligned with the pairs' rows: by the pair id column when it has one,
    else by row when both have as many rows."""
    if pair_col is not None and pair_col in v.frame.columns:
        unknown = v.frame[~v.frame[pair_col].isin(pairs[pair_col])]
        if len(unknown):
            raise InitError(
                f"{v.source}: row {unknown.index[0] + 2}: {pair_col} {unknown[pair_col].iloc[0]!r} names no pair"
            )
        if v.frame[pair_col].duplicated().any():
            raise InitError(f"{v.source}: column {pair_col!r} names a pair twice")
        index = pd.Index(pairs[pair_col])
        aligned = v.frame.set_index(pair_col).reindex(index).reset_index(drop=True)
        return aligned, f"joined by {pair_col}"
    if len(v.frame) != len(pairs):
        raise InitError(
            f"{v.source}: no column names the pair (as {pair_col or 'the pairs file'} does) and it has "
            f"{len(v.frame)} rows, the pairs {len(pairs)}: cannot be joined"
        )
    return v.frame.reset_index(drop=True), "joined by row (it has no pair id)"


def by_judge(v: VerdictFile, pair_col: str | None, options: PairsOptions) -> tuple[list[VerdictFile], str | None]:
    """A verdict file of several judges (a row per judge x pair) as one file per judge, named by
    the judge column: the column of few values (not verdicts) that, with the pair id, names each
    row once (or --judge-col). A file whose pair ids do not repeat is one judge's."""
    frame, column = v.frame, options.judge_col
    if column is not None and column not in frame.columns:
        column = None
    if column is None:
        if pair_col is None or pair_col not in frame.columns or not frame[pair_col].duplicated().any():
            return [v], None
        fits = [
            c
            for c in frame.columns
            if c != pair_col
            and frame[c].notna().all()
            and 1 < frame[c].nunique() <= MAX_LEVELS
            and not is_verdict_column(frame[c])
            and not frame.duplicated([pair_col, c]).any()
        ]
        if not fits:
            return [v], None  # the join names the repeated pair
        column = pick(fits, JUDGE_HINT, "judge column", "--judge-col", v.source)[0]
    parts = frame.groupby(column, sort=False)
    return [VerdictFile(p.drop(columns=column).reset_index(drop=True), v.source, str(n)) for n, p in parts], column


def llm_columns(aligned: pd.DataFrame, pairs: pd.DataFrame, v: VerdictFile, options: PairsOptions) -> dict[str, str]:
    """Order (AB / BA) -> column of one judge's verdict file. A column the pairs file also has with
    the same values (LLMBar's `label`) is the pairs' copy, not the judge's verdict."""
    named = [c for c in options.verdict_cols if c in aligned.columns]
    if named:
        columns = named
    else:
        columns = [
            c
            for c in aligned.columns
            if is_verdict_column(aligned[c])
            and not (c in pairs.columns and aligned[c].fillna("").equals(pairs[c].fillna("")))
        ]
    if len(columns) == 1:
        return {"AB": columns[0]}
    swaps = {SWAP.search(c).group(1).lower(): c for c in columns if SWAP.search(c)}
    if len(columns) == 2 and set(swaps) == {"false", "true"}:
        return {"AB": swaps["false"], "BA": swaps["true"]}
    if not columns:
        raise InitError(
            f"{v.source}: no column holds verdicts (1 / 2 / tie, a / b, ...): columns {', '.join(aligned.columns)}"
        )
    raise InitError(
        f"{v.source}: the judge's verdict column is ambiguous: {', '.join(map(repr, columns))} all fit; "
        "choose with --verdict-col COLUMN"
    )


def propose_judge(
    pairs: pd.DataFrame, source: str, verdict_files: list[VerdictFile], options: PairsOptions
) -> JudgeProposal:
    pairs = pairs.drop(columns=[c for c in options.ignore if c in pairs.columns]).reset_index(drop=True)
    known = set(pairs.columns).union(*(v.frame.columns for v in verdict_files))
    if unknown := [c for c in options.verdict_cols if c not in known]:
        raise InitError(f"--verdict-col {unknown[0]!r}: no such column in {source} or a --verdicts file")
    out = JudgeProposal({}, pd.DataFrame(), "one")
    say = out.guesses.append
    first, second = answers_of(pairs, source)
    say(
        Guess(
            source, f"{first}, {second}", "the two answers", "candidates", "text columns named alike but for 1/2 or a/b"
        )
    )
    taken = {first, second}
    id_col, why = pair_ids(pairs, options, taken, source)
    if id_col:
        taken.add(id_col)
        say(Guess(source, id_col, "pair id", "sample_id", f"{why}; names each row once"))
        sample = pairs[id_col].astype(str)
    else:
        sample = pd.Series([str(k) for k in range(1, len(pairs) + 1)])
        out.notes.append(f"{source}: no column names each pair once: the pairs are numbered by row (1, 2, ...)")
    names_col, names = candidate_names(pairs, taken, source)
    if names_col:
        taken.add(names_col)
        a, b = names[0], names[1]
        say(Guess(source, names_col, "candidates' names", "candidate_id", "two names a row, in the answers' order"))
    else:
        a, b = pd.Series(first, index=pairs.index), pd.Series(second, index=pairs.index)
    human = [c for c in options.verdict_cols if c in pairs.columns]
    if not human:
        human = [c for c in pairs.columns if c not in taken and is_verdict_column(pairs[c])]
        odd = [
            c
            for c in pairs.columns
            if c not in taken and c not in human and VERDICT_HINT.search(c) and pairs[c].nunique() <= MAX_VERDICT_VALUES
        ]
        if odd:
            checked_verdict_column(pairs, odd[0], source)
    taken.update(human)
    category = category_of(pairs, options, taken, source)
    if category:
        taken.add(category)
        say(Guess(source, category, "category", "category", "a short label repeated over pairs"))
    else:
        out.notes.append(f"{source}: no column is the pairs' category: every pair's category is {stem(source)!r}")
    texts = [c for c in pairs.columns if c not in taken and pairs[c].notna().any()]
    if not texts:
        raise InitError(f"{source}: no column holds the prompt the two answers reply to")
    say(Guess(source, ", ".join(texts), "prompt", "turns", "the other text, joined in file order"))
    keyed = pd.DataFrame({"sample_id": sample, "candidate_a": a, "candidate_b": b})
    prompt = pairs[texts].apply(lambda r: "\n\n".join(str(v) for v in r if pd.notna(v) and str(v) != ""), axis=1)
    out.tables["dialogues"] = pd.DataFrame(
        {
            "sample_id": sample,
            "category": pairs[category].astype(str) if category else stem(source),
            "turns": [json.dumps([{"speaker": "user", "text": t}], ensure_ascii=False) for t in prompt],
            "next_speaker": "assistant",
            "source": source,
        }
    )
    out.tables["candidates"] = candidates_table(pairs, keyed, first, second, bool(names_col))
    rows = []
    for column in human:
        codes = checked_verdict_column(pairs, column, source)
        rows.append(judge_rows(keyed, codes, pairs[column], column, "human", "AB"))
        say(Guess(source, column, "human verdict", condition_slug(column), code_why(pairs[column])))
        if note := unparsed_note(source, column, pairs[column], codes):
            out.notes.append(note)
    for v in [one for f in verdict_files for one in split_judges(f, id_col, options, say)]:
        aligned, how = join(pairs, id_col, v)
        by_order = llm_columns(aligned, pairs, v, options)
        codes = {o: checked_verdict_column(aligned, c, v.source) for o, c in by_order.items()}
        if "BA" in codes:
            codes["BA"], why = swapped(codes)
        for order, column in by_order.items():
            rows.append(judge_rows(keyed, codes[order], aligned[column], v.judge, "llm", order))
            what = f"{how}; {code_why(aligned[column])}" + (f"; order {order}: {why}" if order == "BA" else "")
            say(Guess(v.source, column, f"LLM verdict ({order})", condition_slug(v.judge), what))
            if note := unparsed_note(v.source, column, aligned[column], codes[order]):
                out.notes.append(note)
        if "BA" in by_order:
            out.orders = "both"
    if not rows:
        raise InitError(f"{source}: no verdict column (1 / 2 / tie, a / b, ...) and no --verdicts file")
    out.tables["judge_verdicts"] = pd.concat(rows, ignore_index=True)
    out.catalog = catalog(out.tables["candidates"], source, names_col or f"{first} / {second}")
    return out


def split_judges(v: VerdictFile, pair_col, options: PairsOptions, say) -> list[VerdictFile]:
    files, column = by_judge(v, pair_col, options)
    if column:
        names = ", ".join(f.judge for f in files)
        say(Guess(v.source, column, "judge", "judge_id", f"with {pair_col} names each row once; judges {names}"))
    return files


def stem(source: str) -> str:
    return source.rsplit(".", 1)[0]


def candidates_table(pairs, keyed, first: str, second: str, named: bool) -> pd.DataFrame:
    out = []
    for side, column in (("candidate_a", first), ("candidate_b", second)):
        text = pairs[column]
        table = pd.DataFrame(
            {
                "sample_id": keyed["sample_id"],
                "candidate_id": keyed[side],
                "variant": "text",
                "response_text": text,
                "status": text.notna().map({True: "ok", False: "missing"}),
            }
        )
        if named:
            table["model_id"] = keyed[side]
        out.append(table)
    return pd.concat(out, ignore_index=True)


def catalog(candidates: pd.DataFrame, source: str, column: str) -> pd.DataFrame:
    """seeds/judge_candidate_catalog.csv: every candidate, no anchor (two models compared)."""
    ids = list(dict.fromkeys(sorted(candidates["candidate_id"])))
    return pd.DataFrame(
        {
            "candidate_id": ids,
            "display_name": ids,
            "model_family": "",
            "korean_specialised": "false",
            "is_anchor": "false",
            "variant_invariant": "false",
            "text_output": "true",
            "audio_output": "false",
            "description": f"{source}, column {column}",
        }
    )
