"""Build report/index.html (one offline file) and report/figures/*.png from a built warehouse.

Nothing here computes a statistic: sections read warehouse tables, reshape and format them. A
section whose inputs are absent renders a visible note instead of failing the report."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import altair as alt
import pandas as pd
from altair.utils.data import to_values

from ..paths import ProjectPaths
from ..study import load_study
from .answer import link_numbers, read_answer
from .applicability import audit_limits, audit_note, not_applicable, shape_reasons, slot_headers
from .layout import sections_for
from .paper import follows_paper, paper_difference, paper_for
from .quality_section import quality_summary
from .reader import Unavailable, WarehouseReader
from ..pages import fonts
from .png_pool import PngWriter
from .render import render_html
from .specs import FolderTables, Note, ReportContext, ReportFigure, ReportTable
from .vocabulary import about_undeclared, studys_sections, translate_docs, translate_html, translate_spec

FALLBACK_ROWS = 300
DATA = "data"  # report/data/<table>.parquet and .csv: the tables too long for the page
CSV_MAX_ROWS = 1_048_575  # a spreadsheet's last row, under the header: longer tables as Parquet only


@dataclass
class Block:
    kind: str                        # "table" | "figure" | "note"
    ours: str
    paper: str | None
    title: str
    tables: tuple[str, ...] = ()
    frame: pd.DataFrame | None = None
    spec: dict | None = None         # Vega-Lite spec of a figure
    png: Path | None = None
    note: str = ""                   # why a block is absent or shown as stored
    caption: str = ""
    description: str = ""
    column_docs: dict = field(default_factory=dict)   # column -> yml description (header tooltips)
    paper_frame: pd.DataFrame | None = None           # the paper's table as printed (paper.py)
    paper_reason: str = ""                            # why no paper table is beside ours
    paper_diff: pd.DataFrame | None = None            # ours, the paper's and the difference per model
    downloads: list[Path] = field(default_factory=list)  # the whole table beside index.html (data/)


@dataclass
class ReportResult:
    html: Path
    blocks: list[tuple[str, list[Block]]]
    seconds: float
    figures: list[Block] = field(default_factory=list)
    unavailable: list[Block] = field(default_factory=list)
    answer: object = None

    def summary(self) -> str:
        shown = sum(1 for _, bs in self.blocks for b in bs if b.kind != "note")
        pngs = sum(1 for b in self.figures if b.png is not None)
        return (f"report written to {self.html} in {self.seconds:.1f} s: {shown} tables/figures, "
                f"{pngs} figure PNGs, {len(self.unavailable)} not available")


def _context(reader: WarehouseReader, data_origin: str) -> ReportContext:
    ctx = ReportContext(data_origin=data_origin)
    if reader.has("factor_labels"):
        category = reader.factor_headers.get("category", "category")  # a checked identifier (study.py)
        ctx.categories = reader.query(
            f"SELECT label FROM factor_labels WHERE factor = '{category}' ORDER BY display_order")["label"].tolist()
    if reader.has("stg_model_conditions"):
        ctx.conditions = reader.query(
            "SELECT condition_id FROM stg_model_conditions ORDER BY condition_id")["condition_id"].tolist()
    return ctx


def _pivot(frame: pd.DataFrame, pivot) -> pd.DataFrame:
    if frame.empty:
        return frame
    if frame.duplicated([*pivot.index, pivot.columns]).any():
        raise Unavailable(f"could not be laid out: several rows per ({', '.join(pivot.index)}, {pivot.columns})")
    row_order = list(dict.fromkeys(map(tuple, frame[list(pivot.index)].itertuples(index=False))))
    col_order = list(dict.fromkeys(frame[pivot.columns]))
    wide = frame.pivot(index=list(pivot.index), columns=pivot.columns, values=pivot.values)
    wide = wide.reindex(index=pd.MultiIndex.from_tuples(row_order) if len(pivot.index) > 1
                        else [r[0] for r in row_order], columns=col_order)
    wide.index.names = list(pivot.index)
    return wide.reset_index().rename_axis(columns=None)


def _description(reader: WarehouseReader, tables) -> str:
    docs = reader.docs.get(tables[0]) if tables else None
    return docs.description.strip() if docs else ""


def table_block(reader: WarehouseReader, spec: ReportTable) -> Block:
    docs = reader.docs.get(spec.reads[0]) if spec.reads else None
    block = Block("table", spec.ours, spec.paper, spec.title, spec.reads, caption=spec.caption,
                  description=_description(reader, spec.reads), column_docs=docs.columns if docs else {})
    try:
        reader.require(spec.reads)
    except Unavailable as exc:
        block.kind, block.note = "note", str(exc)
        return block
    if spec.show_if and not bool(reader.query(spec.show_if).iloc[0, 0]):
        block.kind, block.note = "note", spec.show_if_note
        return block
    try:
        frame = reader.query(spec.sql)
        block.frame = _pivot(frame, spec.pivot) if spec.pivot else frame
    except Unavailable as exc:
        # The mart exists but not in the layout this table expects: show it as stored.
        main = spec.reads[0]
        block.frame = reader.query(f"SELECT * FROM {main} LIMIT {FALLBACK_ROWS}")
        block.note = f"{exc}; {main} is shown as stored (first {FALLBACK_ROWS} rows)."
    if block.frame is not None:
        block.frame = block.frame.rename(columns=reader.factor_headers)
        block.note = block.note or audit_note(reader.audit_limits, reader, spec.reads) or ""
    if block.frame is not None and block.frame.empty:
        block.kind = "note"
        block.note = (not_applicable(reader.shape_reasons, reader, spec.reads, spec.sql)
                      or f"no rows: {', '.join(spec.reads[:1])} is empty for this table.")
    return block


def figure_spec(spec: ReportFigure, frames: list[pd.DataFrame], ctx: ReportContext) -> dict:
    """The Vega-Lite spec of a figure with each source's rows attached once as a named dataset."""
    with alt.data_transformers.disable_max_rows():
        out = spec.chart(frames, ctx).to_dict(validate=False)  # validity: the browser test renders every spec
    if not all(s.table.startswith(("judge_", "stg_judge_")) for s in spec.sources):  # the dialogues' categories
        out = ctx.words(out)
    out["datasets"] = {f"source_{i}": to_values(f)["values"] for i, f in enumerate(frames)}
    # Korean labels: characters sans-serif lacks fall through to the shipped Hangul font (HTML and PNG)
    out.setdefault("config", {}).setdefault("font", f"sans-serif, {fonts.STACK}")
    return out


