"""Races in the browser (PROTOCOL section 13): players at their own tables, rivals
small and masked, spectators seeing every table, the podium, and seats kept
across a reconnect. Also the winnable-deal choice and the solver's verdict
(section 12)."""
from __future__ import annotations

from selenium.webdriver.common.by import By

from conftest import (RECORD_SENDS_JS, assert_no_console_errors, css, follow, ordered_deck, page_checks, screenshot,
                      wait)
from kl import PILES, SEND_MOVES_JS, double_click, settled, state_piles, winnable_race, winning_moves

# Tableau tops: AH on pile 0, 9S on 2, 8H on 3, TD on 4; the first stock card is AS.
DECK = ordered_deck(i0="AH", i13="9S", i18="8H", i22="TD", i28="AS")

SEATS_JS = """
const out = {};
for (const f of document.querySelectorAll('.race-seat')) {
  const piles = {};
  for (const c of f.querySelectorAll('.kl-table .card')) (piles[c.dataset.pile] ||= []).push([Number(c.dataset.index), c.dataset.card]);
  for (const k in piles) piles[k] = piles[k].sort((a, b) => a[0] - b[0]).map(x => x[1]);
  const r = f.querySelector('.kl-table').getBoundingClientRect();
  out[f.dataset.seat] = {piles, rect: {x: r.left, y: r.top, width: r.width, height: r.height},
                         own: !!f.closest('.race-own'), rival: !!f.closest('.race-rivals'),
                         readOnly: f.querySelector('.kl-table').classList.contains('read-only'),
                         caption: f.querySelector('.seat-caption').textContent};
}
return out;
"""


def seats(driver) -> dict:
    """Every race table on the page: its piles as drawn, where it is, and what it is."""
    found = driver.execute_script(SEATS_JS)
    for seat in found.values():
        seat["piles"] = {p: seat["piles"].get(p, []) for p in PILES}
    return found


def wait_seat(driver, seat: str, table: dict, timeout: float = 10):
    """Waits until the page draws the seat's table exactly as `table` (a Klondike state)."""
    expected = state_piles(table)
    try:
        wait(driver, lambda d: seat in seats(d) and seats(d)[seat]["piles"] == expected, timeout)
    except Exception:
        raise AssertionError(f"{seat} differs:\n page:     {seats(driver).get(seat, {}).get('piles')}\n expected: {expected}")


def banner(driver) -> str:
    found = css(driver, ".race-banner")
    return found[0].text if found and found[0].is_displayed() else ""


def masked(table: dict) -> list[str]:
    return table["stock"] + table["waste"] + [c for pile in table["tableau"] for c in pile]


