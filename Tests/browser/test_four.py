"""Four in a row in the browser (PROTOCOL section 16): two players' pages and a
spectator's, the lobby tile and row, taps, a drag, keys, the winning line, the
won message, resigning, a new game by button and by shaking the phone, hints
for spectators, the replay, and the page's registry of game kinds."""
from __future__ import annotations

import re

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By

from conftest import RECORD_SENDS_JS, assert_no_console_errors, css, follow, page_checks, screenshot, wait

# The board as the page draws it: each column's discs, bottom first (null for an empty
# cell), ghosts (where a disc would land) left out.
BOARD_JS = """
return [...document.querySelectorAll('.four-col')].map(col =>
  [...col.querySelectorAll('.four-cell')].sort((a, b) => a.dataset.row - b.dataset.row)
    .map(cell => cell.querySelector('.four-disc:not(.four-ghost)')?.dataset.seat ?? null));
"""

# Every disc that fell (got the falling animation) from now on, as "column,row".
RECORD_FALLS_JS = """
window.fell = [];
const board = document.querySelector('.four-board');
new MutationObserver((records) => {
  for (const r of records) {
    const t = r.target;
    if (t.classList && t.classList.contains('falling') && !t.dataset.recorded) {
      t.dataset.recorded = '1';
      const cell = t.closest('.four-cell'), col = t.closest('.four-col');
      window.fell.push(col.dataset.col + ',' + cell.dataset.row);
    }
  }
}).observe(board, { subtree: true, attributes: true, attributeFilter: ['class'] });
"""

# Every game event the page receives from now on.
RECORD_EVENTS_JS = """
window.eventsSeen = [];
window.boardcast.conn.on('message', (m) => { if (m.type === 'event') window.eventsSeen.push(m); });
"""

# The winning line as drawn: its SVG line's ends against the centres of the cells it names.
LINE_JS = """
const svg = document.querySelector('.four-line'), stroke = svg.querySelector('line.four-line-stroke');
const board = document.querySelector('.four-board');
if (!stroke) return { drawn: false, attr: board.dataset.line };
const frame = document.querySelector('.four-frame').getBoundingClientRect();
const centre = (c, r) => {
  const cell = document.querySelector(`.four-col[data-col="${c}"] .four-cell[data-row="${r}"]`).getBoundingClientRect();
  return [cell.left - frame.left + cell.width / 2, cell.top - frame.top + cell.height / 2];
};
const cells = board.dataset.line.split(' ').map(p => p.split(',').map(Number));
const a = centre(...cells[0]), b = centre(...cells[cells.length - 1]);
const ends = [[+stroke.getAttribute('x1'), +stroke.getAttribute('y1')], [+stroke.getAttribute('x2'), +stroke.getAttribute('y2')]];
const wins = [...document.querySelectorAll('.four-disc.win')].map(d => [Number(d.closest('.four-col').dataset.col), Number(d.closest('.four-cell').dataset.row)]);
return { drawn: true, attr: board.dataset.line, cells, ends, expected: [a, b], wins,
         visible: getComputedStyle(stroke).stroke !== 'none' && svg.getBoundingClientRect().width > 0 };
"""


def board(driver) -> list[list[str]]:
    """The discs of every column as drawn, bottom first; a gap under a disc fails."""
    drawn = driver.execute_script(BOARD_JS)
    out = []
    for column in drawn:
        discs = [d for d in column if d is not None]
        assert column[:len(discs)] == discs, f"a disc floats in {column}"
        out.append(discs)
    return out


def wait_board(driver, columns: list[list[str]], timeout: float = 10):
    try:
        wait(driver, lambda d: board(d) == columns, timeout)
    except Exception:
        raise AssertionError(f"board differs:\n page:     {board(driver)}\n expected: {columns}")


def turn_text(driver) -> str:
    found = css(driver, ".four-turn-text")
    return found[0].text if found else ""


def wait_turn(driver, text: str, timeout: float = 10):
    try:
        wait(driver, lambda d: turn_text(d) == text, timeout)
    except Exception:
        raise AssertionError(f"turn line is {turn_text(driver)!r}, expected {text!r}")


def column(driver, c: int):
    return driver.find_element(By.CSS_SELECTOR, f'.four-col[data-col="{c}"]')


def touch_tap(driver, element):
    """A finger's tap (pointerType "touch") on the element's centre."""
    finger = PointerInput(interaction.POINTER_TOUCH, "finger")
    actions = ActionBuilder(driver, mouse=finger, duration=20)
    r = element.rect
    actions.pointer_action.move_to_location(int(r["x"] + r["width"] / 2), int(r["y"] + r["height"] / 2)).pointer_down().pointer_up()
    actions.perform()


