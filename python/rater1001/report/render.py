"""HTML and PNG output. The Vega/Vega-Lite/vega-embed JavaScript is inlined once (the bundle
vl-convert ships for the Vega-Lite version Altair targets), so index.html opens offline from disk."""
from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

import jinja2
from markupsafe import Markup
import pandas as pd
import vl_convert

from ..pages.fonts import font_face_css
from ..pages.table import frame_html

TEMPLATES = Path(__file__).parent / "templates"


def vl_version() -> str:
    """The Vega-Lite version Altair writes specs for, in vl-convert's spelling (e.g. 'v6_4')."""
    try:
        from altair.utils._importers import vl_version_for_vl_convert
        return vl_version_for_vl_convert()
    except ImportError:  # private helper moved: derive it from the public schema version
        import altair as alt
        major, minor = alt.SCHEMA_VERSION.lstrip("v").split(".")[:2]
        return f"v{major}_{minor}"


def _cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rater1001"


@lru_cache(maxsize=1)
def javascript_bundle() -> str:
    """vl-convert bundles the JavaScript on every call (seconds); the result depends only on the
    vl-convert and Vega-Lite versions, so it is cached on disk under those."""
    version = getattr(vl_convert, "__version__", "unknown")
    cached = _cache_dir() / f"vega-embed-bundle-{version}-{vl_version()}.js"
    if cached.exists():
        return cached.read_text(encoding="utf-8")
    bundle = vl_convert.javascript_bundle(vl_version=vl_version())
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(bundle, encoding="utf-8")
        tmp.replace(cached)
    except OSError:  # a read-only home only costs the seconds again next time
        pass
    return bundle


FOLD_ROWS = 20  # longer tables are folded behind a summary line


def csv_href(frame: pd.DataFrame) -> str:
    """The table as an embedded CSV (a data: URI), so the download works offline from disk."""
    return "data:text/csv;charset=utf-8," + quote(frame.to_csv(index=False), safe="")


def _script_json(obj) -> str:
    # A landed value inside a <script> must stay data: "</script>" would end the element and "<!--"
    # changes how the parser reads it, so <, > and & are written as JSON escapes (same value).
    return (json.dumps(obj, default=str)
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def render_html(quality, sections, ctx, answer=None, paper_design: bool = False) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["frame_html"] = lambda f, docs=None: Markup(frame_html(f, docs)) if f is not None else ""
    env.filters["script_json"] = lambda o: Markup(_script_json(o))
    env.filters["csv_href"] = csv_href
    env.filters["json"] = lambda o: json.dumps(o, default=str, sort_keys=True)
    if answer is None:
        from .answer import Answer
        answer = Answer()
    figure_specs = [{"id": f"chart-{b.ours}", "ours": b.ours, "tables": list(b.tables), "spec": b.spec}
                    for _, bs in sections for b in bs if b.kind == "figure"]
    return env.get_template("index.html.j2").render(
        quality=quality, sections=sections, ctx=ctx, figure_specs=figure_specs, answer=answer,
        paper_design=paper_design, fold_rows=FOLD_ROWS,
        vega_bundle=Markup(javascript_bundle()), font_face_css=font_face_css())
