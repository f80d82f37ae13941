"""PNG export in worker processes. vl-convert renders one spec at a time per process and the large
scatter/tick figures take seconds each, so the PNGs are rendered by a small process pool while the
main process builds the HTML. This module imports only vl_convert, so a spawned worker starts fast."""
from __future__ import annotations

from pathlib import Path

import vl_convert


def render_png(spec: dict, vl_version: str, target: str) -> str:
    Path(target).write_bytes(vl_convert.vegalite_to_png(spec, vl_version=vl_version, scale=2))
    return target
