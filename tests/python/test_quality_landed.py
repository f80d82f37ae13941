"""The gate's DuckDB side (quality/landed.py): the class frames Great Expectations validates, and
the rows a rejected class leads back to, against pandas on the whole table (brute force)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st
from rater1001.quality.landed import CLASS_ROWS, LandingDB, RowClass, key_exists, quoted

maybe = lambda s: st.one_of(st.none(), s)  # noqa: E731
row = st.fixed_dictionaries(
    {
        "k1": maybe(st.sampled_from(["r1", "r2", "r3"])),
        "k2": maybe(st.sampled_from(["i1", "i2"])),
        "value": maybe(st.integers(-1, 3)),
        "label": maybe(st.sampled_from(["happy", "sad", "<b>x</b>"])),
    }
)
SCHEMA = pa.schema([("k1", pa.string()), ("k2", pa.string()), ("value", pa.int64()), ("label", pa.string())])


def _landed(rows: list[dict], folder: Path) -> tuple[LandingDB, pd.DataFrame]:
    table = pa.Table.from_pylist(rows, schema=SCHEMA)
    pq.write_table(table, folder / "t.parquet")
    pq.write_table(pa.table({"id": ["i1"]}), folder / "ref.parquet")
    db = LandingDB()
    db.add_table("t", folder / "t.parquet")
    db.add_table("ref", folder / "ref.parquet")
    db.add_flags("t", {"k2_in_ref": key_exists(("k2",), "ref", ("id",))})
    frame = table.to_pandas()
    frame.index = pd.RangeIndex(1, len(frame) + 1, name="row")
    return db, frame


def _plain(values) -> list:
    """Values with every kind of missing (None, NaN, pd.NA) as None."""
    return [None if pd.isna(v) else v for v in values]


def _counts(series: pd.Series) -> dict:
    counts = series.value_counts(dropna=False)
    return dict(zip(_plain(counts.index), map(int, counts)))


@settings(max_examples=60, deadline=None)
@given(st.lists(row, max_size=25))
def test_class_frames_and_rows_match_pandas_on_the_whole_table(rows):
    with tempfile.TemporaryDirectory() as tmp:
        db, frame = _landed(rows, Path(tmp))
        try:
            value = RowClass("t", "value", f"t.{quoted('value')}")
            label = RowClass("t", "label", f"t.{quoted('label')}")
            present = RowClass("t", "label", "case when t.label is null then null else true end", name="label present")
            flag = RowClass("t", "k2_in_ref", "t.k2_in_ref")
            key = RowClass("t", "rows_per_key", per_key=("k1", "k2"))
            frames = db.class_frames([value, label, present, flag, key])

            # Each value class: the column's distinct values (empty included) with their rows.
            for rc in (value, label):
                got = frames[rc.frame]
                assert dict(zip(_plain(got[rc.column]), got[CLASS_ROWS])) == _counts(frame[rc.column])
            got = frames[present.frame]
            assert sorted(zip(got["label"].isna(), got[CLASS_ROWS])) == sorted(
                (missing, int(n)) for missing, n in frame["label"].isna().value_counts().items()
            )
            orphan = ~frame["k2"].isin(["i1"]) & frame["k2"].notna()
            got = frames[flag.frame]
            assert dict(zip(got["k2_in_ref"], got[CLASS_ROWS])) == {
                k: int(n) for k, n in (~orphan).value_counts().items()
            }

            # A key's multiplicity: GX leaves out a key whose parts are all empty.
            keyed = frame[frame["k1"].notna() | frame["k2"].notna()]
            sizes = keyed.groupby(["k1", "k2"], dropna=False)["value"].transform("size")
            got = frames[key.frame]
            assert dict(zip(got["rows_per_key"], got[CLASS_ROWS])) == _counts(sizes)

            # Rejected classes lead back to exactly the rows holding them, in file order.
            shown = db.rows(value, pd.Series([3, None]))
            expected = frame[frame["value"].isna() | (frame["value"] == 3)]
            assert list(shown.index) == list(expected.index)
            assert list(shown["k2_in_ref"]) == list(~orphan[expected.index])
            dup = db.rows(key, pd.Series([2, 3]))
            assert list(dup.index) == list(sizes[sizes.isin([2, 3])].index)
        finally:
            db.close()


def test_a_key_whose_hashes_collide_is_counted_exactly(tmp_path, monkeypatch):
    """The first grouping is on a hash of the key; a count above one there is checked on the key
    itself, so keys that only share a hash stay unique."""
    rows = [{"k1": f"r{i}", "k2": "i1", "value": 1, "label": "happy"} for i in range(5)]
    db, _ = _landed(rows, tmp_path)
    try:
        monkeypatch.setattr(db, "con", _ConstantHash(db.con))
        got = db.multiplicity(RowClass("t", "n", per_key=("k1", "k2")))
        assert dict(zip(got["n"], got[CLASS_ROWS])) == {1: 5}
    finally:
        db.con = db.con.inner
        db.close()


class _ConstantHash:
    """A connection whose key hash is one constant: the worst collision there is."""

    def __init__(self, inner):
        self.inner = inner

    def sql(self, query: str):
        return self.inner.sql(query.replace('hash("k1", "k2")', "hash('the same')"))
