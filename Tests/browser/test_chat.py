"""Watching together in the browser (PROTOCOL section 15): the chat beside the table
for players and spectators, who reads which room, text that stays text, the server's
limit and refusals, mute from a player's view, the spectator delay chosen in the lobby
and shown to spectators, and a replay that shows its chat as it reaches it."""
from __future__ import annotations

import re
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import (Client, RECORD_SENDS_JS, ServerProcess, assert_no_console_errors, css, follow, ordered_deck,
                      page_checks, screenshot, wait)
from kl import SEND_MOVES_JS, winnable_race, winning_moves

# Tableau tops: AH on pile 0, 9S on 2, 8H on 3, TD on 4; the first stock card is AS.
DECK = ordered_deck(i0="AH", i13="9S", i18="8H", i22="TD", i28="AS")
# Would run if it were ever parsed as HTML.
MARKUP = '<img src=x onerror="window.pwned = 1"><b>not bold</b>'

LINES_JS = """
return [...document.querySelectorAll('.chat .chat-line')].map(li => {
  const tag = li.querySelector('.chat-room'), at = li.querySelector('.chat-at');
  return { room: li.dataset.room, name: li.dataset.by, by: li.querySelector('.chat-by').textContent,
           text: li.querySelector('.chat-text').textContent,
           tag: getComputedStyle(tag).display === 'none' ? null : tag.textContent,
           at: at.getAttribute('datetime'), time: at.textContent,
           mute: !!li.querySelector('.chat-mute'), muted: !!li.querySelector('.chat-muted') };
});
"""


def lines(driver) -> list[dict]:
    """The chat as the page shows it, in order: who, which room (when shown), what, when."""
    return driver.execute_script(LINES_JS)


def texts(driver) -> list[str]:
    return [line["text"] for line in lines(driver)]


def line(driver, text: str) -> dict | None:
    found = [entry for entry in lines(driver) if entry["text"] == text]
    return found[0] if found else None


def wait_line(driver, text: str, timeout: float = 10) -> dict:
    return wait(driver, lambda d: line(d, text), timeout, f"no chat line {text!r}")


def field(driver):
    return driver.find_element(By.CSS_SELECTOR, ".chat-input")


def say(driver, text: str, tap: bool = False) -> str | None:
    """Types a line and presses Enter (or taps Send), as a user does; returns the error
    the page showed beside the field for it, or None once the server took it."""
    box = field(driver)
    box.clear()
    # Cleared here, so only this line's answer sets it again.
    driver.execute_script("document.querySelector('.chat-compose').removeAttribute('aria-busy')")
    if tap:
        box.send_keys(text)
        driver.find_element(By.CSS_SELECTOR, ".chat-send").click()
    else:
        box.send_keys(text + "\n")
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, ".chat-compose").get_attribute("aria-busy") == "false", 10,
         "the line got no answer")
    error = driver.find_element(By.CSS_SELECTOR, ".chat-error")
    if error.is_displayed():
        return error.text
    assert box.get_attribute("value") == "", "the field keeps a line the server took"
    return None


def read_until(client: Client, predicate, timeout: float = 10) -> list[dict]:
    """Every message the client reads, up to and including the first that matches."""
    out = []
    deadline = time.monotonic() + timeout
    while True:
        m = client.recv(timeout=max(0.05, deadline - time.monotonic()))
        out.append(m)
        if predicate(m):
            return out


def tables_shown(driver, cards: int):
    wait(driver, lambda d: len(css(d, ".race-seat .kl-table .card")) == cards, 10, f"{cards} cards not shown")


# Where the chat is, against the board and every tool the game bar shows (page coordinates).
LAYOUT_JS = """
const box = (e) => { const r = e.getBoundingClientRect(); return { left: r.left, top: r.top + scrollY, right: r.right, bottom: r.bottom + scrollY }; };
const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
return { chat: box(document.querySelector('.chat')), board: box(document.querySelector('.board-wrap')),
         tools: [...document.querySelectorAll('.game-bar .tool, .share-btn, a.back')].filter(shown).map(box),
         viewport: innerHeight, scrollWidth: document.documentElement.scrollWidth };
"""


