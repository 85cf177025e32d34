"""Signed-in players in the browser (PROTOCOL section 19): a server with an HS256 key,
pages handed their JSON Web Tokens in the fragment (`#auth=JWT&/route`) or by
postMessage, names on the seats, in presence and in the chat, a game watched by
link only (its watch link with the key, a spectator with it, one without), a
signed-in player taking her seat back from a fresh window without the game's
token, and no token in the address bar, the page, the console or the server's log.

The JWTs are made here with hmac/hashlib/base64/json (no JWT package)."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import shutil
import tempfile
import time
from pathlib import Path

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import (RECORD_SENDS_JS, Client, ServerProcess, assert_no_console_errors, css,
                      page_checks, screenshot, wait)


# ---- tokens ----------------------------------------------------------------------

def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def mint(secret: bytes, sub: str, name: str | None = None, expires_in: int = 3600, **claims) -> str:
    """An HS256 JWT signed with `secret`."""
    now = int(time.time())
    body = {"sub": sub, "iat": now, "exp": now + expires_in, **claims}
    if name is not None:
        body["name"] = name
    head = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    payload = b64url(json.dumps(body, separators=(",", ":")).encode())
    signature = hmac.new(secret, f"{head}.{payload}".encode(), hashlib.sha256).digest()
    return f"{head}.{payload}.{b64url(signature)}"


class AuthServer(ServerProcess):
    """conftest's server with `--auth-hs256 FILE` (and any other flags)."""

    def __init__(self, secret_file: Path, port: int = 0, extra: tuple = ()):
        super().__init__(port=port, extra=("--auth-hs256", str(secret_file), *extra))


@pytest.fixture(scope="module")
def auth_server():
    """A server with a shared secret (HS256): yields the server and the secret's bytes."""
    folder = Path(tempfile.mkdtemp(prefix="boardcast-auth-"))
    secret = secrets.token_hex(32).encode()  # 64 bytes; the server drops the trailing newline
    key = folder / "secret.txt"
    key.write_bytes(secret + b"\n")
    s = AuthServer(key)
    yield s, secret
    s.stop()
    shutil.rmtree(folder, ignore_errors=True)


# ---- the page ----------------------------------------------------------------------

def record_sends_from_the_start(driver):
    """window.sentLog holds every message the page sends, from its first (set before any page script runs)."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_SENDS_JS})


def sent_log(driver) -> list[dict]:
    return driver.execute_script("return window.sentLog || []")


def header(driver) -> str:
    found = css(driver, "#auth-status")
    return found[0].text if found and found[0].is_displayed() else ""


def wait_header(driver, text: str, timeout: float = 10):
    try:
        wait(driver, lambda d: header(d) == text, timeout)
    except Exception:
        raise AssertionError(f"the header says {header(driver)!r}, expected {text!r}")


def seat_labels(driver) -> dict:
    """Four in a row's seat legend as shown: seat -> label."""
    return driver.execute_script("""
      const out = {};
      for (const li of document.querySelectorAll('.four-seats li')) out[li.dataset.seat] = (li.querySelector('.you-long') ?? li.querySelector('.four-seat-name'))?.textContent.trim();
      return out;""")


def wait_seats(driver, expected: dict, timeout: float = 10):
    try:
        wait(driver, lambda d: seat_labels(d) == expected, timeout)
    except Exception:
        raise AssertionError(f"seats show {seat_labels(driver)}, expected {expected}")


def turn_text(driver) -> str:
    found = css(driver, ".four-turn-text")
    return found[0].text if found else ""


def wait_turn(driver, text: str, timeout: float = 10):
    try:
        wait(driver, lambda d: turn_text(d) == text, timeout)
    except Exception:
        raise AssertionError(f"turn line is {turn_text(driver)!r}, expected {text!r}")


def chat_lines(driver) -> list[dict]:
    return driver.execute_script("""
      return [...document.querySelectorAll('.chat .chat-line')].map(li => ({
        by: li.dataset.by, who: li.querySelector('.chat-by').textContent, text: li.querySelector('.chat-text').textContent }));""")


def wait_chat(driver, text: str, timeout: float = 10) -> dict:
    def found(d):
        hits = [line for line in chat_lines(d) if line["text"] == text]
        return hits[0] if hits else None
    return wait(driver, found, timeout, f"no chat line {text!r}")


