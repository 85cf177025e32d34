"""The lobby kept live, links, replay, and the page's own diff logic run in the browser."""
from __future__ import annotations

import json

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import assert_no_console_errors, css, ordered_deck, page_checks, screenshot, wait
from kl import open_table, state_piles, table, wait_table

DECK = ordered_deck(i0="AH", i13="9S", i18="8H", i22="TD", i28="AS")


def row(driver, game):
    rows = css(driver, f'.game-row[data-game="{game}"]')
    return rows[0] if rows else None


def test_lobby_follows_games_live(server, client, browser):
    lobby = browser(width=1100, height=800)
    lobby.get(server.url + "/")
    wait(lobby, lambda d: d.find_element(By.CSS_SELECTOR, ".game-list").get_attribute("aria-busy") == "false", 10)

    # A game created elsewhere shows up without a reload, then its counts and moves follow.
    me = client()
    game, token = me.create_klondike(DECK)
    # (Each look at a row is inside a wait: the lobby redraws its rows on every update, and a row
    # found a moment ago may have been replaced before it is read.)
    wait(lobby, lambda d: row(d, game) is not None, 10, "new game not listed")
    wait(lobby, lambda d: "Klondike" in row(d, game).text and "Playing" in row(d, game).text, 5,
         "the new game's row does not say Klondike, Playing")
    wait(lobby, lambda d: "1 player" in row(d, game).text and "0 moves" in row(d, game).text, 5)
    watcher = client()
    watcher.ok({"type": "watch", "game": game})
    me.ok({"type": "tap", "target": "/stock"})
    me.ok({"type": "tap", "target": "/stock"})
    wait(lobby, lambda d: "1 watching" in row(d, game).text and "2 moves" in row(d, game).text, 5,
         "lobby counts did not follow")
    screenshot(lobby, "lobby")

    # Watch from the lobby: the table opens read-only.
    wait(lobby, lambda d: row(d, game).find_element(By.CSS_SELECTOR, "a.watch").click() or True, 5)
    wait(lobby, lambda d: "#/watch/" in d.current_url)
    open_table(lobby, lobby.current_url)
    wait_table(lobby, state_piles(me.state))
    assert lobby.find_element(By.CSS_SELECTOR, ".kl-table").get_attribute("class").count("read-only") == 1
    assert not css(lobby, ".tool.undo") and not css(lobby, ".share-play")
    assert css(lobby, ".share-watch")

    # Back to the lobby, then open a game from a pasted link.
    lobby.find_element(By.CSS_SELECTOR, "a.back").click()
    wait(lobby, lambda d: css(d, "#open-link"))
    field = lobby.find_element(By.ID, "open-link")
    field.send_keys(f"{server.url}/?game={game}&token={token}")
    field.send_keys(Keys.ENTER)
    wait(lobby, lambda d: f"#/play/{game}/" in d.current_url, 5)
    open_table(lobby, lobby.current_url)
    assert not lobby.find_element(By.CSS_SELECTOR, ".kl-table").get_attribute("class").count("read-only")
    assert_no_console_errors(lobby)


def test_query_links_and_unknown_games(server, client, browser):
    me = client()
    game, token = me.create_klondike(DECK)
    d = browser(width=1000, height=800)
    d.get(f"{server.url}/?watch={game}")
    wait(d, lambda d: d.current_url.endswith(f"#/watch/{game}"), 5, "query link not turned into a hash link")
    wait(d, lambda d: len(css(d, ".kl-table .card")) == 52, 10)

    # The share buttons hold the right links (the clipboard itself is the browser's business).
    d.get(f"{server.url}/?game={game}&token={token}")
    wait(d, lambda d: css(d, ".share-play"), 10)
    assert d.find_element(By.CSS_SELECTOR, ".share-play").get_attribute("data-url") == f"{server.url}/#/play/{game}/{token}"
    assert d.find_element(By.CSS_SELECTOR, ".share-watch").get_attribute("data-url") == f"{server.url}/#/watch/{game}"
    d.find_element(By.CSS_SELECTOR, ".share-watch").click()
    wait(d, lambda d: "link copied" in d.find_element(By.ID, "toasts").text or css(d, "dialog[open] .link-field"), 5)

    d.get(f"{server.url}/#/watch/nosuchgame")
    wait(d, lambda d: css(d, ".notice"), 10, "no message for a game that does not exist")
    assert "No such game" in d.find_element(By.CSS_SELECTOR, ".notice").text
    assert not [c for c in css(d, ".chat") if c.is_displayed()], "a chat for a game that is not there"
    d.get(f"{server.url}/#/play/{game}/wrongtoken")
    wait(d, lambda d: css(d, ".notice"), 10)
    assert "Watch instead" in d.find_element(By.CSS_SELECTOR, ".notice").text
    screenshot(d, "bad-token")
    assert_no_console_errors(d, allow=())