def test_race_with_a_spectator(server, client, browser):
    """Two players (a websocket client and a browser) and a spectator page: the
    spectator sees both tables side by side and every move; the player sees
    their own table large and the rival small, masked."""
    p1 = client()
    p1.ok({"type": "create", "kind": "race", "options": {"seats": 2, "deck": DECK}})
    game, token = p1.game, p1.token
    assert p1.state["status"] == "waiting"

    # The spectator finds the race in the lobby and watches it.
    spectator = browser(width=1280, height=900)
    spectator.get(server.url + "/")
    row = f'.game-row[data-game="{game}"]'
    wait(spectator, lambda d: css(d, row), 10, "race not listed")
    text = wait(spectator, lambda d: d.find_element(By.CSS_SELECTOR, row).text)
    assert "Race \u00b7 2 seats" in text and "Waiting for players" in text and "1 of 2 seated" in text, text
    wait(spectator, lambda d: d.find_element(By.CSS_SELECTOR, f"{row} a.watch").click() or True)
    wait(spectator, lambda d: len(css(d, ".race-seat .kl-table .card")) == 104, 10, "the spectator does not see two tables")
    wait(spectator, lambda d: "Waiting for players: 1 of 2 seats taken" in banner(d), 5, "no waiting line")
    screenshot(spectator, "race-waiting-spectator")

    # The second player opens the play link: the race starts.
    player = browser(width=1280, height=900)
    player.get(f"{server.url}/#/play/{game}/{token}")
    wait(player, lambda d: len(css(d, ".race-seat .kl-table .card")) == 104, 10, "the player does not see two tables")
    follow(p1, 1)
    assert p1.state["status"] == "playing"
    assert player.execute_script("return window.boardcast.view.session.you") == "p2"
    wait(spectator, lambda d: not banner(d), 5, "the waiting line stays after the start")
    wait(player, lambda d: "Racing" in d.find_element(By.CSS_SELECTOR, ".stats").text, 5)

    # The player's page: their own table large and playable, the rival small, read-only, masked.
    mine = seats(player)
    assert mine["p2"]["own"] and not mine["p2"]["readOnly"] and "You" in mine["p2"]["caption"]
    assert mine["p1"]["rival"] and mine["p1"]["readOnly"]
    assert mine["p2"]["rect"]["width"] > 2.5 * mine["p1"]["rect"]["width"], mine
    assert mine["p1"]["rect"]["x"] > mine["p2"]["rect"]["x"] + mine["p2"]["rect"]["width"] - 1, "the rival is not beside the own table"
    assert set(masked({"stock": mine["p1"]["piles"]["/stock"], "waste": mine["p1"]["piles"]["/waste"],
                       "tableau": [mine["p1"]["piles"][f"/tableau/{i}"] for i in range(7)]})) == {"??"}
    assert mine["p2"]["piles"]["/tableau/0"] == ["AH"], "the own table shows its face-up cards"

    # The spectator's page: both tables side by side, real cards on both.
    both = seats(spectator)
    assert abs(both["p1"]["rect"]["y"] - both["p2"]["rect"]["y"]) < 1, both
    assert both["p2"]["rect"]["x"] >= both["p1"]["rect"]["x"] + both["p1"]["rect"]["width"], both
    assert abs(both["p1"]["rect"]["width"] - both["p2"]["rect"]["width"]) < 1
    assert both["p1"]["piles"]["/tableau/0"] == ["AH"] and both["p2"]["piles"]["/tableau/0"] == ["AH"]

    # The player double-clicks their Ace home: the spectator sees it on p2's table.
    wait(player, lambda d: settled(d))
    ace = player.find_element(By.CSS_SELECTOR, '.race-own .card[data-card="AH"]')
    double_click(player, ace)
    state = follow(p1, 2)
    assert state["tables"]["p1"]["foundations"][0] == [], "a rival's move changes only their table"
    wait(spectator, lambda d: seats(d)["p2"]["piles"]["/foundations/0"] == ["AH"], 10, "the spectator did not see the move")
    wait(player, lambda d: seats(d)["p2"]["piles"]["/foundations/0"] == ["AH"])

    # p1 draws from the stock: the spectator sees the Ace of spades, the player only a back.
    p1.ok({"type": "tap", "target": "/stock"})
    wait(spectator, lambda d: seats(d)["p1"]["piles"]["/waste"] == ["AS"], 10)
    wait(player, lambda d: seats(d)["p1"]["piles"]["/waste"] == ["??"], 10, "the rival's waste is not masked")
    assert "1/52" in seats(player)["p2"]["caption"]
    screenshot(player, "race-player")
    screenshot(spectator, "race-spectator")

    # A phone spectator: one table large, the other a thumbnail to switch to.
    phone = browser(width=390, height=844, mobile=True)
    phone.get(f"{server.url}/#/watch/{game}")
    wait(phone, lambda d: len(css(d, ".race-seat .kl-table .card")) == 104, 10)
    small = seats(phone)
    assert small["p1"]["rect"]["width"] > 300 and small["p2"]["rect"]["width"] < 130, small
    screenshot(phone, "race-spectator-phone")
    wide = phone.execute_script("return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 391).map(e => e.tagName + '.' + e.className).slice(0, 12)")
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 390, wide
    phone.find_element(By.CSS_SELECTOR, '.race-seat[data-seat="p2"] .seat-switch').click()
    wait(phone, lambda d: seats(d)["p2"]["rect"]["width"] > 300 and seats(d)["p1"]["rect"]["width"] < 130, 5, "the thumbnail did not switch")
    screenshot(phone, "race-spectator-phone-switched")

    for d in (player, spectator, phone):
        assert_no_console_errors(d)


