"""A scripted HTTP server: every request is recorded, answered by a responder function, unless a
queued fault (429 with Retry-After, 5xx, 400, a hang past the client's timeout, a truncated or
malformed body) is waiting to be served first.

Tests that need the client caught mid-run (Ctrl-C, SIGKILL, calls in flight) do not race a clock:
`hold(after=n)` answers the first n requests and keeps every later one waiting until the test
calls `release()`, and `wait_until(...)` blocks the test until the server has seen what it needs."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    body: bytes | dict | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # sleep before answering
    hang: bool = False  # never answer while the server runs (the client's timeout must end the call)
    truncate: bool = False  # announce the full length but send only half of the body


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict
    at: float


class FakeServer:
    def __init__(self, responder: Callable[[Request], Reply], latency_s: float = 0.0):
        self.responder = responder
        self.latency_s = latency_s
        self.requests: list[Request] = []
        self.in_flight = 0
        self.peak_in_flight = 0  # most requests being answered at the same time
        self._faults: list[Reply] = []
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # notified on every arrival and answer
        self._hold_after: int | None = None  # requests past this many wait for release()
        self._released = threading.Event()
        self._stopping = threading.Event()
        self.held = 0  # requests waiting for release() right now
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                req = Request(
                    self.path, {k.lower(): v for k, v in self.headers.items()}, json.loads(raw or b"{}"), time.time()
                )
                with server._lock:
                    server.requests.append(req)
                    fault = server._faults.pop(0) if server._faults else None
                    server.in_flight += 1
                    server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
                    held = server._hold_after is not None and len(server.requests) > server._hold_after
                    server.held += held
                    server._changed.notify_all()
                try:
                    if held:
                        server._released.wait()
                        with server._lock:
                            server.held -= 1
                    reply = fault or server.responder(req)
                    if reply.hang:
                        server._stopping.wait()
                    delay = reply.delay_s + server.latency_s
                    if delay:
                        time.sleep(delay)
                finally:
                    with server._lock:
                        server.in_flight -= 1
                        server._changed.notify_all()
                body = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body or {}).encode()
                try:
                    self.send_response(reply.status)
                    headers = {"Content-Type": "application/json", **reply.headers}  # a reply may override it
                    headers["Content-Length"] = str(len(body))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(body[: len(body) // 2] if reply.truncate else body)
                    self.wfile.flush()
                    if reply.truncate:
                        self.close_connection = True
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        # shutdown() waits for serve_forever's next poll: at its default 0.5 s, that is half a
        # second at the end of every test that starts a server.
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.01,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def queue(self, *faults: Reply) -> None:
        with self._lock:
            self._faults.extend(faults)

    def hold(self, after: int = 0) -> None:
        """Answer the first `after` requests (counted from the start); hold the rest for release()."""
        with self._lock:
            self._released.clear()
            self._hold_after = after

    def release(self) -> None:
        """Answer every held request, and every later one at once."""
        with self._lock:
            self._hold_after = None
            self._released.set()

    def wait_until(self, ready: Callable[[FakeServer], bool], timeout_s: float = 120.0) -> None:
        """Block until ready(server) is true: checked on every arrival and answer, and every 0.1 s
        for conditions outside the server (a client process that exited). The timeout only turns a
        hung test into a failure; it decides nothing."""
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while not ready(self):
                if time.monotonic() > deadline:
                    raise AssertionError(f"the fake server did not reach the awaited state in {timeout_s} s")
                self._changed.wait(0.1)

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self.release()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def quick_default_backoff(monkeypatch) -> None:
    """Make every RetryPolicy() built from here on back off on a 10 ms scale instead of 1 s.
    Commands run through the CLI build their own policy, so a test cannot pass one; tests that
    assert which calls are retried, not how long the waits are, should not wait them out in real
    time. A Retry-After still sets the floor of a wait."""
    import dataclasses

    from rater1001.runs.runner import RetryPolicy

    quick = {"initial_backoff_s": 0.01, "max_backoff_s": 0.05}
    defaults = tuple(quick.get(f.name, f.default) for f in dataclasses.fields(RetryPolicy))
    monkeypatch.setattr(RetryPolicy.__init__, "__defaults__", defaults)
