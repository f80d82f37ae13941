"""Korean text renders without missing-glyph boxes on a machine without a Korean font: in the HTML
reports (the shipped subset font inlined by @font-face; headless Chromium) and in the PNG figures
(vl-convert with the font's folder registered).

The check: two different Korean strings of the same length must draw different pixels. Boxes
(tofu) draw every syllable alike, so with no font for Hangul both strings give the same image; the
control (a family that does not exist, no fallback to the shipped font) shows that on this machine."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from rater1001.pages import fonts
from rater1001.report.png_worker import render_png

PACKAGE = Path(fonts.__file__).resolve().parents[2]
REPORT = PACKAGE / "report" / "templates" / "index.html.j2"
QUALITY = PACKAGE / "quality" / "templates" / "data_quality.html.j2"
FIRST, SECOND = "행복슬픔", "분노공포"  # same length, no syllable in common


def _body_font_stack(template: Path) -> str:
    return re.search(r"body \{ font-family: ([^;]+);", template.read_text(encoding="utf-8")).group(1)


def _csp_meta(template: Path) -> str:
    """The template's content security policy tag, if it has one (the font must load under it)."""
    found = re.search(r'<meta http-equiv="Content-Security-Policy"[^>]+>', template.read_text(encoding="utf-8"))
    return found.group(0) if found else ""


def test_the_reports_load_the_shipped_font_for_hangul():
    for template in (REPORT, QUALITY):
        text = template.read_text(encoding="utf-8")
        assert "{{ font_face_css }}" in text and f'"{fonts.FAMILY}"' in _body_font_stack(template)
    css = str(fonts.font_face_css())
    assert "unicode-range: U+1100-11FF, U+3130-318F, U+AC00-D7A3" in css and "data:font/woff2;base64," in css
    # small enough to inline in every report; the TTF is read by the PNG renderer only
    assert (fonts.FOLDER / "Rater1001Hangul.woff2").stat().st_size < 200_000
    assert (fonts.FOLDER / "Rater1001Hangul.ttf").stat().st_size < 1_000_000
    assert "SIL OPEN FONT LICENSE" in (fonts.FOLDER / "OFL.txt").read_text(encoding="utf-8")


def _crop(png: bytes, rect: dict, scale: float) -> np.ndarray:
    image = np.asarray(Image.open(io.BytesIO(png)).convert("L"))
    top, left = int(rect["top"] * scale), int(rect["left"] * scale)
    return image[top : top + int(rect["height"] * scale), left : left + int(rect["width"] * scale)]


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    return bool(np.array_equal(a[:h, :w], b[:h, :w]))


@pytest.mark.parametrize("template", [REPORT, QUALITY], ids=["report", "data_quality"])
def test_hangul_draws_real_glyphs_in_headless_chromium(template, tmp_path):
    """The report's own font stack, @font-face rule and content security policy; the figures' font
    (Vega's SVG text, as the report's charts draw it) beside."""
    from report_browser import open_page, require_chromium

    require_chromium()
    chart_font = f"sans-serif, {fonts.STACK}".replace('"', "&quot;")
    page = tmp_path / "hangul.html"
    page.write_text(
        f"""<!DOCTYPE html><html><head><meta charset="utf-8">
{_csp_meta(template)}
<style>{fonts.font_face_css()}
body {{ margin: 0; }} span {{ display: inline-block; font-size: 40px; margin: 8px; }}
.t {{ font-family: {_body_font_stack(template)}; }} .control {{ font-family: "No Such Family"; }}</style></head>
<body><span id="a" class="t">{FIRST}</span><span id="b" class="t">{SECOND}</span><br>
<span id="e" class="control">{FIRST}</span><span id="f" class="control">{SECOND}</span><br>
<svg width="600" height="60"><text id="c" x="8" y="45" font-size="40" font-family="{chart_font}">{FIRST}</text>
<text id="d" x="300" y="45" font-size="40" font-family="{chart_font}">{SECOND}</text></svg></body></html>""",
        encoding="utf-8",
    )
    rects = "JSON.stringify(Object.fromEntries(['a','b','c','d','e','f'].map(i => [i, document.getElementById(i).getBoundingClientRect().toJSON()])))"
    run = open_page(
        page,
        tmp_path / "profile",
        # the page's own element first: on the about:blank before navigation the font check is true
        "document.getElementById('f') !== null && document.fonts.status === 'loaded' && "
        f"document.fonts.check('40px \"{fonts.FAMILY}\"', '{FIRST}')",
        rects,
    )
    assert run.errors == []
    shot = {k: _crop(run.screenshot_png, r, 1.0) for k, r in run.value.items()}
    assert (shot["a"] < 128).sum() > 500, "no text drawn"
    assert not _same(shot["a"], shot["b"]), "the two strings draw alike: boxes"
    assert not _same(shot["c"], shot["d"]), "the chart text draws boxes"
    if _same(shot["e"], shot["f"]):  # this machine has no Korean font of its own: boxes without ours
        assert not np.array_equal(shot["a"][: shot["e"].shape[0], : shot["e"].shape[1]], shot["e"])


def _png(text: str, tmp_path: Path) -> np.ndarray:
    spec = {
        "data": {"values": [{"t": text}]},
        "mark": {"type": "text", "fontSize": 40},
        "encoding": {"text": {"field": "t"}},
        "width": 300,
        "height": 60,
        "config": {"font": f"sans-serif, {fonts.STACK}"},
    }
    from rater1001.report.render import vl_version

    target = tmp_path / f"{len(list(tmp_path.iterdir()))}.png"
    render_png(spec, vl_version(), str(target), str(fonts.FOLDER))
    return np.asarray(Image.open(target).convert("L"))


def test_png_figures_draw_hangul_with_the_shipped_font(tmp_path):
    first, second = _png(FIRST, tmp_path), _png(SECOND, tmp_path)
    assert (first < 128).sum() > 500
    assert not _same(first, second)