def test_race_podium_and_new_race(server, client, browser):
    p1, player, spectator = winnable_race(server, client, browser)

    # p2, the browser, plays to the last card, then double-clicks it home: first!
    moves = winning_moves(client)
    assert player.execute_async_script(SEND_MOVES_JS, moves[:-1]) is None
    pile = int(moves[-1]["target"].rsplit("/", 1)[1])
    last = player.execute_script("return window.boardcast.view.session.state.tables.p2.tableau[arguments[0]].slice(-1)[0]", pile)
    wait(player, lambda d: settled(d))
    double_click(player, player.find_element(By.CSS_SELECTOR, f'.race-own .card[data-card="{last}"]'))
    wait(player, lambda d: d.find_element(By.CSS_SELECTOR, ".won-overlay").is_displayed(), 10, "no message for the winner")
    assert "You finished 1st!" in player.find_element(By.CSS_SELECTOR, ".won-overlay").text
    assert player.find_element(By.CSS_SELECTOR, '.won-stats dd[data-stat="moves"]').text == str(len(moves))
    wait(spectator, lambda d: "P2 finished 1st" in d.find_element(By.ID, "toasts").text, 5)
    for d in (player, spectator):
        wait(d, lambda d: "1st" in banner(d) and "P2" in banner(d) and "1 still playing" in banner(d), 10, "no podium after the first win")
    assert not spectator.find_element(By.CSS_SELECTOR, ".won-overlay").is_displayed()
    assert "1st" in seats(spectator)["p2"]["caption"]
    screenshot(player, "race-first-player")
    player.find_element(By.CSS_SELECTOR, ".won-overlay .won-close").click()
    assert not player.find_element(By.CSS_SELECTOR, ".won-overlay").is_displayed()

    # p1 finishes second: the race is over, everyone sees the full podium.
    for move in moves:
        p1.ok(move)
    for d in (player, spectator):
        wait(d, lambda d: d.find_element(By.CSS_SELECTOR, ".won-overlay").is_displayed(), 10, "no podium at the end")
        text = d.find_element(By.CSS_SELECTOR, ".won-overlay").text
        assert "Race finished" in text, text
        places = d.execute_script("return [...document.querySelectorAll('.podium-list li')].map(li => [li.dataset.place, li.dataset.seat])")
        assert places == [["1", "p2"], ["2", "p1"]], places
    assert "You finished 1st" in player.find_element(By.CSS_SELECTOR, ".won-overlay").text
    assert not css(spectator, ".won-overlay .won-new"), "a spectator cannot deal a new race"
    assert player.find_element(By.CSS_SELECTOR, ".tool.new-deal").is_enabled()
    screenshot(player, "race-podium-player")
    screenshot(spectator, "race-podium-spectator")

    # New race: every table is dealt again, for everyone.
    p1.drain()
    assert p1.state["status"] == "finished"
    seq = p1.seq
    player.find_element(By.CSS_SELECTOR, ".won-overlay .won-new").click()
    state = follow(p1, seq + 1)
    assert state["status"] == "playing" and state["finished"] == []
    for d in (player, spectator):
        wait(d, lambda d: not d.find_element(By.CSS_SELECTOR, ".won-overlay").is_displayed() and not banner(d), 10,
             "the podium stays after a new race")
    wait_seat(spectator, "p1", state["tables"]["p1"])
    # Every table is dealt alike: p2's own table is what p1's is.
    wait_seat(player, "p2", state["tables"]["p1"])
    assert not player.find_element(By.CSS_SELECTOR, ".tool.new-deal").is_enabled()
    for d in (player, spectator):
        assert_no_console_errors(d)


