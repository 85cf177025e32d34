"""Tic-tac-toe in the browser, from this package's page module (web/tictactoe/index.js, listed at
/api/pages and loaded by Boardcast's page): the lobby's tile starts a game at 1280x800, a phone
(390x844) opens the play link and takes O, they play to a win by clicking and tapping cells, both
see the winning line and the result beside or under the board (never over it), and "New game"
starts the next one with O first. A websocket spectator holds the server's state throughout."""
from __future__ import annotations

import re

from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By

import boardcast_browser as bc  # Boardcast's Tests/browser/conftest.py, loaded by ./conftest.py

WAIT = 20  # generous: a busy 2-core machine; every wait returns as soon as its condition holds

# The board as drawn: each cell's seat (null for empty).
CELLS_JS = "return [...document.querySelectorAll('.ttt-cell')].map(c => c.dataset.seat ?? null)"

# What a player sees at the end: the result, the board, and whether anything lies over the board.
END_JS = """
const o = document.querySelector('.won-overlay'), frame = document.querySelector('.ttt-frame');
const b = frame.getBoundingClientRect(), r = o.getBoundingClientRect();
const bar = document.querySelector('.game-bar .tools');
const floor = bar && getComputedStyle(bar).position === 'fixed' ? bar.getBoundingClientRect().top : innerHeight;
const covered = [];
for (let i = 1; i < 6; i++) for (let j = 1; j < 6; j++) {
  const x = b.left + b.width * i / 6, y = b.top + b.height * j / 6;
  const hit = document.elementFromPoint(x, y);
  if (!hit || !hit.closest('.ttt-frame')) covered.push(`${Math.round(x)},${Math.round(y)}: ${hit ? hit.className : 'nothing'}`);
}
// The winning line's ends (in the board's 300-unit box) against the centres of the cells it crosses, in cell widths.
const stroke = document.querySelector('.ttt-line line'), box = document.querySelector('.ttt-line').getBoundingClientRect();
const at = (x, y) => [box.left + x * box.width / 300, box.top + y * box.height / 300];
const ends = stroke ? [at(+stroke.getAttribute('x1'), +stroke.getAttribute('y1')), at(+stroke.getAttribute('x2'), +stroke.getAttribute('y2'))] : null;
const off = [...document.querySelectorAll('.ttt-cell.win')].map(c => {
  const q = c.getBoundingClientRect(), px = q.left + q.width / 2, py = q.top + q.height / 2;
  if (!ends) return Infinity;
  const [[ax, ay], [bx, by]] = ends, len = Math.hypot(bx - ax, by - ay);
  return Math.abs((bx - ax) * (ay - py) - (ax - px) * (by - ay)) / len / q.width;
});
return { shown: !o.hidden && r.height > 0, lineOff: off.length ? Math.max(...off) : null, kind: o.dataset.kind, result: o.dataset.result,
  title: o.querySelector('#won-title')?.textContent ?? '', why: o.querySelector('.ttt-why')?.textContent ?? '',
  buttons: [...o.querySelectorAll('.btn')].map(x => x.textContent),
  overlaps: b.left < r.right && r.left < b.right && b.top < r.bottom && r.top < b.bottom,
  boardInView: b.top >= 0 && b.bottom <= floor + 0.5 && b.left >= 0 && b.right <= innerWidth,
  resultInView: r.top >= 0 && r.bottom <= floor + 0.5, covered,
  line: document.querySelector('.ttt-board').dataset.line, drawn: !!document.querySelector('.ttt-line line'),
  wins: [...document.querySelectorAll('.ttt-cell.win')].map(c => Number(c.dataset.cell)),
  turn: document.querySelector('.ttt-turn-text')?.textContent ?? '' };
"""


def cell(driver, n: int):
    return driver.find_element(By.CSS_SELECTOR, f'.ttt-cell[data-cell="{n}"]')


