"""Turn clocks (PROTOCOL section 17) and bots (section 18) in the browser: a
whole clocked four in a row game against the computer on a phone and on a
desktop, a clock running out, a race against computer players, the lobby's
"Play the computer" tiles and rows, and the clock arithmetic of the page."""
from __future__ import annotations

import re
import time

import pytest
from selenium.webdriver.common.by import By

from conftest import RECORD_SENDS_JS, assert_no_console_errors, css, page_checks, screenshot, wait
from test_four import column, open_lobby, overlay, touch_tap, turn_text, wait_board

CLOCK_TEXT = re.compile(r"^(?:(\d+):)?(\d{1,2}):(\d{2})(?:\.(\d))?$")


def clock_ms(text: str) -> int:
    """A clock's face ("4:59", "1:02:03", "0:09.4") in ms."""
    m = CLOCK_TEXT.match(text.strip())
    assert m, f"not a clock: {text!r}"
    h, mm, ss, tenths = m.groups()
    return ((int(h or 0) * 60 + int(mm)) * 60 + int(ss)) * 1000 + int(tenths or 0) * 100


# The clocks as the page shows them: each seat's face, whether it runs, is low, is flagged.
CLOCKS_JS = """
return Object.fromEntries([...document.querySelectorAll('.four-seats .clock')].map(c => [c.dataset.seat, {
  text: c.querySelector('.clock-face').textContent, running: c.classList.contains('running'),
  low: c.classList.contains('low'), flagged: c.classList.contains('flagged'),
  flag: getComputedStyle(c.querySelector('.clock-flag')).display !== 'none',
  shown: !c.hidden && c.getBoundingClientRect().width > 0, color: getComputedStyle(c).color,
  near: c.closest('li')?.dataset.seat }]));
"""

# Every change of the running clock from now on, as the page shows it.
RECORD_RUNNING_JS = """
window.runningSeen = [document.querySelector('.four-seats').dataset.running];
new MutationObserver(() => {
  const r = document.querySelector('.four-seats').dataset.running;
  if (window.runningSeen[window.runningSeen.length - 1] !== r) window.runningSeen.push(r);
}).observe(document.querySelector('.four-seats'), { attributes: true, attributeFilter: ['data-running'] });
"""


def clocks(driver) -> dict:
    return driver.execute_script(CLOCKS_JS)


# ---- the page's arithmetic, and the board with made-up clocked states (any server) ----