def overlaps(a: dict, b: dict) -> bool:
    return a["left"] < b["right"] - 0.5 and b["left"] < a["right"] - 0.5 and a["top"] < b["bottom"] - 0.5 and b["top"] < a["bottom"] - 0.5


# The send button can be pressed where it is drawn: nothing (the phone's tool bar) lies over it.
SEND_UNCOVERED_JS = """
const b = document.querySelector('.chat-send').getBoundingClientRect();
if (b.top < 0 || b.bottom > innerHeight) return false;
const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
return !!hit && !!hit.closest('.chat-send');
"""


def test_race_chat_between_players_and_spectators(server, client, browser):
    """Two players (a websocket client and a desktop page) and two spectators (desktop and
    phone): each writes to their own room, spectators read both, the players never the
    spectators' while the race is on, and markup stays text everywhere."""
    p1 = client()
    p1.ok({"type": "create", "kind": "race", "options": {"seats": 2, "deck": DECK}})
    game, token = p1.game, p1.token
    player = browser(width=1280, height=900)
    player.get(f"{server.url}/#/play/{game}/{token}")
    tables_shown(player, 104)
    follow(p1, 1)
    heard: list[dict] = []  # every message p1 reads from here on
    watcher = browser(width=1280, height=900)
    phone = browser(width=390, height=844, mobile=True)
    for d in (watcher, phone):
        d.get(f"{server.url}/#/watch/{game}")
        tables_shown(d, 104)

    # Where a line goes is said, not chosen: players write to players, spectators to spectators.
    assert player.find_element(By.CSS_SELECTOR, ".chat-to").text == "To Players"
    assert watcher.find_element(By.CSS_SELECTOR, ".chat-to").text == "To Spectators"
    for d in (player, watcher, phone):
        assert not css(d, ".chat select, .chat input[type=radio]"), "a room choice where there is none to make"

    # A player's line: the other player has it at once, every spectator too.
    assert say(player, "Good luck, p1!") is None
    heard += read_until(p1, lambda m: m.get("type") == "chat")
    said = heard[-1]
    assert (said["room"], said["by"], said["text"]) == ("players", "p2", "Good luck, p1!"), said
    own = wait_line(player, "Good luck, p1!")
    assert own["by"] == "you" and own["name"] == "p2" and own["tag"] is None, own
    assert own["at"] == said["at"] and re.fullmatch(r"\d{1,2}:\d\d(\s?[AP]M)?", own["time"]), own
    for d in (watcher, phone):
        shown = wait_line(d, "Good luck, p1!")
        assert shown["by"] == "p2" and shown["tag"] == "Players", shown

    # Markup from p1 is text on every page: shown as typed, no element made, nothing run.
    heard += p1.ok({"type": "say", "text": MARKUP})
    for d in (player, watcher, phone):
        assert wait_line(d, MARKUP)["by"] == "p1"
        assert d.execute_script("return document.querySelectorAll('.chat img, .chat b').length") == 0
        assert d.execute_script("return window.pwned") is None

    # The spectators' room: the writer sees "you", the other spectator its name.
    assert say(watcher, "Spectators only: P2 should draw") is None
    assert wait_line(watcher, "Spectators only: P2 should draw")["by"] == "you"
    other = wait_line(phone, "Spectators only: P2 should draw")
    assert re.fullmatch(r"s\d+", other["by"]) and other["tag"] == "Spectators", other
    assert say(phone, "<b>shh</b>, they cannot read this", tap=True) is None
    back = wait_line(watcher, "<b>shh</b>, they cannot read this")
    assert re.fullmatch(r"s\d+", back["by"]) and back["by"] != other["by"] and back["tag"] == "Spectators", back
    assert wait_line(phone, "<b>shh</b>, they cannot read this")["by"] == "you"
    assert watcher.execute_script("return document.querySelectorAll('.chat b').length") == 0

    # The players read none of it while the race is on: p1's next line reaches the
    # player's page after both spectators' lines were said, and nothing came before it.
    heard += p1.ok({"type": "say", "text": "Thanks, p2"})
    wait_line(player, "Thanks, p2")
    assert texts(player) == ["Good luck, p1!", MARKUP, "Thanks, p2"], texts(player)
    assert all(entry["tag"] is None for entry in lines(player)), "room tags on a page that reads one room"
    assert not [m for m in heard if m.get("type") == "chat" and m.get("room") == "spectators"], heard
    everything = ["Good luck, p1!", MARKUP, "Spectators only: P2 should draw", "<b>shh</b>, they cannot read this", "Thanks, p2"]
    for d in (watcher, phone):
        wait(d, lambda d: texts(d) == everything, 10, "a spectator's chat is not every line in order")

    # Beside the table on a desktop, covering none of its controls, all in sight.
    for d in (player, watcher):
        at = d.execute_script(LAYOUT_JS)
        assert at["chat"]["left"] >= at["board"]["right"], at
        assert not [t for t in at["tools"] if overlaps(t, at["chat"])], at
        assert at["chat"]["bottom"] <= at["viewport"], at
        assert d.execute_script(SEND_UNCOVERED_JS)
    screenshot(watcher, "chat-race-spectator-desktop")
    screenshot(player, "chat-race-player-desktop")

    # Under the table on a phone, as wide as the page, and the Chat button brings it up
    # above the phone's tool bar, ready to type.
    at = phone.execute_script(LAYOUT_JS)
    assert at["chat"]["top"] >= at["board"]["bottom"] and at["scrollWidth"] <= 390, at
    phone.execute_script("window.scrollTo(0, 0)")
    screenshot(phone, "chat-race-spectator-phone-table")
    phone.find_element(By.CSS_SELECTOR, ".tool.chat-jump").click()
    wait(phone, lambda d: d.execute_script("return document.activeElement === document.querySelector('.chat-input')"), 5)
    wait(phone, lambda d: d.execute_script(SEND_UNCOVERED_JS), 5, "the send button is not in sight after Chat")
    screenshot(phone, "chat-race-spectator-phone")
    for d in (player, watcher, phone):
        assert_no_console_errors(d)


