"""Klondike in the browser: the stories a player and a spectator live through."""
from __future__ import annotations

import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import (assert_no_console_errors, css, ordered_deck, screenshot, wait, winnable_deck)
from kl import (card, double_click, drag, open_table, pile_target, settled, state_piles, table, touch_double_tap,
                touch_drag, wait_table)

# Tableau tops: AH on pile 0, 9S on 2, 8H on 3, TD on 4; the first stock card is AS.
STORY_DECK = ordered_deck(i0="AH", i13="9S", i18="8H", i22="TD", i28="AS")


def follow(client, seq: int, timeout: float = 10):
    """Reads the test client's messages until its mirror of the game reaches `seq`."""
    deadline = time.monotonic() + timeout
    while client.seq is None or client.seq < seq:
        client.recv(timeout=max(0.05, deadline - time.monotonic()))
    return client.state


def play_url(server, game, token):
    return f"{server.url}/#/play/{game}/{token}"


def watch_url(server, game):
    return f"{server.url}/#/watch/{game}"


def test_play_and_watch_a_deal(server, client, browser):
    me = client()
    game, token = me.create_klondike(STORY_DECK)
    assert me.seq == 0

    player = browser()
    open_table(player, play_url(server, game, token))
    spectator = browser()
    open_table(spectator, watch_url(server, game))
    wait_table(player, state_piles(me.state))
    wait_table(spectator, state_piles(me.state))
    wait(player, lambda d: "1 watching" in d.find_element(By.CSS_SELECTOR, ".presence").text, 5, "presence not shown")
    assert "Watching" in spectator.find_element(By.CSS_SELECTOR, ".badge.role").text
    screenshot(player, "klondike-deal")

    # Tap the stock: AS turns up on the waste, in both browsers.
    player.find_element(By.CSS_SELECTOR, ".stock-hit").click()
    state = follow(me, 1)
    assert state["waste"] == ["AS"]
    wait_table(player, state_piles(state))
    wait_table(spectator, state_piles(state))

    # Double-click the waste's Ace: it goes home to the leftmost foundation.
    wait(player, lambda d: settled(d))
    double_click(player, card(player, "AS"))
    state = follow(me, 2)
    assert state["foundations"][0] == ["AS"]
    wait_table(player, state_piles(state))

    # Double-click the Ace on tableau 0.
    double_click(player, card(player, "AH"))
    state = follow(me, 3)
    assert state["foundations"][1] == ["AH"] and state["tableau"][0] == []
    wait_table(player, state_piles(state))
    wait_table(spectator, state_piles(state))

    # Drag 8H onto 9S, then the run 9S-8H onto TD.
    wait(player, lambda d: settled(d))
    drag(player, card(player, "8H"), card(player, "9S"))
    state = follow(me, 4)
    assert state["tableau"][2][-2:] == ["9S", "8H"]
    wait_table(player, state_piles(state))
    wait(player, lambda d: settled(d))
    drag(player, card(player, "9S"), card(player, "TD"))
    state = follow(me, 5)
    assert state["tableau"][4][-3:] == ["TD", "9S", "8H"]
    assert state["tableau"][2][-1] != "??", "the uncovered card turned face up"
    wait_table(player, state_piles(state))
    wait_table(spectator, state_piles(state))
    screenshot(player, "klondike-after-moves")
    screenshot(spectator, "klondike-spectator")

    # An illegal drop (8S onto an empty foundation) slides back where it was.
    wait(player, lambda d: settled(d))
    eight = card(player, "8S")
    before = eight.rect
    drag(player, eight, pile_target(player, "/foundations/2"))
    wait(player, lambda d: settled(d) and card(d, "8S").rect == before, 5, "8S did not slide back")
    assert card(player, "8S").get_attribute("data-pile") == "/tableau/1"
    me.drain()
    assert me.seq == 5, "an illegal drop changes nothing"

    # Undo with the button, then with Ctrl+Z.
    player.find_element(By.CSS_SELECTOR, ".tool.undo").click()
    state = follow(me, 6)
    assert state["tableau"][2][-2:] == ["9S", "8H"]
    wait_table(player, state_piles(state))
    ActionChains(player).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
    state = follow(me, 7)
    assert state["tableau"][3][-1] == "8H"
    wait_table(player, state_piles(state))
    wait_table(spectator, state_piles(state))

    # Hint: the page marks the cards the server names.
    reply = me.request({"type": "hint"})
    hint = next(m for m in reply if m.get("type") == "hint")
    assert hint["from"], f"this deal has moves left: {hint}"
    player.find_element(By.TAG_NAME, "body").send_keys("h")
    wait(player, lambda d: css(d, ".hint-from"), 5, "hint not highlighted")
    screenshot(player, "klondike-hint")

    # A spectator's page has no gestures: a double-click there sends nothing.
    double_click(spectator, card(spectator, "8S"))
    me.drain()
    assert me.seq == 7

    # N asks first (moves were made), then deals anew.
    player.find_element(By.TAG_NAME, "body").send_keys("n")
    wait(player, lambda d: css(d, "dialog[open] .btn.primary"), 5)
    player.find_element(By.CSS_SELECTOR, "dialog[open] .btn.primary").click()
    state = follow(me, 8)
    assert state["moves"] == 0 and state["waste"] == []
    wait_table(player, state_piles(state))
    wait_table(spectator, state_piles(state))

    assert_no_console_errors(player)
    assert_no_console_errors(spectator)


