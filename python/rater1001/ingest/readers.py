"""Reading a source file (CSV/TSV, XLSX, JSONL, Parquet) into a frame of text.

Every format ends up the same: one string column per header, values trimmed, missing values as NA,
and for each row the 1-based number a user finds it under in the source (spreadsheet row with the
header as row 1, JSONL line, Parquet row). Validation then judges text only, so a value is treated
the same whatever format it came in, and the rejected file can keep it as it was read.
"""

from __future__ import annotations

import csv
import io
import json
import math
import warnings
import zipfile
from dataclasses import dataclass, field
from datetime import date, datetime, time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..landing import bytes_sha256
from .arrow_text import is_in, nfc
from .errors import IngestError
from .failures import Failure, shorten

FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}

# Cell texts that mean "no value" (compared case-insensitively after trimming): what R, Excel and
# pandas write for a missing cell. Anything else is a value and must pass the contract.
MISSING_TOKENS = ("", "na", "n/a", "#n/a", "nan", "null", "none")

# Encodings worth suggesting when a file is not UTF-8: Korean Windows/Excel exports (cp949 is a
# superset of EUC-KR) are the common case for this project's users.
SUGGESTED_ENCODINGS = ("cp949",)


@dataclass(frozen=True)
class RowProblem:
    """Rows the reader could not read whole (a CSV row cut short, an Excel formula without a value):
    they become rejected rows, not a refused file."""

    column: str
    rule: str
    mask: np.ndarray  # bool per row of the frame it came with
    messages: np.ndarray  # object per row; read where mask holds


@dataclass(frozen=True)
class SourceFrame:
    data: pd.DataFrame  # one str column per header; NA = missing; RangeIndex
    row_numbers: np.ndarray  # int64, where each row sits in the source file
    format: str
    sha256: str  # of the bytes that were parsed, not of the file as it is later
    problems: tuple[Failure, ...] = ()  # row-level read failures, positions in data
    warnings: tuple[str, ...] = field(default_factory=tuple)


def read_source(
    path: Path,
    encoding: str | None = None,
    sheet: str | None = None,
    verbatim: frozenset[str] = frozenset(),
    labels: dict[str, frozenset[str]] | None = None,
) -> SourceFrame:
    """verbatim: columns of free text, kept as written (not trimmed; only an empty cell is missing).
    labels: per column, missing-value spellings that are declared labels there (e.g. 'na')."""
    if not path.exists():
        raise IngestError(f"{path}: no such file")
    if path.is_dir():
        raise IngestError(f"{path}: is a folder, not a file")
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise IngestError(f"{path}: unknown file type {path.suffix!r}; expected one of {', '.join(sorted(FORMATS))}")
    try:
        # Read once: the parse and the manifest's checksum see the same bytes, even if the file is
        # replaced or deleted while the ingest runs.
        raw = path.read_bytes()
    except FileNotFoundError:
        raise IngestError(f"{path}: no such file") from None
    except OSError as exc:
        raise IngestError(f"{path}: cannot read the file: {exc.strerror or exc}") from None
    if not raw:
        raise IngestError(f"{path}: the file is empty (0 bytes)")
    problems: list[RowProblem] = []
    notes: list[str] = []
    if fmt in ("csv", "tsv"):
        frame, rows = _read_delimited(raw, path, encoding, "\t" if fmt == "tsv" else ",", problems)
    elif fmt == "jsonl":
        frame, rows = _read_jsonl(raw, path, encoding)
    elif fmt == "xlsx":
        frame, rows = _read_xlsx(raw, path, sheet, problems, notes)
    else:
        frame, rows = _read_parquet(raw, path)
    return _normalise(path, frame, rows, fmt, verbatim, bytes_sha256(raw), problems, notes, labels or {})


# ---------------------------------------------------------------------------------------- text


def decode_text(raw: bytes, path: Path, encoding: str | None) -> str:
    """Decode a text file; UTF-8 (with or without BOM) unless told otherwise. On failure say where
    the first bad byte is and which encoding would read the file."""
    name = encoding or "utf-8-sig"
    try:
        return raw.decode(name)
    except LookupError:
        raise IngestError(f"unknown encoding {encoding!r} (try utf-8, cp949, euc-kr, cp1252, latin-1)") from None
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        shown = "UTF-8" if encoding is None else encoding
        message = (
            f"{path}: not valid {shown} text: byte 0x{raw[exc.start]:02x} at byte offset {exc.start} "
            f"(line {line}, column {column})."
        )
        raise IngestError(f"{message} {_encoding_hint(raw, encoding)}") from None