def touch_slide(driver, start, end):
    """A finger put down on one element and lifted over another, in steps."""
    finger = PointerInput(interaction.POINTER_TOUCH, "finger")
    actions = ActionBuilder(driver, mouse=finger, duration=30)
    s, e = start.rect, end.rect
    sx, sy = s["x"] + s["width"] / 2, s["y"] + s["height"] / 2
    ex, ey = e["x"] + e["width"] / 2, e["y"] + e["height"] / 2
    actions.pointer_action.move_to_location(int(sx), int(sy)).pointer_down()
    for i in range(1, 6):
        actions.pointer_action.move_to_location(int(sx + (ex - sx) * i / 5), int(sy + (ey - sy) * i / 5))
    actions.pointer_action.pointer_up()
    actions.perform()


def overlay(driver) -> dict:
    """The won message as shown: whether it is, its title, reason and result (not shown while the
    page, just loaded or reloaded, has not drawn the game yet)."""
    return driver.execute_script("""
      const o = document.querySelector('.won-overlay');
      if (!o) return { shown: false };
      return { shown: !o.hidden && o.getBoundingClientRect().height > 0, kind: o.dataset.kind, result: o.dataset.result,
               title: o.querySelector('#won-title')?.textContent ?? '', why: o.querySelector('.four-why')?.textContent ?? '',
               moves: o.querySelector('[data-stat="moves"]')?.textContent ?? null,
               buttons: [...o.querySelectorAll('.btn')].map(b => b.textContent) };""")


def shown_tools(driver) -> list[str]:
    """The toolbar's buttons that show, by their class beyond btn and tool."""
    return driver.execute_script("""
      return [...document.querySelectorAll('.game-bar .tools .tool')].filter(b => !b.hidden && b.getBoundingClientRect().width > 0)
        .map(b => [...b.classList].filter(c => c !== 'btn' && c !== 'tool').join('.'));""")


def lobby_row(driver, game: str):
    rows = css(driver, f'.game-row[data-game="{game}"]')
    return rows[0] if rows else None


def sent(driver, kind: str) -> list[dict]:
    return driver.execute_script("return window.sentLog.filter(m => m.type === arguments[0])", kind)


def open_lobby(server, driver):
    driver.get(server.url + "/")
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, ".game-list").get_attribute("aria-busy") == "false", 10)
    wait(driver, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "open", 10)


def create_from_lobby(server, driver, first: str) -> tuple[str, str]:
    """Starts four in a row from the lobby's tile, choosing who starts; returns game and token."""
    open_lobby(server, driver)
    driver.execute_script(RECORD_SENDS_JS)
    tile = driver.find_element(By.CSS_SELECTOR, '.create-tile[data-create="four"]')
    assert "Four in a row" in tile.text
    if first != "p1":
        driver.execute_script("const s = document.getElementById('four-first'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));", first)
    tile.find_element(By.CSS_SELECTOR, ".start-four").click()
    wait(driver, lambda d: "#/play/" in d.current_url, 10, "starting four in a row did not open its play link")
    create = sent(driver, "create")[0]
    assert {k: v for k, v in create.items() if k != "id"} == {"type": "create", "kind": "four", "options": {"first": first}}, create
    game, token = re.search(r"#/play/([^/]+)/([^/]+)$", driver.current_url).groups()
    wait(driver, lambda d: len(css(d, ".four-col")) == 7 and len(css(d, ".four-cell")) == 42, 10, "no board of 7 x 6")
    wait(driver, lambda d: d.execute_script("return window.boardcast.view.session.you") == "p1", 10)
    return game, token


def fits_above_the_tool_bar(driver) -> dict:
    return driver.execute_script("""
      const b = document.querySelector('.four-board').getBoundingClientRect();
      const bar = document.querySelector('.game-bar .tools');
      const top = getComputedStyle(bar).position === 'fixed' ? bar.getBoundingClientRect().top : innerHeight;
      return { bottom: b.bottom, right: b.right, left: b.left, barTop: top, width: innerWidth,
               scrollWidth: document.documentElement.scrollWidth, cell: document.querySelector('.four-cell').getBoundingClientRect().width };""")