def test_chat_errors_limit_and_reconnect(server, client, browser):
    """A Plane player on a phone, the chat under the plane and its panel: the Chat button
    counts what arrives out of sight, the server's refusals show beside the field with the
    text kept, and a reconnect shows no line twice."""
    other = client()
    other.ok({"type": "create", "kind": "plane"})
    phone = browser(width=390, height=844, mobile=True)
    phone.get(f"{server.url}/#/play/{other.game}/{other.token}")
    wait(phone, lambda d: css(d, ".plane") and d.execute_script("return window.boardcast.view.session.seq") is not None, 10)

    # A line arrives while the chat is below the table: the Chat button says so.
    other.ok({"type": "say", "text": "Anyone there?"})
    badge = lambda d: d.find_element(By.CSS_SELECTOR, ".tool.chat-jump .unread")
    wait(phone, lambda d: badge(d).is_displayed() and badge(d).text == "1", 10, "no unread count on the Chat button")
    phone.find_element(By.CSS_SELECTOR, ".tool.chat-jump").click()
    wait(phone, lambda d: d.execute_script(SEND_UNCOVERED_JS), 5, "the send button is not in sight after Chat")
    wait(phone, lambda d: not badge(d).is_displayed(), 5, "the count stays once the chat is in sight")

    # Nothing to send: no Send.
    field(phone).send_keys("   ")
    assert not phone.find_element(By.CSS_SELECTOR, ".chat-send").is_enabled()

    # Too long: the page counts down past zero, the server refuses, the text stays to shorten.
    long = "x" * 281
    error = say(phone, long)
    assert error and "280" in error, error
    assert field(phone).get_attribute("value") == long
    count = phone.find_element(By.CSS_SELECTOR, ".chat-count")
    assert count.text == "-1" and "over" in count.get_attribute("class")

    # Five lines in ten seconds, then the server's limit, with when to try again.
    accepted, error = 0, None
    for n in range(1, 7):
        error = say(phone, f"line {n}")
        if error:
            break
        accepted += 1
    assert accepted == 5 and error and "try again" in error, (accepted, error)
    assert field(phone).get_attribute("value") == "line 6", "the refused line is lost"
    assert phone.execute_script(SEND_UNCOVERED_JS), "the error pushed the field under the tool bar"
    screenshot(phone, "chat-limited-phone")
    before = texts(phone)
    assert before == ["Anyone there?"] + [f"line {n}" for n in range(1, 6)], before
    assert [entry["by"] for entry in lines(phone)].count("you") == 5

    # A lost connection: the page joins again and the server sends the last lines again;
    # each shows once, the page's own still as "you" (it has a new player id now).
    phone.execute_script("window.boardcast.conn.link.ws.close()")
    wait(phone, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "reconnecting", 5)
    wait(phone, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "open", 15, "no reconnect")
    other.ok({"type": "say", "text": "Welcome back"})
    wait(phone, lambda d: texts(d)[-1:] == ["Welcome back"], 10)
    assert texts(phone) == before + ["Welcome back"], texts(phone)
    assert [entry["by"] for entry in lines(phone)].count("you") == 5
    assert_no_console_errors(phone, allow=("WebSocket is already in CLOSING or CLOSED state",))