def test_replay_steps_through_every_move(server, client, browser):
    me = client()
    game, token = me.create_klondike(DECK)
    states = [me.state]
    for move in ({"type": "tap", "target": "/stock"}, {"type": "double-tap", "target": "/waste"},
                 {"type": "double-tap", "target": "/tableau/0"}, {"type": "drag", "from": "/tableau/3/3", "to": "/tableau/2"},
                 {"type": "drag", "from": "/tableau/2/2", "to": "/tableau/4"}, {"type": "undo"}):
        me.ok(move)
        states.append(me.state)
    d = browser(width=1200, height=900)
    d.get(f"{server.url}/#/replay/{game}")
    wait(d, lambda d: len(css(d, ".kl-table .card")) == 52, 10)
    counter = lambda: d.find_element(By.CSS_SELECTOR, ".rp-counter").text
    wait(d, lambda d: counter() == "0 / 6", 10, "replay did not load the history")
    wait_table(d, state_piles(states[0]))
    assert not d.find_element(By.CSS_SELECTOR, ".rp-back").is_enabled()
    for n in range(1, 7):
        d.find_element(By.CSS_SELECTOR, ".rp-forward").click()
        wait(d, lambda d: counter() == f"{n} / 6")
        wait_table(d, state_piles(states[n]))
    assert not d.find_element(By.CSS_SELECTOR, ".rp-forward").is_enabled()
    assert "undo" in d.find_element(By.CSS_SELECTOR, ".replay-caption").text
    d.find_element(By.CSS_SELECTOR, ".rp-back").click()
    wait(d, lambda d: counter() == "5 / 6")
    wait_table(d, state_piles(states[5]))
    assert "drag tableau/2/2" in d.find_element(By.CSS_SELECTOR, ".replay-caption").text
    screenshot(d, "replay")

    # Play from the start at 8x: it runs to the end by itself.
    d.find_element(By.CSS_SELECTOR, ".rp-first").click()
    wait(d, lambda d: counter() == "0 / 6")
    d.find_element(By.CSS_SELECTOR, ".rp-speed").send_keys("8")
    d.find_element(By.CSS_SELECTOR, ".rp-play").click()
    wait(d, lambda d: counter() == "6 / 6", 10, "play did not reach the end")
    wait_table(d, state_piles(states[6]))

    # A move made now extends the replay live.
    me.ok({"type": "tap", "target": "/stock"})
    wait(d, lambda d: counter() == "7 / 7", 10)
    wait_table(d, state_piles(me.state))
    assert_no_console_errors(d)


