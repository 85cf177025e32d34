"""Browser tests: the real server on port 0, headless Chromium through selenium,
and a plain websocket client for the test's own moves.

Run: BOARDCAST_SERVER=/path/to/server python3 -m pytest Tests/browser -q
"""
from __future__ import annotations

import json
import os
import queue
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import jsonpatch
import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from websockets.sync.client import connect

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "web-static"
SCREENSHOTS = REPO / "artifacts" / "screenshots"
SERVER = os.environ.get("BOARDCAST_SERVER", str(REPO / ".build" / "debug" / "server"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
LISTENING = re.compile(r"listening on (http://\S+)")


class ServerProcess:
    """The server binary, started with the given flags, until it says where it listens."""

    def __init__(self, data: str = ":memory:", port: int = 0, extra: tuple = ()):
        if not Path(SERVER).exists():
            raise RuntimeError(f"server binary {SERVER} not found; build it or set BOARDCAST_SERVER")
        self.proc = subprocess.Popen(
            # The whole browser session creates its games from 127.0.0.1: over the default --create-rate.
            [SERVER, "--host", "127.0.0.1", "--port", str(port), "--data", data, "--web", str(WEB),
             "--create-rate", "100000", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        # Every line the server printed (a test may check that no secret was logged).
        self.log: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()
        deadline = time.monotonic() + 30
        self.url = None
        seen = []
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.05, deadline - time.monotonic()))
            except queue.Empty:
                break
            seen.append(line)
            match = LISTENING.search(line)
            if match:
                self.url = match.group(1).rstrip("/")
                break
        if not self.url:
            self.stop()
            raise RuntimeError("server did not print its address:\n" + "".join(seen[-20:]))
        self.port = int(self.url.rsplit(":", 1)[1])
        self.ws_url = self.url.replace("http://", "ws://") + "/ws"

    def _pump(self):
        assert self.proc.stdout
        for line in self.proc.stdout:
            self.log.append(line)
            self.lines.put(line)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="session")
def server():
    s = ServerProcess()
    yield s
    s.stop()


class Client:
    """A websocket client speaking the protocol: every request gets an id and
    the reply is everything up to its ack or error."""

    def __init__(self, ws_url: str):
        self._connection = connect(ws_url, open_timeout=10, max_size=2**22, proxy=None)
        self.ws = self._connection.__enter__()
        self.backlog: list[dict] = []
        # The game this client is in, kept with a generic RFC 6902 library.
        self.game: str | None = None
        self.token: str | None = None
        self.state = None
        self.seq: int | None = None

    def _track(self, m: dict):
        if m.get("type") == "created":
            self.game, self.token = m["game"], m["token"]
        elif m.get("type") == "joined":
            self.game = m["game"]
        elif m.get("type") == "snapshot" and m.get("game") == self.game:
            self.state, self.seq = m["state"], m["seq"]
        elif m.get("type") == "diff" and m.get("game") == self.game and self.seq is not None and m["seq"] == self.seq + 1:
            self.state = jsonpatch.apply_patch(self.state, m["ops"])
            self.seq = m["seq"]

    def send(self, message: dict) -> str:
        message = dict(message)
        message.setdefault("id", secrets.token_hex(8))
        self.ws.send(json.dumps(message))
        return message["id"]

    def recv(self, timeout: float = 10) -> dict:
        if self.backlog:
            return self.backlog.pop(0)
        raw = self.ws.recv(timeout=timeout)
        m = json.loads(raw)
        self._track(m)
        return m

    def request(self, message: dict, timeout: float = 10) -> list[dict]:
        """Sends and returns every message up to and including the ack/error for it."""
        mid = self.send(message)
        out = []
        deadline = time.monotonic() + timeout
        while True:
            raw = self.ws.recv(timeout=max(0.01, deadline - time.monotonic()))
            try:
                m = json.loads(raw)
            except ValueError:
                continue
            self._track(m)
            out.append(m)
            if m.get("type") in ("ack", "error") and m.get("id") == mid:
                return out

    def ok(self, message: dict) -> list[dict]:
        reply = self.request(message)
        assert reply[-1]["type"] == "ack", f"{message} -> {reply[-1]}"
        return reply

    def create_klondike(self, deck: str, draw: int = 1) -> tuple[str, str]:
        self.ok({"type": "create", "kind": "klondike", "options": {"draw": draw, "deck": deck}})
        assert self.game and self.token and self.state is not None
        return self.game, self.token

    def drain(self, timeout: float = 0.3):
        """Reads whatever else arrives (diffs caused by others) until quiet."""
        while True:
            try:
                self.recv(timeout=timeout)
            except TimeoutError:
                return

    def close(self):
        self.ws.close()


def follow(client: Client, seq: int, timeout: float = 10):
    """Reads until the client holds the game at `seq` (its diffs applied), and returns that state."""
    deadline = time.monotonic() + timeout
    while client.seq is None or client.seq < seq:
        client.recv(timeout=max(0.05, deadline - time.monotonic()))
    return client.state


@pytest.fixture
def client(server):
    clients = []

    def make() -> Client:
        c = Client(server.ws_url)
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()


def make_driver(width=1280, height=900, mobile=False) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--no-sandbox", "--headless=new", f"--window-size={width},{height}", "--disable-dev-shm-usage",
                "--disable-gpu", "--force-color-profile=srgb"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(20)
    if mobile:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True})
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    return driver