def say(driver, text: str):
    box = driver.find_element(By.CSS_SELECTOR, ".chat-input")
    box.clear()
    box.send_keys(text + "\n")
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, ".chat-input").get_attribute("value") == "", 10, f"{text!r} was not taken")


def board(driver) -> list[list[str]]:
    return driver.execute_script("""
      return [...document.querySelectorAll('.four-col')].map(col =>
        [...col.querySelectorAll('.four-cell')].sort((a, b) => a.dataset.row - b.dataset.row)
          .map(cell => cell.querySelector('.four-disc:not(.four-ghost)')?.dataset.seat).filter(Boolean));""")


def you(driver):
    return driver.execute_script("return window.boardcast.view?.session?.you ?? null")


def notice(driver) -> dict | None:
    return driver.execute_script("""
      const n = document.querySelector('.board-host .notice');
      return n ? { title: n.querySelector('h2').textContent, why: n.dataset.why,
                   text: [...n.querySelectorAll('p')].map(p => p.textContent).join(' ') } : null;""")


def assert_token_nowhere(driver, *jwts: str):
    """No token in the address bar, the title, the page's text or markup, or the console."""
    seen = driver.execute_script(
        "return [location.href, document.title, document.body.innerText, document.documentElement.outerHTML, history.length]")
    logs = " ".join(entry.get("message", "") for entry in driver.get_log("browser"))
    for jwt in jwts:
        for part in jwt.split("."):
            # Every part of it: the signature alone is the secret-bearing piece.
            assert part not in driver.current_url, "a token in the address bar"
            assert part not in seen[0] and part not in seen[1], "a token in the address or title"
            assert part not in seen[2], "a token in the page's text"
            assert part not in seen[3], "a token in the page's markup"
            assert part not in logs, "a token in the console"