PAGE_LOGIC_JS = """

  const { applyPatch, PatchError } = await import('/js/boardcast.js');
  const { HeldState } = await import('/js/boardcast.js');
  const { Timeline } = await import('/js/timeline.js');
  const doc = { a: [1, 2, 3], o: { 'x/y': 1, 'm~n': 2 } };
  check('add end', eq(applyPatch(doc, [{ op: 'add', path: '/a/-', value: 4 }]).a, [1, 2, 3, 4]));
  check('add index', eq(applyPatch(doc, [{ op: 'add', path: '/a/0', value: 0 }]).a, [0, 1, 2, 3]));
  check('remove', eq(applyPatch(doc, [{ op: 'remove', path: '/a/1' }]).a, [1, 3]));
  check('replace escaped', applyPatch(doc, [{ op: 'replace', path: '/o/x~1y', value: 5 }]).o['x/y'] === 5);
  check('tilde', applyPatch(doc, [{ op: 'remove', path: '/o/m~0n' }]).o['m~n'] === undefined);
  check('move', eq(applyPatch(doc, [{ op: 'move', from: '/a/0', path: '/a/-' }]).a, [2, 3, 1]));
  check('copy', eq(applyPatch(doc, [{ op: 'copy', from: '/a', path: '/b' }]).b, [1, 2, 3]));
  check('replace root', eq(applyPatch(doc, [{ op: 'replace', path: '', value: 7 }]), 7));
  for (const bad of [[{ op: 'remove', path: '/a/3' }], [{ op: 'add', path: '/a/5', value: 1 }],
                     [{ op: 'replace', path: '/zz', value: 1 }], [{ op: 'test', path: '/a/0', value: 9 }],
                     [{ op: 'add', path: '/a/01', value: 1 }], [{ op: 'nope', path: '/a' }]]) {
    let threw = false;
    try { applyPatch(doc, bad); } catch (e) { threw = e instanceof PatchError; }
    check('rejects ' + JSON.stringify(bad), threw);
  }
  check('input untouched', eq(doc, { a: [1, 2, 3], o: { 'x/y': 1, 'm~n': 2 } }));
  // The state the page holds is the client module's HeldState (PROTOCOL sections 4 and 21).
  const held = () => { const h = new HeldState(); h.snapshot({ seq: 5, state: { n: [] } }); return h; };
  const outcome = (h, seq) => h.diff({ seq, ops: [{ op: 'add', path: '/n/-', value: seq }] }).outcome;
  check('stale', outcome(held(), 5) === 'stale' && outcome(held(), 3) === 'stale');
  check('next', outcome(held(), 6) === 'applied');
  const gapped = held();
  check('gap', outcome(gapped, 8) === 'gap' && gapped.seq === 5 && gapped.shownSeq === 8);
  check('a choice from before the gap is stale', gapped.staleness(5)?.code === 'stale' && gapped.staleness(8) === null);
  check('before snapshot', outcome(new HeldState(), 1) === 'wait');
  check('broken', held().diff({ seq: 6, ops: [{ op: 'remove', path: '/zz' }] }).outcome === 'broken');
  const t = new Timeline({ n: [] }, 0);
  for (let i = 1; i <= 60; i++) check('push ' + i, t.push({ seq: i, ops: [{ op: 'add', path: '/n/-', value: i }] }));
  check('no gap push', !t.push({ seq: 62, ops: [] }));
  check('state 0', eq(t.stateAt(0).n, []));
  check('state 37', t.stateAt(37).n.length === 37 && t.stateAt(37).n[36] === 37);
  check('state back to 3', eq(t.stateAt(3).n, [1, 2, 3]));
  check('state end', t.stateAt(60).n.length === 60);
  // Layout: a long column closes its fan to fit, keeping cards 1:1.27 and inside the width.
  const { layout, geometry } = await import('/js/klondike.js');
  const g = geometry(375);
  check('phone card ratio', Math.abs(g.ch / g.cw - 1.27) < 1e-9);
  check('phone fits width', g.left + 7 * g.cw + 6 * g.gap <= 375);
  const faceUp = ['KS', 'QH', 'JS', 'TH', '9S', '8H', '7S', '6H', '5S', '4H', '3S', '2H'];
  const long = { draw: 1, stock: [], waste: [], foundations: [[], [], [], []],
    tableau: [[], [], [], [], [], [], ['??', '??', '??', '??', '??', '??', ...faceUp]], moves: 0, score: 0, status: 'playing' };
  const placed = layout(long, g, 520).cards.filter(c => c.pile === '/tableau/6');
  const bottom = Math.max(...placed.map(c => c.y)) + g.ch;
  check('long column fits 520px', bottom <= 520.5);
  check('fan keeps order', placed.every((c, i) => i === 0 || c.y > placed[i - 1].y));
  check('ranks stay readable', placed.slice(7).every((c, i) => c.y - placed[6 + i].y >= g.ch * 0.13));
"""


