"""PNG export in worker processes. vl-convert renders one spec at a time per process and the large
scatter/tick figures take seconds each, so the PNGs are rendered by a small process pool while the
main process builds the HTML. This module imports only vl_convert, so a spawned worker starts fast."""
from __future__ import annotations

from pathlib import Path

import vl_convert

_font_folders: set[str] = set()


def render_png(spec: dict, vl_version: str, target: str, font_folder: str | None = None) -> str:
    """font_folder: fonts vl-convert should know besides the system's (the shipped Hangul font),
    registered once per process."""
    if font_folder is not None and font_folder not in _font_folders:
        vl_convert.register_font_directory(font_folder)
        _font_folders.add(font_folder)
    Path(target).write_bytes(vl_convert.vegalite_to_png(spec, vl_version=vl_version, scale=2))
    return target
