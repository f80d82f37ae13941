"""The generic run core shared by `infer` and `judge`: an append-only ledger of calls keyed by a
hash of everything that determines the answer, retries with backoff, bounded concurrency per
provider, resume after a crash, progress and cost. Nothing here knows about emotions or judges."""

from .core import CallSpec, Runner, RunStats
from .cost import Price, PriceTable, load_prices
from .errors import CallError, CallFailed, FatalCallError, Interrupted, NotInLedger, RetryableCallError, RunStopped
from .keys import call_key
from .ledger import Ledger
from .progress import Progress
from .retry import RetryPolicy, call_with_retry
from .secrets import SecretRegistry

__all__ = [
    "CallError",
    "CallFailed",
    "FatalCallError",
    "Interrupted",
    "NotInLedger",
    "RetryableCallError",
    "RunStopped",
    "call_key",
    "Ledger",
    "RetryPolicy",
    "call_with_retry",
    "CallSpec",
    "Runner",
    "RunStats",
    "Price",
    "PriceTable",
    "load_prices",
    "SecretRegistry",
    "Progress",
]