def test_page_logic_in_the_browser(server, browser):
    """The page's RFC 6902 apply, seq rules and replay timeline, run where they run for users."""
    assert len(page_checks(server, browser, PAGE_LOGIC_JS)) > 60


def test_plane_replay_starts_from_an_empty_plane(server, client, browser):
    me = client()
    me.ok({"type": "create", "kind": "plane", "options": {"width": 800, "height": 600}})
    me.ok({"type": "add", "x": 10, "y": 10, "r": 255, "g": 0, "b": 0, "alpha": 5})
    me.ok({"type": "add", "x": 300, "y": 200, "r": 0, "g": 0, "b": 255, "alpha": 10})
    me.ok({"type": "drag", "from": {"x": 20, "y": 20}, "to": {"x": 120, "y": 70}})
    final = me.state
    d = browser(width=1100, height=800)
    d.get(f"{server.url}/#/replay/{me.game}")
    counter = lambda: d.find_element(By.CSS_SELECTOR, ".rp-counter").text
    wait(d, lambda d: counter() == "0 / 3", 10)
    assert css(d, ".plane") and not css(d, ".plane .rect")
    d.find_element(By.CSS_SELECTOR, ".rp-forward").click()
    wait(d, lambda d: len(css(d, ".plane .rect")) == 1)
    d.find_element(By.CSS_SELECTOR, ".rp-last").click()
    wait(d, lambda d: counter() == "3 / 3")
    shown = d.execute_script("return window.boardcast.view.timeline.stateAt(3)")
    assert shown == final
    wait(d, lambda d: len(css(d, ".plane .rect")) == 2)
    screenshot(d, "replay-plane")
    assert_no_console_errors(d)


def test_replay_across_a_reset(server, client, browser):
    """The replay starts from the exact deal (the server's seq-0 snapshot), also
    when the game was dealt again later."""
    me = client()
    game, token = me.create_klondike(DECK)
    deal = me.state
    me.ok({"type": "double-tap", "target": "/tableau/0"})
    me.ok({"type": "reset", "options": {"draw": 3}})
    me.ok({"type": "tap", "target": "/stock"})
    d = browser(width=1200, height=900)
    d.get(f"{server.url}/#/replay/{game}")
    counter = lambda: d.find_element(By.CSS_SELECTOR, ".rp-counter").text
    wait(d, lambda d: counter() == "0 / 3", 10)
    assert d.execute_script("return window.boardcast.view.timeline.stateAt(0)") == deal
    d.find_element(By.CSS_SELECTOR, ".rp-last").click()
    wait(d, lambda d: counter() == "3 / 3")
    wait_table(d, state_piles(me.state))
    assert d.execute_script("return window.boardcast.view.timeline.stateAt(3)") == me.state
    assert_no_console_errors(d)