CLOCK_LOGIC_JS = """
  const c = await import('/js/clocks.js');
  const bots = await import('/js/bots.js');
  const four = await import('/js/four.js');
  const race = await import('/js/race.js');
  // Faces: m:ss, h:mm:ss from an hour, tenths under 10 s, rounded down, never below 0.
  check('5:00', c.formatClock(300000) === '5:00');
  check('4:59', c.formatClock(299999) === '4:59');
  check('1:00:00', c.formatClock(3600000) === '1:00:00' && c.formatClock(3723000) === '1:02:03');
  check('59:59', c.formatClock(3599999) === '59:59');
  check('0:10', c.formatClock(10000) === '0:10');
  check('0:09.9', c.formatClock(9999) === '0:09.9' && c.formatClock(9400) === '0:09.4');
  check('0:00.0', c.formatClock(0) === '0:00.0' && c.formatClock(-5) === '0:00.0' && c.formatClock(NaN) === '0:00.0');
  check('0:00.0 at 99', c.formatClock(99) === '0:00.0' && c.formatClock(100) === '0:00.1');
  // Time left: stored for a stopped clock; stored less the time since `since` for the running one.
  const since = '2026-11-25T21:40:07.250Z', t0 = Date.parse(since);
  const clocks = { p1: 293500, p2: 300000, running: 'p2', since };
  check('parse ms', t0 % 1000 === 250);
  check('running at since', c.timeLeft(clocks, 'p2', t0) === 300000);
  check('running later', c.timeLeft(clocks, 'p2', t0 + 1250) === 298750);
  check('stopped does not run', c.timeLeft(clocks, 'p1', t0 + 99999) === 293500);
  check('never below 0', c.timeLeft(clocks, 'p2', t0 + 400000) === 0);
  check('no time given: stored', c.timeLeft(clocks, 'p2', null) === 300000);
  check('server behind since (skew): no extra time', c.timeLeft(clocks, 'p2', t0 - 5000) === 300000);
  check('none running', c.timeLeft({ ...clocks, running: null }, 'p2', t0 + 5000) === 300000);
  check('seats', JSON.stringify(c.clockSeats({ p10: 1, p2: 1, p1: 1, running: null, since })) === '["p1","p2","p10"]');
  check('labels', c.clockLabel({ initial: 300, increment: 5 }) === '5+5' && c.clockLabel({ initial: 60, increment: 0 }) === '1+0'
    && c.clockLabel({ initial: 90, increment: 2 }) === '90s+2' && c.clockLabel({ initial: 10, increment: 0 }) === '10s+0' && c.clockLabel(null) === '');
  // The offset: the server's `now` minus the page's time when it arrived.
  const sc = new c.ServerClock();
  const here = c.clientNow();
  check('sync', sc.sync('2026-11-25T21:40:07.250Z', here) && sc.offset === t0 - here);
  check('server now', Math.abs(sc.now() - t0) < 1000);
  check('bad now ignored', !sc.sync('yesterday') && sc.offset === t0 - here && !sc.sync(undefined));
  // The session learns the offset from every `joined`; a delayed spectator's clocks run `delay` behind.
  const { GameSession } = await import('/js/session.js');
  const fake = { status: 'ready', cancel() {}, on() { return () => {}; }, onOpen() { return () => {}; },
    request() { return Promise.resolve({ type: 'ack' }); } };
  const watching = new GameSession(fake, { game: 'g', role: 'spectator', adopt: true });
  const serverNow = c.clientNow() + 42000;
  watching.handle({ type: 'joined', game: 'g', kind: 'four', role: 'spectator', seq: 0, now: new Date(serverNow).toISOString(), delay: 30,
    bots: { p2: 3 }, clock: { initial: 300, increment: 5 } });
  check('session offset', Math.abs(watching.serverClock.offset - 42000) < 50 && Math.abs(watching.serverClock.now() - serverNow) < 200);
  check('delayed spectator', Math.abs(watching.shownNow() - (serverNow - 30000)) < 200);
  check('session bots and clock', eq(watching.bots, { p2: 3 }) && eq(watching.clockOption, { initial: 300, increment: 5 }));
  watching.close();
  const playing1 = new GameSession(fake, { game: 'h', token: 't', role: 'player', adopt: true });
  playing1.handle({ type: 'joined', game: 'h', kind: 'four', role: 'player', you: 'p1', seq: 0, now: new Date(serverNow).toISOString(), delay: 30 });
  check('a player sees no delay', Math.abs(playing1.shownNow() - serverNow) < 200 && eq(playing1.bots, {}) && playing1.clockOption === null);
  playing1.close();
  // Bots: levels, names.
  check('bots', eq(bots.botsOf({ p2: 2, p3: '1', p4: 0, p5: 'x' }), { p2: 2, p3: 1 }) && bots.botLevel({ p2: 3 }, 'p2') === 3 && bots.botLevel({ p2: 3 }, 'p1') === 0);
  check('bot name', bots.botName(2) === 'Computer (level 2)');
  check('summary', bots.botsSummary({ p2: 1 }) === 'vs the computer (level 1)' && bots.botsSummary({ p2: 2, p3: 2 }) === '2 computers (level 2)'
    && bots.botsSummary({}) === '' && bots.botsSummary(undefined) === '');
  // Create options: the person is p1, the computer p2; "computer starts" is first p2.
  check('four vs bot', eq(four.botGameOptions(2, 'you', '5+5'), { bots: { p2: 2 }, first: 'p1', clock: { initial: 300, increment: 5 } }));
  check('four vs bot, computer starts, no clock', eq(four.botGameOptions(3, 'computer', 'none'), { bots: { p2: 3 }, first: 'p2' }));
  check('four clocks offered', eq(four.BOT_CLOCKS.map(k => k.value), ['none', '1+0', '3+2', '5+5', '10+0']));
  check('race vs bots', eq(race.botRaceOptions(3, 2), { seats: 3, winnable: true, bots: { p2: 2, p3: 2 } }));
  // A lobby row counts the bots' seats as held: they are no connection of the server's `players`.
  const { seatedCount } = await import('/js/lobby.js');
  check('seated with bots', seatedCount({ players: 1, seats: 2, bots: { p2: 1 } }) === 2 && seatedCount({ players: 0, seats: 3, bots: { p2: 3, p3: 3 } }) === 2
    && seatedCount({ players: 1, seats: 2 }) === 1 && seatedCount({ players: 3, seats: 2, bots: { p2: 1 } }) === 2);
  // Turn lines and names with a bot.
  const playing = { columns: [[], [], [], ['p1'], [], [], []], rows: 6, turn: 'p2', first: 'p1', status: 'playing', winner: null, line: null, moves: 1 };
  check('computer to move', four.turnText(playing, 'p1', { p2: 1 }) === "Computer's turn" && four.turnText(playing, 'p1') === "p2's turn");
  const timeUp = { ...playing, status: 'won', turn: null, winner: 'p2', clocks: { p1: 0, p2: 4000, running: null, since } };
  check('time', four.endOf(timeUp) === 'time' && four.turnText(timeUp, 'p1', { p2: 1 }) === 'Computer won: you ran out of time');
  check('time, spectator', four.turnText(timeUp, undefined) === 'p2 won: p1 ran out of time');

  // The board with clocks: made-up states, the page's own time as the server's.
  const host = document.createElement('div');
  host.style.width = '600px';
  document.body.append(host);
  const offset = 0;
  const view = four.fourGame.board(host, { interactive: true, send: () => Promise.resolve({}), you: () => 'p1',
    now: () => c.clientNow() + offset, bots: () => ({ p2: 2 }) });
  const iso = (ms) => new Date(ms).toISOString();
  const face = (seat) => host.querySelector(`.clock[data-seat="${seat}"] .clock-face`).textContent;
  const clockOf = (seat) => host.querySelector(`.clock[data-seat="${seat}"]`);
  view.setState({ ...playing, turn: 'p1', clocks: { p1: 65000, p2: 300000, running: 'p1', since: iso(c.clientNow()) } }, false);
  check('a clock per seat in its legend item', ['p1', 'p2'].every(s => clockOf(s)?.closest('li')?.dataset.seat === s));
  check('faces', /^1:0[45]$/.test(face('p1')) && face('p2') === '5:00');
  check('running lit', clockOf('p1').classList.contains('running') && !clockOf('p2').classList.contains('running'));
  check('not low', !clockOf('p1').classList.contains('low'));
  check('bot seat named', host.querySelector('.four-seats li[data-seat="p2"]').textContent.includes('Computer (level 2)')
    && !!host.querySelector('.four-seats li[data-seat="p2"] .bot-tag use[href="#i-bot"]'));
  check('bot discs marked', host.querySelector('.four-col[data-col="3"] .four-disc[data-seat="p1"]').dataset.bot === undefined);
  // It counts down by itself, frame by frame.
  const first = Number(clockOf('p1').dataset.left);
  await new Promise(r => setTimeout(r, 1100));
  const later = Number(clockOf('p1').dataset.left);
  check('counts down', first - later >= 900 && first - later <= 1500);
  check('stopped stays', face('p2') === '5:00');
  // Low time: red under 20 s, tenths under 10 s.
  view.setState({ ...playing, turn: 'p1', clocks: { p1: 15000, p2: 300000, running: 'p1', since: iso(c.clientNow()) } }, false);
  check('low', clockOf('p1').classList.contains('low') && !clockOf('p1').classList.contains('tenths'));
  view.setState({ ...playing, turn: 'p1', clocks: { p1: 9000, p2: 300000, running: 'p1', since: iso(c.clientNow()) } }, false);
  check('tenths', clockOf('p1').classList.contains('tenths') && /^0:0[89]\\.\\d$/.test(face('p1')));
  // A server whose clock is 30 s ahead of ours: `since` is its time, the offset corrects it.
  const ahead = four.fourGame.board(document.createElement('div'), { interactive: false, send: () => Promise.resolve({}), you: () => undefined,
    now: () => c.clientNow() + 30000, bots: () => ({}) });
  ahead.setState({ ...playing, clocks: { p1: 60000, p2: 120000, running: 'p2', since: iso(c.clientNow() + 30000 - 1500) } }, false);
  check('offset applied', ahead.clocks.faces.get('p2').face.textContent === '1:58');
  ahead.destroy();
  // The bot's move: p2 runs now, p1's clock stopped with its increment.
  view.setState({ ...playing, columns: [[], [], [], ['p1', 'p2'], [], [], []], turn: 'p1', moves: 2,
    clocks: { p1: 62000, p2: 298000, running: 'p1', since: iso(c.clientNow()) } }, true);
  check('bot disc marked', host.querySelector('.four-col[data-col="3"] .four-disc[data-seat="p2"]').dataset.bot === '2');
  check('column label says computer', /p2 yellow \\(computer\\)/.test(host.querySelector('.four-col[data-col="3"]').getAttribute('aria-label')));
  // Out of time: the clock stops at 0 with its flag.
  view.setState({ ...playing, status: 'won', turn: null, winner: 'p2', clocks: { p1: 0, p2: 298000, running: null, since: iso(c.clientNow()) } }, false);
  check('flag', clockOf('p1').classList.contains('flagged') && face('p1') === '0:00.0' && !clockOf('p1').classList.contains('running')
    && getComputedStyle(clockOf('p1').querySelector('.clock-flag')).display !== 'none');
  check('no flag for the winner', !clockOf('p2').classList.contains('flagged') && face('p2') === '4:58');
  check('no loop when stopped', view.clocks.frame === 0);
  // No clocks in the state: none shown.
  view.setState({ ...playing }, false);
  check('no clocks', clockOf('p1').hidden && clockOf('p2').hidden && host.querySelector('.four').dataset.clocks === 'false');
  view.destroy();
  // A replay's board (no `now`): stored values, nothing runs.
  const still = four.fourGame.board(host, { interactive: false, send: () => Promise.resolve({}), you: () => undefined, replay: true });
  still.setState({ ...playing, clocks: { p1: 65000, p2: 300000, running: 'p2', since: iso(c.clientNow() - 60000) } }, false);
  check('replay shows stored', still.clocks.faces.get('p2').face.textContent === '5:00' && still.clocks.frame === 0);
  still.destroy();
  host.remove();
"""