def test_four_whole_game_two_players_and_a_spectator(server, client, browser):
    """p1 (desktop) starts from the lobby tile, p2 (a phone) opens the play link, a
    spectator finds the game in the lobby; they play to a win by taps, a drag, a
    key and a finger's slide, and every page shows every disc, the turn, the line
    and the won message. A new game then starts with p2."""
    p1 = browser(width=1280, height=800)
    game, token = create_from_lobby(server, p1, "p1")
    wait_turn(p1, "Waiting for an opponent")
    assert p1.find_element(By.CSS_SELECTOR, ".four-invite").is_displayed()
    play_url = p1.find_element(By.CSS_SELECTOR, ".share-play").get_attribute("data-url")
    assert play_url == f"{server.url}/#/play/{game}/{token}"
    assert "resign" not in shown_tools(p1) and "new-game" not in shown_tools(p1), "Resign or New game before the game starts"

    watcher = client()  # the server's view of the game, kept with a generic RFC 6902 library
    watcher.ok({"type": "watch", "game": game})
    assert watcher.state["status"] == "waiting" and watcher.state["columns"] == [[]] * 7

    # The spectator finds it in the lobby: four in a row, one of two seated.
    spectator = browser(width=1100, height=850)
    open_lobby(server, spectator)
    # (Read in one call: the row may be drawn again between two.)
    row_text = lambda d: d.execute_script(  # noqa: E731
        "return document.querySelector(`.game-row[data-game='${arguments[0]}']`)?.innerText ?? null", game) or ""
    wait(spectator, lambda d: "1 of 2 seated" in row_text(d), 10, "the lobby does not list the game with its seats")
    text = row_text(spectator)
    assert "Four in a row" in text and "Waiting" in text, text
    # The lobby redraws its rows as it follows: a row found a moment ago may be gone (retried).
    wait(spectator, lambda d: lobby_row(d, game).find_element(By.CSS_SELECTOR, "a.watch").click() or True, 5)
    wait(spectator, lambda d: len(css(d, ".four-col")) == 7, 10)
    wait_turn(spectator, "Waiting for a second player")
    assert not css(spectator, ".four-invite:not([hidden])") and not css(spectator, ".four-tray:not([hidden])")
    assert spectator.execute_script("return [...document.querySelectorAll('.four-col')].every(b => b.disabled)")

    # p2 opens the play link on a phone: the game starts, p1 to move.
    p2 = browser(width=390, height=844, mobile=True)
    p2.get(play_url)
    wait(p2, lambda d: d.execute_script("return window.boardcast.view?.session?.you") == "p2", 10, "p2 did not take the second seat")
    state = follow(watcher, 1)
    assert state["status"] == "playing" and state["turn"] == "p1", state
    wait_turn(p1, "Your turn")
    wait_turn(p2, "p1's turn")
    wait_turn(spectator, "p1's turn")
    for d in (p1, p2):
        wait(d, lambda d: "resign" in shown_tools(d), 5, "no Resign while playing")
        assert "new-game" not in shown_tools(d)
    assert not {"resign", "new-game"} & set(shown_tools(spectator)), "a spectator has a player's tools"
    wait(spectator, lambda d: d.find_element(By.CSS_SELECTOR, ".tool.hint").is_enabled(), 5)
    spectator.execute_script(RECORD_FALLS_JS)
    spectator.execute_script(RECORD_EVENTS_JS)
    p2.execute_script(RECORD_SENDS_JS)
    # A reload of p2's tab would sit down at p2 again.
    assert p2.execute_script("return JSON.parse(sessionStorage.getItem('boardcast.seats'))[arguments[0]]", game) == "p2"

    # The portrait phone shows the whole board above its tool bar, nothing sideways.
    fit = fits_above_the_tool_bar(p2)
    assert fit["bottom"] <= fit["barTop"] and fit["left"] >= 0 and fit["right"] <= 390 and fit["scrollWidth"] <= 390, fit
    assert fit["cell"] >= 44, f"cells too small to tap: {fit}"
    screenshot(p2, "four-phone-p2-start")

    # Not p2's turn: the server says why, as a toast, and nothing changes.
    touch_tap(p2, column(p2, 3))
    wait(p2, lambda d: "p1's turn" in d.find_element(By.ID, "toasts").text.lower(), 5, "no toast for a move out of turn")
    assert sent(p2, "tap")[0]["target"] == "/columns/3"

    seq = watcher.seq
    falls = 0

    def after_move(expected_turn: str):
        nonlocal seq, falls
        state = follow(watcher, seq + 1)
        seq = watcher.seq
        falls += 1
        for d in (p1, p2, spectator):
            wait_board(d, state["columns"])
        if state["status"] == "playing":
            wait_turn(p1, "Your turn" if expected_turn == "p1" else "p2's turn")
            wait_turn(p2, "Your turn" if expected_turn == "p2" else "p1's turn")
            wait_turn(spectator, f"{expected_turn}'s turn")
        return state

    # 1. p1 taps column 0 (a mouse click); 2. p2 taps column 1 with a finger.
    column(p1, 0).click()
    after_move("p2")
    wait(spectator, lambda d: d.execute_script("return window.fell.length") >= 1, 5, "the disc did not fall")
    touch_tap(p2, column(p2, 1))
    after_move("p1")

    # 3. p1 drags the disc from the tray over column 0: the column is marked, with a ghost where it lands.
    tray = p1.find_element(By.CSS_SELECTOR, ".four-tray-disc")
    target = column(p1, 0)
    dx = target.rect["x"] + target.rect["width"] / 2 - (tray.rect["x"] + tray.rect["width"] / 2)
    dy = target.rect["y"] + target.rect["height"] / 3 - (tray.rect["y"] + tray.rect["height"] / 2)
    ActionChains(p1, duration=30).move_to_element(tray).click_and_hold().move_by_offset(int(dx / 3), int(dy / 3)) \
        .move_by_offset(int(dx / 3), int(dy / 3)).move_by_offset(int(dx - 2 * int(dx / 3)), int(dy - 2 * int(dy / 3))).perform()
    held = p1.execute_script("""return { hover: [...document.querySelectorAll('.four-col.hover')].map(c => c.dataset.col),
      ghost: document.querySelector('.four-ghost')?.closest('.four-cell').dataset.row,
      ghostCol: document.querySelector('.four-ghost')?.closest('.four-col').dataset.col,
      floating: !!document.querySelector('.four-float') }""")
    assert held == {"hover": ["0"], "ghost": "1", "ghostCol": "0", "floating": True}, held
    screenshot(p1, "four-desktop-p1-dragging")
    ActionChains(p1).release().perform()
    state = after_move("p2")
    assert state["columns"][0] == ["p1", "p1"], state
    assert not css(p1, ".four-float"), "the dragged disc stays on the page"

    # 4. p2 slides a finger from column 4 to column 1 and lifts it there.
    touch_slide(p2, column(p2, 4), column(p2, 1))
    state = after_move("p1")
    assert state["columns"][1] == ["p2", "p2"], state

    # 5. p1 presses the key 1 (column 1 is the first); 6. p2 taps column 1.
    p1.find_element(By.TAG_NAME, "body").send_keys("1")
    after_move("p2")
    touch_tap(p2, column(p2, 1))
    after_move("p1")
    screenshot(spectator, "four-desktop-spectator-playing")

    # 7. p1's fourth disc in column 0: four in a row.
    column(p1, 0).click()
    state = after_move("")
    assert state["status"] == "won" and state["winner"] == "p1" and state["turn"] is None, state
    assert sorted(map(tuple, state["line"])) == [(0, 0), (0, 1), (0, 2), (0, 3)], state["line"]
    assert state["moves"] == 7
    wait(spectator, lambda d: d.execute_script("return window.fell.length") == falls, 5,
         f"the spectator saw {spectator.execute_script('return window.fell')} fall, not {falls} discs")

    line_cells = sorted(map(tuple, state["line"]))
    for d in (p1, p2, spectator):
        wait(d, lambda d: d.execute_script(LINE_JS)["drawn"], 5, "no winning line")
        drawn = d.execute_script(LINE_JS)
        assert sorted(map(tuple, drawn["cells"])) == line_cells and sorted(map(tuple, drawn["wins"])) == line_cells, drawn
        assert drawn["visible"], drawn
        for end, centre in zip(sorted(drawn["ends"]), sorted(drawn["expected"])):
            assert abs(end[0] - centre[0]) < 2 and abs(end[1] - centre[1]) < 2, drawn
    wait(spectator, lambda d: d.execute_script("return window.eventsSeen.length") >= 1, 5, "no won event")
    won = spectator.execute_script("return window.eventsSeen[0]")
    assert (won["event"], won["by"], won["reason"], won["moves"]) == ("won", "p1", "four", 7) and isinstance(won["seconds"], (int, float)), won
    wait_turn(p1, "You won with four in a row")
    wait_turn(p2, "p1 won with four in a row")
    wait_turn(spectator, "p1 won with four in a row")

    # The won message for everyone: the winner, the loser, the spectator.
    expected = {id(p1): ("You won!", "won"), id(p2): ("You lost", "lost"), id(spectator): ("p1 wins!", "won")}
    for d in (p1, p2, spectator):
        wait(d, lambda d: overlay(d)["shown"], 5, "no won message")
        o = overlay(d)
        assert (o["title"], o["result"], o["kind"]) == (*expected[id(d)], "four-end"), o
        assert o["moves"] == "7" and "Four in a row" in o["why"], o
    # A rematch for both players (lichess), none for the spectator.
    assert "Rematch" in overlay(p1)["buttons"] and "Rematch" in overlay(p2)["buttons"]
    assert "Rematch" not in overlay(spectator)["buttons"], "a spectator can start a new game"
    for d in (p1, p2):
        assert "new-game" in shown_tools(d) and "resign" not in shown_tools(d), shown_tools(d)
    assert not spectator.find_element(By.CSS_SELECTOR, ".tool.hint").is_enabled()
    screenshot(p1, "four-desktop-p1-won")
    screenshot(p2, "four-phone-p2-lost")
    screenshot(spectator, "four-desktop-spectator-won")
    # Hiding the result: it goes, the line stays.
    spectator.find_element(By.CSS_SELECTOR, ".won-overlay .won-close").click()
    wait(spectator, lambda d: not overlay(d)["shown"], 5)
    assert spectator.execute_script(LINE_JS)["drawn"]

    # The lobby says it is won, both seated.
    lobby = browser(width=1100, height=850)
    open_lobby(server, lobby)
    wait(lobby, lambda d: lobby_row(d, game) is not None and "2 of 2 seated" in lobby_row(d, game).text and "Won" in lobby_row(d, game).text, 10,
         "the lobby row does not follow the game")

    # p2 starts a new game from the won message: p2 moves first this time.
    p2.find_element(By.CSS_SELECTOR, ".won-overlay .won-new").click()
    state = follow(watcher, seq + 1)
    assert state["status"] == "playing" and state["turn"] == "p2" and state["columns"] == [[]] * 7 and state["line"] is None, state
    for d in (p1, p2, spectator):
        wait_board(d, [[]] * 7)
        wait(d, lambda d: not overlay(d)["shown"], 5, "the won message outlived the game")
        assert not d.execute_script(LINE_JS)["drawn"], "the old line is still drawn"
    wait_turn(p2, "Your turn")
    wait_turn(p1, "p2's turn")
    wait_turn(spectator, "p2's turn")
    for d in (p1, p2):
        wait(d, lambda d: "resign" in shown_tools(d) and "new-game" not in shown_tools(d), 5)
    screenshot(p2, "four-phone-p2-new-game")
    for d in (p1, p2, spectator, lobby):
        assert_no_console_errors(d)