# Every lobby control, and what of it would not show. A select draws its chosen option
# in its content box, beside an arrow that a native select paints inside that box at a
# width of the platform's choosing: the text is measured against the box, and the
# select against the width it would take if nothing squeezed it.
CONTROLS_FIT_JS = """
const canvas = document.createElement('canvas').getContext('2d');
const widthOf = (text, style) => { canvas.font = style.font; return canvas.measureText(text).width; };
const shown = (e) => e.tagName === 'SELECT' ? e.selectedOptions[0]?.text ?? '' : e.textContent || e.placeholder || '';
const name = (e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')} "${shown(e).trim().slice(0, 40)}"`;
const controls = [...document.querySelectorAll('.lobby :is(button, select, label, input, a.btn)')];
const problems = [];
for (const e of controls) {
  const r = e.getBoundingClientRect();
  if (!r.width || !r.height) { problems.push(`${name(e)} is not shown`); continue; }
  if (r.left < 0 || r.right > innerWidth) problems.push(`${name(e)} spans ${r.left}..${r.right} of ${innerWidth}`);
  if (e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight)
    problems.push(`${name(e)} holds ${e.scrollWidth}x${e.scrollHeight} in ${e.clientWidth}x${e.clientHeight}`);
  for (let a = e.parentElement; a; a = a.parentElement) {
    const o = getComputedStyle(a);
    if (o.overflowX === 'visible' && o.overflowY === 'visible') continue;
    const c = a.getBoundingClientRect();
    if (r.left < c.left - 0.5 || r.right > c.right + 0.5 || r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5)
      problems.push(`${name(e)} is clipped by ${name(a)}`);
  }
  const style = getComputedStyle(e);
  const box = e.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  if (e.tagName === 'SELECT') {
    for (const option of e.options) {
      const w = widthOf(option.text, style);
      if (w > box) problems.push(`${name(e)}: "${option.text}" is ${w.toFixed(1)}px in a ${box}px box`);
    }
    const free = e.cloneNode(true);
    free.removeAttribute('id');
    free.style.cssText = 'position: absolute; visibility: hidden; width: auto; min-width: 0; max-width: none; flex: none';
    e.parentElement.append(free);
    const natural = free.getBoundingClientRect().width;
    free.remove();
    if (r.width + 0.5 < natural) problems.push(`${name(e)} is ${r.width.toFixed(1)}px wide, its text needs ${natural.toFixed(1)}px`);
  }
  if (e.tagName === 'INPUT' && e.type === 'text' && e.placeholder) {
    const w = widthOf(e.placeholder, style);
    if (w > box) problems.push(`${name(e)}: its placeholder is ${w.toFixed(1)}px in a ${box}px box`);
  }
  if (e.type === 'checkbox') {
    const label = e.closest('label') || document.querySelector(`label[for="${e.id}"]`);
    const l = label && label.getBoundingClientRect();
    if (!l || r.left < l.left || r.right > l.right || r.top < l.top || r.bottom > l.bottom) problems.push(`${name(e)} is outside its label`);
  }
}
const race = [...document.querySelectorAll('.race-controls > *')].map(e => e.getBoundingClientRect().top);
return { kinds: [...new Set(controls.map(e => e.type === 'checkbox' ? 'checkbox' : e.tagName.toLowerCase()))].sort(),
         ids: controls.map(e => e.id).filter(Boolean),
         raceRows: new Set(race.map(Math.round)).size, problems };
"""


@pytest.mark.parametrize("width,height,mobile", [(390, 844, True), (1100, 850, False), (1280, 900, False), (1920, 1080, False)],
                         ids=["phone-390", "1100", "1280", "1920"])
def test_lobby_controls_show_their_whole_text(server, client, browser, width, height, mobile):
    """The race tile once cut its own selects at 1100 px ("2 seal"): every control of
    the lobby, the rows' buttons and the spectator delay too, shows all of its text at
    phone and desktop widths."""
    me = client()
    game, token = me.create_klondike(DECK)
    client().ok({"type": "create", "kind": "race", "options": {"seats": 8, "deck": DECK}})
    d = browser(width=width, height=height, mobile=mobile)
    d.get(server.url + "/")
    # A token this browser holds gives its row a Play button as well.
    assert d.execute_async_script("""
      const done = arguments[arguments.length - 1];
      import('/js/routes.js').then(m => { m.rememberToken(arguments[0], arguments[1]); done(null); }, e => done(String(e)));""",
        game, token) is None
    d.refresh()
    wait(d, lambda d: css(d, f'.game-row[data-game="{game}"] a.play'), 10, "the game's row with its Play button")
    # The longest option of each select is the one chosen: the check measures every option anyway.
    d.execute_script("""
      for (const [id, value] of [['race-seats', '8'], ['race-draw', '3'], ['spectator-delay', '120']]) {
        const s = document.getElementById(id); s.value = value; s.dispatchEvent(new Event('change'));
      }""")
    found = d.execute_script(CONTROLS_FIT_JS)
    assert found["kinds"] == ["a", "button", "checkbox", "input", "label", "select"], found["kinds"]
    assert "spectator-delay" in found["ids"] and "race-seats" in found["ids"], found["ids"]
    assert not found["problems"], "\n".join(found["problems"])
    assert found["raceRows"] == 1, "the race tile's selects and Start button share one line"
    assert d.execute_script("return document.documentElement.scrollWidth") <= width
    screenshot(d, f"lobby-controls-{width}")
    assert_no_console_errors(d)