def test_clock_logic_and_board_in_the_browser(server, browser):
    """The page's clock arithmetic (faces, time left, the server offset), bots' names and
    create options, and the four in a row board drawing made-up clocked states."""
    assert len(page_checks(server, browser, CLOCK_LOGIC_JS)) >= 45


# ---- against a server with clocks and bots (PROTOCOL sections 17 and 18) -------------------

@pytest.fixture(scope="module")
def clocked_server(server):
    """The session's server, which speaks sections 17 and 18."""
    return server


class Watcher:
    """The server's view of a game, from a spectator's connection: the state (kept with a
    generic RFC 6902 library), every diff's cause, and every event."""

    def __init__(self, client, game: str):
        self.c = client
        self.causes: list[dict] = []
        self.events: list[dict] = []
        for m in self.c.ok({"type": "watch", "game": game}):
            self._note(m)

    def _note(self, m: dict):
        if m.get("type") == "diff":
            self.causes.append(m.get("cause") or {})
        elif m.get("type") == "event":
            self.events.append(m)

    @property
    def state(self):
        return self.c.state

    def until(self, pred, timeout: float = 10, what: str = ""):
        deadline = time.monotonic() + timeout
        while not pred():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {what}: state {self.state}")
            try:
                self._note(self.c.recv(timeout=min(left, 1)))
            except TimeoutError:
                pass
        return self.state