def _encoding_hint(raw: bytes, tried: str | None) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "The file starts with a UTF-16 byte-order mark: re-run with --encoding utf-16."
    for candidate in SUGGESTED_ENCODINGS:
        if candidate == tried:
            continue
        try:
            raw.decode(candidate)
        except UnicodeDecodeError:
            continue
        return (
            f"It decodes as {candidate} (Korean Windows / EUC-KR, e.g. an Excel CSV export): "
            f"re-run with --encoding {candidate}, or save the file as UTF-8."
        )
    return "Re-run with --encoding NAME for the file's encoding (e.g. cp1252, latin-1), or save it as UTF-8."


def _read_delimited(
    raw: bytes, path: Path, encoding: str | None, sep: str, problems: list[RowProblem]
) -> tuple[pd.DataFrame, np.ndarray]:
    text = decode_text(raw, path, encoding)
    if not text.strip():
        raise IngestError(f"{path}: the file is empty (no header, no rows)")
    try:
        # newline="": a file with CR-only line ends (old Mac Excel) reads like any other
        header = next(csv.reader(io.StringIO(text, newline=""), delimiter=sep))
    except csv.Error as exc:
        raise IngestError(f"{path}: cannot parse the header line: {exc}") from None
    _refuse_bad_header(path, header)
    kind = "TSV" if sep == "\t" else "CSV"
    try:
        with warnings.catch_warnings():
            # pandas only warns when the first data row is longer than the header, then drops cells
            warnings.simplefilter("error", pd.errors.ParserWarning)
            # na_filter=False keeps every cell as the text it was; missing tokens are decided once
            # in _normalise. Blank lines are kept (and dropped there) so row numbers stay line
            # numbers. Positional names + index_col=False: a longer row is an error, never an index.
            frame = pd.read_csv(
                io.StringIO(text),
                sep=sep,
                dtype=str,
                na_filter=False,
                skip_blank_lines=False,
                header=0,
                names=list(range(len(header))),
                index_col=False,
            )
    except pd.errors.ParserWarning:
        raise IngestError(f"{path}: line 2 has more fields than the header's {len(header)}") from None
    except pd.errors.ParserError as exc:
        raise IngestError(f"{path}: cannot parse as {kind}: {exc}") from None
    frame.columns = header
    # pandas pads a short row with empty cells, indistinguishable from cells written empty; a row
    # cut short (a truncated export) must not land with NULL ratings, so count the fields.
    fields = _field_counts(text, sep, len(frame))
    named = max(i for i, h in enumerate(header) if h.strip()) + 1  # a trailing separator names nothing
    short = fields < named
    if short.any():
        messages = np.full(len(frame), None, dtype=object)
        messages[short] = [f"row: {n} of the header's {named} fields (cut short?) [short_row]" for n in fields[short]]
        problems.append(RowProblem("row", "short_row", short, messages))
    # Header is line 1, so data row i (0-based) is line i + 2 (exact unless a quoted cell spans lines).
    return frame, np.arange(2, len(frame) + 2, dtype=np.int64)


def _field_counts(text: str, sep: str, n_rows: int) -> np.ndarray:
    """Fields per data record. Without quotes a record is a line and its fields are its separators
    plus one (counted on the bytes, vectorised; a CR before the LF changes no count); with quotes
    or CR-only line ends the csv module decides. A blank line reads as one short field here, but its
    row is all missing and is skipped with its problems in _normalise."""
    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    if not (data == ord('"')).any():
        ends = np.flatnonzero(data == ord("\n"))
        if len(ends) == 0 or ends[-1] != len(data) - 1:
            ends = np.append(ends, len(data))  # last line without a newline
        seps = np.flatnonzero(data == ord(sep))
        counts = np.diff(np.searchsorted(seps, np.r_[-1, ends])) + 1
        if len(counts) == n_rows + 1:
            return counts[1:]
    records = [len(r) for r in csv.reader(io.StringIO(text, newline=""), delimiter=sep)]
    if len(records) != n_rows + 1:
        # pandas and the csv module split records differently (should not happen): do not guess
        return np.full(n_rows, np.iinfo(np.int64).max, dtype=np.int64)
    return np.asarray(records[1:], dtype=np.int64)


