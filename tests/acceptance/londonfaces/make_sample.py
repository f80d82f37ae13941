"""How raw/ was cut from the upstream files of the faux R package's data-raw/ folder (kept for
provenance; the tests do not run it).

    python make_sample.py path/to/faux/data-raw raw/

Upstream: `london_faces_ratings.csv` (one row per rater: rater_sex, rater_sexpref, rater_age, then
one column per face X001 ... X173 holding that rater's 1-7 attractiveness rating; lines end in a
carriage return) and `london_faces_info.csv` (face_id, face_age, face_sex, face_eth). The sample
keeps both files in their layout and line endings: every face, and every 30th rater (in file
order) of those whose sex is female or male and whose sexual preference is given (74 raters).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

STEP = 30


def main(source: str, target: str) -> None:
    src, out = Path(source), Path(target)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src / "london_faces_info.csv", out / "london_faces_info.csv")
    text = (src / "london_faces_ratings.csv").read_bytes().decode("utf-8")
    lines = text.split("\r")
    header, rows = lines[0], [line for line in lines[1:] if line]
    complete = [r for r in rows if r.split(",")[0] in ("female", "male") and r.split(",")[1] not in ("", "NA")]
    kept = complete[::STEP]
    (out / "london_faces_ratings.csv").write_bytes("\r".join([header, *kept]).encode("utf-8"))


if __name__ == "__main__":
    main(*sys.argv[1:3])