def test_mute_from_a_players_view(server, client, browser):
    """Once the race is finished the players read the spectators' room, and a player
    can mute a spectator there; the mute holds into the next race."""
    p1, player, spectator = winnable_race(server, client, browser)
    assert say(spectator, "Said during the race") is None

    # Both play to the end.
    moves = winning_moves(client)
    assert player.execute_async_script(SEND_MOVES_JS, moves) is None
    for move in moves:
        p1.ok(move)
    wait(player, lambda d: "Race finished" in d.find_element(By.CSS_SELECTOR, ".won-overlay").text, 10)
    player.find_element(By.CSS_SELECTOR, ".won-overlay .won-close").click()

    # From now on the players read the spectators: a spectator's line has a Mute beside it,
    # a player's has none, and the spectator's page offers no mute at all.
    assert say(spectator, "Well played, both of you") is None
    cheer = wait_line(player, "Well played, both of you")
    assert re.fullmatch(r"s\d+", cheer["by"]) and cheer["tag"] == "Spectators" and cheer["mute"], cheer
    # The line said during the race reaches the players now that they read the spectators' room,
    # without a reload (the chat promised it "once the game is over").
    during = wait_line(player, "Said during the race")
    assert during["tag"] == "Spectators", during
    p1.ok({"type": "say", "text": "Thanks!"})
    thanks = wait_line(player, "Thanks!")
    assert thanks["tag"] == "Players" and not thanks["mute"], thanks
    assert wait_line(spectator, "Thanks!") and not css(spectator, ".chat-mute")
    screenshot(player, "chat-mute-offered")

    player.find_element(By.CSS_SELECTOR, f'.chat-line[data-by="{cheer["name"]}"] .chat-mute').click()
    wait(player, lambda d: line(d, "Well played, both of you")["muted"], 10, "the spectator is not shown muted")
    assert not line(player, "Well played, both of you")["mute"]
    wait(player, lambda d: f"{cheer['name']} can no longer write" in d.find_element(By.ID, "toasts").text, 5)
    screenshot(player, "chat-mute-player")

    # A new race: the mute holds, and the spectator's page says why its line was refused.
    seq = p1.seq
    player.find_element(By.CSS_SELECTOR, ".tool.new-deal").click()
    assert follow(p1, seq + 1)["status"] == "playing"
    error = say(spectator, "Can I still talk?")
    assert error and "muted" in error, error
    assert field(spectator).get_attribute("value") == "Can I still talk?"
    assert wait_line(player, "Well played, both of you")["muted"], "the mark went with the new race"
    for d in (player, spectator):
        assert_no_console_errors(d)