def wins(columns: list[list[str]], c: int, seat: str) -> bool:
    """Whether dropping `seat`'s disc into column c makes four."""
    if len(columns[c]) >= 6:
        return False
    r = len(columns[c])
    at = lambda x, y: columns[x][y] if 0 <= x < 7 and 0 <= y < len(columns[x]) else None  # noqa: E731
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        n = 1
        for sign in (1, -1):
            x, y = c + sign * dx, r + sign * dy
            while at(x, y) == seat:
                n += 1
                x, y = x + sign * dx, y + sign * dy
        if n >= 4:
            return True
    return False


def choose(columns: list[list[str]]) -> int:
    """The person's column: a four if there is one, else a block, else the middle-most
    column that does not give the computer a four on top of it."""
    legal = [c for c in (3, 2, 4, 1, 5, 0, 6) if len(columns[c]) < 6]
    for seat in ("p1", "p2"):
        for c in legal:
            if wins(columns, c, seat):
                return c
    safe = [c for c in legal if not wins([col + ["p1"] if i == c else col for i, col in enumerate(columns)], c, "p2")]
    return (safe or legal)[0]


def choose_option(driver, select_id: str, value: str):
    driver.execute_script("const s = document.getElementById(arguments[0]); s.value = arguments[1]; s.dispatchEvent(new Event('change'));",
                          select_id, value)


