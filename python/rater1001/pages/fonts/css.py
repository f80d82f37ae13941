"""The @font-face rule of the shipped Hangul font, and the names the pages and charts use for it."""

from __future__ import annotations

import base64
from functools import lru_cache
from pathlib import Path

from markupsafe import Markup

FOLDER = Path(__file__).resolve().parent
FAMILY = "Rater1001 Hangul"
# Hangul jamo, compatibility jamo, syllables: the only code points the page takes from this font,
# so Latin text keeps the reader's own sans-serif.
HANGUL = "U+1100-11FF, U+3130-318F, U+AC00-D7A3"
# Appended to a font-family list: a character the fonts before it lack falls through to the
# shipped font instead of a missing-glyph box.
STACK = f'"{FAMILY}"'


@lru_cache(maxsize=1)
def font_face_css() -> Markup:
    """An @font-face rule with the font inlined (the reports open offline from disk)."""
    data = base64.b64encode((FOLDER / "Rater1001Hangul.woff2").read_bytes()).decode("ascii")
    return Markup(
        f'@font-face {{ font-family: "{FAMILY}"; src: url(data:font/woff2;base64,{data}) format("woff2"); '
        f"unicode-range: {HANGUL}; font-display: block; }}"
    )
