"""How raw/ was cut from the upstream EmoBank corpus folder (kept for provenance; the tests do not
run it).

    python make_sample.py path/to/EmoBank/corpus raw/

Upstream (corpus/): `meta.tsv` (id, document, category = the text's genre or source, subcategory),
`raw.csv` (id, text), `individual_reader_ratings.csv` and `individual_writer_ratings.csv` (id, V, A,
D: one row per annotator's rating of a sentence, 1-5, from the reader's and the writer's
perspective). The sample keeps those four files in their layout, cut to the first 25 sentences of
each of the seven categories in meta.tsv order (175 sentences) that have reader ratings, and the
rows of those sentences in the other files, in upstream order.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

PER_CATEGORY = 25


def main(source: str, target: str) -> None:
    src, out = Path(source), Path(target)
    out.mkdir(parents=True, exist_ok=True)
    with open(src / "individual_reader_ratings.csv", newline="", encoding="utf-8") as fh:
        rated = {row["id"] for row in csv.DictReader(fh)}
    keep, taken = [], {}
    meta_lines = (src / "meta.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    kept_meta = [meta_lines[0]]
    for line in meta_lines[1:]:
        parts = line.rstrip("\n").split("\t")
        if parts[0] in rated and taken.get(parts[2], 0) < PER_CATEGORY:
            taken[parts[2]] = taken.get(parts[2], 0) + 1
            keep.append(parts[0])
            kept_meta.append(line)
    (out / "meta.tsv").write_text("".join(kept_meta), encoding="utf-8")
    wanted = set(keep)
    for name in ("raw.csv", "individual_reader_ratings.csv", "individual_writer_ratings.csv"):
        with open(src / name, newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            header = next(reader)
            rows = [r for r in reader if r and r[0] in wanted]
        quoting = csv.QUOTE_ALL if name == "raw.csv" else csv.QUOTE_MINIMAL
        with open(out / name, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh, quoting=quoting, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)


if __name__ == "__main__":
    main(*sys.argv[1:3])