def figure_block(reader: WarehouseReader, spec: ReportFigure, ctx: ReportContext, pngs: PngWriter) -> Block:
    tables = tuple(dict.fromkeys(s.table for s in spec.sources))
    block = Block("figure", spec.ours, spec.paper, spec.title, tables, caption=spec.caption)
    try:
        reader.require(tables)
        frames = [reader.query(s.sql()) for s in spec.sources]
    except Unavailable as exc:
        block.kind, block.note = "note", str(exc)
        return block
    empty = [s.table for s, f in zip(spec.sources, frames) if f.empty]
    if empty:
        block.kind = "note"
        sql = " ".join(s.sql() for s, f in zip(spec.sources, frames) if f.empty)
        block.note = (not_applicable(reader.shape_reasons, reader, empty, sql)
                      or f"no rows to draw: {', '.join(empty)} has no rows for this figure.")
        return block
    try:
        block.spec = figure_spec(spec, frames, ctx)
    except Exception as exc:  # a chart bug must not take the whole report down; it is shown and counted
        block.kind, block.note = "note", f"could not be drawn: {type(exc).__name__}: {exc}"
        return block
    pngs.submit(block, spec.slug)
    return block


def stored_block(reader: WarehouseReader, spec: ReportTable, data_dir: Path) -> Block:
    """A mart shown as stored: its first FALLBACK_ROWS rows in the page and, when it is longer (a
    table of one row per stimulus), the whole table as Parquet and CSV files beside index.html, so
    that the page's size does not grow with the study's stimuli."""
    block = table_block(reader, spec)
    table = spec.reads[0]
    if block.kind != "table":
        return block
    n_rows = int(reader.query(f"SELECT count(*) FROM {table}").iloc[0, 0])
    if n_rows > FALLBACK_ROWS:
        csv = n_rows <= CSV_MAX_ROWS
        block.note = (f"the first {FALLBACK_ROWS} of {n_rows:,} rows; all of them in the "
                      f"{'files' if csv else 'Parquet file (too long for a spreadsheet as CSV)'} below "
                      f"(or query {table}).")
        block.downloads = reader.export(table, data_dir, csv)
    return block


def folder_blocks(reader: WarehouseReader, spec: FolderTables, shown: set[str], data_dir: Path) -> list[Block]:
    tables = [t for t in reader.mart_folder_tables(spec.folder) if t not in shown and t not in spec.skip]
    if not tables:
        return [Block("note", spec.folder, spec.paper, spec.title,
                      note=f"not available: no table of models/marts/{spec.folder} has been built")]
    blocks = []
    for t in tables:
        paper = dict(spec.paper_numbers).get(t, spec.paper)
        rt = ReportTable(t, paper, f"{spec.title}: {t}", (t,), f"SELECT * FROM {t} LIMIT {FALLBACK_ROWS}")
        blocks.append(stored_block(reader, rt, data_dir))
    return blocks


def _blocks_for(reader, items, ctx, pngs, shown, data_dir: Path) -> list[Block]:
    out = []
    for item in items:
        if isinstance(item, ReportTable):
            new = [table_block(reader, item)]
        elif isinstance(item, ReportFigure):
            new = [figure_block(reader, item, ctx, pngs)]
        elif isinstance(item, Note):
            new = [Block("note", item.ours, item.paper, item.title, note=item.note)]
        else:
            new = folder_blocks(reader, item, shown, data_dir)
        shown.update(t for b in new for t in b.tables)
        out.extend(new)
    return out


