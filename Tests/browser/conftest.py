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
# BOARDCAST_WEB serves another copy of the page (an older one, to see a test fail before its fix).
WEB = Path(os.environ.get("BOARDCAST_WEB", str(REPO / "web-static")))
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
    else:
        # The page's viewport is the size asked for, as a player's 1280x800 screen shows it
        # (a headless window of that size keeps some of it for the browser's own frame).
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
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


# What a player must never meet on any screen, checked on every screen the suite visits
# (check_screen, called by screenshot). Returns a list of problems, empty when all is well.
SCREEN_CHECKS_JS = r"""
const problems = [];
const name = (e) => e ? `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}${[...e.classList].map(c => '.' + c).join('')}` : 'nothing';
const shown = (e) => {
  if (!e || e.closest('[hidden]')) return false;
  const s = getComputedStyle(e), r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && Number(s.opacity) > 0.05;
};
const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
const route = document.body.dataset.route || 'lobby';
const dialogOpen = !!document.querySelector('dialog[open]');

// 1. No text reads null, undefined, NaN or [object Object] (what people type in the chat is theirs).
const bad = /(^|[^A-Za-z0-9_])(null|undefined|NaN)([^A-Za-z0-9_]|$)|\[object Object\]/;
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  const p = n.parentElement;
  if (!p || p.closest('script, style, .chat-text, .sprite')) continue;
  if (bad.test(n.textContent)) problems.push(`text "${n.textContent.trim().slice(0, 80)}" in ${name(p)}`);
}
for (const e of document.querySelectorAll('[aria-label], [title], [placeholder], input[type=text]')) {
  if (e.closest('.chat-line')) continue;
  for (const v of [e.getAttribute('aria-label'), e.getAttribute('title'), e.getAttribute('placeholder'), e.tagName === 'INPUT' ? e.value : null]) {
    if (v && bad.test(v)) problems.push(`"${v.slice(0, 80)}" on ${name(e)}`);
  }
}

// The phone's tool bar, when the page has one pinned to the bottom of the screen.
const bar = document.querySelector('.game-bar .tools');
const barFixed = !!bar && getComputedStyle(bar).position === 'fixed' && shown(bar);
const barRect = barFixed ? bar.getBoundingClientRect() : null;
const floor = barRect ? barRect.top : innerHeight;

// 2. Nothing lies over the board (while it is played, and after: the result never hides it),
//    nor over the chat's field and Send. A modal the player opened (a question, a link) is theirs.
const surfaces = [...document.querySelectorAll('.board-host :is(.four-frame, .four-tray, .four-turn, .kl-table, .plane, .race-area)')].filter(shown);
const fixed = [...document.querySelectorAll('body *')].filter(e => {
  const p = getComputedStyle(e).position;
  return (p === 'fixed' || p === 'sticky') && shown(e) && !e.closest('.four-float') && e !== bar && !(bar && bar.contains(e))
    && !e.closest('dialog') && !e.classList.contains('toasts') && !e.closest('.game-side');
});
const toasts = [...document.querySelectorAll('#toasts > *')].filter(shown);
if (!dialogOpen) {
  for (const s of surfaces) {
    const r = s.getBoundingClientRect();
    for (const t of [...toasts, ...fixed]) if (meets(t.getBoundingClientRect(), r)) problems.push(`${name(t)} lies over the board ${name(s)}`);
    const left = Math.max(0, r.left), right = Math.min(innerWidth, r.right), top = Math.max(0, r.top), bottom = Math.min(floor, r.bottom);
    if (right - left < 4 || bottom - top < 4) continue;
    for (let i = 1; i < 6; i++) for (let j = 1; j < 6; j++) {
      const x = left + (right - left) * i / 6, y = top + (bottom - top) * j / 6;
      const hit = document.elementFromPoint(x, y);
      if (hit && !hit.closest('.board-host') && !hit.closest('.four-float')) {
        problems.push(`${name(hit)} covers the board at ${Math.round(x)},${Math.round(y)}`);
        i = j = 6;
      }
    }
  }
  for (const field of [...document.querySelectorAll('.chat-input, .chat-send')].filter(shown)) {
    const r = field.getBoundingClientRect();
    // (Under the phone's bar is below the fold: check 3 makes sure it can be scrolled above it.)
    for (const t of [...toasts, ...fixed]) if (meets(t.getBoundingClientRect(), r)) problems.push(`${name(t)} lies over ${name(field)}`);
    if (r.top >= 0 && r.bottom <= floor) {
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (hit && !hit.closest('.chat-compose')) problems.push(`${name(hit)} covers ${name(field)}`);
    }
  }
}

// 3. On the phone nothing overlaps the bottom bar, and all the page's content can be scrolled above it.
if (barRect) {
  for (const e of [...fixed, ...toasts]) if (meets(e.getBoundingClientRect(), barRect)) problems.push(`${name(e)} overlaps the bottom bar`);
  const main = document.querySelector('main');
  const lastBottom = Math.max(...[...main.querySelectorAll('*')].filter(e => shown(e) && !e.closest('.game-bar .tools')
    && getComputedStyle(e).position !== 'fixed').map(e => e.getBoundingClientRect().bottom + scrollY));
  const atEnd = lastBottom - (document.documentElement.scrollHeight - innerHeight);
  if (atEnd > barRect.top + 0.5) problems.push(`content ends ${Math.round(atEnd - barRect.top)}px under the bottom bar when scrolled to the end`);
}

// 4. At 1280x800 no page scrolls unless its content needs it: a game, a replay, never.
if (innerWidth === 1280 && innerHeight === 800) {
  const h = document.documentElement.scrollHeight;
  if (route !== 'lobby' && h > innerHeight) problems.push(`the ${route} page is ${h - innerHeight}px taller than the window`);
  if (route === 'lobby') {
    const main = document.querySelector('main');
    const needed = main.getBoundingClientRect().bottom + scrollY;
    if (h > Math.max(innerHeight, needed) + 1) problems.push(`the lobby is ${Math.round(h - Math.max(innerHeight, needed))}px taller than its content`);
  }
}
if (document.documentElement.scrollWidth > innerWidth) problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} in ${innerWidth}`);

// 5. Every button (and link drawn as one) without words in sight has a name for a screen reader.
for (const b of document.querySelectorAll('button, a.btn, [role=button]')) {
  if (!shown(b) || b.innerText.trim()) continue;
  const label = (b.getAttribute('aria-label') || '').trim();
  const by = (b.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean).map(id => document.getElementById(id)?.textContent.trim() ?? '').join('');
  if (!label && !by && !b.textContent.trim()) problems.push(`${name(b)} shows no words and has no accessible name`);
}
return problems;
"""


def check_screen(driver, what: str = "this screen") -> list[str]:
    """The checks every screen must pass (SCREEN_CHECKS_JS); fails the test with what went wrong."""
    problems = driver.execute_script(SCREEN_CHECKS_JS)
    assert not problems, f"{what}:\n" + "\n".join(problems)
    return problems


def screenshot(driver, name: str, check: bool = True) -> Path:
    """Checks the screen (check_screen) once its animations are done, then saves it as
    artifacts/screenshots/NAME.png: every screen the suite visits is checked and kept."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    # Let running card animations finish so the picture shows where things are.
    wait(driver, lambda d: d.execute_script("return document.getAnimations().filter(a => a.playState === 'running' && isFinite(a.effect.getComputedTiming().endTime)).length === 0"), 5)
    driver.save_screenshot(str(path))
    if check:
        check_screen(driver, name)
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
