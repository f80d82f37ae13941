"""How raw/fer2013new_sample.csv was cut from the upstream FER+ label file (kept for provenance;
the tests do not run it).

    python make_sample.py path/to/fer2013new.csv raw/fer2013new_sample.csv

Rows: the first 300 PublicTest images, in file order, whose ten votes are all for a face
(NF = 0) and whose most-voted label is unique and not 'unknown' -- so each image has one
plurality emotion to serve as its category. The file keeps the upstream header and columns.
"""

from __future__ import annotations

import csv
import sys

EMOTIONS = ("neutral", "happiness", "surprise", "sadness", "anger", "disgust", "fear", "contempt")
N_IMAGES = 300


def keep(row: dict) -> bool:
    if row["Usage"] != "PublicTest" or int(row["NF"]) != 0:
        return False
    votes = {k: int(row[k]) for k in (*EMOTIONS, "unknown")}
    top = max(votes.values())
    leaders = [k for k, v in votes.items() if v == top]
    return len(leaders) == 1 and leaders[0] != "unknown"


def main(source: str, target: str) -> None:
    with open(source, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        rows = [r for r in reader if keep(r)][:N_IMAGES]
        header = reader.fieldnames
    with open(target, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main(*sys.argv[1:3])
