"""One headless Chromium for many pages, driven over the DevTools protocol on a pipe.

Starting Chromium costs seconds; a test that opens a dozen pages (and screenshots and prints
them) started it once per page. :class:`Browser` starts it once with
``--remote-debugging-pipe`` (commands on its fd 3, answers on its fd 4, each a JSON message
ending in a NUL byte) and opens each page in a fresh tab: load it, read its DOM, evaluate
JavaScript, take a screenshot at a given window size, print it to PDF, and collect what the
page logged (console messages, uncaught exceptions, blocked loads). Only the standard
library: the protocol is a few JSON messages.

Chromium is Debian's ``chromium`` (``.ci/run`` installs it); with ``CI`` set a missing
browser fails the test rather than skipping it.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    message = "headless Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)


def browser_flags(profile: Path) -> list[str]:
    """Headless, a throw-away profile, nothing fetched from the network behind the page's
    back (this machine's closed network refuses it, noisily)."""
    flags = ["--headless", "--hide-scrollbars", "--disable-gpu", "--no-first-run", f"--user-data-dir={profile}",
             "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
             "--no-default-browser-check"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags.append("--no-sandbox")  # Chromium refuses to run sandboxed as root
    return flags


class BrowserError(AssertionError):
    pass


class Browser:
    """A headless Chromium; ``with Browser() as b: tab = b.open(url)``."""

    def __init__(self, *extra_flags: str, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self._profile = tempfile.TemporaryDirectory(prefix="kschedx-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # Above 4, so that moving one end to fd 3 or 4 cannot overwrite the other.
        to_browser_r, from_browser_w = (self._high(fd) for fd in (to_browser_r, from_browser_w))
        # The protocol's pipes must be the child's fds 3 and 4: a shell moves them there.
        command = " ".join([f"exec {chromium()}", *browser_flags(Path(self._profile.name)), *extra_flags,
                            "--remote-debugging-pipe",
                            "about:blank", f"3<&{to_browser_r}", f"4>&{from_browser_w}",
                            f"{to_browser_r}<&-", f"{from_browser_w}>&-"])
        self._proc = subprocess.Popen(["bash", "-c", command], pass_fds=(to_browser_r, from_browser_w),
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id = 0
        self._answers: dict[int, dict[str, Any]] = {}
        self._events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._tabs: dict[str, Tab] = {}  # by session
        self._lock = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @staticmethod
    def _high(fd: int) -> int:
        moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
        os.close(fd)
        return moved

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self._lock:
                    self._answers[-1] = {"error": {"message": "the browser closed its pipe"}}
                    self._lock.notify_all()
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "id" in message:
                    with self._lock:
                        self._answers[message["id"]] = message
                        self._lock.notify_all()
                    continue
                # What a page logs is kept on its tab as it arrives; every event is queued
                # for whoever waits for one (a page's load).
                tab = self._tabs.get(message.get("sessionId", ""))
                if tab is not None:
                    tab.record(message)
                self._events.put(message)

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        self._next_id += 1
        ident = self._next_id
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        with self._lock:
            while ident not in self._answers and -1 not in self._answers:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BrowserError(f"no answer to {method} within {self.timeout} s")
                self._lock.wait(left)
            answer = self._answers.pop(ident, None) or self._answers[-1]
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error'].get('message')}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    def event(self, session: str, method: str, timeout: float | None = None) -> dict[str, Any]:
        """Wait for the next event METHOD of the session (other events are passed over)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"no {method} within {timeout or self.timeout} s")
            try:
                message = self._events.get(timeout=left)
            except queue.Empty:
                continue
            if message.get("sessionId") == session and message.get("method") == method:
                return message.get("params", {})

    def open(self, url: str, width: int = 1000, height: int = 1300, dark: bool = False) -> Tab:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        tab = self._tabs[session] = Tab(self, target, session)
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable", session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
        self.send("Emulation.setEmulatedMedia",
                  {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]}, session)
        self.send("Page.navigate", {"url": url}, session)
        self.event(session, "Page.loadEventFired")
        return tab

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except BrowserError:
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._reader.join(timeout=10)  # it ends at the pipe's end, once the browser is gone
        os.close(self._to_browser)
        os.close(self._from_browser)
        self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Tab:
    def __init__(self, browser: Browser, target: str, session: str) -> None:
        self.browser, self.target, self.session = browser, target, session
        self.logs: list[str] = []  # what the page logged, filled by the browser's reader

    def record(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            self.logs.append(f"console.{params.get('type')}: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.logs.append(f"exception: {details.get('exception', {}).get('description') or details.get('text')}")
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            self.logs.append(f"{entry.get('source')} {entry.get('level')}: {entry.get('text')}")

    def evaluate(self, expression: str) -> Any:
        answer = self.browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                        "awaitPromise": True}, self.session)
        if "exceptionDetails" in answer:
            raise BrowserError(f"{expression}: {answer['exceptionDetails'].get('text')}")
        return answer.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float = 20.0) -> Any:
        """Evaluate EXPRESSION until it is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"still false after {timeout} s: {expression}")
            time.sleep(0.1)

    def dom(self) -> str:
        return str(self.evaluate("document.documentElement.outerHTML"))

    def screenshot(self) -> bytes:
        data = self.browser.send("Page.captureScreenshot", {"format": "png"}, self.session)["data"]
        return base64.b64decode(data)

    def pdf(self) -> bytes:
        data = self.browser.send("Page.printToPDF", {"displayHeaderFooter": False, "printBackground": False},
                                 self.session)["data"]
        return base64.b64decode(data)

    def close(self) -> None:
        self.browser.send("Target.closeTarget", {"targetId": self.target})
        self.browser._tabs.pop(self.session, None)