# A full board and no four: p1 and p2 take turns into these columns (found by a search).
DRAW_MOVES = [0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 1, 0, 3, 2, 5, 4, 0, 6, 1, 2, 3, 4, 5, 6,
              0, 1, 2, 3, 4, 5, 6]


def test_four_drawn_game_live_and_for_a_late_spectator(server, client, browser):
    """Two programs fill the board with no four: a spectator watching sees the draw
    as it happens (the `drawn` event), one who comes later from its state."""
    p1, p2 = client(), client()
    p1.ok({"type": "create", "kind": "four", "options": {"first": "p1"}})
    p2.ok({"type": "join", "game": p1.game, "token": p1.token})
    live = browser(width=1280, height=800)
    live.get(f"{server.url}/#/watch/{p1.game}")
    wait_turn(live, "p1's turn")
    live.execute_script(RECORD_EVENTS_JS)
    for i, c in enumerate(DRAW_MOVES):
        (p1 if i % 2 == 0 else p2).ok({"type": "tap", "target": f"/columns/{c}"})
    follow(p1, p2.seq)
    assert p1.state["status"] == "drawn" and p1.state["winner"] is None and p1.state["turn"] is None and p1.state["moves"] == 42, p1.state
    wait_board(live, p1.state["columns"])
    wait(live, lambda d: d.execute_script("return window.eventsSeen.some(e => e.event === 'drawn')"), 5, "no drawn event")
    wait(live, lambda d: overlay(d)["shown"], 5, "no message for a draw")
    o = overlay(live)
    assert o["title"] == "It\u2019s a draw" and o["why"] == "The board is full" and o["result"] == "drawn", o
    wait_turn(live, "Drawn: the board is full")
    assert not live.execute_script(LINE_JS)["drawn"], "a line on a drawn board"

    late = browser(width=390, height=844, mobile=True)
    late.get(f"{server.url}/#/watch/{p1.game}")
    wait_board(late, p1.state["columns"])
    wait(late, lambda d: overlay(d)["shown"], 5, "a late spectator is not told of the draw")
    assert overlay(late)["title"] == "It\u2019s a draw"
    wait_turn(late, "Drawn: the board is full")
    fit = fits_above_the_tool_bar(late)
    assert fit["right"] <= 390 and fit["scrollWidth"] <= 390, fit
    late.find_element(By.CSS_SELECTOR, ".won-overlay .won-close").click()
    wait(late, lambda d: not overlay(d)["shown"], 5)
    screenshot(late, "four-phone-spectator-drawn")
    for d in (live, late):
        assert_no_console_errors(d)


