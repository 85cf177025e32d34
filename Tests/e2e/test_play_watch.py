"""Playing while 20 spectators watch: every diff, in order, applies with a generic
RFC 6902 library and ends where a fresh snapshot is."""
from __future__ import annotations

import asyncio
import time

import requests

from e2e_client import Client, connect_many, fresh_snapshot, normalise_cause, run, strip_cause
from klondike_deal import RANKS, initial_state, shuffled_deck, winnable_deck

SPECTATORS = 20


def http_get_json(server, path: str):
    session = requests.Session()
    session.trust_env = False
    return session.get(server.http + path, timeout=15).json()


def inside(rect: dict, x: float, y: float) -> bool:
    return rect["x"] <= x <= rect["x"] + rect["width"] and rect["y"] <= y <= rect["y"] + rect["height"]


def assert_move_reply(reply, command: dict, by: str, previous_seq: int) -> dict:
    """One diff of ours (seq + 1, cause = command minus id plus by), any event after it, the ack last.

    Diffs of other players' earlier moves may arrive while ours is under way; they come first."""
    diffs = reply.of("diff")
    ours = [d for d in diffs if d["seq"] == reply.ack.get("seq")]
    assert len(ours) == 1 and diffs[-1] is ours[0], reply
    assert all(d["seq"] < ours[0]["seq"] for d in diffs[:-1]), reply
    diff = ours[0]
    assert diff["seq"] == previous_seq + 1 == reply.ack["seq"], reply
    expected = strip_cause(command) | {"by": by}
    assert normalise_cause(diff["cause"]) == normalise_cause(expected), (diff["cause"], expected)
    types = reply.types()
    our_index = next(i for i, m in enumerate(reply) if m is diff)
    assert our_index < len(types) - 1
    for index, kind in enumerate(types):
        if kind == "event":
            assert index > our_index, "an event comes after the diff that caused it"
    return diff


def test_play_a_winnable_deal_with_20_spectators(server):
    deck, gestures = winnable_deck()

    async def scenario():
        player = await Client.connect(server.ws(), "p1")
        dealt_at = time.monotonic()
        reply = await player.create("klondike", draw=1, deck=deck)
        game = reply.one("created")["game"]
        assert player.state == initial_state(deck, 1)
        initial = dict(player.state)

        spectators = await connect_many(server.ws(), SPECTATORS, "s")
        replies = await asyncio.gather(*(s.watch(game) for s in spectators))
        for s, r in zip(spectators, replies):
            assert r.ok and r.one("joined")["role"] == "spectator" and "you" not in r.one("joined")
            assert r.one("snapshot")["state"] == initial
        # Presence reaches every member, the joiners included, and settles on the real counts.
        for member in [player, *spectators]:
            await member.expect_type("presence", game=game, players=1, spectators=SPECTATORS)

        # hint and show are open to spectators.
        hint = await spectators[0].request({"type": "hint"})
        assert hint.ok and hint.ack["seq"] == 0
        shown = hint.one("hint")
        assert set(shown) >= {"type", "from", "to"}
        show = await spectators[1].request({"type": "show"})
        assert show.ok and show.ack["seq"] == 0
        text_lines = [m for m in show if isinstance(m, str)]
        assert text_lines, f"show sends plain-text frames: {show!r}"

        seq = 0
        states = {0: initial}
        # Four moves, an undo back to the exact previous state, then the same move again.
        for command in gestures[:4]:
            assert_move_reply(await player.move(command), command, "p1", seq)
            seq += 1
            states[seq] = player.state
        undo = await player.move({"type": "undo"})
        assert_move_reply(undo, {"type": "undo"}, "p1", seq)
        seq += 1
        assert player.state == states[seq - 2], "undo restores cards, moves and score exactly"
        won = None
        for command in gestures[3:]:
            reply = await player.move(command)
            assert_move_reply(reply, command, "p1", seq)
            seq += 1
            if reply.of("event"):
                won = reply.one("event")
        assert won is not None, "the last card on a foundation sends the won event"
        assert won["event"] == "won" and won["game"] == game and won["seq"] == seq
        assert {"moves", "score", "seconds"} <= set(won)
        assert isinstance(won["seconds"], (int, float)) and 0 <= won["seconds"] <= time.monotonic() - dealt_at + 1
        assert won["moves"] == player.state["moves"] and won["score"] == player.state["score"]
        assert player.state["status"] == "won"
        # Each Ace went to the leftmost empty foundation: spades were first, clubs last.
        assert player.state["foundations"] == [[rank + suit for rank in RANKS] for suit in "SHDC"]
        lobby = {g["game"]: g for g in http_get_json(server, "/api/games")}
        assert lobby[game]["status"] == "won" and lobby[game]["seq"] == seq
        assert not player.state["stock"] and not player.state["waste"] and not any(player.state["tableau"])
        assert (await player.request({"type": "undo"})).ack["code"] == "illegal-move", "no undo after a win"
        reset = {"type": "reset", "options": {"draw": 3, "seed": 42}}
        reply = await player.move(reset)
        assert_move_reply(reply, reset, "p1", seq)
        seq += 1
        event = reply.one("event")
        assert event["event"] == "reset" and event["seq"] == seq and event["game"] == game
        assert player.state == initial_state(shuffled_deck(42), 3)

        # Every spectator saw every diff and every event, in order, with no gap.
        final = await fresh_snapshot(server.ws(), game)
        assert final["seq"] == seq
        for s in spectators:
            await s.expect_type("event", event="reset")
            assert not s.problems, s.problems
            assert [d["seq"] for d in s.diffs] == list(range(1, seq + 1))
            assert s.state == final["state"] and s.seq == seq
            events = s.received("event")
            assert [e["event"] for e in events] == ["won", "reset"]
            won_index = next(i for i, m in enumerate(s.messages) if isinstance(m, dict) and m.get("type") == "event")
            assert s.messages[won_index - 1]["type"] == "diff" and s.messages[won_index - 1]["seq"] == won["seq"]
        assert [d["cause"] for d in spectators[0].diffs] == [d["cause"] for d in player.diffs]
        # watch again: the fresh snapshot equals what the diffs built.
        again = await spectators[2].watch(game)
        assert again.one("snapshot")["state"] == spectators[2].state == player.state

        # When spectators go, the remaining members hear the new counts.
        await asyncio.gather(*(s.close() for s in spectators[10:]))
        for member in [player, *spectators[:10]]:
            await member.expect(lambda m: isinstance(m, dict) and m.get("type") == "presence"
                                and m["spectators"] == 10 and m["players"] == 1)
        await asyncio.gather(*(s.close() for s in spectators[:10]))
        await player.expect_type("presence", players=1, spectators=0)
        await player.close()
    run(scenario(), timeout=120)


