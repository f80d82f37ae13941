"""The one error ingestion raises: the file cannot be read at all (the CLI exits 2)."""

from __future__ import annotations


class IngestError(Exception):
    """The file as a whole cannot be ingested: unreadable, empty, wrong encoding, wrong columns,
    or a table it refers to has not landed. Row-level problems are rejections, not errors."""