def page_discs(driver) -> list[dict]:
    return driver.execute_script("""
      return [...document.querySelectorAll('.four-cell .four-disc:not(.four-ghost)')].map(d => ({ seat: d.dataset.seat, bot: d.dataset.bot ?? null }));""")


def row_text(driver, game: str) -> str | None:
    """A lobby row's text once it shows its bots (the lobby redraws its rows as it follows)."""
    rows = css(driver, f'.game-row[data-game="{game}"]')
    if not rows or not rows[0].find_elements(By.CSS_SELECTOR, ".bots"):
        return None
    return " ".join(rows[0].text.split())


def click(driver, selector: str):
    """Clicks an element that the page may draw again meanwhile (a stale one is found again)."""
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, selector).click() or True, 5, f"cannot click {selector}")


def running_on_page(driver):
    shown = clocks(driver)
    running = [seat for seat, c in shown.items() if c["running"]]
    return running[0] if running else None


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_clocked_game_against_the_computer(clocked_server, client, browser, size):
    """From the lobby's "Play the computer" tile, a whole clocked game against the level-1
    bot: the person plays until the game ends; the page shows a clock by each seat's name,
    lights the running one and passes it over after every move, counts the person's
    clock down on their turn, and marks the computer's seat and discs."""
    server = clocked_server
    phone = size == "phone"
    d = browser(width=390, height=844, mobile=True) if phone else browser(width=1280, height=860)
    open_lobby(server, d)
    d.execute_script(RECORD_SENDS_JS)
    tile = d.find_element(By.CSS_SELECTOR, '.create-tile[data-create="four-bot"]')
    assert "Play the computer" in d.find_element(By.CSS_SELECTOR, ".computer-games").text
    options = {
        "level": [o.get_attribute("value") + ":" + o.text for o in tile.find_elements(By.CSS_SELECTOR, "#four-bot-level option")],
        "first": [o.get_attribute("value") + ":" + o.text for o in tile.find_elements(By.CSS_SELECTOR, "#four-bot-first option")],
        "clock": [o.get_attribute("value") for o in tile.find_elements(By.CSS_SELECTOR, "#four-bot-clock option")],
    }
    assert options == {"level": ["1:Easy", "2:Medium", "3:Hard"], "first": ["you:You start", "computer:Computer starts"],
                       "clock": ["none", "1+0", "3+2", "5+5", "10+0"]}, options
    # The phone starts itself with 5+5; the desktop lets the computer start, with 3+2.
    starts, clock, expected_clock = ("you", "5+5", {"initial": 300, "increment": 5}) if phone else ("computer", "3+2", {"initial": 180, "increment": 2})
    choose_option(d, "four-bot-level", "1")
    choose_option(d, "four-bot-first", starts)
    choose_option(d, "four-bot-clock", clock)
    d.execute_script("document.querySelector('.tile-four-bot').scrollIntoView({block: 'center'})")
    screenshot(d, f"clocks-lobby-{size}")
    click(d, ".start-four-bot")
    wait(d, lambda d: "#/play/" in d.current_url, 10, "Play did not open the game")
    create = [m for m in d.execute_script("return window.sentLog") if m["type"] == "create"][0]
    assert {k: v for k, v in create.items() if k != "id"} == {
        "type": "create", "kind": "four",
        "options": {"bots": {"p2": 1}, "first": "p1" if starts == "you" else "p2", "clock": expected_clock}}, create
    game = re.search(r"#/play/([^/]+)/", d.current_url).group(1)
    wait(d, lambda d: d.execute_script("return window.boardcast.view?.session?.you") == "p1", 10)
    session = d.execute_script("const s = window.boardcast.view.session; return { bots: s.bots, clock: s.clockOption, synced: s.serverClock.synced };")
    assert session == {"bots": {"p2": 1}, "clock": expected_clock, "synced": True}, session

    w = Watcher(client(), game)
    state = w.until(lambda: w.state["status"] == "playing", 10, "the game to start")
    assert set(state["clocks"]) >= {"p1", "p2", "running", "since"}, state
    wait(d, lambda d: all(c["shown"] for c in clocks(d).values()) and len(clocks(d)) == 2, 10, "no clocks on the page")
    d.execute_script(RECORD_RUNNING_JS)

    # The computer's seat: a robot and its name; ours: you.
    p2 = d.find_element(By.CSS_SELECTOR, '.four-seats li[data-seat="p2"]')
    assert p2.get_attribute("data-bot") == "1" and p2.find_elements(By.CSS_SELECTOR, '.bot-tag use[href="#i-bot"]')
    seen_text = " ".join(p2.text.split())  # what shows, flex items and all, on one line
    # A phone shows "Computer" and a small "L1" badge; a wide screen "Computer (level 1)".
    assert (re.search(r"Computer ?L1", seen_text) and "level" not in seen_text) if phone else "Computer (level 1)" in seen_text, seen_text
    you = " ".join(d.find_element(By.CSS_SELECTOR, '.four-seats li[data-seat="p1"]').text.split())
    assert you.startswith("You" if phone else "p1 (you)"), you
    shown = clocks(d)
    assert {s: c["near"] for s, c in shown.items()} == {"p1": "p1", "p2": "p2"}, shown
    # The stats row is drawn again on every move (the computer's may come now): read it in one go.
    stat = d.execute_script("return document.querySelector('.stat.clock-option')?.textContent ?? ''")
    assert clock in stat, stat

    human_moves = 0
    checked_countdown = 0
    while w.state["status"] == "playing":
        state = w.state
        if state["turn"] == "p2":
            seq = w.c.seq
            w.until(lambda: w.c.seq > seq, 6, "the computer's move (within 2 s)")
            continue
        # Our turn: the page says so, and only our clock runs.
        wait(d, lambda d: turn_text(d) == "Your turn" and running_on_page(d) == "p1", 10, "our turn with our clock running")
        wait_board(d, state["columns"])
        if checked_countdown < 2 and human_moves in (0, 3):
            # Our clock counts down on our turn (read twice, 1.2 s apart); the computer's stands still.
            before = clocks(d)
            t0 = time.monotonic()
            after = wait(d, lambda d: time.monotonic() - t0 >= 1.2 and clocks(d), 5)
            spent = clock_ms(before["p1"]["text"]) - clock_ms(after["p1"]["text"])
            assert 1000 <= spent <= 2600, (before, after)
            assert after["p2"]["text"] == before["p2"]["text"] and not after["p2"]["running"], (before, after)
            checked_countdown += 1
        if human_moves == 2:
            screenshot(d, f"clocks-{size}-playing")
        c = choose(state["columns"])
        seq = w.c.seq
        if phone:
            wait(d, lambda d: touch_tap(d, column(d, c)) or True, 5)
        else:
            click(d, f'.four-col[data-col="{c}"]')
        human_moves += 1
        state = w.until(lambda: w.c.seq > seq, 10, f"our move into column {c}")
        assert state["columns"][c][-1] == "p1", state
        if state["status"] == "playing":
            # The clock passes to the computer (the page may already show it back with us).
            assert state["clocks"]["running"] == "p2", state["clocks"]
        assert human_moves <= 21, "the game does not end"

    final = w.until(lambda: w.events, 5, "the end event")
    end = w.events[-1]
    assert end["event"] in ("won", "drawn"), end
    wait_board(d, final["columns"])
    wait(d, lambda d: overlay(d)["shown"], 10, "no message at the end of the game")
    o = overlay(d)
    assert o["kind"] == "four-end" and o["result"] in ("won", "lost", "drawn"), o
    if o["result"] == "lost":
        assert "computer" in o["why"].lower(), o

    # The bot's moves were its own: diffs by p2 with "bot": true.
    bot_causes = [c for c in w.causes if c.get("by") == "p2"]
    assert bot_causes and all(c.get("bot") is True for c in bot_causes), w.causes
    # Its discs are marked as the computer's; ours are not.
    discs = page_discs(d)
    assert discs and all((x["bot"] == "1") == (x["seat"] == "p2") for x in discs), discs
    assert sum(1 for x in discs if x["seat"] == "p2") == sum(len([s for s in col if s == "p2"]) for col in final["columns"])
    # The clocks stay in sight, stopped at what the server stored.
    wait(d, lambda d: running_on_page(d) is None, 5)
    shown = clocks(d)
    assert all(c["shown"] for c in shown.values()), shown
    for seat in ("p1", "p2"):
        assert abs(clock_ms(shown[seat]["text"]) - final["clocks"][seat]) < 1000, (shown, final["clocks"])
    # The running clock changed after every move: p1 and p2 by turns, then none.
    seen = d.execute_script("return window.runningSeen")
    assert seen[-1] == "", seen
    alternating = [s for s in seen if s]
    assert all(a != b for a, b in zip(alternating, alternating[1:])), seen
    assert len(alternating) >= 2 * human_moves - 1, (seen, human_moves)
    screenshot(d, f"clocks-{size}-end")
    assert_no_console_errors(d)