SHAKE_JS = """
for (let i = 0; i < 3; i++)
  window.dispatchEvent(new DeviceMotionEvent('devicemotion', { acceleration: { x: 25, y: 4, z: 3 }, interval: 16 }));
"""


def test_four_resign_shake_and_a_spectators_hint(server, client, browser):
    """p1 on a phone starts with "Friend starts"; p2 is a program. A spectator asks for
    a hint and sees its column marked. p1 resigns (after a confirmation); a shake
    while the game is played does nothing, one after it starts a new game, with the
    other seat first."""
    phone = browser(width=390, height=844, mobile=True)
    game, token = create_from_lobby(server, phone, "p2")
    screenshot(phone, "four-phone-p1-waiting")
    p2 = client()
    p2.ok({"type": "join", "game": game, "token": token})
    follow(p2, 1)
    assert p2.state["status"] == "playing" and p2.state["turn"] == "p2" and p2.state["first"] == "p2", p2.state
    wait_turn(phone, "p2's turn")
    # A shake means something in four in a row only once the game is over (a rematch): the bar
    # offers no Shake mid-game (which said "for a new deal"); where motion needs the user's
    # permission (DeviceMotionEvent.requestPermission) it is asked on the first move on the board.
    assert not css(phone, ".tool.shake-enable"), "a Shake button in the middle of four in a row"

    spectator = browser(width=1280, height=800)
    spectator.get(f"{server.url}/#/watch/{game}")
    wait_turn(spectator, "p2's turn")
    spectator.execute_script("""
      window.hintsSeen = [];
      window.boardcast.conn.on('message', (m) => { if (m.type === 'hint') window.hintsSeen.push(m); });""")
    spectator.find_element(By.CSS_SELECTOR, ".tool.hint").click()
    wait(spectator, lambda d: d.execute_script("return window.hintsSeen.length") == 1, 10, "no hint came back")
    hint = spectator.execute_script("return window.hintsSeen[0]")
    assert hint["from"] is None and re.fullmatch(r"/columns/[0-6]", hint["to"]), hint
    hinted = hint["to"].rsplit("/", 1)[1]
    wait(spectator, lambda d: [c.get_attribute("data-col") for c in css(d, ".four-col.hinted")] == [hinted], 5, "the hinted column is not marked")
    screenshot(spectator, "four-desktop-spectator-hint")

    # p2 plays the hinted column; p1 answers with a finger in column 3.
    p2.ok({"type": "tap", "target": hint["to"]})
    wait_board(phone, p2.state["columns"])
    wait_turn(phone, "Your turn")
    touch_tap(phone, column(phone, 3))
    state = follow(p2, p2.seq + 1)
    assert state["columns"][3][-1] == "p1", state
    wait_board(spectator, state["columns"])
    wait(phone, lambda d: d.execute_script("return window.boardcast.view.shake.listening"), 5, "the phone does not listen for shakes")

    # A shake while the game is played starts nothing (the next message out is the resign).
    phone.execute_script("window.sentLog.length = 0")  # recording since the lobby (the same document)
    phone.execute_script(SHAKE_JS)
    assert phone.execute_script("return window.boardcast.view.shake.last") > 0, "the shake was not felt"
    phone.find_element(By.CSS_SELECTOR, ".tool.resign").click()
    wait(phone, lambda d: css(d, "dialog[open]"), 5, "no confirmation before resigning")
    assert "Resign" in phone.find_element(By.CSS_SELECTOR, "dialog[open]").text
    screenshot(phone, "four-phone-p1-resign-confirm")
    phone.find_element(By.CSS_SELECTOR, "dialog[open] .btn.primary").click()
    wait(phone, lambda d: sent(d, "resign"), 5, "resign not sent")
    # (Once the game is over the page joins again, to read the spectators' earlier lines: no shake's doing.)
    assert [m["type"] for m in phone.execute_script("return window.sentLog") if m["type"] != "join"] == ["resign"], "a shake during the game sent something"

    # p2 wins by resignation: the diff, then the event.
    events = []
    while not events:
        m = p2.recv()
        if m.get("type") == "event":
            events.append(m)
    assert events[0]["event"] == "won" and events[0]["by"] == "p2" and events[0]["reason"] == "resign", events
    assert p2.state["status"] == "won" and p2.state["winner"] == "p2" and p2.state["line"] is None, p2.state
    wait(phone, lambda d: overlay(d)["shown"], 5)
    o = overlay(phone)
    assert o["title"] == "You lost" and o["why"] == "You resigned", o
    wait(spectator, lambda d: overlay(d)["shown"], 5)
    o = overlay(spectator)
    assert o["title"] == "p2 wins!" and o["why"] == "p1 resigned", o
    wait_turn(spectator, "p2 won: p1 resigned")
    screenshot(phone, "four-phone-p1-resigned")

    # Shaken now, the phone starts a new game: p1 (the other seat) moves first.
    seq = p2.seq
    # The detector takes one shake at most every 1.8 s (its cooldown), counting the one during the game.
    wait(phone, lambda d: d.execute_script("return performance.now() - window.boardcast.view.shake.last > 1900"), 5)
    phone.execute_script(SHAKE_JS)
    wait(phone, lambda d: sent(d, "reset"), 5, "a shake after the game sent no reset")
    state = follow(p2, seq + 1)
    assert state["status"] == "playing" and state["turn"] == "p1" and state["columns"] == [[]] * 7, state
    wait_turn(phone, "Your turn")
    wait(phone, lambda d: not overlay(d)["shown"], 5)
    wait_board(spectator, [[]] * 7)
    wait_turn(spectator, "p1's turn")
    for d in (phone, spectator):
        assert_no_console_errors(d)