def _paper_names(reader: WarehouseReader) -> dict[str, str]:
    """The paper's model names -> our condition labels (seeds/paper_supplement_s1.csv)."""
    if not (reader.has("paper_supplement_s1") and reader.has("stg_model_conditions")):
        return {}
    rows = reader.query("SELECT DISTINCT p.paper_model, coalesce(c.short_name, p.condition_id) AS label "
                        "FROM paper_supplement_s1 p LEFT JOIN stg_model_conditions c USING (condition_id)")
    return dict(zip(rows["paper_model"], rows["label"]))


def _paper_beside(blocks: list[Block], paper_design: bool, names: dict[str, str]) -> None:
    """The paper's table beside each paper-labelled block (with the difference where the cells are
    plain numbers per model); no paper labels at all for a study that is not the paper's design (its
    numbers would not be comparable)."""
    for b in blocks:
        if not paper_design:
            b.paper = None
            if b.frame is not None:  # marts that carry the paper's numbers in paper_ columns (FER)
                b.frame = b.frame[[c for c in b.frame.columns if not str(c).startswith("paper_")]]
        elif b.paper:
            b.paper_frame, b.paper_reason = paper_for(b.ours)
            if b.paper_frame is not None and b.kind == "table":
                b.paper_diff = paper_difference(b.ours, b.frame, b.paper_frame, names)


def _anchors(sections) -> dict[str, str]:
    """Each table -> the id of the first block that shows it (where the answer's numbers link)."""
    out: dict[str, str] = {}
    blocks = [b for _, bs in sections for b in bs if b.kind != "note"]
    for b in blocks:  # a table that shows it as its main table first, else a figure drawing it
        if b.kind == "table" and b.tables and b.tables[0] not in out:
            out[b.tables[0]] = f"block-{b.ours}"
    for b in blocks:
        for t in b.tables:
            out.setdefault(t, f"block-{b.ours}")
    return out


def build_report(paths: ProjectPaths, write_pngs: bool = True, warehouse: Path | None = None,
                 out_dir: Path | None = None, pngs: PngWriter | None = None) -> ReportResult:
    """The report of the published warehouse into report/, or of `warehouse` into `out_dir` (a run
    writes its staged build's report beside it and publishes both in one step). `pngs`: the writer
    into out_dir/figures (or none, without PNGs), started ahead by the caller, who closes it if this
    fails before using it."""
    start = time.perf_counter()
    out_dir = out_dir or paths.report
    with WarehouseReader(paths, warehouse) as reader:
        out_dir.mkdir(parents=True, exist_ok=True)
        pngs = pngs or PngWriter(out_dir / "figures" if write_pngs else None)
        try:
            study = load_study(paths)
            paper_design = follows_paper(study)
            reader.shape_reasons = shape_reasons(study, reader)
            reader.factor_headers = slot_headers(study)
            reader.docs = translate_docs(reader.docs, study)
            reader.audit_limits = audit_limits(study)
            quality = quality_summary(paths, reader)
            ctx = _context(reader, quality.data_origin)
            ctx.words = lambda spec: translate_spec(spec, study)
            ctx.dimensions = list(study.model_dimensions)
            shown: set[str] = set()
            sections = [(s.title if paper_design else (s.question or s.title),
                         _blocks_for(reader, s.items, ctx, pngs, shown, out_dir / DATA))
                        for s in studys_sections(sections_for(study.model_dimensions), study)]
            leftover = sorted({t for t, d in reader.docs.items()
                               if d.folder and reader.has(t) and not about_undeclared(t, study)} - shown)
            if leftover:
                sections.append(("Other marts (as stored)", [
                    stored_block(reader, ReportTable(t, None, f"{reader.docs[t].folder}: {t}", (t,),
                                                     f"SELECT * FROM {t} LIMIT {FALLBACK_ROWS}"), out_dir / DATA)
                    for t in leftover]))
            names = _paper_names(reader) if paper_design else {}
            for _, blocks in sections:
                _paper_beside(blocks, paper_design, names)
            answer = read_answer(reader, ctx.categories, ctx.dimensions)
            link_numbers(answer, _anchors(sections))
            html_path = out_dir / "index.html"
            html = translate_html(render_html(quality, sections, ctx, answer, paper_design), study)
            html_path.write_text(html, encoding="utf-8")
        except BaseException:
            pngs.close()
            raise
        pngs.wait()  # FigureExportError names a figure whose worker died or hung
    all_blocks = [b for _, bs in sections for b in bs]
    return ReportResult(html=html_path, blocks=sections, seconds=time.perf_counter() - start, answer=answer,
                        figures=[b for b in all_blocks if b.kind == "figure"],
                        unavailable=[b for b in all_blocks if b.kind == "note"])
