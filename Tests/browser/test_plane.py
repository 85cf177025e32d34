"""The Plane in the browser: add, select, colour, alpha bounds, drag, and other players' selections."""
from __future__ import annotations

import re
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from conftest import assert_no_console_errors, css, screenshot, wait

RECTS_JS = """
return [...document.querySelectorAll('.plane .rect')].map(r => ({
  id: r.dataset.id, left: parseFloat(r.style.left), top: parseFloat(r.style.top),
  alpha: Number(r.dataset.alpha), color: r.dataset.color, selectedBy: r.dataset.selectedBy,
  shadow: r.style.boxShadow,
}));
"""


def rects(driver) -> list[dict]:
    return driver.execute_script(RECTS_JS)


def panel_hex(driver) -> str:
    return driver.find_element(By.CSS_SELECTOR, ".color-hex").text


def alpha_value(driver) -> int:
    return int(driver.find_element(By.CSS_SELECTOR, ".alpha-value").text)


def scale(driver) -> float:
    return driver.execute_script("return window.boardcast.view.board.scale")


def click_plane(driver, x: float, y: float, double: bool = False):
    """Clicks at plane coordinates (x, y)."""
    plane = driver.find_element(By.CSS_SELECTOR, ".plane")
    s = scale(driver)
    w, h = plane.size["width"], plane.size["height"]
    chain = ActionChains(driver).move_to_element_with_offset(plane, int(x * s - w / 2), int(y * s - h / 2))
    (chain.double_click() if double else chain.click()).perform()


def empty_point(driver) -> tuple[float, float]:
    """A point of the plane that no rectangle covers."""
    return tuple(driver.execute_script("""
      const s = window.boardcast.view.session.state;
      const inside = (x, y) => Object.values(s.rectangles).some(r => x >= r.x && x <= r.x + r.width && y >= r.y && y <= r.y + r.height);
      for (let y = 10; y < s.height; y += 37) for (let x = 10; x < s.width; x += 41) if (!inside(x, y)) return [x, y];
      return null;"""))


def point_only_in(driver, rect_id: str) -> tuple[float, float]:
    """A point inside the given rectangle that no rectangle above it covers."""
    return tuple(driver.execute_script("""
      const s = window.boardcast.view.session.state, id = arguments[0];
      const r = s.rectangles[id], above = s.order.slice(s.order.indexOf(id) + 1).map(k => s.rectangles[k]);
      const inside = (q, x, y) => x >= q.x && x <= q.x + q.width && y >= q.y && y <= q.y + q.height;
      for (let fy = 0.1; fy < 1; fy += 0.1) for (let fx = 0.1; fx < 1; fx += 0.1) {
        const x = r.x + r.width * fx, y = r.y + r.height * fy;
        if (!above.some(q => inside(q, x, y))) return [x, y];
      }
      return null;""", rect_id))


# The page's `create` goes out with a seed added, so the server places, colours and
# names every rectangle alike on every run, and a failure replays. The steps still read
# where things are from the page (this server puts seed 7's first rectangle mid-plane,
# alpha 5), so they hold for whatever a seed deals.
PLANE_SEED = 7
SEED_CREATE_JS = """
const seed = arguments[0], send = WebSocket.prototype.send;
WebSocket.prototype.send = function (text) {
  const m = JSON.parse(text);
  return send.call(this, m.type === 'create' ? JSON.stringify({ ...m, options: { ...m.options, seed } }) : text);
};
"""


def create_plane_from_lobby(server, driver, seed: int):
    driver.get(server.url + "/")
    wait(driver, lambda d: css(d, '.create-tile[data-create="plane"]'))
    wait(driver, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "open")
    driver.execute_script(SEED_CREATE_JS, seed)
    driver.find_element(By.CSS_SELECTOR, '.create-tile[data-create="plane"]').click()
    wait(driver, lambda d: "#/play/" in d.current_url, 10, "creating a plane did not open its play link")
    wait(driver, lambda d: css(d, ".plane"), 10)
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, ".rect-count").text == "0 rectangles", 10)


