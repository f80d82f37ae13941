"""Backends behind one small interface (base.Backend): generate(GenRequest) -> result dict;
`factory.make_backend` picks a condition's backend."""

from .base import Backend, GenRequest, gen_result
from .factory import DEFAULT_CONCURRENCY, make_backend

__all__ = ["Backend", "GenRequest", "gen_result", "make_backend", "DEFAULT_CONCURRENCY"]