def test_hint_driven_play_keeps_spectators_in_step(server):
    """Drags, double-taps and taps from a random deal; spectators follow every diff."""
    async def scenario():
        player = await Client.connect(server.ws(), "p1")
        game = (await player.create("klondike", draw=1, seed=2024)).one("created")["game"]
        spectators = await connect_many(server.ws(), 5, "s")
        await asyncio.gather(*(s.watch(game) for s in spectators))
        seq = 0
        moves_made = 0
        for _ in range(80):
            hint = (await player.request({"type": "hint"})).one("hint")
            if hint["from"] and hint["to"] and hint["from"] != "/stock":
                command = {"type": "drag", "from": hint["from"], "to": hint["to"]}
            else:
                command = {"type": "tap", "target": "/stock"}
            reply = await player.request(command)
            if reply.ok:
                assert_move_reply(reply, command, "p1", seq)
                seq += 1
                moves_made += 1
            else:
                assert command["type"] == "tap", f"the hint {hint} is not a legal move: {reply.ack}"
                assert reply.ack["code"] == "illegal-move", (command, reply)
                assert not reply.of("diff")
            double = {"type": "double-tap", "target": "/waste"}
            reply = await player.request(double)
            if reply.ok:
                assert_move_reply(reply, double, "p1", seq)
                seq += 1
            else:
                assert reply.ack["code"] == "illegal-move" and not reply.of("diff")
        assert moves_made > 20
        # Hidden information stays hidden: nothing a diff puts into the stock is a card's face.
        for diff in player.diffs:
            for op in diff["ops"]:
                if op["path"] == "/stock" or op["path"].startswith("/stock/"):
                    values = op.get("value", [])
                    values = values if isinstance(values, list) else [values]
                    assert all(v == "??" for v in values), f"diff {diff['seq']} shows the stock: {op}"
        final = await fresh_snapshot(server.ws(), game)
        for s in spectators:
            await s.expect_type("diff", seq=seq)
            assert not s.problems and s.state == final["state"]
        for client in [player, *spectators]:
            await client.close()
    run(scenario(), timeout=120)


def test_undo_goes_back_to_the_deal_and_not_past_a_reset(server):
    async def scenario():
        player = await Client.connect(server.ws(), "p1")
        await player.create("klondike", draw=1, seed=99)
        states = [player.state]
        for _ in range(6):
            await player.move({"type": "tap", "target": "/stock"})
            states.append(player.state)
        for back in range(5, -1, -1):
            await player.move({"type": "undo"})
            assert player.state == states[back], f"undo to move {back}"
        assert (await player.request({"type": "undo"})).ack["code"] == "illegal-move", "nothing before the deal"
        await player.move({"type": "tap", "target": "/stock"})
        await player.move({"type": "reset"})
        assert player.state["draw"] == 1, "reset keeps draw"
        assert player.state["moves"] == 0 and player.state["score"] == 0
        assert (await player.request({"type": "undo"})).ack["code"] == "illegal-move", "not past a reset"
        await player.close()
    run(scenario())


