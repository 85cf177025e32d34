"""The gallery: every main screen of the page at 1280x800 and at 390x844 (a phone), each
checked as every screen the suite visits is (conftest's check_screen: no "null" or
"undefined" on it, nothing over the board or the chat's field, nothing over the phone's
bottom bar, no page taller than 1280x800 needs, a name for every icon-only button) and
saved as artifacts/screenshots/gallery-SCREEN-SIZE.png. docs/PAGE.md describes them."""
from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By

from conftest import assert_no_console_errors, css, follow, ordered_deck, screenshot, wait, winnable_deck
from kl import open_table, settled
from test_four import overlay, wait_turn

DECK = ordered_deck(i0="AH", i13="9S", i18="8H", i22="TD", i28="AS")
SIZES = {"1280x800": dict(width=1280, height=800), "390x844": dict(width=390, height=844, mobile=True)}


@pytest.mark.parametrize("size", list(SIZES))
def test_gallery_of_every_screen(server, client, browser, size):
    d = browser(**SIZES[size])
    shot = lambda name: screenshot(d, f"gallery-{name}-{size}")  # noqa: E731

    # Games in every part of the lobby: an open seat, one being played, one over.
    waiting = client()
    waiting.ok({"type": "create", "kind": "four"})
    solo = client()
    game, token = solo.create_klondike(DECK)
    over = client()
    over.ok({"type": "create", "kind": "four", "options": {"bots": {"p2": 1}}})
    over.ok({"type": "resign"})
    d.get(server.url + "/")
    wait(d, lambda d: len(css(d, ".game-group")) >= 3, 10, "the lobby does not list open, live and finished games")
    shot("lobby")
    if size == "390x844":
        d.execute_script("document.querySelector('.list-head').scrollIntoView()")
        shot("lobby-games")
        d.execute_script("window.scrollTo(0, 0)")

    # Klondike: a deal with a move made (its mark), then the table won.
    open_table(d, f"{server.url}/#/play/{game}/{token}")
    solo.ok({"type": "double-tap", "target": "/tableau/0"})
    wait(d, lambda d: css(d, ".card.last-move") and settled(d), 10)
    shot("klondike")
    d.find_element(By.CSS_SELECTOR, ".share-play").click()
    wait(d, lambda d: css(d, "dialog[open] .link-field"), 5)
    shot("play-link")
    d.find_element(By.CSS_SELECTOR, "dialog[open] .btn.primary").click()
    winner = client()
    won, won_token = winner.create_klondike(winnable_deck())
    for _ in range(24):
        winner.ok({"type": "tap", "target": "/stock"})
        winner.ok({"type": "double-tap", "target": "/waste"})
    ranks = "A23456789TJQK"
    while winner.state["status"] != "won":
        homes = {f[-1][1]: ranks.index(f[-1][0]) for f in winner.state["foundations"] if f}
        pile = next(i for i, p in enumerate(winner.state["tableau"]) if p and homes.get(p[-1][1], -1) == ranks.index(p[-1][0]) - 1)
        winner.ok({"type": "double-tap", "target": f"/tableau/{pile}"})
    open_table(d, f"{server.url}/#/play/{won}/{won_token}")
    wait(d, lambda d: d.find_element(By.CSS_SELECTOR, ".won-overlay").is_displayed(), 10)
    shot("klondike-won")

    # A race of two: the page plays p2 against a program.
    racer = client()
    racer.ok({"type": "create", "kind": "race", "options": {"seats": 2, "deck": DECK}})
    d.get(f"{server.url}/#/play/{racer.game}/{racer.token}")
    wait(d, lambda d: len(css(d, ".race-seat .kl-table .card")) == 104, 10)
    follow(racer, 1)
    racer.ok({"type": "tap", "target": "/stock"})
    wait(d, lambda d: settled(d))
    shot("race")
    d.get(f"{server.url}/#/watch/{racer.game}")
    wait(d, lambda d: len(css(d, ".race-seat .kl-table .card")) == 104 and d.execute_script("return window.boardcast.view.session.seq") is not None, 10)
    shot("race-spectator")

    # The plane, with two rectangles.
    planer = client()
    planer.ok({"type": "create", "kind": "plane", "options": {"seed": 7}})
    planer.ok({"type": "add", "x": 100, "y": 100, "r": 220, "g": 60, "b": 60, "alpha": 7})
    d.get(f"{server.url}/#/play/{planer.game}/{planer.token}")
    wait(d, lambda d: len(css(d, ".plane .rect")) == 1, 10)
    d.find_element(By.CSS_SELECTOR, ".add-rect").click()
    wait(d, lambda d: len(css(d, ".plane .rect")) == 2, 10)
    shot("plane")

    # Four in a row: waiting for a friend (the invitation), played, and against the computer to its result.
    friend = client()
    friend.ok({"type": "create", "kind": "four"})
    friend.ok({"type": "leave"})
    d.get(f"{server.url}/#/play/{friend.game}/{friend.token}")
    wait(d, lambda d: d.find_element(By.CSS_SELECTOR, ".four-invite").is_displayed(), 10)
    shot("four-invite")
    other = client()
    other.ok({"type": "join", "game": friend.game, "token": friend.token})
    wait_turn(d, "Your turn")
    d.find_element(By.CSS_SELECTOR, '.four-col[data-col="3"]').click()
    follow(other, 2)
    other.ok({"type": "tap", "target": "/columns/4"})
    wait_turn(d, "Your turn")
    shot("four")
    bot = client()
    bot.ok({"type": "create", "kind": "four", "options": {"bots": {"p2": 2}, "clock": {"initial": 300, "increment": 5}}})
    bot.ok({"type": "leave"})
    d.get(f"{server.url}/#/play/{bot.game}/{bot.token}")
    wait_turn(d, "Your turn")
    d.find_element(By.CSS_SELECTOR, '.four-col[data-col="3"]').click()
    wait_turn(d, "Your turn", 10)
    shot("four-computer")
    d.find_element(By.CSS_SELECTOR, ".tool.resign").click()
    wait(d, lambda d: css(d, "dialog[open] .btn.primary"), 5)
    d.find_element(By.CSS_SELECTOR, "dialog[open] .btn.primary").click()
    wait(d, lambda d: overlay(d)["shown"], 10)
    shot("four-result")

    # The replay of that game, at its end.
    d.get(f"{server.url}/#/replay/{bot.game}")
    wait(d, lambda d: d.find_element(By.CSS_SELECTOR, ".rp-counter").text.startswith("0 /"), 10)
    d.find_element(By.CSS_SELECTOR, ".rp-last").click()
    wait(d, lambda d: d.find_element(By.CSS_SELECTOR, ".rp-last").get_attribute("disabled") is not None, 5)
    shot("replay")
    assert_no_console_errors(d)
