"""dbt's events that nobody keeps are neither built nor sent (rater1001.unheard_events): the log's
lines and what the callbacks receive are the same as through dbt's own path. The builds of the
suite run with it installed (test_build_events.py checks their progress, failures and log)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from dbt.adapters.events.types import ConnectionUsed, SQLQuery, SQLQueryStatus
from dbt.events.types import LogModelResult, LogSkipBecauseError, LogStartLine, NodeFinished
from dbt_common.events.base_types import BaseEvent, EventLevel
from dbt_common.events.event_manager import EventManager
from dbt_common.events.logger import LineFormat, LoggerConfig
from dbt_common.events.types import Note
from dbt_common.exceptions.events import EventCompilationError
from google.protobuf.json_format import MessageToDict
from rater1001 import unheard_events
from rater1001.build_events import BuildEvents
from rater1001.unheard_events import ORIGINALS, unheard

NODE = {"unique_id": "model.rater1001.stg_stimuli", "node_name": "stg_stimuli", "resource_type": "model"}
SKIPPED = {"unique_id": "model.rater1001.stg_raters", "node_name": "stg_raters", "resource_type": "model"}


class Recorder:
    """A callback that keeps every message it is given (and hears everything unless told)."""

    def __init__(self, heard_events=None):
        if heard_events is not None:
            self.heard_events = frozenset(heard_events)
        self.seen: list[tuple[str, str, dict]] = []

    def __call__(self, msg) -> None:
        self.seen.append((msg.info.name, msg.info.level, MessageToDict(msg.data)))


class Logger:
    def __init__(self, level: EventLevel):
        self.level = level


def _sequence():
    """What a node's run fires, in dbt's own classes: debug statements and connections, the info
    lines of the log, the debug NodeFinished that BuildEvents counts, notes at each level."""
    return [
        (ConnectionUsed(conn_type="duckdb", conn_name="model.rater1001.stg_stimuli", node_info=NODE), None),
        (SQLQuery(conn_name="model.rater1001.stg_stimuli", sql="select 1 as x", node_info=NODE), None),
        (SQLQueryStatus(status="OK", elapsed=0.01, node_info=NODE), None),
        (LogStartLine(description="sql table model main.stg_stimuli", index=1, total=3, node_info=NODE), None),
        (
            LogModelResult(
                description="sql table model main.stg_stimuli",
                status="OK",
                index=1,
                total=3,
                execution_time=0.5,
                node_info=NODE,
            ),
            None,
        ),
        (NodeFinished(node_info=NODE, run_result={"status": "success", "message": "OK"}), None),
        (NodeFinished(node_info=SKIPPED, run_result={"status": "skipped"}), None),
        (
            LogSkipBecauseError(schema="main", relation="stg_raters", index=2, total=3, status="skipped"),
            EventLevel.ERROR,
        ),
        (Note(msg="a note at debug"), EventLevel.DEBUG),
        (Note(msg="a note at info"), EventLevel.INFO),
        (Note(msg="a note at warn"), EventLevel.WARN),
    ]


def _fire_all(log_level: EventLevel, callbacks) -> tuple[str, list[BaseEvent]]:
    """Build the events, fire them through a fresh manager with one text logger (the file log's
    debug line format) and the callbacks; return the log's lines without their time stamps, and
    the events."""
    stream = io.StringIO()
    manager = EventManager()
    manager.add_logger(
        LoggerConfig(name="file_log", line_format=LineFormat.DebugText, level=log_level, output_stream=stream)
    )
    manager.callbacks = list(callbacks)
    sequence = _sequence()
    for event, level in sequence:
        manager.fire_event(event, level=level)
    return re.sub(r"\d\d:\d\d:\d\d\.\d+", "<time>", stream.getvalue()), [e for e, _ in sequence]


@pytest.fixture
def dbts_own_path(monkeypatch):
    """Switch dbt_common back to its own functions for the test's duration."""
    unheard_events.install()

    def restore():
        for (cls, attr), function in ORIGINALS.items():
            monkeypatch.setattr(cls, attr, function)

    return restore