def test_plane_play_with_spectators(server):
    async def scenario():
        p1 = await Client.connect(server.ws(), "p1")
        created = (await p1.create("plane", width=800, height=600, seed=5)).one("created")
        game, token = created["game"], created["token"]
        p2 = await Client.connect(server.ws(), "p2")
        assert (await p2.join(game, token)).ok
        watcher = await Client.connect(server.ws(), "s")
        await watcher.watch(game)
        seq = 0

        async def play(who, command):
            nonlocal seq
            assert_move_reply(await who.move(command), command, who.you, seq)
            seq += 1

        await play(p1, {"type": "add", "x": 10, "y": 20, "width": 100, "height": 50,
                        "r": 1, "g": 2, "b": 3, "alpha": 5})
        first = p1.state["order"][0]
        assert p1.state["rectangles"][first] == {"x": 10, "y": 20, "width": 100, "height": 50,
                                                 "r": 1, "g": 2, "b": 3, "alpha": 5}
        await play(p2, {"type": "double-tap", "x": 600, "y": 450})
        second = p2.state["selections"]["p2"]
        assert p2.state["order"] == [first, second]
        inside_second = lambda x, y: inside(p2.state["rectangles"][second], x, y)
        await play(p1, {"type": "color", "r": 200, "g": 100, "b": 50})
        await play(p1, {"type": "alpha", "step": 1})
        await play(p1, {"type": "alpha", "step": -1})
        await play(p2, {"type": "drag", "from": {"x": 600, "y": 450}, "to": {"x": 579.5, "y": 440}})
        # A point of the first rectangle that the second does not cover (it is on top).
        spot = next(((x, y) for x in (12, 60, 108) for y in (22, 45, 68) if not inside_second(x, y)), None)
        assert spot, f"the random rectangle covers the whole first one: {p2.state}"
        await play(p2, {"type": "tap", "x": spot[0], "y": spot[1]})
        await play(p1, {"type": "drag", "from": {"x": spot[0], "y": spot[1]}, "to": {"x": spot[0] - 500, "y": spot[1]}})
        await play(p1, {"type": "color"})
        state = p1.state
        rect = state["rectangles"][first]
        assert (rect["x"], rect["y"], rect["width"], rect["height"], rect["alpha"]) == (0, 20, 100, 50, 5), \
            "a drag keeps the rectangle inside the plane"
        assert state["selections"] == {"p1": first, "p2": first}
        assert state["order"] == [first, second], "only add, double-tap and reset change the order"
        # A double-tap near an edge places the new rectangle inside the plane.
        for x, y in ((0, 0), (800, 600), (799.5, 0.25)):
            await play(p2, {"type": "double-tap", "x": x, "y": y})
            placed = p2.state["rectangles"][p2.state["selections"]["p2"]]
            assert 0 <= placed["x"] and placed["x"] + placed["width"] <= 800
            assert 0 <= placed["y"] and placed["y"] + placed["height"] <= 600
            assert p2.state["order"][-1] == p2.state["selections"]["p2"]
        state = p2.state  # p2 has seen its own diffs; p1 may not have yet
        assert state["selections"]["p1"] == first
        # Nothing to do is illegal-move; so is alpha past 10 and colour with no selection.
        lonely = await Client.connect(server.ws(), "p3")
        assert (await lonely.join(game, token)).ok
        assert (await lonely.request({"type": "color"})).ack["code"] == "illegal-move"
        empty = next(((x, y) for x in range(0, 801, 40) for y in range(0, 601, 40)
                      if not any(inside(r, x, y) for r in state["rectangles"].values())), None)
        assert empty, state
        assert (await lonely.request({"type": "tap", "x": empty[0], "y": empty[1]})).ack["code"] == "illegal-move"
        for _ in range(5):
            await play(p1, {"type": "alpha", "step": 1})
        assert (await p1.request({"type": "alpha", "step": 1})).ack["code"] == "illegal-move"
        # A tap on empty space clears the sender's selection: its key goes.
        await play(p1, {"type": "tap", "x": empty[0], "y": empty[1]})
        assert "p1" not in p1.state["selections"] and p1.state["selections"]["p2"]
        assert (await p1.request({"type": "tap", "x": empty[0], "y": empty[1]})).ack["code"] == "illegal-move"
        # A player who leaves loses its selection in a diff caused by `leave`.
        mark = watcher.mark()
        reply = await p2.request({"type": "leave"})
        assert reply.ok and "seq" not in reply.ack
        diff = await watcher.expect_type("diff", after=mark)
        seq += 1
        assert diff["seq"] == seq and diff["cause"] == {"type": "leave", "by": "p2"}
        assert "p2" not in watcher.state["selections"]
        await lonely.close()
        await p1.expect_type("diff", seq=seq)
        final = await fresh_snapshot(server.ws(), game)
        assert not watcher.problems and watcher.state == final["state"] == p1.state
        reset = await p1.move({"type": "reset"})
        assert reset.one("event")["event"] == "reset"
        assert p1.state["rectangles"] == {} and p1.state["order"] == [] and p1.state["selections"] == {}
        assert (await p1.request({"type": "reset"})).ack["code"] == "illegal-move", "resetting an empty plane"
        for client in (p1, p2, watcher):
            await client.close()
    run(scenario())


