"""`rater1001 ingest TABLE FILE`: validate a study file against the data contract and land it
(`land.ingest_file`; docs/ingest.md)."""

from .errors import IngestError
from .land import ingest_file
from .result import IngestResult, ReasonGroup

__all__ = ["IngestError", "IngestResult", "ReasonGroup", "ingest_file"]