def _read_jsonl(raw: bytes, path: Path, encoding: str | None) -> tuple[pd.DataFrame, np.ndarray]:
    text = decode_text(raw, path, encoding)
    lines = text.split("\n")  # not splitlines(): JSON strings may hold U+2028 and friends unescaped
    numbers = np.array([i + 1 for i, line in enumerate(lines) if line.strip()], dtype=np.int64)
    if not len(numbers):
        raise IngestError(f"{path}: the file is empty (no JSON lines)")
    if any(not lines[i - 1].lstrip().startswith("{") for i in numbers):
        _raise_first_bad_json_line(path, lines)  # pandas reads a file of arrays as columns 0, 1, ...
    body = "\n".join(lines[i - 1] for i in numbers)
    try:
        frame = pd.read_json(io.StringIO(body), lines=True, dtype=False)
    except (ValueError, TypeError):
        _raise_first_bad_json_line(path, lines)
        raise
    if len(frame) != len(numbers):
        _raise_first_bad_json_line(path, lines)
    frame = frame.rename(columns=str)
    return frame.apply(_to_text), numbers


def _raise_first_bad_json_line(path: Path, lines: list[str]) -> None:
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise IngestError(f"{path}: line {i} is not valid JSON: {exc.msg} (column {exc.colno})") from None
        if not isinstance(value, dict):
            raise IngestError(f"{path}: line {i} is a JSON {type(value).__name__}, expected an object {{...}}")
    raise IngestError(f"{path}: cannot read as JSON lines (one object per line)")


def _read_xlsx(
    raw: bytes, path: Path, sheet: str | None, problems: list[RowProblem], notes: list[str]
) -> tuple[pd.DataFrame, np.ndarray]:
    values = _xlsx_rows(raw, path, sheet, data_only=True, notes=notes)
    if not values or all(v is None for v in values[0]):
        raise IngestError(f"{path}: the first sheet is empty (no header in row 1)")
    # read_only sheets report their used width; columns with neither a header nor a value are
    # padding. A value right of the last header is kept, so _normalise can refuse it by name.
    width = max((i + 1 for r in values for i, v in enumerate(r) if v is not None), default=0)
    header = [str(h) if h is not None else "" for h in (values[0] + (None,) * width)[:width]]
    _refuse_bad_header(path, header)
    body = [r[:width] + (None,) * (width - len(r)) for r in values[1:]]
    frame = pd.DataFrame(body, columns=header, dtype=object)
    _formulas_without_value(raw, path, sheet, frame, header, problems)
    return frame, np.arange(2, len(body) + 2, dtype=np.int64)


def _xlsx_rows(
    raw: bytes, path: Path, sheet: str | None, data_only: bool, notes: list[str] | None = None
) -> list[tuple]:
    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(raw), read_only=True, data_only=data_only)
    except (zipfile.BadZipFile, OSError, KeyError, ValueError, TypeError) as exc:
        raise IngestError(f"{path}: cannot open as an Excel workbook: {exc}") from None
    try:
        if sheet is not None and sheet not in book.sheetnames:
            raise IngestError(f"{path}: no sheet {sheet!r}; the workbook has {', '.join(book.sheetnames)}")
        ws = book[sheet] if sheet is not None else book.worksheets[0]
        if notes is not None and sheet is None and len(book.sheetnames) > 1:
            others = ", ".join(repr(n) for n in book.sheetnames[1:])
            notes.append(
                f"the workbook has {len(book.sheetnames)} sheets; only the first, {ws.title!r}, was read "
                f"(not {others}); pass --sheet NAME to ingest another one"
            )
        if data_only:
            return [tuple(cell_text(v) for v in r) for r in ws.iter_rows(values_only=True)]
        return [tuple(r) for r in ws.iter_rows(values_only=True)]
    finally:
        book.close()


def _formulas_without_value(
    raw: bytes, path: Path, sheet: str | None, frame: pd.DataFrame, header: list[str], problems: list[RowProblem]
) -> None:
    """A formula cell whose result was never saved (a workbook written by a script, not by Excel)
    reads as empty; it would land as NULL although the cell is not empty. Reject those rows."""
    if not frame.isna().any().any():
        return  # no empty cell, so no formula lost its value
    formulas = _xlsx_rows(raw, path, sheet, data_only=False)[1:]
    for position, name in enumerate(header):
        empty = frame.iloc[:, position].isna().to_numpy()
        cells = np.array([r[position] if position < len(r) else None for r in formulas], dtype=object)
        lost = empty & np.array([isinstance(v, str) and v.startswith("=") for v in cells], dtype=bool)
        if lost.any():
            shown = shorten(pd.Series(cells[lost], dtype="str")).to_numpy(dtype=object)
            messages = np.full(len(frame), None, dtype=object)
            messages[lost] = (
                f"{name or _excel_column(position)}='" + shown + "': formula without a saved value (open and save the "
                "workbook in Excel, or paste the values) [xlsx_formula]"
            )
            problems.append(RowProblem(name or _excel_column(position), "xlsx_formula", lost, messages))