# When this page first held each seq and each chat line (the browser's clock, which is the test's).
SEEN_AT_JS = """
window.seenAt = {};
const s = window.boardcast.view.session;
s.on('change', () => { window.seenAt['seq ' + s.seq] = Date.now(); });
s.on('chat', (log) => { for (const l of log.lines) window.seenAt[l.text] ??= Date.now(); });
"""


def seen_at(driver, key: str) -> float | None:
    return driver.execute_script("return window.seenAt[arguments[0]] ?? null", key)


def test_delayed_spectators_see_the_game_later(server, client, browser):
    """A race with a 2 s delay: its spectator is told so, and gets each move and each
    players' line about 2 s after the players, who get them at once."""
    p1 = client()
    p1.ok({"type": "create", "kind": "race", "options": {"seats": 2, "deck": DECK, "delay": 2}})
    player = browser(width=1280, height=900)
    player.get(f"{server.url}/#/play/{p1.game}/{p1.token}")
    tables_shown(player, 104)
    follow(p1, 1)
    spectator = browser(width=1280, height=900)
    spectator.get(f"{server.url}/#/watch/{p1.game}")
    tables_shown(spectator, 104)
    badge = spectator.find_element(By.CSS_SELECTOR, ".badge.watching")
    wait(spectator, lambda d: badge.text == "Watching \u00b7 2 s behind", 5, "no delay on the badge")
    assert "2 s late" in spectator.find_element(By.CSS_SELECTOR, ".chat-note").text
    assert not player.find_element(By.CSS_SELECTOR, ".badge.watching").is_displayed()
    assert "2 s late" in player.find_element(By.CSS_SELECTOR, ".chat-note").text, "players are not told spectators read late"
    # The spectator is shown the start of the race once its 2 s have passed.
    wait(spectator, lambda d: d.execute_script("return window.boardcast.view.session.seq") == 1, 10)
    for d in (player, spectator):
        d.execute_script(SEEN_AT_JS)

    p1.ok({"type": "tap", "target": "/stock"})
    acked = time.time() * 1000
    waste = lambda d: d.execute_script(
        "return [...document.querySelectorAll('.race-seat[data-seat=\"p1\"] .card[data-pile=\"/waste\"]')].map(c => c.dataset.card)")
    wait(player, lambda d: waste(d) == ["??"], 5)
    wait(spectator, lambda d: waste(d) == ["AS"], 10, "the spectator never saw the move")
    ahead, behind = seen_at(player, "seq 2"), seen_at(spectator, "seq 2")
    assert ahead - acked < 1000, f"the player got the move {ahead - acked:.0f} ms after the ack"
    assert 1500 <= behind - acked < 4000, f"the spectator got the move {behind - acked:.0f} ms after the ack"

    p1.ok({"type": "say", "text": "Aces first"})
    said = time.time() * 1000
    wait_line(player, "Aces first", 5)
    wait_line(spectator, "Aces first", 10)
    assert seen_at(player, "Aces first") - said < 1000
    assert 1500 <= seen_at(spectator, "Aces first") - said < 4000
    assert_no_console_errors(player)
    assert_no_console_errors(spectator)