def test_signed_in_players_a_watch_link_and_a_seat_taken_back(auth_server, browser):
    """Ada and Grace, signed in through the fragment, play four in a row that Ada
    starts for people with the link: both see both names on the seats, in presence and
    in the chat, and the header says who they are. A spectator with the watch link sees
    the game, one without its key is told it may not watch. Ada, in a fresh window and
    signed in again, takes her seat back without the game's token."""
    server, secret = auth_server
    ada_jwt = mint(secret, "u-ada", "Ada")
    grace_jwt = mint(secret, "u-grace", "Grace")

    # Ada opens the lobby with her token in the fragment: it leaves the address bar at once.
    ada = browser(width=1280, height=900)
    record_sends_from_the_start(ada)
    ada.get(f"{server.url}/#auth={ada_jwt}&/")
    wait_header(ada, "Signed in as Ada")
    assert ada.current_url == f"{server.url}/#/", ada.current_url
    assert ada.execute_script("return sessionStorage.getItem('boardcast.auth')") == ada_jwt
    first = sent_log(ada)[0]
    assert (first["type"], first["jwt"]) == ("auth", ada_jwt), "auth is not the first message"
    signed = ada.execute_script("return window.boardcast.auth")
    assert (signed["state"], signed["user"], signed["name"]) == ("signed-in", "u-ada", "Ada"), signed
    wait(ada, lambda d: d.find_element(By.CSS_SELECTOR, ".game-list").get_attribute("aria-busy") == "false", 10)

    # Who may watch: people with the link. Then four in a row's Start.
    watch = Select(ada.find_element(By.ID, "who-may-watch"))
    assert [(o.get_attribute("value"), o.text) for o in watch.options] == [
        ("anyone", "Anyone"), ("link", "People with the link"), ("players", "Players only")]
    watch.select_by_value("link")
    ada.find_element(By.CSS_SELECTOR, '.create-tile[data-create="four"] .start-four').click()
    wait(ada, lambda d: "#/play/" in d.current_url, 10, "starting four in a row did not open its play link")
    create = [m for m in sent_log(ada) if m["type"] == "create"][0]
    assert create["kind"] == "four" and create["options"] == {"first": "p1", "watch": "link"}, create
    game, token = re.search(r"#/play/([^/]+)/([^/]+)$", ada.current_url).groups()
    wait(ada, lambda d: you(d) == "p1", 10)

    # The watch link carries the key; the page keeps it for its replay link too.
    wait(ada, lambda d: re.fullmatch(rf"{re.escape(server.url)}/#/watch/{game}/[A-Za-z0-9_-]{{22}}",
                                     d.find_element(By.CSS_SELECTOR, ".share-watch").get_attribute("data-url") or ""), 10,
         "no watch link with a key")
    watch_url = ada.find_element(By.CSS_SELECTOR, ".share-watch").get_attribute("data-url")
    key = watch_url.rsplit("/", 1)[1]
    assert ada.execute_script("return JSON.parse(localStorage.getItem('boardcast.keys'))[arguments[0]]", game) == key
    assert ada.find_element(By.CSS_SELECTOR, ".tool.replay-link").get_attribute("href").endswith(f"#/replay/{game}/{key}")
    wait_seats(ada, {"p1": "Ada (you)", "p2": "p2"})
    wait_turn(ada, "Waiting for an opponent")

    # Grace opens the play link, her token in front of it.
    grace = browser(width=1280, height=900)
    record_sends_from_the_start(grace)
    grace.get(f"{server.url}/#auth={grace_jwt}&/play/{game}/{token}")
    wait(grace, lambda d: you(d) == "p2", 10, "Grace did not take the second seat")
    assert grace.current_url == f"{server.url}/#/play/{game}/{token}", grace.current_url
    wait_header(grace, "Signed in as Grace")
    types = [m["type"] for m in sent_log(grace)]
    assert types[0] == "auth" and types.index("join") > 0, types
    join = [m for m in sent_log(grace) if m["type"] == "join"][0]
    assert join["token"] == token, join

    # Names on the seats, the turn line and in presence, on both pages.
    wait_seats(ada, {"p1": "Ada (you)", "p2": "Grace"})
    wait_seats(grace, {"p1": "Ada", "p2": "Grace (you)"})
    wait_turn(ada, "Your turn")
    wait_turn(grace, "Ada's turn")
    wait(ada, lambda d: d.find_element(By.CSS_SELECTOR, ".presence-names").text == "Ada (you), Grace", 10)
    wait(grace, lambda d: d.find_element(By.CSS_SELECTOR, ".presence-names").text == "Ada, Grace (you)", 10)
    # Grace's watch link is the same: her `joined` carries the key.
    wait(grace, lambda d: d.find_element(By.CSS_SELECTOR, ".share-watch").get_attribute("data-url") == watch_url, 10)

    # The chat says who said what by name.
    say(ada, "Hello Grace")
    assert wait_chat(grace, "Hello Grace")["who"] == "Ada"
    assert wait_chat(ada, "Hello Grace")["who"] == "you"
    say(grace, "Hi Ada, good luck")
    assert wait_chat(ada, "Hi Ada, good luck")["who"] == "Grace"
    ada.find_element(By.CSS_SELECTOR, '.four-col[data-col="3"]').click()
    wait_turn(grace, "Your turn")
    wait_turn(ada, "Grace's turn")
    screenshot(ada, "auth-ada-playing")
    screenshot(grace, "auth-grace-playing")

    # A spectator with the watch link sees the board, the names, the chat by name.
    watcher = browser(width=1100, height=850)
    record_sends_from_the_start(watcher)
    watcher.get(watch_url)
    wait(watcher, lambda d: board(d) == [[], [], [], ["p1"], [], [], []], 10, "the spectator with the key sees no board")
    wait_seats(watcher, {"p1": "Ada", "p2": "Grace"})
    wait_turn(watcher, "Grace's turn")
    watched = [m for m in sent_log(watcher) if m["type"] == "watch"][0]
    assert (watched["game"], watched["key"]) == (game, key), watched
    assert wait_chat(watcher, "Hi Ada, good luck")["who"] == "Grace"
    assert header(watcher) == "", "a page without a token says it is signed in"
    screenshot(watcher, "auth-watch-with-key")
    # Its replay goes with the key too.
    watcher.find_element(By.CSS_SELECTOR, ".tool.replay-link").click()
    wait(watcher, lambda d: css(d, ".rp-counter") and re.fullmatch(r"\d+ / [1-9]\d*", d.find_element(By.CSS_SELECTOR, ".rp-counter").text), 10,
         f"the replay with the key did not load: {notice(watcher) or watcher.find_element(By.TAG_NAME, 'main').text}")
    replayed = [m for m in sent_log(watcher) if m["type"] == "watch" and m.get("replay")][0]
    assert replayed["key"] == key, replayed

    # Without the key, or with a wrong one: told it may not watch.
    outsider = browser(width=1100, height=850)
    outsider.get(f"{server.url}/#/watch/{game}")
    wait(outsider, lambda d: notice(d) is not None, 10, "no answer for a watch without the key")
    n = notice(outsider)
    assert n["title"] == "You may not watch this game" and n["why"] == "watch" and "Only people with its watch link" in n["text"], n
    assert "The server says: this game is watched by link: wrong or missing key." in n["text"], n
    assert not css(outsider, ".four-col"), "a board for a spectator without the key"
    screenshot(outsider, "auth-watch-without-key")
    outsider.get(f"{server.url}/#/watch/{game}/{'x' * 22}")
    wait(outsider, lambda d: (notice(d) or {}).get("why") == "watch" and "wrong or missing key" in notice(d)["text"], 10)
    outsider.get(f"{server.url}/#/replay/{game}")
    wait(outsider, lambda d: "You may not replay this game" in d.find_element(By.TAG_NAME, "main").text, 10)

    # Ada, from a fresh window (a new session: no game token stored), signed in again:
    # `#/play/GAME` joins without the token and the server gives her seat back.
    again_jwt = mint(secret, "u-ada", "Ada")
    ada2 = browser(width=1280, height=900)
    record_sends_from_the_start(ada2)
    ada2.get(f"{server.url}/#auth={again_jwt}&/play/{game}")
    wait(ada2, lambda d: you(d) == "p1", 10,
         f"Ada did not get her seat back: {notice(ada2) or ada2.find_element(By.TAG_NAME, 'main').text}")
    assert ada2.current_url == f"{server.url}/#/play/{game}", ada2.current_url
    joins = [m for m in sent_log(ada2) if m["type"] == "join"]
    assert joins and "token" not in joins[0] and joins[0]["game"] == game, joins
    assert sent_log(ada2)[0]["type"] == "auth"
    wait_header(ada2, "Signed in as Ada")
    wait_seats(ada2, {"p1": "Ada (you)", "p2": "Grace"})
    wait(ada2, lambda d: board(d) == [[], [], [], ["p1"], [], [], []], 10)
    # The first window was taken out of the game (`left`) and says so.
    wait(ada, lambda d: d.find_element(By.CSS_SELECTOR, ".won-overlay").get_attribute("data-kind") == "replaced"
         and d.find_element(By.CSS_SELECTOR, ".won-overlay").is_displayed(), 10, "the first window does not say it was replaced")
    # And she plays on from the new one.
    grace.find_element(By.CSS_SELECTOR, '.four-col[data-col="4"]').click()
    wait_turn(ada2, "Your turn")
    ada2.find_element(By.CSS_SELECTOR, '.four-col[data-col="3"]').click()
    wait(grace, lambda d: board(d) == [[], [], [], ["p1", "p1"], ["p2"], [], []], 10, "Ada's move from the new window did not arrive")
    screenshot(ada2, "auth-ada-seat-back")

    # No token anywhere a person or a log would see it.
    for d in (ada, grace, watcher, ada2):
        assert_token_nowhere(d, ada_jwt, grace_jwt, again_jwt)
    for d in (grace, watcher, ada2):
        assert_no_console_errors(d)
    log = "".join(server.log)
    for jwt in (ada_jwt, grace_jwt, again_jwt):
        assert jwt.split(".")[2] not in log, "a token in the server's log"
    assert key not in log and token not in log, "a key or a game token in the server's log"


