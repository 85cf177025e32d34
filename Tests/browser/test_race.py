"""Races in the browser (PROTOCOL section 13): players at their own tables, rivals
small and masked, spectators seeing every table, the podium, and seats kept
across a reconnect. Also the winnable-deal choice and the solver's verdict
(section 12)."""
from __future__ import annotations

import time

from selenium.webdriver.common.by import By

from conftest import assert_no_console_errors, css, ordered_deck, screenshot, wait, winnable_deck
from kl import PILES, double_click, settled, state_piles

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


def follow(client, seq: int, timeout: float = 10):
    deadline = time.monotonic() + timeout
    while client.seq is None or client.seq < seq:
        client.recv(timeout=max(0.05, deadline - time.monotonic()))
    return client.state


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