def test_race_player_takes_its_own_seat_back_after_reconnecting(server, client, browser):
    """After a lost connection the page joins again with `since` and its seat: with
    p1's seat free, a join without `seat` would sit it at p1's table."""
    p1 = client()
    p1.ok({"type": "create", "kind": "race", "options": {"seats": 2, "deck": DECK}})
    game, token = p1.game, p1.token
    phone = browser(width=390, height=844, mobile=True)
    phone.get(f"{server.url}/#/play/{game}/{token}")
    wait(phone, lambda d: len(css(d, ".race-own .kl-table .card")) == 52, 10)
    follow(p1, 1)
    p1.ok({"type": "tap", "target": "/stock"})
    wait(phone, lambda d: seats(d)["p1"]["piles"]["/waste"] == ["??"], 10)
    own, rival = seats(phone)["p2"], seats(phone)["p1"]
    assert own["own"] and rival["rival"] and rival["rect"]["y"] + rival["rect"]["height"] < own["rect"]["y"], "rivals sit above on a phone"
    assert own["rect"]["width"] > 340 and phone.execute_script("return document.documentElement.scrollWidth") <= 390
    screenshot(phone, "race-player-phone")

    p1.close()  # p1's seat is free now
    phone.execute_script("""
      window.sentLog = [];
      const send = WebSocket.prototype.send;
      WebSocket.prototype.send = function (text) { window.sentLog.push(JSON.parse(text)); return send.call(this, text); };
      window.boardcast.conn.link.ws.close();""")
    wait(phone, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "reconnecting", 5)
    wait(phone, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "open", 15, "no reconnect")
    wait(phone, lambda d: d.execute_script("return window.sentLog.some(m => m.type === 'join')"), 5)
    join = phone.execute_script("return window.sentLog.find(m => m.type === 'join')")
    assert join["seat"] == "p2" and join["since"] == 2 and join["token"] == token, join
    wait(phone, lambda d: d.execute_script("return window.boardcast.view.session.you") == "p2", 5)

    # Still p2's table: a tap on the stock moves p2's cards, as the server sees them.
    watcher = client()
    watcher.ok({"type": "watch", "game": game})
    phone.find_element(By.CSS_SELECTOR, ".race-own .stock-hit").click()
    state = follow(watcher, 3)
    assert state["tables"]["p2"]["waste"] == ["AS"] and state["tables"]["p1"]["waste"] == ["AS"]
    wait(phone, lambda d: seats(d)["p2"]["piles"]["/waste"] == ["AS"], 10)

    # A hint is for the own table, and shows there (the solver's first move of a win: a face-up card of this table).
    phone.find_element(By.CSS_SELECTOR, ".tool.hint").click()
    wait(phone, lambda d: css(d, ".race-own .hint-from"), 5, "no hint on the own table")
    hinted = phone.find_element(By.CSS_SELECTOR, ".race-own .hint-from").get_attribute("data-card")
    assert hinted in ("AS", "AH"), hinted
    assert not css(phone, ".race-rivals .hint-from")
    assert_no_console_errors(phone, allow=("WebSocket is already in CLOSING or CLOSED state",))


# Every hint the page receives from now on, in order (listeners run in one go per message,
# so once a hint is here the page has shown it).
RECORD_HINTS_JS = """
window.hintsSeen = [];
if (!window.recordingHints) {
  window.recordingHints = true;
  window.boardcast.conn.on('message', (m) => { if (m.type === 'hint') window.hintsSeen.push(m); });
}
"""

# Draw-1 seeds of known verdict (PROTOCOL section 12), found by asking the server for a
# hint right after `create klondike seed=N`: it proves seed 2 winnable and seed 21 lost,
# each in a few thousand positions, far inside its budget.
WINNABLE_SEED = 2
LOST_SEED = 21


def hints_seen(driver) -> list[dict]:
    return driver.execute_script("return window.hintsSeen")


def ask_hint(driver, count: int) -> dict:
    """Presses H and returns the server's answer, the page's `count`th hint since recording began."""
    driver.find_element(By.TAG_NAME, "body").send_keys("h")
    wait(driver, lambda d: len(hints_seen(d)) >= count, 10, "no hint came back")
    return hints_seen(driver)[count - 1]


def choose_winnable(driver, on: bool):
    """Sets the lobby's winnable choice with a click, whatever the lobby starts from."""
    if driver.find_element(By.ID, "winnable-deals").is_selected() != on:
        driver.find_element(By.CSS_SELECTOR, ".winnable-choice").click()
    assert driver.find_element(By.ID, "winnable-deals").is_selected() == on


def open_seeded_deal(driver, client, server, seed: int):
    """A Klondike deal of the given seed, created by the test's own socket and opened from its play link."""
    me = client()
    me.ok({"type": "create", "kind": "klondike", "options": {"seed": seed}})
    driver.get(f"{server.url}/#/play/{me.game}/{me.token}")
    # The page may already show a table: wait for this game's.
    wait(driver, lambda d: d.execute_script("const s = window.boardcast.view?.session; return s?.game === arguments[0] && s.seq !== null", me.game)
         and len(css(d, ".kl-table .card")) == 52, 15, f"the deal of seed {seed} did not open")
    driver.execute_script(RECORD_HINTS_JS)