def _read_parquet(raw: bytes, path: Path) -> tuple[pd.DataFrame, np.ndarray]:
    try:
        table = pq.read_table(pa.BufferReader(raw))
    except (pa.ArrowException, OSError) as exc:
        raise IngestError(f"{path}: cannot read as Parquet: {exc}") from None
    _refuse_bad_header(path, table.column_names)
    columns = {}
    for name, column in zip(table.column_names, table.columns):
        try:
            columns[name] = column.cast(pa.string()).to_pandas().astype("str")
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
            columns[name] = _to_text(column.to_pandas())
    frame = pd.DataFrame(columns, index=pd.RangeIndex(table.num_rows))
    return frame, np.arange(1, table.num_rows + 1, dtype=np.int64)


# ------------------------------------------------------------------------------------ helpers


def _refuse_bad_header(path: Path, header: list) -> None:
    names = [str(h).strip() for h in header]
    if not any(names):
        raise IngestError(f"{path}: the header row is empty")
    seen: set[str] = set()
    repeated = sorted({n for n in names if n and (n in seen or seen.add(n))})
    if repeated:
        raise IngestError(f"{path}: the header repeats column(s) {', '.join(map(repr, repeated))}")


def _excel_column(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def cell_text(value) -> str | None:
    """Text of a typed cell (Excel, JSON): whole floats without '.0' so an id typed as the number
    101 stays '101' and a rating 7.0 reads '7'; booleans as true/false; dates in ISO form."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _to_text(series: pd.Series) -> pd.Series:
    if pd.api.types.is_string_dtype(series.dtype) and series.dtype != object:
        return series
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        # Arrow prints whole floats without '.0' and keeps NaN as null, vectorised.
        return pd.Series(
            pa.array(series, from_pandas=True).cast(pa.string()).to_pylist(), index=series.index, dtype="str"
        )
    return pd.Series([cell_text(v) for v in series.tolist()], index=series.index, dtype="str")


def _normalise(
    path: Path,
    frame: pd.DataFrame,
    rows: np.ndarray,
    fmt: str,
    verbatim: frozenset[str],
    sha256: str,
    problems: list[RowProblem],
    notes: list[str],
    labels: dict[str, frozenset[str]],
) -> SourceFrame:
    out = {}
    for position, name in enumerate(frame.columns):
        name = str(name).strip()
        text = frame.iloc[:, position].astype("str")
        if name in verbatim:
            text = text.mask(text == "")
        else:
            # NFC: a label typed on macOS arrives decomposed (NFD) and would miss its declared
            # spelling while printing exactly like it.
            text = nfc(text.str.strip())
            tokens = tuple(t for t in MISSING_TOKENS if t not in labels.get(name, ()))
            text = text.mask(is_in(text.str.lower(), tokens) | text.isna().to_numpy())
        if not name:
            # A trailing separator in every line (common in spreadsheet exports) makes an empty,
            # nameless column: harmless. A nameless column with values is not.
            if text.notna().any():
                raise IngestError(
                    f"{path}: column {position + 1} ({_excel_column(position)}) holds values but has no header"
                )
            continue
        out[name] = text
    data = pd.DataFrame(out, index=pd.RangeIndex(len(frame)))
    blank = data.isna().all(axis=1).to_numpy() if len(data.columns) else np.ones(len(data), bool)
    keep = ~blank
    if blank.any():
        data = data.loc[keep].reset_index(drop=True)
        rows = rows[keep]
    if not len(data):
        raise IngestError(f"{path}: the file has a header but no data rows")
    failures = []
    for p in problems:
        mask = p.mask[keep]
        if mask.any():
            failures.append(Failure(p.column, p.rule, np.flatnonzero(mask), p.messages[keep][mask]))
    return SourceFrame(
        data=data, row_numbers=rows, format=fmt, sha256=sha256, problems=tuple(failures), warnings=tuple(notes)
    )
