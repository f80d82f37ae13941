"""Rebuild the shipped Hangul subset font (not run by the package or the tests; README.md here).

    apt-get download fonts-nanum && dpkg-deb -x fonts-nanum_*.deb deb
    uv tool run --from fonttools --with brotli python make_subset.py deb/usr/share/fonts/truetype/nanum/NanumGothic.ttf

Keeps the 2,350 Hangul syllables of KS X 1001 (the common set: those EUC-KR encodes in two bytes),
every syllable the package's own sources and seeds use, and the compatibility jamo. The family is
renamed: the OFL reserves the name NanumGothic for the unmodified font.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

HERE = Path(__file__).resolve().parent
FAMILY = "Rater1001 Hangul"
PACKAGE = HERE.parents[1]
REPO = HERE.parents[3]


def wanted() -> list[int]:
    codes = {c for c in range(0xAC00, 0xD7A4) if len(chr(c).encode("euc-kr")) == 2}
    for folder in (PACKAGE, REPO / "seeds"):
        for path in folder.rglob("*"):
            if path.is_file() and path.suffix in (".py", ".csv", ".j2", ".txt", ".yml", ".json"):
                codes |= {
                    ord(ch) for ch in path.read_text(encoding="utf-8", errors="ignore") if 0xAC00 <= ord(ch) <= 0xD7A3
                }
    return sorted(codes | set(range(0x3131, 0x318F)))


def main(source: str) -> None:
    options = subset.Options()
    options.hinting = False
    options.desubroutinize = True
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6]
    font = TTFont(source)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=wanted())
    subsetter.subset(font)
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 4):
            record.string = FAMILY
        elif record.nameID == 3:
            record.string = f"{FAMILY} subset of NanumGothic"
        elif record.nameID == 6:
            record.string = FAMILY.replace(" ", "")
    font.save(HERE / "Rater1001Hangul.ttf")
    font.flavor = "woff2"
    font.save(HERE / "Rater1001Hangul.woff2")


if __name__ == "__main__":
    main(sys.argv[1])