def test_win_shows_message_to_player_spectator_and_late_joiner(server, client, browser):
    me = client()
    game, token = me.create_klondike(winnable_deck())
    player = browser()
    open_table(player, play_url(server, game, token))
    spectator = browser()
    open_table(spectator, watch_url(server, game))

    # The test plays every card but the last from its own socket, as the same player.
    for _ in range(24):
        me.ok({"type": "tap", "target": "/stock"})
        me.ok({"type": "double-tap", "target": "/waste"})
    ranks = "A23456789TJQK"
    while sum(len(f) for f in me.state["foundations"]) < 51:
        homes = {f[-1][1]: ranks.index(f[-1][0]) for f in me.state["foundations"] if f}
        for i, pile in enumerate(me.state["tableau"]):
            if pile and pile[-1] != "??" and homes.get(pile[-1][1], -1) == ranks.index(pile[-1][0]) - 1:
                me.ok({"type": "double-tap", "target": f"/tableau/{i}"})
                break
        else:
            raise AssertionError(f"no foundation move in {me.state}")
    wait_table(player, state_piles(me.state))
    wait_table(spectator, state_piles(me.state))
    last = next(p[-1] for p in me.state["tableau"] if p)

    # The winning move is the player's double-click.
    wait(player, lambda d: settled(d))
    before = me.seq
    double_click(player, card(player, last))
    wait(player, lambda d: d.find_element(By.CSS_SELECTOR, ".won-overlay").is_displayed(), 10, "no won message for the player")
    wait(spectator, lambda d: d.find_element(By.CSS_SELECTOR, ".won-overlay").is_displayed(), 10, "no won message for the spectator")
    follow(me, before + 1)
    assert me.state["status"] == "won"
    moves, score = me.state["moves"], me.state["score"]
    text = player.find_element(By.CSS_SELECTOR, ".won-overlay").text
    assert "You won!" in text
    assert player.find_element(By.CSS_SELECTOR, '.won-stats dd[data-stat="moves"]').text == str(moves)
    assert player.find_element(By.CSS_SELECTOR, '.won-stats dd[data-stat="score"]').text == str(score)
    assert css(player, '.won-stats dd[data-stat="time"]'), "the won event's seconds are shown"
    spectator_text = spectator.find_element(By.CSS_SELECTOR, ".won-overlay").text
    assert "Game won!" in spectator_text and str(moves) in spectator_text
    screenshot(player, "klondike-won-player")
    screenshot(spectator, "klondike-won-spectator")

    # Someone opening the watch link afterwards sees it won too (from the snapshot).
    late = browser(width=390, height=844, mobile=True)
    open_table(late, watch_url(server, game))
    wait(late, lambda d: d.find_element(By.CSS_SELECTOR, ".won-overlay").is_displayed(), 10, "no won message for a late joiner")
    assert late.find_element(By.CSS_SELECTOR, '.won-stats dd[data-stat="moves"]').text == str(moves)
    screenshot(late, "klondike-won-late-phone")

    for d in (player, spectator, late):
        assert_no_console_errors(d)


def test_phone_table_fits_and_takes_touch(server, client, browser):
    me = client()
    game, token = me.create_klondike(STORY_DECK, draw=3)
    phone = browser(width=375, height=740, mobile=True)
    open_table(phone, play_url(server, game, token))
    wait_table(phone, state_piles(me.state))
    widths = phone.execute_script(
        "const t = document.querySelector('.kl-table').getBoundingClientRect();"
        "return [document.documentElement.scrollWidth, window.innerWidth, t.right, Math.max(...[...document.querySelectorAll('.kl-table .card')].map(c => c.getBoundingClientRect().right))];")
    scroll_width, inner, table_right, cards_right = widths
    assert scroll_width <= inner == 375, f"page scrolls sideways: {widths}"
    assert cards_right <= 375, f"cards stick out: {widths}"
    ratio = phone.execute_script("const r = document.querySelector('.kl-table .card').getBoundingClientRect(); return r.height / r.width;")
    assert abs(ratio - 1.27) < 0.01

    # Draw 3 with a tap, then touch gestures: double-tap the Ace, drag 8H onto 9S.
    phone.find_element(By.CSS_SELECTOR, ".stock-hit").click()
    state = follow(me, 1)
    assert len(state["waste"]) == 3
    wait_table(phone, state_piles(state))
    wait(phone, lambda d: settled(d))
    touch_double_tap(phone, card(phone, "AH"))
    state = follow(me, 2)
    assert state["foundations"][0] == ["AH"]
    wait(phone, lambda d: settled(d))
    touch_drag(phone, card(phone, "8H"), card(phone, "9S"))
    state = follow(me, 3)
    assert state["tableau"][2][-1] == "8H"
    wait_table(phone, state_piles(state))
    screenshot(phone, "klondike-phone-draw3")
    assert_no_console_errors(phone)