def test_spectator_delay_chosen_in_the_lobby(server, browser):
    """The lobby's Spectator delay goes with whichever game it starts; the lobby lists a
    delayed game with its delay, and a spectator of it sees how far behind it is."""
    d = browser(width=1280, height=900)
    d.get(server.url + "/")
    wait(d, lambda d: d.find_element(By.CSS_SELECTOR, ".game-list").get_attribute("aria-busy") == "false", 10)
    delay = Select(d.find_element(By.ID, "spectator-delay"))
    assert [o.text for o in delay.options] == ["None", "10 s", "30 s", "1 min", "2 min"]
    assert delay.first_selected_option.text == "None"

    def start(selector: str) -> dict:
        d.execute_script(RECORD_SENDS_JS)
        d.find_element(By.CSS_SELECTOR, selector).click()
        wait(d, lambda d: "#/play/" in d.current_url and d.execute_script("return window.boardcast.view?.session?.seq") is not None, 10)
        return d.execute_script("return window.sentLog.find(m => m.type === 'create')")

    delay.select_by_visible_text("10 s")
    create = start(".tile-draw1")
    assert create["kind"] == "klondike" and create["options"] == {"draw": 1, "delay": 10}, create
    game = d.execute_script("return window.boardcast.view.game")
    d.find_element(By.CSS_SELECTOR, "a.back").click()
    Select(wait(d, lambda d: d.find_element(By.ID, "spectator-delay"))).select_by_visible_text("30 s")
    create = start(".start-race")
    assert create["kind"] == "race" and create["options"] == {"seats": 2, "draw": 1, "delay": 30}, create
    d.find_element(By.CSS_SELECTOR, "a.back").click()
    Select(wait(d, lambda d: d.find_element(By.ID, "spectator-delay"))).select_by_visible_text("None")
    create = start(".tile-plane")
    assert create["kind"] == "plane" and create["options"] == {}, create

    # Another browser finds the delayed game in the lobby with its delay, and watches it.
    watcher = browser(width=1100, height=850)
    watcher.get(server.url + "/")
    row = f'.game-row[data-game="{game}"]'
    wait(watcher, lambda d: "10 s delay" in d.find_element(By.CSS_SELECTOR, row).text, 10, "the lobby does not show the delay")
    # (Read in one call, and clicked inside a wait: the lobby may draw its rows again meanwhile.)
    assert not watcher.execute_script(
        "return [...document.querySelectorAll('.game-row[data-kind=plane]')].filter(r => r.innerText.includes('delay')).length")
    screenshot(watcher, "lobby-delayed-game")
    wait(watcher, lambda d: d.find_element(By.CSS_SELECTOR, f"{row} a.watch").click() or True, 5)
    wait(watcher, lambda d: d.find_element(By.CSS_SELECTOR, ".badge.watching").text == "Watching \u00b7 10 s behind", 10)
    assert_no_console_errors(d)
    assert_no_console_errors(watcher)