def test_refused_token_postmessage_and_players_only(auth_server, browser):
    """A token the server refuses is said so in the header; a page the operator's page
    opened is signed in (and signed in again) by postMessage, and ignores messages from
    any other window; a game for its players only has no watch link and turns a
    spectator away."""
    server, secret = auth_server

    # Signed with another secret: refused, and said why.
    forged = mint(secrets.token_hex(32).encode(), "u-eve", "Eve")
    d = browser(width=1100, height=850)
    d.get(f"{server.url}/#auth={forged}")
    wait_header(d, "Not signed in: bad token: bad signature")
    assert d.current_url in (f"{server.url}/", f"{server.url}/#"), d.current_url
    assert d.execute_script("return sessionStorage.getItem('boardcast.auth')") is None, "a refused token is kept"
    expired = mint(secret, "u-old", "Old", expires_in=-3600)
    d.get(f"{server.url}/#auth={expired}&/")
    wait_header(d, "Not signed in: bad token: expired")
    assert_token_nowhere(d, forged, expired)

    # The operator's page (another origin: localhost, not 127.0.0.1) opens Boardcast and hands
    # it a token by postMessage. (The server's headers forbid framing the page, so an opener it is.)
    operator = server.url.replace("127.0.0.1", "localhost")
    d.get(f"{operator}/#/")
    home = d.current_window_handle
    d.execute_script("window.boardcastWindow = window.open(arguments[0], 'boardcast')", f"{server.url}/#/")
    wait(d, lambda d: len(d.window_handles) == 2, 5, "the operator's page could not open Boardcast")
    opened = [h for h in d.window_handles if h != home][0]
    d.switch_to.window(opened)
    wait(d, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "open", 10)
    assert header(d) == ""
    # A message from the page itself (not its opener) is no hand-off.
    d.execute_script("window.postMessage({ type: 'boardcast-auth', jwt: arguments[0] }, '*')", mint(secret, "u-x", "Mallory"))
    time.sleep(0.5)
    assert header(d) == "", "a token from the page itself was used"

    def hand(jwt: str):
        d.switch_to.window(home)
        d.execute_script("window.boardcastWindow.postMessage({ type: 'boardcast-auth', jwt: arguments[0] }, arguments[1])", jwt, server.url)
        d.switch_to.window(opened)

    grace_jwt = mint(secret, "u-grace", "Grace")
    hand(grace_jwt)
    wait_header(d, "Signed in as Grace")
    # A fresh token (a new name, say) signs the same connection in again.
    renewed = mint(secret, "u-grace", "Grace H.")
    hand(renewed)
    wait_header(d, "Signed in as Grace H.")
    # A fresh one the server refuses leaves the page signed in as it was, and says so.
    hand(mint(secret, "u-grace", "Grace", expires_in=-3600))
    wait(d, lambda d: header(d).startswith("Signed in as Grace H.") and "bad token: expired" in header(d), 10,
         f"a refused fresh token: {header(d)!r}")
    assert_token_nowhere(d, grace_jwt, renewed)
    d.close()
    d.switch_to.window(home)

    # A race of two signed-in programs: the lobby lists it with their names, and a
    # spectator's tables are captioned with them.
    ada, grace = Client(server.ws_url), Client(server.ws_url)
    try:
        assert [m["type"] for m in ada.ok({"type": "auth", "jwt": mint(secret, "u-ada", "Ada")})][0] == "authed"
        grace.ok({"type": "auth", "jwt": mint(secret, "u-grace", "Grace")})
        ada.ok({"type": "create", "kind": "race", "options": {"seats": 2}})
        grace.ok({"type": "join", "game": ada.game, "token": ada.token})
        lobby = browser(width=1100, height=850)
        lobby.get(f"{server.url}/")
        row = f'.game-row[data-game="{ada.game}"]'
        wait(lobby, lambda d: css(d, f"{row} .names") and d.find_element(By.CSS_SELECTOR, f"{row} .names").text == "Ada \u00b7 Grace", 10,
             "the lobby does not name the race's players")
        wait(lobby, lambda d: d.find_element(By.CSS_SELECTOR, f"{row} a.watch").click() or True, 5)
        captions = lambda d: {f.get_attribute("data-seat"): f.find_element(By.CSS_SELECTOR, ".seat-name").text
                              for f in css(d, ".race-seat")}
        wait(lobby, lambda d: captions(d) == {"p1": "Ada", "p2": "Grace"}, 10, f"race captions: {captions(lobby)}")
        wait(lobby, lambda d: d.find_element(By.CSS_SELECTOR, ".presence-names").text == "Ada, Grace", 10)
        assert_no_console_errors(lobby)
    finally:
        ada.close()
        grace.close()

    # Players only: no watch link for its players, and a spectator is turned away even with the key.
    owner = Client(server.ws_url)
    try:
        created = owner.ok({"type": "create", "kind": "four", "options": {"watch": "players"}})
        made = [m for m in created if m["type"] == "created"][0]
        assert re.fullmatch(r"[A-Za-z0-9_-]{22}", made.get("key") or ""), made
        player = browser(width=1100, height=850)
        player.get(f"{server.url}/#/play/{made['game']}/{made['token']}")
        wait(player, lambda d: you(d) == "p2", 10)
        wait(player, lambda d: css(d, ".share .players-only"), 10, "a players-only game offers a watch link")
        assert not css(player, ".share-watch") and not css(player, ".tool.replay-link")
        spectator = browser(width=1100, height=850)
        spectator.get(f"{server.url}/#/watch/{made['game']}/{made['key']}")
        wait(spectator, lambda d: notice(d) is not None, 10)
        n = notice(spectator)
        assert n["title"] == "You may not watch this game" and "for its players only" in n["text"] and "no spectators" in n["text"], n
        for page in (player, spectator):
            assert_no_console_errors(page)
    finally:
        owner.close()


