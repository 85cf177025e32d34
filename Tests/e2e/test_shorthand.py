"""Terminal shorthand through the real websocat binary."""
from __future__ import annotations

import json
import time

import jsonpatch

from e2e_client import Client, fresh_snapshot, run
from e2e_websocat import Websocat, as_json
from klondike_deal import initial_state, shuffled_deck


def test_klondike_session_in_websocat(server):
    term = Websocat(server.ws())
    try:
        mark = term.send("create klondike draw=3 seed=42")
        created_at, created = term.expect_json("created", mark)
        joined_at, joined = term.expect_json("joined", mark)
        snap_at, snapshot = term.expect_json("snapshot", mark)
        assert created_at < joined_at < snap_at
        game = created["game"]
        assert joined["role"] == "player" and joined["you"] == "p1"
        assert snapshot["state"] == initial_state(shuffled_deck(42), 3)

        mark = term.send("tap stock")
        _, diff = term.expect_json("diff", mark)
        assert diff["seq"] == 1 and diff["cause"] == {"type": "tap", "target": "/stock", "by": "p1"}
        state = snapshot["state"]
        state = jsonpatch.apply_patch(state, diff["ops"])
        assert state["waste"] == shuffled_deck(42)[28:31]

        # show: plain-text lines, one frame each; a list right after marks where they end.
        mark = term.send("show")
        term.send("list")
        lobby_at, lobby = term.expect_json("lobby", mark)
        drawing = term.lines[mark:lobby_at]
        assert len(drawing) >= 3, f"show draws the board on several lines: {drawing}"
        for line in drawing:
            assert not isinstance(as_json(line), (dict, list)), f"show sends plain text, got {line!r}"
        assert any(game == g["game"] and g["seq"] == 1 for g in lobby["games"])

        # Errors: unknown first word, known word with wrong arguments.
        for line, code in [("frobnicate now", "unknown-type"), ("tap", "bad-request"),
                           ("drag stock", "bad-request"), ("create klondike draw=x", "bad-request"),
                           ("watch", "bad-request"), ("tap tableau/9", "bad-request"),
                           ("alpha +1", "unknown-type"), ("tap stock extra", "bad-request"),
                           ("undo 3", "bad-request"), ("tap st\u00f6ck", "bad-request"),
                           (f"watch {game} abc", "bad-request"), (f"watch {game} -1", "bad-request"),
                           ("create checkers", "bad-request")]:
            mark = term.send(line)
            _, error = term.expect_json("error", mark)
            assert error["code"] == code and "id" not in error, (line, error)

        # Targets that dropped their '/' appear in the cause with it.
        mark = term.send("double-tap waste")
        index = term.expect(lambda l: (as_json(l) or {}).get("type") in ("diff", "error"), mark)
        outcome = json.loads(term.lines[index])
        if outcome["type"] == "diff":
            assert outcome["cause"] == {"type": "double-tap", "target": "/waste", "by": "p1"}
        else:
            assert outcome["code"] == "illegal-move"
        mark = term.send("drag tableau/6/6 tableau/6")
        _, error = term.expect_json("error", mark)
        assert error["code"] == "illegal-move"

        # watch GAME 0 replays from the first move.
        mark = term.send(f"watch {game} 0")
        _, rejoined = term.expect_json("joined", mark)
        assert rejoined["role"] == "spectator" and "you" not in rejoined
        _, replayed = term.expect_json("diff", mark, seq=1)
        assert replayed["cause"] == diff["cause"] and replayed["ops"] == diff["ops"]
        mark = term.send("tap stock")
        _, error = term.expect_json("error", mark)
        assert error["code"] == "forbidden"
        mark = term.send("leave")
        _, left = term.expect_json("left", mark)
        assert left["game"] == game
        mark = term.send("show")
        _, error = term.expect_json("error", mark)
        assert error["code"] == "not-joined"
        # join GAME TOKEN: a player again (a new player id), and undo/hint work in shorthand.
        mark = term.send(f"join {game} {created['token']}")
        _, joined = term.expect_json("joined", mark)
        assert joined["role"] == "player" and joined["you"] not in (None, "p1")
        term.expect_json("snapshot", mark)
        mark = term.send("undo")
        _, undone = term.expect_json("diff", mark)
        assert undone["cause"] == {"type": "undo", "by": joined["you"]}
        mark = term.send("hint")
        _, hint = term.expect_json("hint", mark)
        assert "from" in hint and "to" in hint
    finally:
        term.close()