def test_winnable_choice_and_a_lost_deal(server, client, browser):
    d = browser(width=1280, height=900)
    d.get(server.url + "/")
    wait(d, lambda d: d.find_element(By.CSS_SELECTOR, ".game-list").get_attribute("aria-busy") == "false", 10)
    d.execute_script(RECORD_SENDS_JS)
    box = d.find_element(By.ID, "winnable-deals")
    assert not box.is_selected() and "Winnable deals" in d.find_element(By.CSS_SELECTOR, ".winnable-choice").text
    d.find_element(By.CSS_SELECTOR, ".winnable-choice").click()
    assert box.is_selected()
    d.execute_script("const s = document.getElementById('race-seats'); s.value = '3'; s.dispatchEvent(new Event('change'));")
    screenshot(d, "lobby-race-tile")

    # A winnable race: the page asks for one and the server deals it.
    d.find_element(By.CSS_SELECTOR, ".start-race").click()
    wait(d, lambda d: d.execute_script("return window.sentLog.some(m => m.type === 'create')"), 5)
    create = d.execute_script("return window.sentLog.find(m => m.type === 'create')")
    assert create["kind"] == "race" and create["options"] == {"seats": 3, "draw": 1, "winnable": True}, create
    wait(d, lambda d: "#/play/" in d.current_url, 10, "no winnable race was dealt")
    wait(d, lambda d: "Waiting for players: 1 of 3 seats taken" in banner(d), 10)
    d.find_element(By.CSS_SELECTOR, "a.back").click()
    wait(d, lambda d: css(d, ".tile-draw3"), 5)

    # The same choice for Klondike: the deal dealt is one the solver says can be won.
    choose_winnable(d, True)
    d.execute_script("window.sentLog.length = 0")
    d.find_element(By.CSS_SELECTOR, ".tile-draw3").click()
    wait(d, lambda d: d.execute_script("return window.sentLog.some(m => m.type === 'create')"), 5)
    create = d.execute_script("return window.sentLog.find(m => m.type === 'create')")
    assert create["kind"] == "klondike" and create["options"] == {"draw": 3, "winnable": True}, create
    wait(d, lambda d: "#/play/" in d.current_url and len(css(d, ".kl-table .card")) == 52, 10)
    d.execute_script(RECORD_HINTS_JS)
    assert ask_hint(d, 1)["winnable"] is True
    note = lambda: d.find_element(By.CSS_SELECTOR, ".hint-note")
    assert not note().is_displayed()
    d.find_element(By.CSS_SELECTOR, "a.back").click()
    wait(d, lambda d: css(d, ".tile-draw1"), 5)

    # Without the choice, a plain Klondike game.
    choose_winnable(d, False)
    d.execute_script("window.sentLog.length = 0")
    d.find_element(By.CSS_SELECTOR, ".tile-draw1").click()
    wait(d, lambda d: "#/play/" in d.current_url and len(css(d, ".kl-table .card")) == 52, 10)
    create = d.execute_script("return window.sentLog.find(m => m.type === 'create')")
    assert create["kind"] == "klondike" and create["options"] == {"draw": 1}, create

    # A lost deal: the solver's verdict is said, and the hinted move still shown.
    open_seeded_deal(d, client, server, LOST_SEED)
    hint = ask_hint(d, 1)
    assert hint["winnable"] is False and hint["from"], hint
    wait(d, lambda d: note().is_displayed(), 5, "no message for a lost deal")
    assert "This deal can no longer be won" in note().text
    assert css(d, ".hint-from"), "the hinted move is still shown"
    screenshot(d, "klondike-lost-deal")
    # The verdict is about the position it was given for: a move clears it, and asking again says it again.
    d.find_element(By.CSS_SELECTOR, ".stock-hit").click()
    wait(d, lambda d: not note().is_displayed(), 5, "the lost message outlived the position")
    assert ask_hint(d, 2)["winnable"] is False
    wait(d, lambda d: note().is_displayed(), 5, "no message for the lost position after a move")
    # No seed makes this server's solver give up (it decides every deal it is asked about
    # within its budget), so an undecided verdict is handed to the page as it would come.
    d.execute_script("window.boardcast.conn.link.dispatch({type: 'hint', from: '/stock', to: '/waste', winnable: null})")
    wait(d, lambda d: not note().is_displayed(), 5, "undecided (null) says nothing special")

    # A winnable deal: the hint says nothing more than its move.
    open_seeded_deal(d, client, server, WINNABLE_SEED)
    hint = ask_hint(d, 1)
    assert hint["winnable"] is True and hint["from"], hint
    assert css(d, ".hint-from"), "the hinted move is shown"
    assert not note().is_displayed(), "a winnable deal is said to be lost"
    assert_no_console_errors(d)