AUTH_LOGIC_JS = """
  const { splitAuthFragment, looksLikeJWT } = await import('/js/auth.js');
  const { parseRoute, routeHash } = await import('/js/routes.js');
  const { chatLine } = await import('/js/chat.js');
  const { seatWord, turnText } = await import('/js/four.js');
  const { playerName } = await import('/js/race.js');
  const { namesOf } = await import('/js/lobby.js');
  const { GameSession } = await import('/js/session.js');

  // The fragment: the token, then the route.
  check('no token', splitAuthFragment('#/play/g/t') === null && splitAuthFragment('') === null);
  check('token alone', eq(splitAuthFragment('#auth=a.b.c'), { jwt: 'a.b.c', rest: '' }));
  check('token and route', eq(splitAuthFragment('#auth=a.b.c&/play/g/t'), { jwt: 'a.b.c', rest: '#/play/g/t' }));
  check('token and #route', eq(splitAuthFragment('#auth=a.b.c&#/watch/g/k'), { jwt: 'a.b.c', rest: '#/watch/g/k' }));
  check('token and bare route', eq(splitAuthFragment('auth=a.b.c&replay/g'), { jwt: 'a.b.c', rest: '#/replay/g' }));
  check('looks like a JWT', looksLikeJWT('eyJh.eyJz.sig-_') && !looksLikeJWT('a.b') && !looksLikeJWT('a b.c.d') && !looksLikeJWT('x'.repeat(8193) + '.a.b'));

  // Routes with keys, and a play route without a token.
  check('watch with key', eq(parseRoute({ hash: '#/watch/g1/K3y', search: '' }), { name: 'watch', game: 'g1', key: 'K3y' }));
  check('watch without key', eq(parseRoute({ hash: '#/watch/g1', search: '' }), { name: 'watch', game: 'g1' }));
  check('replay with key', eq(parseRoute({ hash: '#/replay/g1/K', search: '' }), { name: 'replay', game: 'g1', key: 'K' }));
  check('play without token', eq(parseRoute({ hash: '#/play/g1', search: '' }), { name: 'play', game: 'g1' }));
  check('play with token', eq(parseRoute({ hash: '#/play/g1/t', search: '' }), { name: 'play', game: 'g1', token: 't' }));
  check('hashes', routeHash({ name: 'watch', game: 'g', key: 'k' }) === '#/watch/g/k' && routeHash({ name: 'watch', game: 'g' }) === '#/watch/g'
    && routeHash({ name: 'play', game: 'g' }) === '#/play/g' && routeHash({ name: 'replay', game: 'g', key: 'k' }) === '#/replay/g/k');

  // Names: chat lines, seats, lobby rows.
  check('chat name', chatLine({ room: 'players', by: 'p1', text: 'x', at: 't', name: 'Ada' }).name === 'Ada'
    && !('name' in chatLine({ room: 'players', by: 'p1', text: 'x', at: 't' })));
  const names = { p1: 'Ada', p2: 'Grace' };
  check('seat words', seatWord('p2', 'p1', {}, true, names) === 'Grace' && seatWord('p1', 'p1', {}, true, names) === 'You'
    && seatWord('p2', 'p1', { p2: 2 }, true, names) === 'Computer' && seatWord('p2', 'p1', {}) === 'p2');
  const one = { columns: [[], [], [], ['p1'], [], [], []], rows: 6, turn: 'p2', status: 'playing', moves: 1 };
  check('turn by name', turnText(one, undefined, {}, names) === "Grace's turn" && turnText(one, 'p1', {}, names) === "Grace's turn"
    && turnText(one, 'p2', {}, names) === 'Your turn' && turnText(one, undefined) === "p2's turn");
  check('race names', playerName('p2', {}, names) === 'Grace' && playerName('p3', {}, names) === 'P3' && playerName('p2', { p2: 1 }, names) === 'P2 (computer)');
  check('lobby names', eq(namesOf({ names: { p2: 'Grace', p1: 'Ada', p10: 'Zed' } }), ['Ada', 'Grace', 'Zed']) && eq(namesOf({}), []));

  // The session: a signed-in player without the token joins without one; a spectator watches with the key.
  const sent = [];
  const fake = { status: 'ready', cancel() {},
    on() { return () => {}; }, onOpen() { return () => {}; },
    request(body) { sent.push(body); return Promise.resolve({ type: 'ack' }); } };
  const back = new GameSession(fake, { game: 'g', role: 'player', signedIn: () => true });
  check('join without token', eq(sent[0], { type: 'join', game: 'g' }));
  back.handle({ type: 'joined', game: 'g', kind: 'four', role: 'player', seq: 0, you: 'p1', key: 'K', watch: 'link', names: { p1: 'Ada' } });
  check('joined key, watch, names', back.key === 'K' && back.watch === 'link' && eq(back.names, { p1: 'Ada' }) && back.nameOf('p2') === 'p2');
  back.handle({ type: 'presence', game: 'g', players: 2, spectators: 0, names: names });
  check('presence names', eq(back.names, names) && back.nameOf('p2') === 'Grace');
  let left = 0;
  back.on('left', () => left++);
  back.handle({ type: 'left', game: 'g' });
  sent.length = 0;
  back.rejoin();
  check('replaced: no rejoin by itself', left === 1 && back.replaced && sent.length === 0);
  back.takeBack();
  check('taken back', !back.replaced && eq(sent[0], { type: 'join', game: 'g' }));
  back.close();
  sent.length = 0;
  const outside = new GameSession(fake, { game: 'g', role: 'player', signedIn: () => false });
  check('not signed in, no token: watch', eq(sent[0], { type: 'watch', game: 'g' }));
  outside.close();
  sent.length = 0;
  const spectator = new GameSession(fake, { game: 'g', role: 'spectator', key: 'K' });
  check('watch with key', eq(sent[0], { type: 'watch', game: 'g', key: 'K' }));
  spectator.close();
"""