def test_plane_shorthand_causes_are_json(server):
    term = Websocat(server.ws())
    try:
        # Seeded, so the server's random rectangles fall the same way every run: seed 1's
        # first one lies well away from (1000, 700), and the double-tap's has alpha above 1.
        mark = term.send("create plane seed=1")
        _, created = term.expect_json("created", mark)
        term.expect_json("snapshot", mark)
        # Each line and the cause of its diff, or the error it gets.
        expected = [
            ("add", {"type": "add"}),
            ("tap 1000 700", {"type": "tap", "x": 1000, "y": 700}),  # empty space: clears the selection
            ("double-tap 120 80", {"type": "double-tap", "x": 120, "y": 80}),
            ("drag 120 80 300 200", {"type": "drag", "from": {"x": 120, "y": 80}, "to": {"x": 300, "y": 200}}),
            ("color", {"type": "color"}),
            ("alpha -1", {"type": "alpha", "step": -1}),
            ("alpha +1", {"type": "alpha", "step": 1}),
            ("tap 300 200", "illegal-move"),  # the dragged rectangle is the selection already
        ]
        seq = 0
        for line, outcome in expected:
            mark = term.send(line)
            index = term.expect(lambda l: (as_json(l) or {}).get("type") in ("diff", "error"), mark)
            message = json.loads(term.lines[index])
            if isinstance(outcome, str):
                assert message["type"] == "error" and message["code"] == outcome, (line, message)
                continue
            assert message["type"] == "diff", (line, message)
            seq += 1
            assert message["seq"] == seq
            assert {k: v for k, v in message["cause"].items() if k != "by"} == outcome, (line, message)
            assert message["cause"]["by"] == "p1"
        mark = term.send("list")
        term.expect_json("lobby", mark)
        mark = term.send("reset")
        _, diff = term.expect_json("diff", mark)
        assert diff["cause"] == {"type": "reset", "by": "p1"}
        assert created["game"]
    finally:
        term.close()


def test_list_follow_and_unfollow_in_websocat(server):
    term = Websocat(server.ws())
    try:
        mark = term.send("list follow")
        term.expect_json("lobby", mark)

        async def create_one():
            client = await Client.connect(server.ws())
            game = (await client.create("plane")).one("created")["game"]
            await client.close()
            return game

        mark = len(term.lines)
        game = run(create_one())
        term.expect(lambda l: (as_json(l) or {}).get("type") == "lobby"
                    and any(g["game"] == game for g in as_json(l)["games"]), mark)

        mark = term.send("list unfollow")
        # A JSON list with an id (websocat sends any line) marks where the unfollow is behind us.
        term.send('{"type":"list","id":"after-unfollow"}')
        quiet_from = term.expect_json("ack", mark, id="after-unfollow")[0] + 1
        run(create_one())
        deadline = time.monotonic() + 1.6  # proving an absence: nothing to await
        while time.monotonic() < deadline:
            term._pull(0.2)
        assert not [l for l in term.lines[quiet_from:] if (as_json(l) or {}).get("type") == "lobby"]
    finally:
        term.close()


def test_websocat_spectator_sees_moves_from_json_players(server):
    async def scenario():
        player = await Client.connect(server.ws(), "p1")
        game = (await player.create("klondike", seed=3)).one("created")["game"]
        term = Websocat(server.ws(f"/ws?watch={game}"))
        try:
            term.expect_json("snapshot", 0)
            await player.move({"type": "tap", "target": "/stock"})
            _, diff = term.expect_json("diff", 0)
            assert diff["cause"] == {"type": "tap", "target": "/stock", "by": "p1"}
            assert (await fresh_snapshot(server.ws(), game))["seq"] == 1
        finally:
            term.close()
        await player.close()
    run(scenario())
