"""PNG export in worker processes. vl-convert renders one spec at a time per process, so the PNGs
are rendered by up to two spawned workers while the main process builds the HTML (png_pool.py).
This module imports only vl_convert, so a spawned worker starts fast."""
from __future__ import annotations

from pathlib import Path

import vl_convert

_font_folders: set[str] = set()


def _register_fonts(font_folder: str | None) -> None:
    if font_folder is not None and font_folder not in _font_folders:
        vl_convert.register_font_directory(font_folder)
        _font_folders.add(font_folder)


def render_png(spec: dict, vl_version: str, target: str, font_folder: str | None = None) -> str:
    """font_folder: fonts vl-convert should know besides the system's (the shipped Hangul font),
    registered once per process."""
    _register_fonts(font_folder)
    Path(target).write_bytes(vl_convert.vegalite_to_png(spec, vl_version=vl_version, scale=2))
    return target


# One point: drawing it starts vl-convert's JavaScript engine and loads Vega-Lite (~0.6 s), which a
# worker started ahead (PngWriter.start) does before the report needs its first figure.
WARM_UP = {"data": {"values": [{"x": 0}]}, "mark": "point",
           "encoding": {"x": {"field": "x", "type": "quantitative"}}}


def warm_up(vl_version: str, font_folder: str | None) -> None:
    """The engine started and the fonts registered; a failure here is left for a figure to say."""
    try:
        _register_fonts(font_folder)
        vl_convert.vegalite_to_png(WARM_UP, vl_version=vl_version)
    except Exception:
        pass


def serve(conn, render, vl_version: str, font_folder: str | None) -> None:
    """A worker's loop: (spec, target) in, ("ok" | "error" | "fatal", detail) out, None to stop.
    A MemoryError is fatal (the run stops, naming the figure); any other error only loses that
    figure's PNG. A worker killed outright answers nothing: the pool sees its process end."""
    warm_up(vl_version, font_folder)
    while (job := conn.recv()) is not None:
        spec, target = job
        try:
            render(spec, vl_version, target, font_folder)
            conn.send(("ok", ""))
        except MemoryError as exc:
            conn.send(("fatal", f"out of memory (MemoryError{': ' + str(exc) if str(exc) else ''})"))
            return
        except Exception as exc:  # the HTML figure stands; the missing PNG is said beside it
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