def test_lobby_follow_and_unfollow(server):
    async def scenario():
        follower = await Client.connect(server.ws(), "follower")
        reply = await follower.request({"type": "list", "follow": True})
        assert reply.types()[-2:] == ["lobby", "ack"]
        creator = await Client.connect(server.ws(), "creator")
        mark = follower.mark()
        started = time.monotonic()
        game = (await creator.create("klondike", seed=9)).one("created")["game"]
        lobby = await follower.expect(lambda m: isinstance(m, dict) and m.get("type") == "lobby"
                                      and any(g["game"] == game for g in m["games"]), after=mark)
        # About a second on a quiet machine (the lobby is recomputed at most once a second); a bound
        # that catches a lobby that waits for something else (the next change, a much slower beat).
        assert time.monotonic() - started < 5.0, "a new lobby within about a second"
        entry = next(g for g in lobby["games"] if g["game"] == game)
        assert entry["kind"] == "klondike" and entry["status"] == "playing" and entry["players"] == 1

        # Moves change the lobby (seq); updates come at most about once a second.
        mark = follower.mark()
        started = time.monotonic()
        for _ in range(30):
            await creator.move({"type": "tap", "target": "/stock"})
        await follower.expect(lambda m: isinstance(m, dict) and m.get("type") == "lobby"
                              and any(g["game"] == game and g["seq"] == 30 for g in m["games"]),
                              after=mark)
        elapsed = time.monotonic() - started
        assert len(follower.received("lobby", mark)) <= elapsed + 2, "at most one lobby a second"

        # A plain list changes nothing; list follow=false stops the updates.
        assert (await follower.request({"type": "list"})).ok
        reply = await follower.request({"type": "list", "follow": False})
        assert reply.ok
        quiet_from = follower.mark()
        other = await Client.connect(server.ws(), "other")
        await other.create("plane")
        await creator.move({"type": "tap", "target": "/stock"})
        await asyncio.sleep(1.6)  # proving an absence: nothing to await
        assert follower.received("lobby", quiet_from) == []
        for client in (follower, creator, other):
            await client.close()
    run(scenario())


def test_three_players_at_once_in_one_game(server):
    """Concurrent commands get distinct, gapless seqs; every member sees the same history."""
    from e2e_streams import Streamer, plane_moves

    async def scenario():
        p1 = await Client.connect(server.ws(), "p1")
        created = (await p1.create("plane", width=1000, height=800, seed=3)).one("created")
        game, token = created["game"], created["token"]
        players = [p1]
        for name in ("p2", "p3"):
            client = await Client.connect(server.ws(), name)
            assert (await client.join(game, token)).ok
            players.append(client)
        spectators = await connect_many(server.ws(), 5, "s")
        await asyncio.gather(*(s.watch(game) for s in spectators))
        streamers = [Streamer(c, game, plane_moves, tolerate=("illegal-move",)) for c in players]
        await asyncio.gather(*(s.run(limit=60) for s in streamers))
        acked = sorted(seq for s in streamers for _, seq, _ in s.acked)
        assert len(acked) == len(set(acked)) and len(acked) >= 100, "each applied command has its own seq"
        final = await fresh_snapshot(server.ws(), game)
        assert final["seq"] == acked[-1] == len(acked)
        for member in [*players, *spectators]:
            await member.expect_type("diff", seq=final["seq"])
            assert not member.problems, member.problems
            assert [d["seq"] for d in member.diffs] == list(range(1, final["seq"] + 1))
            assert member.state == final["state"]
        causes = {d["seq"]: d["cause"] for d in spectators[0].diffs}
        for streamer in streamers:
            for _, seq, command in streamer.acked:
                assert normalise_cause(causes[seq]) == normalise_cause(strip_cause(command) | {"by": streamer.client.you})
        for client in [*players, *spectators]:
            await client.close()
    run(scenario(), timeout=60)
