"""A scripted HTTP server: every request is recorded, answered by a responder function, unless a
queued fault (429 with Retry-After, 5xx, 400, a hang past the client's timeout, a truncated or
malformed body) is waiting to be served first."""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


@dataclass
class Reply:
    status: int = 200
    body: bytes | dict | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # sleep before answering (a hang when longer than the client timeout)
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
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                req = Request(self.path, {k.lower(): v for k, v in self.headers.items()},
                              json.loads(raw or b"{}"), time.time())
                with server._lock:
                    server.requests.append(req)
                    fault = server._faults.pop(0) if server._faults else None
                    server.in_flight += 1
                    server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
                try:
                    reply = fault or server.responder(req)
                    delay = reply.delay_s + server.latency_s
                    if delay:
                        time.sleep(delay)
                finally:
                    with server._lock:
                        server.in_flight -= 1
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
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def queue(self, *faults: Reply) -> None:
        with self._lock:
            self._faults.extend(faults)

    def start(self) -> "FakeServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> "FakeServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