def test_a_page_named_by_auth_site_alone_hands_over_a_token(browser, tmp_path):
    """With `--auth-site`, the page takes a token by postMessage only from a window of that
    origin: an opener elsewhere (here the page's own origin) is ignored."""
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    secret = secrets.token_hex(32).encode()
    (tmp_path / "secret.txt").write_bytes(secret)
    operator_origin = f"http://localhost:{port}"
    server = AuthServer(tmp_path / "secret.txt", port=port, extra=("--auth-site", operator_origin))
    try:
        assert requests.get(f"{server.url}/api/auth", timeout=5).json() == {"signsIn": True, "sites": [operator_origin]}
        d = browser(width=1000, height=800)
        for opener, accepted in ((server.url, False), (operator_origin, True)):
            d.get(f"{opener}/#/")
            home = d.current_window_handle
            d.execute_script("window.boardcastWindow = window.open(arguments[0], 'boardcast')", f"{server.url}/#/")
            wait(d, lambda d: len(d.window_handles) == 2, 5, "the opener could not open Boardcast")
            opened = [h for h in d.window_handles if h != home][0]
            d.switch_to.window(opened)
            wait(d, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "open", 10)
            d.switch_to.window(home)
            d.execute_script("window.boardcastWindow.postMessage({ type: 'boardcast-auth', jwt: arguments[0] }, arguments[1])",
                             mint(secret, "u-ada", "Ada"), server.url)
            d.switch_to.window(opened)
            if accepted:
                wait_header(d, "Signed in as Ada")
            else:
                # Nothing to await when a message is ignored: a bounded look, then the header.
                time.sleep(1)
                assert header(d) == "", f"a token from {opener} was taken: {header(d)!r}"
            d.close()
            d.switch_to.window(home)
    finally:
        server.stop()


def test_auth_logic_in_the_browser(server, browser):
    """The fragment's parts, routes with keys, names, and the session's join rules, in the page."""
    assert len(page_checks(server, browser, AUTH_LOGIC_JS)) >= 24