def test_clock_runs_out(clocked_server, client, browser):
    """A 10-second clock against the computer, the person to move and not moving: the
    clock goes red, shows tenths, and runs out; the server ends the game on time and the
    page shows the flag and says so. The lobby row shows the bot and the clock."""
    server = clocked_server
    creator = client()
    creator.ok({"type": "create", "kind": "four", "options": {"clock": {"initial": 10, "increment": 0}, "bots": {"p2": 1}, "first": "p1"}})
    game, token = creator.game, creator.token
    assert creator.state["status"] == "playing" and creator.state["clocks"]["running"] == "p1", creator.state
    # The page takes the seat over: the program leaves it.
    creator.ok({"type": "leave"})
    w = Watcher(client(), game)
    d = browser(width=390, height=844, mobile=True)
    d.get(f"{server.url}/#/play/{game}/{token}")
    wait(d, lambda d: d.execute_script("return window.boardcast.view?.session?.you") == "p1", 10, "the page did not sit down at p1")
    wait(d, lambda d: clocks(d).get("p1", {}).get("running"), 10, "our clock does not run")
    # Under 10 s: red, with tenths.
    wait(d, lambda d: (lambda c: c["low"] and re.fullmatch(r"0:0\d\.\d", c["text"]))(clocks(d)["p1"]), 10, "no low-time warning")
    def reddish(color: str) -> bool:
        r, g, b = (float(x) for x in re.findall(r"[\d.]+", color)[:3])
        return r > 150 and r > 2 * g and r > 2 * b
    wait(d, lambda d: reddish(clocks(d)["p1"]["color"]), 3, "the low clock is not red")
    t0 = time.monotonic()
    tenths = wait(d, lambda d: time.monotonic() - t0 >= 0.35 and clocks(d)["p1"]["text"], 5)
    assert tenths != clocks(d)["p2"]["text"]
    screenshot(d, "clocks-timeout-low")

    wait(d, lambda d: overlay(d)["shown"], 15, "no message when the clock ran out")
    o = overlay(d)
    assert o["title"] == "You lost" and o["why"] == "You ran out of time" and o["result"] == "lost", o
    assert d.find_element(By.CSS_SELECTOR, ".won-overlay").get_attribute("data-reason") == "time"
    w.until(lambda: any(e.get("reason") == "time" for e in w.events), 5, "the won event on time")
    assert {"type": "timeout", "seat": "p1"}.items() <= w.causes[-1].items() and "by" not in w.causes[-1], w.causes
    assert w.state["status"] == "won" and w.state["winner"] == "p2" and w.state["clocks"]["p1"] == 0 and w.state["clocks"]["running"] is None, w.state
    shown = clocks(d)
    assert shown["p1"]["flagged"] and shown["p1"]["flag"] and shown["p1"]["text"] == "0:00.0" and not shown["p1"]["running"], shown
    assert not shown["p2"]["flagged"] and not shown["p2"]["flag"], shown
    assert turn_text(d) == "Computer won: you ran out of time"
    screenshot(d, "clocks-timeout")

    # The lobby's row: the computer and the clock.
    click(d, ".won-overlay .won-close")
    click(d, "a.back")
    row = wait(d, lambda d: row_text(d, game), 10, "the lobby row does not show the bot")
    assert "vs the computer (level 1)" in row and "10s+0" in row, row
    assert_no_console_errors(d)


