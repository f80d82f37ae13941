"""Open a page in headless Chromium and report console errors, uncaught exceptions and what a
script evaluates to, through the DevTools protocol.

Why the protocol rather than `--enable-logging=stderr`: it delivers console errors and uncaught
exceptions as structured events (no scraping of Chromium's own log noise), and lets the test wait
until the page says its charts have finished rendering instead of guessing a time budget."""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from websockets.sync.client import connect

CHROMIUM = Path(shutil.which("chromium") or "/usr/bin/chromium")
# CI sets this so that a missing browser fails the run instead of skipping the test.
REQUIRE_BROWSER = "RATER1001_REQUIRE_BROWSER"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
    "--window-size=1300,2000",
]


def require_chromium() -> None:
    """Skip (or, with RATER1001_REQUIRE_BROWSER=1, fail) when headless Chromium is not installed."""
    import pytest

    if CHROMIUM.exists():
        return
    reason = (
        "headless Chromium not found (looked for `chromium` on PATH and /usr/bin/chromium): "
        "install the Debian package `chromium` (apt-get install chromium) to run this test"
    )
    if os.environ.get(REQUIRE_BROWSER) == "1":
        pytest.fail(f"{REQUIRE_BROWSER}=1 but {reason}", pytrace=False)
    pytest.skip(reason)


@dataclass
class PageRun:
    errors: list[str] = field(default_factory=list)
    value: object = None
    requests: list[str] = field(default_factory=list)  # every URL the page asked for
    screenshot_png: bytes = b""
    pdf: bytes = b""  # the page printed to PDF (A4), when asked for
    print_value: object = None  # what `print_js` evaluates to under print media at the A4 text width


class _Session:
    def __init__(self, ws):
        self.ws, self.ids, self.events = ws, itertools.count(1), []

    def call(self, method: str, timeout: float = 30, **params):
        msg_id = next(self.ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            msg = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)


def _error_text(event: dict) -> str | None:
    method, p = event.get("method"), event.get("params", {})
    if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
        return (
            "console."
            + p["type"]
            + ": "
            + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
        )
    if method == "Runtime.exceptionThrown":
        d = p.get("exceptionDetails", {})
        return "exception: " + str(d.get("exception", {}).get("description") or d.get("text"))
    if method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
        return "log: " + p["entry"].get("text", "")
    return None


# A4 with the report's 12 mm print margins, in CSS pixels (96 per inch).
A4_TEXT_PX = (round((210 - 24) / 25.4 * 96), round((297 - 24) / 25.4 * 96))


def open_page(
    html: Path,
    user_data_dir: Path,
    ready_js: str,
    result_js: str,
    timeout: float = 60,
    init_js: str | None = None,
    print_js: str | None = None,
) -> PageRun:
    """Load `html`, wait until `ready_js` is truthy, then evaluate `result_js` (JSON-returning).
    `init_js` runs in the page before any of its own scripts (e.g. to record alert() calls).
    With `print_js`, the page is also printed to PDF (A4, the page's own @page margins) and
    `print_js` is evaluated under print media with the viewport at the A4 text area."""
    user_data_dir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [str(CHROMIUM), *FLAGS, f"--user-data-dir={user_data_dir}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = user_data_dir / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("chromium did not start its DevTools endpoint")
            time.sleep(0.02)
        port = port_file.read_text().split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            page = next(t for t in json.load(r) if t["type"] == "page")
        with connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10) as ws:
            s = _Session(ws)
            for domain in ("Runtime", "Log", "Page", "Network"):
                s.call(f"{domain}.enable")
            if init_js:
                s.call("Page.addScriptToEvaluateOnNewDocument", source=init_js)
            s.call("Page.navigate", url=html.resolve().as_uri())
            deadline = time.monotonic() + timeout
            while not s.call("Runtime.evaluate", expression=f"Boolean({ready_js})")["result"].get("value"):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"page never became ready ({ready_js})")
                time.sleep(0.05)
            value = s.call("Runtime.evaluate", expression=result_js, returnByValue=True)["result"].get("value")
            shot = s.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)
            run = PageRun(
                value=json.loads(value) if isinstance(value, str) else value,
                screenshot_png=base64.b64decode(shot["data"]),
            )
            if print_js:
                printed = s.call(
                    "Page.printToPDF",
                    timeout=120,
                    paperWidth=210 / 25.4,
                    paperHeight=297 / 25.4,
                    preferCSSPageSize=True,
                    printBackground=True,
                    # Chromium tags the PDF for accessibility by default, which more than doubles
                    # the time to print the report; the test reads pages and layout, not tags.
                    generateTaggedPDF=False,
                )
                run.pdf = base64.b64decode(printed["data"])
                s.call("Emulation.setEmulatedMedia", media="print")
                s.call(
                    "Emulation.setDeviceMetricsOverride",
                    width=A4_TEXT_PX[0],
                    height=A4_TEXT_PX[1],
                    deviceScaleFactor=1,
                    mobile=False,
                )
                value = s.call("Runtime.evaluate", expression=print_js, returnByValue=True)["result"].get("value")
                run.print_value = json.loads(value) if isinstance(value, str) else value
            run.errors = [t for t in map(_error_text, s.events) if t]
            run.requests = [
                e["params"]["request"]["url"] for e in s.events if e.get("method") == "Network.requestWillBeSent"
            ]
            return run
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