RACE_LOGIC_JS = """

  const { seatsOf, ordinal, podium, waitingText, homeCount } = await import('/js/race.js');
  const { GameSession } = await import('/js/session.js');
  const table = (moves, home) => ({ foundations: [home, [], [], []], moves, score: 10 * home.length });
  const state = { seats: 3, status: 'playing', finished: ['p10', 'p2'],
    tables: { p2: table(40, ['AS']), p10: table(30, ['AS', '2S']), p1: table(5, []) } };
  check('seats in order', eq(seatsOf(state), ['p1', 'p2', 'p10']));
  check('no tables', eq(seatsOf(null), []));
  check('ordinals', eq([1, 2, 3, 4, 11, 12, 13, 21, 22, 101].map(ordinal), ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '101st']));
  check('home count', homeCount(state.tables.p10) === 2 && homeCount(undefined) === 0);
  const places = podium(state, new Map([['p2', { by: 'p2', place: 2, moves: 41, score: 7, seconds: 65 }]]));
  check('podium order', eq(places.map(p => [p.place, p.seat]), [[1, 'p10'], [2, 'p2']]));
  check('podium from the event', places[1].moves === 41 && places[1].seconds === 65);
  check('podium from the state', places[0].moves === 30 && places[0].seconds === undefined);
  check('waiting', waitingText(3, 1) === 'Waiting for players: 1 of 3 seats taken' && waitingText(2, 5).startsWith('Waiting for players: 2 of 2'));

  // Seats across joins, with a fake connection and timers run by hand.
  const timers = [];
  const realTimeout = window.setTimeout;
  window.setTimeout = (fn) => { timers.push(fn); return timers.length; };
  try {
    const sent = [], refusals = [];
    const fake = { status: 'ready', cancel() {},
      on() { return () => {}; }, onOpen() { return () => {}; },
      request(body) { sent.push(body); const no = refusals.shift();
        return no ? Promise.reject({ code: no, message: 'seat p2 is held by another connection' }) : Promise.resolve({ type: 'ack' }); } };
    const tick = () => new Promise(r => realTimeout(r, 0));
    // A reload: the remembered seat is asked for; refused twice, a free seat is taken.
    refusals.push('forbidden', 'forbidden');
    const reload = new GameSession(fake, { game: 'g', token: 't', role: 'player', seat: 'p2' });
    await tick();
    check('remembered seat asked', sent[0].seat === 'p2' && sent[0].type === 'join');
    timers.shift()(); await tick();
    check('asked once more', sent[1].seat === 'p2');
    await tick();
    check('then a free seat', sent.length === 3 && !('seat' in sent[2]));
    reload.close();
    // Seated in a race: every join (a gap, a reconnect) asks for our own seat, again while it is held.
    sent.length = 0;
    const seated = new GameSession(fake, { game: 'g', token: 't', role: 'player', adopt: true });
    const events = [];
    seated.on('seat', (e) => events.push(e));
    seated.handle({ type: 'joined', game: 'g', kind: 'race', role: 'player', seq: 4, you: 'p2' });
    seated.held.hold(4, null);
    refusals.push('forbidden');
    seated.rejoin();
    await tick();
    check('own seat with since', sent[0].seat === 'p2' && sent[0].since === 4);
    check('held: said and retried', events.length === 1 && events[0].held && timers.length === 1);
    timers.shift()(); await tick();
    check('asked for the same seat again', sent[1].seat === 'p2' && sent[1].since === 4);
    seated.close();
    // Klondike joins carry no seat.
    sent.length = 0;
    const solo = new GameSession(fake, { game: 'k', token: 't', role: 'player', adopt: true });
    solo.handle({ type: 'joined', game: 'k', kind: 'klondike', role: 'player', seq: 0, you: 'p1' });
    solo.rejoin();
    check('klondike join has no seat', sent.length === 1 && !('seat' in sent[0]));
    solo.close();
  } finally {
    window.setTimeout = realTimeout;
  }
"""


def test_race_logic_in_the_browser(server, browser):
    """The race's pure helpers and the session's seat rules, run where they run for users."""
    assert len(page_checks(server, browser, RACE_LOGIC_JS)) >= 15