def test_plane_add_select_colour_alpha_drag(server, browser):
    d = browser(width=1280, height=900)
    create_plane_from_lobby(server, d, PLANE_SEED)
    match = re.search(r"#/play/([^/]+)/([^/]+)$", d.current_url)
    assert match
    game, token = match.groups()

    # Nothing selected: colour and alpha controls are off.
    assert not d.find_element(By.CSS_SELECTOR, ".color-btn").is_enabled()
    assert not d.find_element(By.CSS_SELECTOR, ".alpha-up").is_enabled()

    # Add: a rectangle appears, selected by us; the panel shows its colour as #RRGGBB.
    d.find_element(By.CSS_SELECTOR, ".add-rect").click()
    wait(d, lambda d: len(rects(d)) == 1)
    wait(d, lambda d: re.fullmatch(r"#[0-9A-F]{6}", panel_hex(d)))
    first = rects(d)[0]
    assert first["selectedBy"] == "p1"
    assert panel_hex(d) == first["color"]
    assert d.find_element(By.CSS_SELECTOR, ".sel-id").text == first["id"]
    assert re.fullmatch(r"[a-z0-9]{3}-[a-z0-9]{3}-[a-z0-9]{3}", first["id"])
    opacity = d.execute_script("return getComputedStyle(document.querySelector('.plane .rect')).backgroundColor")
    assert f"{first['alpha'] / 10:g}" in opacity or first["alpha"] == 10, opacity

    # Random colour: the colour changes (the server picks it).
    old = panel_hex(d)
    d.find_element(By.CSS_SELECTOR, ".color-btn").click()
    wait(d, lambda d: panel_hex(d) != old, 5, "colour did not change")
    assert rects(d)[0]["color"] == panel_hex(d)

    # Alpha down to 1: "-" turns off there; up to 10: "+" turns off.
    down, up = d.find_element(By.CSS_SELECTOR, ".alpha-down"), d.find_element(By.CSS_SELECTOR, ".alpha-up")
    while alpha_value(d) > 1:
        a = alpha_value(d)
        down.click()
        wait(d, lambda d: alpha_value(d) == a - 1, 5)
    assert not down.is_enabled() and up.is_enabled()
    assert rects(d)[0]["alpha"] == 1
    screenshot(d, "plane-alpha-1")
    while alpha_value(d) < 10:
        a = alpha_value(d)
        up.click()
        wait(d, lambda d: alpha_value(d) == a + 1, 5)
    assert not up.is_enabled() and down.is_enabled()

    # Drag: the rectangle follows the pointer, then the server's diff settles it.
    s = scale(d)
    r = rects(d)[0]
    plane = d.find_element(By.CSS_SELECTOR, ".plane")
    target = [e for e in css(d, ".plane .rect") if e.get_attribute("data-id") == r["id"]][0]
    start_left, start_top = r["left"], r["top"]
    dx = 120 if start_left / s < 600 else -120
    dy = 80 if start_top / s < 400 else -80
    ActionChains(d, duration=30).move_to_element(target).click_and_hold().move_by_offset(dx // 2, dy // 2) \
        .move_by_offset(dx - dx // 2, dy - dy // 2).release().perform()
    wait(d, lambda d: abs(rects(d)[0]["left"] - (start_left + dx)) < 2 and abs(rects(d)[0]["top"] - (start_top + dy)) < 2,
         5, f"drag did not move the rectangle: {rects(d)[0]} from {start_left},{start_top}")

    # Tap empty space: the selection clears. Double-tap there: a new rectangle, selected.
    click_plane(d, *empty_point(d))
    wait(d, lambda d: d.find_element(By.CSS_SELECTOR, ".sel-title").text == "Nothing selected", 5)
    assert not rects(d)[0]["selectedBy"]
    click_plane(d, 512, 384, double=True)
    wait(d, lambda d: len(rects(d)) == 2, 5, "double-tap did not add")
    wait(d, lambda d: rects(d)[1]["selectedBy"] == "p1")
    screenshot(d, "plane-two")

    # A second player selects the first rectangle: we see it outlined in their colour.
    other = browser(width=1000, height=800)
    other.get(f"{server.url}/#/play/{game}/{token}")
    wait(other, lambda o: len(rects(o)) == 2, 10)
    first_id = rects(other)[0]["id"]
    click_plane(other, *point_only_in(other, first_id))
    wait(d, lambda d: rects(d)[0]["selectedBy"] == "p2", 5, "the other player's selection is not shown")
    wait(d, lambda d: "p2" in d.find_element(By.CSS_SELECTOR, f'.rect[data-id="{first_id}"]').text)
    assert rects(d)[0]["shadow"], "outlined"
    p1_color = d.execute_script("return getComputedStyle(document.querySelector('.rect.mine .sel-tag')).backgroundColor")
    p2_color = d.execute_script(f"return getComputedStyle(document.querySelector('.rect[data-id=\"{first_id}\"] .sel-tag')).backgroundColor")
    assert p1_color != p2_color
    screenshot(d, "plane-two-players")
    screenshot(other, "plane-second-player")

    # The phone layout: the panel goes under the plane, nothing scrolls sideways.
    phone = browser(width=390, height=844, mobile=True)
    phone.get(f"{server.url}/#/watch/{game}")
    wait(phone, lambda p: len(rects(p)) == 2, 10)
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 390
    screenshot(phone, "plane-phone-spectator")

    for b in (d, other, phone):
        assert_no_console_errors(b)
