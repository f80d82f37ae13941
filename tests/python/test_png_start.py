"""PngWriter.start(): `rater1001 run` starts the figure workers before its build, so each has its
JavaScript engine running when the report asks for its first figure. The staged folder the PNGs go
to is made by the build after that (and removed first), so the writer makes it when it needs it."""

from __future__ import annotations

import shutil
from types import SimpleNamespace

from rater1001.report import png_worker
from rater1001.report.png_pool import PngWriter

SPEC = {
    "data": {"values": [{"x": 1}, {"x": 2}]},
    "mark": "point",
    "encoding": {"x": {"field": "x", "type": "quantitative"}},
}


def test_started_workers_draw_into_a_folder_made_after_they_started(tmp_path):
    figures = tmp_path / "staging" / "report" / "figures"
    pngs = PngWriter(figures, workers=2).start()
    try:
        assert len(pngs.workers) == pngs.n_workers >= 1 and all(w.process.is_alive() for w in pngs.workers)
        shutil.rmtree(tmp_path / "staging", ignore_errors=True)  # what the build's staging does
        block = SimpleNamespace(spec=SPEC, ours="F1", png=None, note="")
        pngs.submit(block, "fig-f1")
        pngs.wait()
    finally:
        pngs.close()
    assert block.png == figures / "fig-f1.png" and block.png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", block.note


def test_a_writer_without_figures_starts_no_worker():
    pngs = PngWriter(None).start()
    assert pngs.workers == []


def test_the_warm_up_draws_with_vl_convert(monkeypatch):
    drawn = []
    monkeypatch.setattr(png_worker.vl_convert, "vegalite_to_png", lambda spec, **kw: drawn.append(spec) or b"")
    png_worker.warm_up("v5_20", None)
    assert drawn == [png_worker.WARM_UP]
