"""Reading and driving the Klondike table in the page."""
from __future__ import annotations

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By

from conftest import css, wait

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