def test_replay_shows_chat_as_it_reaches_it(browser, tmp_data):
    """Each line is shown after the move it followed, stepping forward and back; a line
    said while the replay is open joins the end. On a server that keeps its games: with
    --data :memory: this server's replay carries no chat at all."""
    server = ServerProcess(data=tmp_data)
    try:
        me = Client(server.ws_url)
        fan = Client(server.ws_url)
        game, token = me.create_klondike(DECK)
        me.ok({"type": "say", "text": "At the deal"})
        me.ok({"type": "tap", "target": "/stock"})
        me.ok({"type": "say", "text": "Drew the ace"})
        fan.ok({"type": "watch", "game": game})
        fan.ok({"type": "say", "text": "<i>nice</i>"})
        me.ok({"type": "double-tap", "target": "/waste"})
        me.ok({"type": "double-tap", "target": "/tableau/0"})
        me.ok({"type": "say", "text": "Two aces home"})
        d = browser(width=1200, height=900)
        d.get(f"{server.url}/#/replay/{game}")
        counter = lambda: d.find_element(By.CSS_SELECTOR, ".rp-counter").text
        wait(d, lambda d: counter() == "0 / 3", 10, "replay did not load the history")
        at = {0: ["At the deal"], 1: ["At the deal", "Drew the ace", "<i>nice</i>"]}
        at[2] = at[1]
        at[3] = at[1] + ["Two aces home"]
        wait(d, lambda d: texts(d) == at[0], 5)
        for n in (1, 2, 3):
            d.find_element(By.CSS_SELECTOR, ".rp-forward").click()
            wait(d, lambda d: counter() == f"{n} / 3" and texts(d) == at[n], 5, f"chat at move {n}: {texts(d)}")
        shown = line(d, "<i>nice</i>")
        assert shown["by"] == "s1" and shown["tag"] == "Spectators" and not shown["mute"], shown
        assert line(d, "Drew the ace")["tag"] == "Players"
        assert d.execute_script("return document.querySelectorAll('.chat i').length") == 0
        assert not css(d, ".chat-compose"), "a replay has nothing to write to"
        screenshot(d, "replay-chat")
        d.find_element(By.CSS_SELECTOR, ".rp-first").click()
        wait(d, lambda d: counter() == "0 / 3" and texts(d) == at[0], 5)
        d.find_element(By.CSS_SELECTOR, ".rp-last").click()
        wait(d, lambda d: texts(d) == at[3], 5)

        # Said now: at the end of the replay, which is where it is.
        me.ok({"type": "say", "text": "Watching my own replay"})
        wait(d, lambda d: texts(d) == at[3] + ["Watching my own replay"], 10)

        # A lost connection: the replay asks for what followed what it holds, and the
        # lines that answer repeats show once.
        d.execute_script("window.boardcast.conn.link.ws.close()")
        wait(d, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "reconnecting", 5)
        wait(d, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "open", 15, "no reconnect")
        me.ok({"type": "say", "text": "Still there?"})
        wait(d, lambda d: texts(d)[-1:] == ["Still there?"], 10)
        assert texts(d) == at[3] + ["Watching my own replay", "Still there?"], texts(d)
        d.find_element(By.CSS_SELECTOR, ".rp-back").click()
        wait(d, lambda d: counter() == "2 / 3" and texts(d) == at[2], 5)
        assert_no_console_errors(d, allow=("WebSocket is already in CLOSING or CLOSED state",))
        me.close()
        fan.close()
    finally:
        server.stop()


