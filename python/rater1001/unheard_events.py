"""dbt events that no logger writes and no callback reads are neither built nor sent.

dbt builds every event as a protobuf message when it is created (``BaseEvent.__init__`` parses
its fields with protobuf's pure-Python ``ParseDict``), wraps it in a second message when it is
fired (``msg_from_base_event``: another ``ParseDict``, a timestamp, the thread's name), and hands
it to each logger, which formats the whole line before Python's logging drops it for its level.
A small build fires ~5,000 events, ~4,500 of them at debug level (each SQL statement three times
over, each connection opened, reused and closed, each cache action), while rater1001's dbt log
keeps info and up (docs/run_output.md) and its one callback, `BuildEvents`, reads two events.
Building and dropping them cost ~1.2 s of CPU per small build (10-15 % of it; docs/performance.md).

`install()` changes two things in dbt_common, once per process, for the in-process runs of
`rater1001.warehouse` (a user's own `dbt` command is untouched):

- an event is built when something first reads it, not when it is created, so an event that is
  never fired, or skipped below, costs one tuple;
- `EventManager.fire_event` returns at once for an event below every logger's level that no
  callback hears. A callback hears every event unless it says which it reads: ``heard_events``
  on the callback (`BuildEvents` does), or dbt's own usage-tracking callback, which reads only
  ``BehaviorChangeEvent`` (a warning anyway). With ``DBT_LOG_LEVEL_FILE=debug`` every event is
  built and written as before, and warnings and errors always go through dbt's own path, so
  ``--warn-error`` and a log's lines are unchanged (tests/python/test_unheard_events.py).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType

_PENDING = "_rater1001_pending_fields"
_lock = threading.Lock()
_installed = False
_originals: dict[tuple[type, str], Callable] = {}
# dbt_common's own functions as they were before install(), by (class, attribute), for the test and
# the benchmark that compare the two paths in one process.
ORIGINALS = MappingProxyType(_originals)
# Callbacks of dbt's own that cannot carry heard_events, and the names they read (set by install();
# matched by identity: a callback need not be hashable).
_heard_by_dbts_callbacks: list[tuple[Callable, tuple[str, ...]]] = []


@functools.cache  # imported on first use: dbt_common's logger takes ~0.2 s to import
def _ranks() -> tuple[Mapping[str, int], int]:
    """The ranks dbt_common's loggers set their Python logging levels from (test events log as
    debug), keyed by EventLevel, a str enum, so a level's name finds its rank too; and warn's."""
    from dbt_common.events.base_types import EventLevel
    from dbt_common.events.logger import _log_level_map

    return _log_level_map, _log_level_map[EventLevel.WARN]


def _callback_hears(callback: Callable) -> Iterable[str] | None:
    """The names a callback reads, or None when it may read any event."""
    heard = getattr(callback, "heard_events", None)
    if heard is not None:
        return heard
    return next((names for known, names in _heard_by_dbts_callbacks if known is callback), None)


def unheard(loggers: Iterable, callbacks: Iterable[Callable], name: str, level: str) -> bool:
    """True when no logger writes an event of this level and no callback reads this name."""
    rank_of, warn = _ranks()
    rank = rank_of.get(level)
    if rank is None or rank >= warn:
        return False
    if any(rank >= rank_of.get(logger.level, 0) for logger in loggers):
        return False
    for callback in callbacks:
        heard = _callback_hears(callback)
        if heard is None or name in heard:
            return False
    return True


def install() -> None:
    """Patch dbt_common once per process (idempotent, thread-safe)."""
    global _installed
    with _lock:
        if _installed:
            return
        from dbt.tracking import track_behavior_change_warn
        from dbt_common.events.base_types import BaseEvent
        from dbt_common.events.event_manager import EventManager

        _heard_by_dbts_callbacks.append((track_behavior_change_warn, ("BehaviorChangeEvent",)))
        build = BaseEvent.__init__
        read = BaseEvent.__getattr__
        write = BaseEvent.__setattr__
        fire = EventManager.fire_event
        _originals.update(
            {
                (BaseEvent, "__init__"): build,
                (BaseEvent, "__getattr__"): read,
                (BaseEvent, "__setattr__"): write,
                (EventManager, "fire_event"): fire,
            }
        )

        def built(event: BaseEvent) -> None:
            pending = event.__dict__.pop(_PENDING, None)
            if pending is not None:
                build(event, *pending[0], **pending[1])

        def lazy_init(self, *args, **kwargs) -> None:
            object.__setattr__(self, _PENDING, (args, kwargs))

        def lazy_getattr(self, key):
            if _PENDING in self.__dict__:
                built(self)
                return getattr(self, key)
            return read(self, key)

        def lazy_setattr(self, key, value) -> None:
            if key != "pb_msg":
                built(self)
            write(self, key, value)

        def fire_if_heard(self, e, level=None, node=None, force_warn_or_error_handling=False):
            tag = (level or e.level_tag()).value
            if not force_warn_or_error_handling and unheard(self.loggers, self.callbacks, type(e).__name__, tag):
                return None
            return fire(self, e, level=level, node=node, force_warn_or_error_handling=force_warn_or_error_handling)

        BaseEvent.__init__ = lazy_init
        BaseEvent.__getattr__ = lazy_getattr
        BaseEvent.__setattr__ = lazy_setattr
        EventManager.fire_event = fire_if_heard
        _installed = True