def test_race_against_the_computer(clocked_server, client, browser):
    """The lobby's race against the computer: two rivals at level 3 on a winnable deal;
    their tables say the computer plays them, and they move by themselves."""
    server = clocked_server
    d = browser(width=1280, height=860)
    open_lobby(server, d)
    d.execute_script(RECORD_SENDS_JS)
    choose_option(d, "race-bot-seats", "3")
    choose_option(d, "race-bot-level", "3")
    click(d, ".start-race-bot")
    wait(d, lambda d: "#/play/" in d.current_url, 10, "Start did not open the race")
    create = [m for m in d.execute_script("return window.sentLog") if m["type"] == "create"][0]
    assert {k: v for k, v in create.items() if k != "id"} == {
        "type": "create", "kind": "race", "options": {"seats": 3, "winnable": True, "bots": {"p2": 3, "p3": 3}}}, create
    game = re.search(r"#/play/([^/]+)/", d.current_url).group(1)
    wait(d, lambda d: len(css(d, ".race-seat")) == 3, 10)
    seats = lambda: d.execute_script("""
      return Object.fromEntries([...document.querySelectorAll('.race-seat')].map(f => [f.dataset.seat,
        { bot: f.dataset.bot ?? null, caption: f.querySelector('.seat-caption').innerText,
          tag: !!f.querySelector('.seat-caption .bot-tag use[href="#i-bot"]') }]));""")
    s = seats()
    assert s["p1"]["bot"] is None and not s["p1"]["tag"] and "You" in s["p1"]["caption"], s
    for seat in ("p2", "p3"):
        assert s[seat]["bot"] == "3" and s[seat]["tag"] and "Computer" in s[seat]["caption"] and "L3" in s[seat]["caption"], s
    # The computer plays: its tables' move counts go up by themselves (a move every 0.6 s at level 3).
    moves = lambda seat: int(re.search(r"(\d+) moves?", seats()[seat]["caption"]).group(1))  # noqa: E731
    wait(d, lambda d: moves("p2") >= 3 and moves("p3") >= 3, 15, "the computer's tables do not move")
    screenshot(d, "bots-race-desktop")
    w = Watcher(client(), game)
    w.until(lambda: any(c.get("bot") for c in w.causes), 5, "a bot's diff")
    assert all(c.get("by") in ("p2", "p3") for c in w.causes if c.get("bot")), w.causes
    # The lobby's row says who plays.
    click(d, "a.back")
    row = wait(d, lambda d: row_text(d, game), 10, "the lobby row does not show the bots")
    assert "2 computers (level 3)" in row, row
    assert re.search(r"\b[23] of 3 seated", row), row
    d.execute_script("document.querySelector('.game-list').scrollIntoView()")
    screenshot(d, "bots-lobby-rows")
    assert_no_console_errors(d)