@pytest.fixture
def browser():
    drivers = []

    def make(**kwargs) -> webdriver.Chrome:
        d = make_driver(**kwargs)
        drivers.append(d)
        return d

    yield make
    for d in drivers:
        d.quit()


def severe_logs(driver, allow: tuple[str, ...] = ()) -> list[str]:
    """Console errors, minus ones a test expects (e.g. a refused websocket while the server is down)."""
    out = []
    for entry in driver.get_log("browser"):
        if entry.get("level") != "SEVERE":
            continue
        if any(a in entry.get("message", "") for a in allow):
            continue
        out.append(entry["message"])
    return out


def assert_no_console_errors(driver, allow: tuple[str, ...] = ()):
    errors = severe_logs(driver, allow)
    assert not errors, "console errors:\n" + "\n".join(errors)


# Around the checks of page_checks: `check(name, ok)` records one, `eq(a, b)` compares values.
CHECKS_JS = """
const done = arguments[arguments.length - 1];
(async () => {
  const results = [];
  const check = (name, ok) => results.push([name, !!ok]);
  const eq = (a, b) => JSON.stringify(a) === JSON.stringify(b);
%s
  done(results);
})().catch(e => done([['threw ' + e, false]]));
"""


def page_checks(server, browser, checks: str) -> list:
    """Runs JavaScript checks in a page of the server, where the page's modules run for
    users; fails on a failed check or a console error, and returns every [name, ok]."""
    d = browser(width=800, height=600)
    d.get(server.url + "/")
    results = d.execute_async_script(CHECKS_JS % checks)
    failed = [name for name, ok in results if not ok]
    assert not failed, failed
    assert_no_console_errors(d)
    return results


def screenshot(driver, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    # Let running card animations finish so the picture shows where things are.
    wait(driver, lambda d: d.execute_script("return document.getAnimations().filter(a => a.playState === 'running' && isFinite(a.effect.getComputedTiming().endTime)).length === 0"), 5)
    driver.save_screenshot(str(path))
    return path


# Every message the page sends from now on, parsed, in window.sentLog.
RECORD_SENDS_JS = """
window.sentLog = [];
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (text) { window.sentLog.push(JSON.parse(text)); return send.call(this, text); };
"""


def wait(driver, condition, timeout: float = 10, message: str = ""):
    # The lobby redraws its rows on every update, so an element found a moment
    # ago may be gone: that is "not yet", not a failure.
    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException,)).until(condition, message)


def css(driver, selector: str):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def ordered_deck(**placed: str) -> str:
    """A 52-card deck as one string, with the given cards at the given deck
    indices (keys like i0, i28) and the rest in the standard order."""
    full = [r + s for s in "SHDC" for r in "A23456789TJQK"]
    slots: list[str | None] = [None] * 52
    for key, card in placed.items():
        slots[int(key[1:])] = card
    rest = [c for c in full if c not in placed.values()]
    return "".join(c if c is not None else rest.pop(0) for c in slots)


def tops_of_deal(deck: str) -> dict:
    """Which deck index ends where (per PROTOCOL.md section 5)."""
    cards = [deck[i:i + 2] for i in range(0, 104, 2)]
    piles = [[] for _ in range(7)]
    k = 0
    for r in range(7):
        for p in range(r, 7):
            piles[p].append(cards[k])
            k += 1
    return {"tableau": piles, "stock": cards[28:]}


def winnable_deck() -> str:
    """A deal won by foundation moves only: the stock holds A-6 of every suit in
    play order; each tableau pile is sorted so its top card has the lowest rank."""
    ranks = "A23456789TJQK"
    stock = [r + s for r in "A23456" for s in "SHDC"]
    tableau_cards = sorted((r + s for r in "789TJQK" for s in "SHDC"), key=lambda c: -ranks.index(c[0]))
    return "".join(tableau_cards + stock)


@pytest.fixture
def tmp_data():
    d = tempfile.mkdtemp(prefix="boardcast-web-")
    yield d
    shutil.rmtree(d, ignore_errors=True)