def test_empty_stock_shows_refresh_mark_and_turns_the_waste_over(server, client, browser):
    me = client()
    game, token = me.create_klondike(STORY_DECK)
    for _ in range(24):
        me.ok({"type": "tap", "target": "/stock"})
    assert me.state["stock"] == []
    player = browser(width=900, height=800)
    open_table(player, play_url(server, game, token))
    wait_table(player, state_piles(me.state))
    mark = player.find_element(By.CSS_SELECTOR, '.slot[data-pile="/stock"].empty-stock .refresh')
    wait(player, lambda d: float(mark.value_of_css_property("opacity")) > 0.9, 5)
    screenshot(player, "klondike-empty-stock")
    player.find_element(By.CSS_SELECTOR, ".stock-hit").click()
    state = follow(me, 25)
    assert len(state["stock"]) == 24 and state["waste"] == []
    wait_table(player, state_piles(state))
    assert not css(player, '.slot[data-pile="/stock"].empty-stock')
    assert_no_console_errors(player)


def test_reconnects_after_a_restart_and_carries_on(browser, tmp_data):
    """The server goes away and comes back on the same port with the same data:
    the page shows it is reconnecting, then catches up with `since`."""
    from conftest import Client, ServerProcess

    first = ServerProcess(data=tmp_data)
    port = first.port
    try:
        me = Client(first.ws_url)
        game, token = me.create_klondike(STORY_DECK)
        player = browser()
        open_table(player, f"{first.url}/#/play/{game}/{token}")
        wait(player, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "open", 5)
        me.close()
    finally:
        first.stop()
    wait(player, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "reconnecting", 10,
         "the page does not say it lost the server")
    assert "Reconnecting" in player.find_element(By.ID, "conn-status").text
    screenshot(player, "klondike-reconnecting")

    second = ServerProcess(data=tmp_data, port=port)
    try:
        me = Client(second.ws_url)
        me.ok({"type": "join", "game": game, "token": token})
        me.ok({"type": "tap", "target": "/stock"})  # a move the page did not see happen
        wait(player, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "open", 30,
             "the page did not reconnect")
        wait_table(player, state_piles(me.state))
        player.find_element(By.CSS_SELECTOR, ".stock-hit").click()
        state = follow(me, 2)
        wait_table(player, state_piles(state))
        me.close()
    finally:
        second.stop()
    assert_no_console_errors(player, allow=("WebSocket connection to", "ERR_CONNECTION_REFUSED"))


def test_missed_diff_is_fetched_again_with_since(server, client, browser):
    """The page loses one diff (dropped before it reaches the session, as a flaky
    network would): the next diff shows a gap, and the page asks again with
    `since` and ends up with the server's state."""
    me = client()
    game, token = me.create_klondike(STORY_DECK)
    player = browser()
    open_table(player, play_url(server, game, token))
    wait(player, lambda d: d.find_element(By.ID, "conn-status").get_attribute("data-state") == "open")
    player.execute_script("""
      const link = window.boardcast.conn.link, deliver = link.dispatch.bind(link);
      window.sentLog = [];
      const send = link.ws.send.bind(link.ws);
      link.ws.send = (text) => { window.sentLog.push(JSON.parse(text)); send(text); };
      let dropped = false;
      link.dispatch = (m) => { if (!dropped && m.type === 'diff') { dropped = true; return; } deliver(m); };""")
    me.ok({"type": "tap", "target": "/stock"})      # seq 1: lost on the way
    me.ok({"type": "double-tap", "target": "/waste"})  # seq 2: the gap shows
    wait_table(player, state_piles(me.state))
    rejoin = player.execute_script("return window.sentLog.filter(m => m.type === 'join')")
    assert rejoin and rejoin[0]["since"] == 0 and rejoin[0]["game"] == game, rejoin

    # The stock is a button too: Tab to it and press Enter.
    player.execute_script("document.querySelector('.stock-hit').focus()")
    player.switch_to.active_element.send_keys(Keys.ENTER)
    state = follow(me, 3)
    wait_table(player, state_piles(state))
    sent = player.execute_script("return window.sentLog")
    assert all(isinstance(m.get("id"), str) and len(m["id"]) >= 8 for m in sent), sent
    assert_no_console_errors(player)