def touch_tap(driver, element):
    """A finger's tap on the element's centre."""
    finger = PointerInput(interaction.POINTER_TOUCH, "finger")
    actions = ActionBuilder(driver, mouse=finger, duration=20)
    r = element.rect
    actions.pointer_action.move_to_location(int(r["x"] + r["width"] / 2), int(r["y"] + r["height"] / 2)).pointer_down().pointer_up()
    actions.perform()


def turn_text(driver) -> str:
    found = bc.css(driver, ".ttt-turn-text")
    return found[0].text if found else ""


def wait_turn(driver, text: str):
    try:
        bc.wait(driver, lambda d: turn_text(d) == text, WAIT)
    except Exception:
        raise AssertionError(f"turn line is {turn_text(driver)!r}, expected {text!r}")


def wait_cells(driver, cells: list):
    try:
        bc.wait(driver, lambda d: d.execute_script(CELLS_JS) == cells, WAIT)
    except Exception:
        raise AssertionError(f"board differs:\n page:     {driver.execute_script(CELLS_JS)}\n expected: {cells}")


def test_tictactoe_from_the_lobby_tile_to_a_win_on_desktop_and_phone(server, client, browser):
    # The lobby lists the kind once the page loaded the module /api/pages names.
    p1 = browser(width=1280, height=800)
    p1.get(server.url + "/")
    bc.wait(p1, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "open", WAIT)
    tile = bc.wait(p1, lambda d: (bc.css(d, '.create-tile[data-create="tictactoe"]') or [None])[0], WAIT, "no Tic-tac-toe tile")
    assert "Tic-tac-toe" in tile.text, tile.text
    assert p1.execute_script("return !!document.querySelector('svg symbol#i-tictactoe path')"), "the module's icon is in the sprite"
    assert tile.find_element(By.CSS_SELECTOR, ".tile-art use").get_dom_attribute("href") == "#i-tictactoe"
    bc.screenshot(p1, "tictactoe-desktop-lobby")
    p1.execute_script(bc.RECORD_SENDS_JS)
    tile.find_element(By.CSS_SELECTOR, ".start-tictactoe").click()
    bc.wait(p1, lambda d: "#/play/" in d.current_url, WAIT, "starting tic-tac-toe did not open its play link")
    create = p1.execute_script("return window.sentLog.filter(m => m.type === 'create')")[0]
    assert create["kind"] == "tictactoe" and "clock" not in create.get("options", {}), create
    game, token = re.search(r"#/play/([^/]+)/([^/]+)$", p1.current_url).groups()
    bc.wait(p1, lambda d: len(bc.css(d, ".ttt-cell")) == 9, WAIT, "no board of 3 x 3")
    bc.wait(p1, lambda d: d.execute_script("return window.boardcast.view.session.you") == "p1", WAIT)
    bc.wait(p1, lambda d: turn_text(d).startswith("Waiting for an opponent"), WAIT)
    labels = p1.execute_script("return [...document.querySelectorAll('.ttt-cell')].map(c => c.getAttribute('aria-label'))")
    assert labels[5] == "row 2, column 3, empty", labels
    play_url = p1.find_element(By.CSS_SELECTOR, ".share-play").get_attribute("data-url")
    assert play_url == f"{server.url}/#/play/{game}/{token}", play_url

    watcher = client()  # the server's view of the game, kept with a generic RFC 6902 library
    watcher.ok({"type": "watch", "game": game})
    assert watcher.state["status"] == "waiting" and watcher.state["cells"] == [None] * 9, watcher.state

    # A phone opens the play link: it takes p2 (O), which starts the game, p1 (X) to move.
    p2 = browser(width=390, height=844, mobile=True)
    p2.get(play_url)
    bc.wait(p2, lambda d: d.execute_script("return window.boardcast.view?.session?.you") == "p2", WAIT, "p2 did not take the second seat")
    state = bc.follow(watcher, 1, timeout=WAIT)
    assert (state["status"], state["turn"]) == ("playing", "p1"), state
    wait_turn(p1, "Your turn")
    wait_turn(p2, "p1's turn")
    bc.wait(p2, lambda d: len(bc.css(d, ".ttt-cell")) == 9, WAIT)
    fit = p2.execute_script("""const b = document.querySelector('.ttt-frame').getBoundingClientRect();
      return { left: b.left, right: b.right, cell: document.querySelector('.ttt-cell').getBoundingClientRect().width,
               scrollWidth: document.documentElement.scrollWidth };""")
    assert fit["left"] >= 0 and fit["right"] <= 390 and fit["scrollWidth"] <= 390 and fit["cell"] >= 60, fit
    bc.screenshot(p2, "tictactoe-phone-start")

    # Out of turn: the server says why, in a toast, and nothing changes.
    touch_tap(p2, cell(p2, 4))
    bc.wait(p2, lambda d: bc.css(d, "#toasts .toast.error"), WAIT, "no toast for a move out of turn")
    watcher.drain()
    assert watcher.seq == 1, "a refused move changed the game"

    seq = watcher.seq
    for page, n in ((p1, 0), (p2, 3), (p1, 1), (p2, 4), (p1, 2)):
        if page is p1:
            cell(p1, n).click()
        else:
            touch_tap(p2, cell(p2, n))
        state = bc.follow(watcher, seq + 1, timeout=WAIT)
        seq = watcher.seq
        for d in (p1, p2):
            wait_cells(d, state["cells"])
            bc.wait(d, lambda d: d.find_element(By.CSS_SELECTOR, ".ttt-board").get_attribute("data-last") == str(n), WAIT,
                    f"the last move ({n}) is not marked")
        if state["status"] == "playing":
            wait_turn(p1, "Your turn" if state["turn"] == "p1" else "p2's turn")
            wait_turn(p2, "Your turn" if state["turn"] == "p2" else "p1's turn")
    assert (state["status"], state["winner"], state["line"], state["moves"]) == ("won", "p1", [0, 1, 2], 5), state

    # The result for both, the winning line drawn, and nothing over the board.
    expected = {id(p1): ("You won!", "won", "You won with three in a row", "Three in a row for you"),
                id(p2): ("You lost", "lost", "p1 won with three in a row", "Three in a row for p1")}
    for d in (p1, p2):
        bc.wait(d, lambda d: d.execute_script(END_JS)["shown"], WAIT, "no result shown")
        end = d.execute_script(END_JS)
        title, result, turn, why = expected[id(d)]
        assert (end["title"], end["result"], end["kind"], end["turn"], end["why"]) == (title, result, "ttt-end", turn, why), end
        assert end["line"] == "0 1 2" and end["wins"] == [0, 1, 2] and end["drawn"], end
        assert end["lineOff"] < 0.08, f"the winning line misses the centres of its cells: {end}"
        assert "New game" in end["buttons"], end
        assert not end["overlaps"] and not end["covered"], f"the result covers the board: {end}"
        assert end["boardInView"] and end["resultInView"], f"the board and the result are not both in sight: {end}"
    bc.screenshot(p1, "tictactoe-desktop-won")
    bc.screenshot(p2, "tictactoe-phone-won")

    # New game (the protocol's reset): O moves first, the result goes.
    p2.find_element(By.CSS_SELECTOR, ".won-overlay .won-new").click()
    state = bc.follow(watcher, seq + 1, timeout=WAIT)
    assert (state["status"], state["first"], state["turn"], state["cells"]) == ("playing", "p2", "p2", [None] * 9), state
    for d in (p1, p2):
        wait_cells(d, [None] * 9)
        bc.wait(d, lambda d: not d.execute_script(END_JS)["shown"], WAIT, "the result stays after a new game")
    wait_turn(p2, "Your turn")
    wait_turn(p1, "p2's turn")
    bc.assert_no_console_errors(p1)
    bc.assert_no_console_errors(p2)