CHAT_LOGIC_JS = """

  const { mergeBacklog, chatLine, formatDelay, textLength, delayOf, ChatLog } = await import('/js/chat.js');
  const { ChatPanel } = await import('/js/chatpanel.js');
  const L = (by, text, room = 'players', at = '2026-01-01T10:00:00Z') => ({ room, by, text, at });
  const a = L('p1', 'a'), b = L('p2', 'b'), c = L('p1', 'c'), s = L('s1', 'psst', 'spectators');

  // A join's backlog laid over the lines held.
  check('onto nothing', eq(mergeBacklog([], [a, b]), [a, b]));
  const again = mergeBacklog([a, b], [L('p1', 'a'), L('p2', 'b')]);
  check('the same lines again add nothing', again.length === 2 && again[0] === a && again[1] === b);
  const more = mergeBacklog([a, b], [L('p2', 'b'), c]);
  check('continues', eq(more, [a, b, c]) && more[1] === b);
  check('a line said twice stays twice', eq(mergeBacklog([a], [L('p1', 'a'), L('p1', 'a')]), [a, a]));
  check('empty backlog keeps', mergeBacklog([a, b], []).length === 2);
  const held = Array.from({ length: 60 }, (_, i) => L('p1', 'n' + i));
  const last50 = held.slice(15).map(l => ({ ...l })).concat([L('p2', 'new 1'), L('p2', 'new 2')]);
  const merged = mergeBacklog(held, last50);
  check('the last 50 over 60 held', merged.length === 62 && merged[59] === held[59] && merged[61].text === 'new 2');
  check('not a continuation: replaced', eq(mergeBacklog([a, b], [s, a, c]), [s, a, c]));

  // The log: a backlog waits for the end of the join's reply; echoes name the page.
  const log = new ChatLog(3);
  log.add(a);
  log.begin(); log.add(L('p1', 'a')); log.add(b);
  check('backlog held back', eq(log.lines, [a]));
  log.end();
  check('backlog merged', eq(log.lines, [a, b]) && log.lines[0] === a);
  log.expect('spectators', ' psst ');
  log.add(L('p1', 'psst'));
  check('a players line is not our echo', !log.mine.has('p1'));
  log.add(s);
  check('our echo names us', log.mine.has('s1') && log.expected.length === 0);
  check('bounded', log.lines.length === 3 && log.lines[2] === s && log.lines[0] === b);
  log.expect('spectators', 'lost'); log.forget('spectators', 'lost');
  check('forget', log.expected.length === 0);

  check('chat message', eq(chatLine({ type: 'chat', room: 'players', by: 'p1', text: 'x', at: 't', game: 'g' }), { room: 'players', by: 'p1', text: 'x', at: 't' }));
  check('not a chat message', chatLine({ room: 'lobby', by: 'p1', text: 'x' }) === null && chatLine({ room: 'players', by: 'p1', text: 5 }) === null);
  check('delays', eq([2, 2.5, 10, 60, 90, 120].map(formatDelay), ['2 s', '2.5 s', '10 s', '1 min', '1 min 30 s', '2 min']));
  check('delay of', delayOf({ delay: 10 }) === 10 && delayOf({}) === 0 && delayOf({ delay: 'x' }) === 0 && delayOf(null) === 0);
  check('length trims', textLength('  h\u00e9llo \\n') === 5 && textLength(' \\t\\n ') === 0);
  check('length counts what a reader sees', textLength('\\u{1F44D}\\u{1F3FD}') === 1 && textLength('e\\u0301') === 1);

  // The panel: drawn from the difference, text as text, mute only on spectators' lines.
  const host = document.createElement('div');
  document.body.append(host);
  const markup = L('p1', '<img src=x onerror="window.panelPwned = 1"><b>b</b>');
  const panel = new ChatPanel(host, { isMine: (by) => by === 's2', send: async () => true });
  panel.setMember('spectators', false);
  panel.setLines([markup]);
  const first = host.querySelector('.chat-line');
  panel.setLines([markup, L('s2', 'mine', 'spectators')]);
  const nodes = [...host.querySelectorAll('.chat-line')];
  check('kept, not redrawn', nodes.length === 2 && nodes[0] === first);
  check('markup is text', !host.querySelector('.chat-lines img, .chat-lines b') && first.querySelector('.chat-text').textContent === markup.text);
  check('you', nodes[1].querySelector('.chat-by').textContent === 'you' && nodes[1].dataset.mine === 'true' && !('mine' in nodes[0].dataset));
  check('both rooms for a spectator', host.querySelector('.chat').dataset.rooms === 'both');
  panel.setLines([panel.shown[1]]);
  check('scrolled away at the top', host.querySelectorAll('.chat-line').length === 1 && host.querySelector('.chat-line') === nodes[1]);
  panel.destroy();
  const player = new ChatPanel(host, { mute: () => {}, send: async () => true });
  player.setMember('players', true);
  player.setLines([a]);
  check('one room for a player', host.querySelector('.chat').dataset.rooms === 'one');
  player.setLines([a, s]);
  check('mute beside spectators only', host.querySelectorAll('.chat-mute').length === 1 && !!host.querySelector('.chat-line[data-by="s1"] .chat-mute'));
  check('both rooms once a spectator line shows', host.querySelector('.chat').dataset.rooms === 'both');
  player.setMuted(new Set(['s1']));
  check('muted', host.querySelectorAll('.chat-muted').length === 1 && !host.querySelector('.chat-mute'));
  player.destroy();
  host.remove();
  await new Promise(r => setTimeout(r, 0));
  check('nothing ran', window.panelPwned === undefined);
"""


def test_chat_logic_in_the_browser(server, browser):
    """The chat's pure parts and its panel, run where they run for users."""
    assert len(page_checks(server, browser, CHAT_LOGIC_JS)) >= 29