def test_four_replay_from_the_start(server, client, browser):
    """The replay of a four in a row game draws it from the empty board to its line."""
    p1, p2 = client(), client()
    p1.ok({"type": "create", "kind": "four", "options": {"first": "p1"}})
    p2.ok({"type": "join", "game": p1.game, "token": p1.token})
    moves = [(p1, 3), (p2, 3), (p1, 4), (p2, 4), (p1, 5), (p2, 5), (p1, 6)]
    for player, c in moves:
        player.ok({"type": "tap", "target": f"/columns/{c}"})
    follow(p1, p2.seq)
    final = p1.state
    assert final["status"] == "won" and sorted(map(tuple, final["line"])) == [(3, 0), (4, 0), (5, 0), (6, 0)], final
    # The replay counts the game's moves; the server's start (seq 1) is no move of its own.
    last = len(moves)
    assert p1.seq == last + 1, p1.seq

    d = browser(width=1280, height=800)
    d.get(f"{server.url}/#/replay/{p1.game}")
    counter = lambda: d.find_element(By.CSS_SELECTOR, ".rp-counter").text
    wait(d, lambda d: counter() == f"0 / {last}", 10, "the replay did not load the history")
    assert d.find_element(By.CSS_SELECTOR, ".game-title").text.startswith("Four in a row")
    assert d.find_element(By.CSS_SELECTOR, ".replay-caption").text == "An empty board"
    wait_board(d, [[]] * 7)
    assert not css(d, ".four-tray:not([hidden])"), "a replay has no tray"
    d.find_element(By.CSS_SELECTOR, ".rp-last").click()
    wait(d, lambda d: counter() == f"{last} / {last}", 5)
    wait_board(d, final["columns"])
    assert d.execute_script("return window.boardcast.view.timeline.stateAt(arguments[0])", p1.seq) == final
    assert "column 7" in d.find_element(By.CSS_SELECTOR, ".replay-caption").text
    wait(d, lambda d: d.execute_script(LINE_JS)["drawn"], 5, "no line at the end of the replay")
    screenshot(d, "four-replay-end")
    d.find_element(By.CSS_SELECTOR, ".rp-back").click()
    wait(d, lambda d: counter() == f"{last - 1} / {last}", 5)
    wait(d, lambda d: not d.execute_script(LINE_JS)["drawn"] and sum(map(len, board(d))) == 6, 5)
    assert_no_console_errors(d)