@pytest.mark.parametrize(("log_level", "lines"), [(EventLevel.INFO, 4), (EventLevel.DEBUG, 11), (EventLevel.WARN, 2)])
def test_the_log_and_the_callbacks_get_the_same_as_through_dbts_own_path(dbts_own_path, monkeypatch, log_level, lines):
    ours = (Recorder(BuildEvents.heard_events), Recorder())
    log, _ = _fire_all(log_level, ours)
    with monkeypatch.context():
        dbts_own_path()
        theirs = (Recorder(BuildEvents.heard_events), Recorder())
        expected, _ = _fire_all(log_level, theirs)
    assert log == expected and log.count("\n") == lines
    for mine, own in zip(ours, theirs):
        assert mine.seen == own.seen
    assert [n for n, _, _ in ours[1].seen] == [type(e).__name__ for e, _ in _sequence()]  # hears all


def test_only_the_events_somebody_keeps_are_built(dbts_own_path):
    counter = BuildEvents()
    _, events = _fire_all(EventLevel.INFO, [counter])
    unbuilt = [type(e).__name__ for e in events if unheard_events._PENDING in e.__dict__]
    # the debug ones (LogModelResult takes its level from its caller, here none: debug)
    assert unbuilt == ["ConnectionUsed", "SQLQuery", "SQLQueryStatus", "LogModelResult", "Note"]
    # an unheard event is still whole when something reads it later
    assert events[1].sql == "select 1 as x" and events[1].node_info.unique_id == NODE["unique_id"]
    assert unheard_events._PENDING not in events[1].__dict__
    # BuildEvents counts a skipped node from its NodeFinished (LogSkipBecauseError names no node)
    assert counter.total == 3 and counter.statuses == {
        "model.rater1001.stg_stimuli": "success",
        "model.rater1001.stg_raters": "skipped",
    }
    summary = counter.summary(True, log_file=Path("dbt.log"))
    assert (summary.total, summary.passed, summary.skipped) == (2, 1, 1)


def test_an_event_set_after_it_was_made_keeps_the_value(dbts_own_path):
    event = SQLQuery(conn_name="a", sql="select 1", node_info=NODE)
    event.conn_name = "b"
    assert event.conn_name == "b" and event.pb_msg.sql == "select 1"


def test_warn_error_still_raises_on_a_warning(dbts_own_path):
    manager = EventManager()
    manager.warn_error = True
    manager.require_warn_or_error_handling = True
    with pytest.raises(EventCompilationError, match="a note at warn"):
        manager.fire_event(Note(msg="a note at warn"), level=EventLevel.WARN)
    manager.fire_event(Note(msg="a note at debug"), level=EventLevel.DEBUG)  # below: no error


@pytest.mark.parametrize(
    ("loggers", "callbacks", "name", "level", "expected"),
    [
        ([EventLevel.INFO], [], "SQLQuery", "debug", True),
        ([EventLevel.INFO], [], "SQLQuery", "test", True),
        ([EventLevel.INFO], [], "LogStartLine", "info", False),
        ([EventLevel.WARN], [], "LogStartLine", "info", True),
        ([EventLevel.ERROR], [], "Note", "warn", False),  # a warning always takes dbt's own path
        ([EventLevel.INFO, EventLevel.DEBUG], [], "SQLQuery", "debug", False),
        ([], [], "SQLQuery", "debug", True),
        ([EventLevel.INFO], [Recorder()], "SQLQuery", "debug", False),
        ([EventLevel.INFO], [Recorder({"NodeFinished"})], "SQLQuery", "debug", True),
        ([EventLevel.INFO], [Recorder({"NodeFinished"})], "NodeFinished", "debug", False),
        ([EventLevel.INFO], [Recorder({"NodeFinished"}), Recorder()], "SQLQuery", "debug", False),
    ],
)
def test_an_event_is_unheard_only_below_every_logger_and_outside_every_callback(
    loggers, callbacks, name, level, expected
):
    assert unheard([Logger(lv) for lv in loggers], callbacks, name, level) is expected


def test_dbts_usage_tracking_callback_hears_only_behavior_change_warnings():
    from dbt.tracking import track_behavior_change_warn

    unheard_events.install()

    assert unheard([Logger(EventLevel.INFO)], [track_behavior_change_warn], "SQLQuery", "debug")
    assert not unheard([Logger(EventLevel.INFO)], [track_behavior_change_warn], "BehaviorChangeEvent", "debug")


def test_install_is_idempotent():
    unheard_events.install()
    fire = EventManager.fire_event
    unheard_events.install()
    assert EventManager.fire_event is fire and ORIGINALS[EventManager, "fire_event"] is not fire
