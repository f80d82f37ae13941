"""`rater1001 init PAIRS --verdicts [NAME=]FILE ...`: read a judge study's published files, guess
(judge.py), write study.yml, seeds/judge_candidate_catalog.csv and the three judge landing files
(data/init/*.csv), and with --yes ingest them. Rules: docs/init.md, "A judge study"."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd

from ..ingest import IngestError
from ..ingest.readers import read_source
from ..paths import ProjectPaths
from .guess import InitError
from .judge import JudgeProposal, PairsOptions, VerdictFile, propose_judge
from .study_files import InitResult, records_frame, write_study


def read_records(path: Path, sheet: str | None = None) -> pd.DataFrame:
    """A CSV/XLSX/... file as ingest reads it; a JSON array of records with nested objects flattened
    (`results.swap = False.winner`) and a list holding one object read as that object (LLMBar's
    `results: [{...}]`)."""

    if path.suffix.lower() != ".json":
        try:
            return read_source(path, sheet=sheet).data
        except IngestError as exc:
            raise InitError(str(exc)) from None
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InitError(f"{path}: cannot read as JSON: {exc}") from None
    if not (isinstance(data, list) and data and all(isinstance(r, dict) for r in data)):
        raise InitError(f"{path}: expected an array of objects (one per pair)")
    return records_frame([_unwrap(r) for r in data])


def _unwrap(value):
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        value = value[0]
    if isinstance(value, dict):
        return {k: _unwrap(v) for k, v in value.items()}
    return value


def judge_names(pairs: Path, files: list[str]) -> list[tuple[str, Path]]:
    """(name, path) of each verdict file: NAME=FILE as given; else the file name less the pairs
    file's (`gpt-3.5-turbo-testset-v1.json` beside `testset-v1.json`: gpt-3.5-turbo); else, when the
    files share a name, the folders that tell them apart (`GPT-4/Vanilla/result.json`: GPT-4)."""
    given = [(f.split("=", 1) if "=" in f and not Path(f).exists() else (None, f)) for f in files]
    paths = [Path(f) for _, f in given]
    stems = [p.stem for p in paths]
    out = []
    for (name, _), path in zip(given, paths):
        if name is None:
            rest = path.stem.removesuffix(pairs.stem).removeprefix(pairs.stem).strip("-_. ")
            if rest and rest != path.stem:
                name = rest
            elif stems.count(path.stem) == 1:
                name = path.stem
            else:
                alike = [p for p in paths if p.stem == path.stem]
                shared = set.intersection(*(set(p.resolve().parent.parts) for p in alike))
                name = "-".join(part for part in path.resolve().parent.parts if part not in shared) or path.stem
        out.append((name, path))
    names = [n for n, _ in out]
    if len(set(names)) < len(names):
        raise InitError(f"--verdicts: two files name the same judge ({', '.join(names)}); name them NAME=FILE")
    return out


def short_name(path: Path, paths: list[Path]) -> str:
    """The file's name, with as many folders as tell it apart from the others (GPT-4/Vanilla/result.json)."""
    parts = path.parts
    for k in range(1, len(parts) + 1):
        if sum(q.parts[-k:] == parts[-k:] for q in paths) == 1:
            return "/".join(parts[-k:])
    return str(path)


def study_yaml(proposal: JudgeProposal, name: str, sources: list[str]) -> str:
    orders = proposal.orders
    lines = [
        f"# Written by `rater1001 init` from {', '.join(sources)}.",
        "# A pairwise judge study (docs/judge.md): two candidates per pair, no anchor; its candidates",
        "# are seeds/judge_candidate_catalog.csv. Correct what is wrong and run init again, or ingest",
        "# data/init/*.csv. Format: docs/study_shape.md.",
        f"name: {name}",
        "scale: {min: 1, max: 9}   # no ratings: unused",
        "dimensions: []",
        "factors: []",
        "rater_attributes: []",
        "judge:",
        "  axes: [overall]   # one verdict per pair",
    ]
    if orders == "one":
        lines.append("  orders: one   # every judge saw each pair in one order")
    else:
        lines.append("  # orders: both (the default): a judge answered both orders of a pair")
    return "\n".join(lines) + "\n"


def init_judge(
    paths: ProjectPaths,
    pairs: str | Path,
    verdicts: list[str],
    options: PairsOptions,
    *,
    name: str,
    ingest: bool = False,
    sheet: str | None = None,
    overwrite: bool = False,
) -> InitResult:
    """Guess, then write; nothing is written when a guess fails (InitError), or when study.yml or
    the catalog already exist with other contents and overwrite is False (FileExistsError)."""
    pairs = Path(pairs)
    frame = read_records(pairs, sheet)
    named = judge_names(pairs, verdicts)
    files = [VerdictFile(read_records(p), short_name(p, [q for _, q in named]), n) for n, p in named]
    proposal = propose_judge(frame, pairs.name, files, options)
    buffer = io.StringIO()
    proposal.catalog.to_csv(buffer, index=False, lineterminator="\n")
    texts = {
        paths.root / "study.yml": study_yaml(proposal, name, [str(pairs), *verdicts]),
        paths.root / "seeds" / "judge_candidate_catalog.csv": buffer.getvalue(),
    }
    landing, ingested = write_study(paths, texts, proposal.tables, ingest=ingest, overwrite=overwrite)
    return InitResult(proposal, list(texts), landing, ingested)


def is_pairs_file(path: str | Path, ignore: tuple[str, ...] = (), sheet: str | None = None) -> bool:
    """A file with two answers per row to compare (judge.py's `answers_of`): a judge study's pairs."""
    from .guess import answer_column_pairs

    try:
        frame = read_records(Path(path), sheet)
    except InitError:
        return False  # the rating path reads it (or says why it cannot)
    return bool(answer_column_pairs(frame.drop(columns=[c for c in ignore if c in frame.columns])))