def test_four_lobby_tile_on_a_phone(server, browser):
    """The lobby's four in a row tile on a phone: its choice and Start on one line, in the page."""
    d = browser(width=390, height=844, mobile=True)
    open_lobby(server, d)
    found = d.execute_script("""
      const tile = document.querySelector('.create-tile[data-create="four"]').getBoundingClientRect();
      const parts = [...document.querySelectorAll('.tile-four .tile-controls > *')].map(e => e.getBoundingClientRect());
      return { left: tile.left, right: tile.right, rows: new Set(parts.map(r => Math.round(r.top))).size,
               options: [...document.querySelectorAll('#four-first option')].map(o => [o.value, o.textContent]) };""")
    assert found["left"] >= 0 and found["right"] <= 390 and found["rows"] == 1, found
    assert found["options"] == [["p1", "You start"], ["p2", "Friend starts"]], found
    d.execute_script("document.querySelector('.tile-four').scrollIntoView()")
    screenshot(d, "four-lobby-phone")
    assert_no_console_errors(d)


FOUR_LOGIC_JS = """

  const four = await import('/js/four.js');
  const { GAMES, gameKind, hasSeats } = await import('/js/games.js');
  const { GameSession } = await import('/js/session.js');
  // The registry: every kind once, by the server's name, with what the shell needs.
  check('kinds', eq(GAMES.map(g => g.kind), ['klondike', 'race', 'plane', 'four']));
  check('four by name', gameKind('four') === four.fourGame && gameKind('nope') === null && gameKind(null) === null);
  check('seats', hasSeats('four') && hasSeats('race') && !hasSeats('klondike') && !hasSeats('plane') && !hasSeats(undefined));
  for (const g of GAMES) {
    check(g.kind + ' descriptor', typeof g.name === 'string' && typeof g.board === 'function' && typeof g.play === 'function'
      && typeof g.title === 'function' && typeof g.replayStart === 'string' && typeof g.icon === 'string');
    check(g.kind + ' icon in the sprite', !!document.getElementById('i-' + g.icon));
  }
  check('four title', four.fourGame.title(null).name === 'Four in a row');
  // Targets, discs added by a diff, how a game ended, and the turn line.
  check('columnOf', four.columnOf('/columns/3') === 3 && four.columnOf('/columns/6/5') === 6 && four.columnOf('columns/0') === 0
    && four.columnOf('/columns/7') === null && four.columnOf('/tableau/1') === null && four.columnOf(null) === null);
  const empty = { columns: [[], [], [], [], [], [], []], rows: 6, turn: 'p1', first: 'p1', status: 'playing', winner: null, line: null, moves: 0 };
  const one = { ...empty, columns: [[], [], [], ['p1'], [], [], []], turn: 'p2', moves: 1 };
  const two = { ...one, columns: [[], [], [], ['p1', 'p2'], [], [], []], turn: 'p1', moves: 2 };
  check('added one', eq(four.addedDiscs(empty, one), [{ c: 3, r: 0, seat: 'p1' }]));
  check('added on top', eq(four.addedDiscs(one, two), [{ c: 3, r: 1, seat: 'p2' }]));
  check('cleared is no fall', eq(four.addedDiscs(two, empty), []));
  check('turns', four.turnText(one, 'p2') === 'Your turn' && four.turnText(one, 'p1') === "p2's turn" && four.turnText(one, undefined) === "p2's turn");
  check('waiting', four.turnText({ ...empty, status: 'waiting', turn: null }, 'p1') === 'Waiting for an opponent'
    && four.turnText({ ...empty, status: 'waiting', turn: null }, undefined) === 'Waiting for a second player');
  const won = { ...two, status: 'won', turn: null, winner: 'p1', line: [[0, 0], [1, 1], [2, 2], [3, 3]] };
  check('won by four', four.endOf(won) === 'four' && four.turnText(won, 'p1') === 'You won with four in a row' && four.turnText(won, 'p2') === 'p1 won with four in a row');
  const resigned = { ...two, status: 'won', turn: null, winner: 'p2', line: null };
  check('won by resigning', four.endOf(resigned) === 'resign' && four.turnText(resigned, 'p1') === 'p2 won: you resigned');
  check('won on time', four.endOf({ ...resigned, clocks: { p1: 0, p2: 5000, running: null } }) === 'time');
  check('drawn', four.endOf({ ...two, status: 'drawn', turn: null }) === 'drawn' && four.turnText({ ...two, status: 'drawn' }, 'p1') === 'Drawn: the board is full');
  // The board drawn by hand: discs, labels, the line, a hint.
  const host = document.createElement('div');
  host.style.width = '420px';
  document.body.append(host);
  const sentMoves = [];
  const view = four.fourGame.board(host, { interactive: true, send: (m) => { sentMoves.push(m); return Promise.resolve({}); }, you: () => 'p1' });
  view.setState(two, false);
  check('7 columns of 6', host.querySelectorAll('.four-col').length === 7 && host.querySelectorAll('.four-cell').length === 42);
  check('discs', host.querySelectorAll('.four-disc:not(.chip):not(.four-ghost):not(.four-tray-disc)').length === 2);
  check('column label', /^Column 4, 2 of 6: p1 red, p2 yellow/.test(host.querySelector('.four-col[data-col="3"]').getAttribute('aria-label')));
  check('my turn', host.querySelector('.four').dataset.mine === 'true');
  view.drop(5);
  check('tap sent', eq(sentMoves, [{ type: 'tap', target: '/columns/5' }]));
  view.setState(won, false);
  check('line', host.querySelector('.four-board').dataset.line === '0,0 1,1 2,2 3,3' && host.querySelectorAll('.four-line line').length === 2);
  view.showHint(2);
  check('hint', host.querySelector('.four-col.hinted')?.dataset.col === '2');
  view.destroy();
  host.remove();
  // Seats: a four in a row player asks for its own seat back on every join.
  const sent = [];
  const fake = { status: 'ready', cancel() {},
    on() { return () => {}; }, onOpen() { return () => {}; },
    request(body) { sent.push(body); return Promise.resolve({ type: 'ack' }); } };
  const seated = new GameSession(fake, { game: 'g', token: 't', role: 'player', adopt: true });
  seated.handle({ type: 'joined', game: 'g', kind: 'four', role: 'player', seq: 3, you: 'p2' });
  seated.held.hold(3, null);
  seated.rejoin();
  check('four join asks for its seat', sent[0].seat === 'p2' && sent[0].since === 3 && sent[0].token === 't');
  seated.close();
  // A move chosen from a board the server has moved past (a diff after a gap showed it) is not
  // sent: the client module refuses it `stale` (PROTOCOL section 21), and the page says so plainly.
  const gapped = new GameSession(fake, { game: 'g', token: 't', role: 'player', adopt: true });
  gapped.handle({ type: 'snapshot', game: 'g', kind: 'four', seq: 3, state: { columns: [] } });
  gapped.handle({ type: 'diff', game: 'g', seq: 5, ops: [] });
  const beforeTap = sent.length;
  let refused = null;
  await gapped.command({ type: 'tap', target: '/columns/0' }).catch((e) => { refused = e.code; });
  check('a move from before a gap is refused stale, not sent', refused === 'stale' && sent.length === beforeTap
    && gapped.seq === 3 && sent[sent.length - 1].type === 'join' && sent[sent.length - 1].since === 3);
  gapped.close();
"""


def test_four_logic_and_registry_in_the_browser(server, browser):
    """The registry of kinds, four in a row's pure helpers and board, and the session's seat rule for it."""
    assert len(page_checks(server, browser, FOUR_LOGIC_JS)) >= 30
