"""Reading and driving the Klondike table in the page."""
from __future__ import annotations

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By

from conftest import css, follow, wait, winnable_deck

PILES = ["/stock", "/waste"] + [f"/foundations/{i}" for i in range(4)] + [f"/tableau/{i}" for i in range(7)]

TABLE_JS = """
const out = {};
for (const c of document.querySelectorAll('.kl-table .card')) {
  (out[c.dataset.pile] ||= []).push([Number(c.dataset.index), c.dataset.card]);
}
for (const k in out) out[k] = out[k].sort((a, b) => a[0] - b[0]).map(x => x[1]);
return out;
"""


def table(driver) -> dict:
    """Every pile as the page draws it, bottom card first."""
    drawn = driver.execute_script(TABLE_JS)
    return {p: drawn.get(p, []) for p in PILES}


def state_piles(state) -> dict:
    """The same picture from a state document."""
    out = {"/stock": state["stock"], "/waste": state["waste"]}
    for i, f in enumerate(state["foundations"]):
        out[f"/foundations/{i}"] = f
    for i, t in enumerate(state["tableau"]):
        out[f"/tableau/{i}"] = t
    return out


def open_table(driver, url: str):
    driver.get(url)
    wait(driver, lambda d: len(css(d, ".kl-table .card")) == 52, 15, "the table did not show 52 cards")


def card(driver, name: str):
    return driver.find_element(By.CSS_SELECTOR, f'.kl-table .card[data-card="{name}"]')


def settled(driver) -> bool:
    return driver.execute_script(
        "return document.getAnimations().filter(a => a.playState === 'running' && isFinite(a.effect.getComputedTiming().endTime)).length === 0")


def wait_table(driver, expected: dict, timeout: float = 10):
    """Waits until the page draws exactly the expected piles."""
    def same(d):
        return table(d) == expected
    try:
        wait(driver, same, timeout)
    except Exception:
        raise AssertionError(f"table differs:\n page:     {table(driver)}\n expected: {expected}")


def grab_offset(element) -> tuple[int, int]:
    """An offset from the element's centre to a point on its visible top strip
    (a fanned card is covered below its index)."""
    h = element.size["height"]
    return 0, int(-h / 2 + 6)


def drag(driver, element, target, steps: int = 4):
    """Mouse drag by Pointer Events: press on the card's top strip, move in a few steps, drop on the target's centre."""
    ox, oy = grab_offset(element)
    chain = ActionChains(driver, duration=30).move_to_element_with_offset(element, ox, oy).click_and_hold()
    chain.move_by_offset(4, 6)
    tx = target.location["x"] + target.size["width"] / 2
    ty = target.location["y"] + target.size["height"] / 2
    sx = element.location["x"] + element.size["width"] / 2 + ox + 4
    sy = element.location["y"] + element.size["height"] / 2 + oy + 6
    for i in range(1, steps + 1):
        chain.move_by_offset(int((tx - sx) / steps), int((ty - sy) / steps))
    chain.release().perform()


def double_click(driver, element):
    ox, oy = grab_offset(element)
    ActionChains(driver).move_to_element_with_offset(element, ox, oy).double_click().perform()


def touch_drag(driver, element, target):
    """The same drag with a touch pointer (pointerType "touch")."""
    finger = PointerInput(interaction.POINTER_TOUCH, "finger")
    actions = ActionBuilder(driver, mouse=finger, duration=30)
    r = element.rect
    t = target.rect
    sx, sy = r["x"] + r["width"] / 2, r["y"] + 6
    tx, ty = t["x"] + t["width"] / 2, t["y"] + t["height"] / 2
    actions.pointer_action.move_to_location(int(sx), int(sy)).pointer_down()
    for i in range(1, 6):
        actions.pointer_action.move_to_location(int(sx + (tx - sx) * i / 5), int(sy + (ty - sy) * i / 5))
    actions.pointer_action.pointer_up()
    actions.perform()


def touch_double_tap(driver, element):
    finger = PointerInput(interaction.POINTER_TOUCH, "finger")
    actions = ActionBuilder(driver, mouse=finger, duration=20)
    r = element.rect
    x, y = int(r["x"] + r["width"] / 2), int(r["y"] + 6)
    actions.pointer_action.move_to_location(x, y).pointer_down().pointer_up().pause(0.05).pointer_down().pointer_up()
    actions.perform()


def pile_target(driver, pile: str):
    """What to drop on: the pile's top card, or its empty slot."""
    cards = table(driver)[pile]
    if cards:
        els = [e for e in css(driver, ".kl-table .card") if e.get_attribute("data-pile") == pile
               and e.get_attribute("data-index") == str(len(cards) - 1)]
        return els[0]
    return driver.find_element(By.CSS_SELECTOR, f'.kl-table .slot[data-pile="{pile}"]')


RANKS = "A23456789TJQK"


def foundation_move(table: dict) -> str | None:
    """A tableau pile whose top card goes home next, if any."""
    homes = {f[-1][1]: RANKS.index(f[-1][0]) for f in table["foundations"] if f}
    for i, pile in enumerate(table["tableau"]):
        if pile and pile[-1] != "??" and homes.get(pile[-1][1], -1) == RANKS.index(pile[-1][0]) - 1:
            return f"/tableau/{i}"
    return None


def winning_moves(client) -> list[dict]:
    """The moves that win winnable_deck() with foundation moves only, found by
    playing it as a Klondike game of its own (every race table is dealt alike)."""
    solo = client()
    solo.ok({"type": "create", "kind": "klondike", "options": {"deck": winnable_deck()}})
    moves = []
    for _ in range(24):
        moves += [{"type": "tap", "target": "/stock"}, {"type": "double-tap", "target": "/waste"}]
        for move in moves[-2:]:
            solo.ok(move)
    while solo.state["status"] != "won":
        target = foundation_move(solo.state)
        assert target, f"no foundation move in {solo.state}"
        moves.append({"type": "double-tap", "target": target})
        solo.ok(moves[-1])
    solo.close()
    return moves


# The page sends moves through its session, as its gestures do, all at once (the
# server applies them in order); resolves once every one is acknowledged.
SEND_MOVES_JS = """
const done = arguments[arguments.length - 1];
const s = window.boardcast.view.session;
Promise.all(arguments[0].map(m => s.command(m))).then(() => done(null), e => done(String(e.message || e)));
"""


def winnable_race(server, client, browser):
    """A race of two on winnable_deck(), started: p1 a websocket client, p2 a desktop page
    on the play link, and a spectator's page. About the race, not the cards' flight: its
    150 moves go by without animation."""
    p1 = client()
    p1.ok({"type": "create", "kind": "race", "options": {"seats": 2, "deck": winnable_deck()}})
    player = browser(width=1280, height=900)
    spectator = browser(width=1100, height=850)
    for d in (player, spectator):
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    player.get(f"{server.url}/#/play/{p1.game}/{p1.token}")
    spectator.get(f"{server.url}/#/watch/{p1.game}")
    follow(p1, 1)
    assert p1.state["status"] == "playing"
    wait(player, lambda d: len(css(d, ".race-own .kl-table .card")) == 52, 10)
    wait(spectator, lambda d: len(css(d, ".race-seat .kl-table .card")) == 104, 10)
    return p1, player, spectator
