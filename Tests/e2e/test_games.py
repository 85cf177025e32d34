"""Upgrades, creating and joining games, tokens, seeds and what must stay secret."""
from __future__ import annotations

import json
import re
import urllib.parse

import pytest
import requests

from e2e_client import Client, fresh_snapshot, run
from klondike_deal import ORDERED_DECK, initial_state, shuffled_deck

GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
TOKEN = re.compile(r"[A-Za-z0-9_-]{22,}")  # >= 128 bits when URL-safe base64 (6 bits a char)
RECT_ID = re.compile(r"[a-z0-9]{3}-[a-z0-9]{3}-[a-z0-9]{3}")
KLONDIKE_KEYS = {"draw", "stock", "waste", "foundations", "tableau", "moves", "score", "status"}


NOW = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def without_now(joined: dict) -> dict:
    """`joined` without `now` (section 17: every joined carries the server's time, with milliseconds)."""
    assert NOW.match(joined.get("now", "")), joined
    return {k: v for k, v in joined.items() if k != "now"}



def keys_anywhere(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | set().union(*(keys_anywhere(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_anywhere(v) for v in value)) if value else set()
    return set()


def assert_created_reply(reply, kind: str) -> tuple[str, str]:
    """created, joined (player p1), snapshot, ack: in that order, the ack last."""
    types = [t for t in reply.types() if t != "presence"]
    assert types == ["created", "joined", "snapshot", "ack"], reply
    created, joined, snapshot = reply.one("created"), reply.one("joined"), reply.one("snapshot")
    assert GAME_ID.fullmatch(created["game"]), created
    assert TOKEN.fullmatch(created["token"]), f"token too short/odd for 128 bits: {created['token']!r}"
    assert without_now(joined) == {"type": "joined", "game": created["game"], "kind": kind, "role": "player",
                      "seq": 0, "you": "p1"}
    assert snapshot["type"] == "snapshot" and snapshot["game"] == created["game"]
    assert snapshot["kind"] == kind and snapshot["seq"] == 0
    assert reply.ack["seq"] == 0
    return created["game"], created["token"]


# -- upgrade ----------------------------------------------------------------

@pytest.mark.parametrize("subprotocols,expected", [(None, None), (["boardcast.v1"], "boardcast.v1")])
def test_upgrade_with_and_without_subprotocol(server, subprotocols, expected):
    async def scenario():
        client = await Client.connect(server.ws(), subprotocols=subprotocols)
        assert client.ws.subprotocol == expected
        reply = await client.request({"type": "list"})
        assert reply.types()[-2:] == ["lobby", "ack"] and "seq" not in reply.ack
        await client.close()
    run(scenario())


def test_query_auto_join_as_spectator_and_as_player(server):
    async def scenario():
        creator = await Client.connect(server.ws(), "p1")
        game, token = assert_created_reply(await creator.create("klondike", seed=5), "klondike")
        await creator.move({"type": "tap", "target": "/stock"})

        watcher = await Client.connect(server.ws(f"/ws?watch={urllib.parse.quote(game)}"), "watcher")
        joined = await watcher.expect_type("joined")
        assert without_now(joined) == {"type": "joined", "game": game, "kind": "klondike", "role": "spectator", "seq": 1}
        snapshot = await watcher.expect_type("snapshot")
        assert snapshot["seq"] == 1

        query = urllib.parse.urlencode({"game": game, "token": token})
        second = await Client.connect(server.ws(f"/ws?{query}"), "p2")
        joined = await second.expect_type("joined")
        assert without_now(joined) == {"type": "joined", "game": game, "kind": "klondike", "role": "player", "seq": 1, "you": "p2"}
        await second.expect_type("snapshot", seq=1)
        reply = await second.move({"type": "tap", "target": "/stock"})
        assert reply.one("diff")["cause"] == {"type": "tap", "target": "/stock", "by": "p2"}
        for client in (creator, watcher):
            await client.expect_type("diff", seq=2)
        assert watcher.state == second.state == creator.state
        assert not (creator.problems or watcher.problems or second.problems)
        for client in (creator, watcher, second):
            await client.close()
    run(scenario())


# -- create -----------------------------------------------------------------

@pytest.mark.parametrize("draw", [1, 3])
@pytest.mark.parametrize("seed", [0, 1, 42, 2**53 - 1])
def test_seed_deals_per_splitmix64(server, seed, draw):
    async def scenario():
        client = await Client.connect(server.ws())
        reply = await client.create("klondike", draw=draw, seed=seed)
        assert_created_reply(reply, "klondike")
        deck = shuffled_deck(seed)
        state = reply.one("snapshot")["state"]
        assert set(state) == KLONDIKE_KEYS
        assert state == initial_state(deck, draw)
        # The first tap draws from deck[28] on: with draw 3 the third drawn ends on top.
        reply = await client.move({"type": "tap", "target": "/stock"})
        assert client.state["waste"] == deck[28:28 + draw]
        assert client.state["stock"] == ["??"] * (24 - draw)
        assert reply.ack["seq"] == 1 == reply.one("diff")["seq"]
        assert client.state == (await fresh_snapshot(server.ws(), client.game))["state"]
        await client.close()
    run(scenario())


@pytest.mark.parametrize("as_string", [True, False])
def test_deck_option_as_string_or_array(server, as_string):
    deck = list(reversed(ORDERED_DECK[13:])) + ORDERED_DECK[:13]

    async def scenario():
        client = await Client.connect(server.ws())
        reply = await client.create("klondike", draw=1, deck="".join(deck) if as_string else deck, seed=3)
        assert_created_reply(reply, "klondike")
        assert reply.one("snapshot")["state"] == initial_state(deck, 1), "deck must override seed"
        await client.move({"type": "tap", "target": "/stock"})
        assert client.state["waste"] == [deck[28]]
        await client.close()
    run(scenario())


@pytest.mark.parametrize("options", [
    {"deck": "AS2S3S"},
    {"deck": ORDERED_DECK[:51]},
    {"deck": ORDERED_DECK[:51] + ["AS"]},
    {"deck": ORDERED_DECK[:51] + ["1X"]},
    {"draw": 2},
    {"draw": "1"},
    {"seed": -1},
    {"seed": 2**53},
    {"seed": 1.5},
    {"seed": "42"},
])
def test_bad_klondike_options_are_bad_request(server, options):
    async def scenario():
        client = await Client.connect(server.ws())
        reply = await client.request({"type": "create", "kind": "klondike", "options": options})
        assert reply.ack["type"] == "error" and reply.ack["code"] == "bad-request", reply
        assert not reply.of("created") and not reply.of("joined")
        await client.close()
    run(scenario())


def test_unknown_kind_is_bad_request(server):
    async def scenario():
        client = await Client.connect(server.ws())
        reply = await client.request({"type": "create", "kind": "chess"})
        assert reply.ack["code"] == "bad-request", reply
        await client.close()
    run(scenario())


def test_create_plane(server):
    async def scenario():
        client = await Client.connect(server.ws())
        game, _ = assert_created_reply(await client.create("plane", width=800, height=600, seed=11), "plane")
        assert client.state == {"width": 800, "height": 600, "rectangles": {}, "order": [], "selections": {}}
        reply = await client.move({"type": "add"})
        assert reply.one("diff")["cause"] == {"type": "add", "by": "p1"}
        (rect_id, rect), = client.state["rectangles"].items()
        assert RECT_ID.fullmatch(rect_id)
        assert client.state["order"] == [rect_id] and client.state["selections"] == {"p1": rect_id}
        assert rect["width"] == 150 and rect["height"] == 120
        assert 0 <= rect["x"] and rect["x"] + 150 <= 800 and 0 <= rect["y"] and rect["y"] + 120 <= 600
        assert all(isinstance(rect[c], int) and 0 <= rect[c] <= 255 for c in "rgb")
        assert isinstance(rect["alpha"], int) and 1 <= rect["alpha"] <= 10
        other = await Client.connect(server.ws())
        await other.create("plane")
        assert other.state["width"] == 1024 and other.state["height"] == 768
        assert client.state == (await fresh_snapshot(server.ws(), game))["state"]
        for c in (client, other):
            await c.close()
    run(scenario())


def test_seed_and_deck_never_shown(server):
    """Creator, spectator, lobby follower and /api/games never see a seed or deck."""
    deck = list(reversed(ORDERED_DECK))

    async def scenario():
        follower = await Client.connect(server.ws(), "follower")
        assert (await follower.request({"type": "list", "follow": True})).ok
        player = await Client.connect(server.ws(), "p1")
        game = (await player.create("klondike", draw=3, seed=123456789)).one("created")["game"]
        spectator = await Client.connect(server.ws(), "s")
        await spectator.watch(game)
        await player.move({"type": "tap", "target": "/stock"})
        reset = {"type": "reset", "options": {"draw": 1, "seed": 987654321}}
        reply = await player.move(reset)
        assert reply.types().index("diff") < reply.types().index("event") < len(reply) - 1
        assert reply.one("event")["event"] == "reset"
        cause = reply.one("diff")["cause"]
        assert cause.get("options", {}) == {"draw": 1} and cause["type"] == "reset" and cause["by"] == "p1"
        assert player.state == initial_state(shuffled_deck(987654321), 1), "reset must deal its seed"
        reply = await player.move({"type": "reset", "options": {"deck": deck}})
        assert player.state == initial_state(deck, 1), "reset keeps draw, deals the deck"
        await spectator.expect_type("diff", seq=3)
        await follower.expect(lambda m: isinstance(m, dict) and m.get("type") == "lobby"
                              and any(g["game"] == game and g["seq"] == 3 for g in m["games"]))
        api = requests.Session()
        api.trust_env = False
        api_text = api.get(server.http + "/api/games", timeout=15).text
        for client in (player, spectator, follower):
            for message in client.messages:
                assert not ({"seed", "deck"} & keys_anywhere(message)), message
            if client is not player:
                assert "token" not in json.dumps(client.messages)
        everything = json.dumps([c.messages for c in (player, spectator, follower)]) + api_text
        assert "".join(deck) not in everything and '"seed"' not in everything
        for client in (player, spectator, follower):
            await client.close()
    run(scenario())


# -- join -------------------------------------------------------------------

def test_join_with_token_wrong_token_and_unknown_game(server):
    async def scenario():
        owner = await Client.connect(server.ws(), "p1")
        game, token = assert_created_reply(await owner.create("klondike", seed=77), "klondike")
        other_owner = await Client.connect(server.ws(), "q1")
        other_game, other_token = assert_created_reply(await other_owner.create("klondike", seed=78), "klondike")
        assert other_token != token and other_game != game

        second = await Client.connect(server.ws(), "p2")
        reply = await second.join(game, token)
        assert reply.ok and reply.ack["seq"] == 0
        assert [t for t in reply.types() if t != "presence"] == ["joined", "snapshot", "ack"]
        assert without_now(reply.one("joined")) == {"type": "joined", "game": game, "kind": "klondike", "role": "player",
                                       "seq": 0, "you": "p2"}
        assert "token" not in json.dumps(reply)

        # A failed join or watch leaves the connection in its game, still a player there.
        for bad in ({"type": "join", "game": other_game, "token": token},
                    {"type": "join", "game": game, "token": token[:-2] + ("AA" if token[-2:] != "AA" else "BB")},
                    {"type": "join", "game": "nosuchgame", "token": token},
                    {"type": "watch", "game": "nosuchgame"}):
            failure = await second.request(bad)
            expected = "not-found" if bad["game"] == "nosuchgame" else "forbidden"
            assert failure.ack["type"] == "error" and failure.ack["code"] == expected, (bad, failure)
            assert not failure.of("joined") and not failure.of("snapshot") and not failure.of("left")
        reply = await second.move({"type": "tap", "target": "/stock"})
        assert reply.one("diff")["cause"]["by"] == "p2" and reply.one("diff")["game"] == game
        await owner.expect_type("diff", seq=1)
        assert not other_owner.received("diff")

        # A failed watch leaves a spectator watching too.
        spectator = await Client.connect(server.ws(), "s")
        await spectator.watch(game)
        failure = await spectator.request({"type": "watch", "game": "nosuchgame"})
        assert failure.ack["code"] == "not-found"
        await owner.move({"type": "tap", "target": "/stock"})
        await spectator.expect_type("diff", seq=2)
        assert spectator.role == "spectator" and spectator.game == game

        # A connection in no game stays in none.
        loose = await Client.connect(server.ws(), "loose")
        failure = await loose.request({"type": "join", "game": game, "token": "x" * 30})
        assert failure.ack["code"] == "forbidden"
        assert (await loose.request({"type": "show"})).ack["code"] == "not-joined"
        for client in (owner, other_owner, second, spectator, loose):
            await client.close()
    run(scenario())


def test_join_leaves_previous_game_and_leave_has_no_seq(server):
    async def scenario():
        a = await Client.connect(server.ws(), "a")
        game_a = (await a.create("klondike", seed=1)).one("created")["game"]
        b = await Client.connect(server.ws(), "b")
        game_b = (await b.create("klondike", seed=2)).one("created")["game"]
        roamer = await Client.connect(server.ws(), "roamer")
        await roamer.watch(game_a)
        await a.expect_type("presence", spectators=1)
        mark = a.mark()
        await roamer.watch(game_b)  # leaves game_a
        await a.expect_type("presence", after=mark, spectators=0)
        await a.move({"type": "tap", "target": "/stock"})
        await b.move({"type": "tap", "target": "/stock"})
        await roamer.expect_type("diff", game=game_b, seq=1)
        reply = await roamer.request({"type": "leave"})
        assert reply.ok and "seq" not in reply.ack, reply
        assert reply.one("left") == {"type": "left", "game": game_b}
        assert reply.types()[-2:] == ["left", "ack"]
        await b.move({"type": "tap", "target": "/stock"})
        probe = await roamer.request({"type": "list"})
        assert probe.ok and "seq" not in probe.ack
        assert [d["game"] for d in roamer.received("diff")] == [game_b], "no diff after leaving, none from game_a"
        assert (await roamer.request({"type": "leave"})).ack["code"] == "not-joined"
        for client in (a, b, roamer):
            await client.close()
    run(scenario())


def test_query_auto_join_failures_leave_the_connection_in_no_game(server):
    async def scenario():
        owner = await Client.connect(server.ws(), "p1")
        game, token = assert_created_reply(await owner.create("klondike", seed=6), "klondike")
        for path, code in [("/ws?watch=nosuchgame", "not-found"),
                           ("/ws?" + urllib.parse.urlencode({"game": "nosuchgame", "token": token}), "not-found"),
                           ("/ws?" + urllib.parse.urlencode({"game": game, "token": "A" * 22}), "forbidden")]:
            client = await Client.connect(server.ws(path), "auto")
            error = await client.expect_type("error")
            assert error["code"] == code and "id" not in error, (path, error)
            assert not client.received("joined")
            reply = await client.request({"type": "show"})
            assert reply.ack["code"] == "not-joined", "the connection is in no game"
            await client.close()
        await owner.close()
    run(scenario())


def test_list_inside_a_game_acks_with_the_seq(server):
    async def scenario():
        player = await Client.connect(server.ws(), "p1")
        await player.create("plane")
        await player.move({"type": "add"})
        reply = await player.request({"type": "list"})
        assert reply.types()[-2:] == ["lobby", "ack"] and reply.ack["seq"] == 1
        await player.close()
    run(scenario())


@pytest.mark.parametrize("draw", [1, 3])
def test_stock_runs_out_and_the_waste_turns_over(server, draw):
    async def scenario():
        client = await Client.connect(server.ws())
        await client.create("klondike", draw=draw, seed=2718)
        deck = shuffled_deck(2718)
        for _ in range(24 // draw):
            await client.move({"type": "tap", "target": "/stock"})
        assert client.state["stock"] == [] and client.state["waste"] == deck[28:]
        await client.move({"type": "tap", "target": "/stock"})
        assert client.state["stock"] == ["??"] * 24 and client.state["waste"] == []
        await client.move({"type": "tap", "target": "/stock"})
        assert client.state["waste"] == deck[28:28 + draw], "the turned-over stock draws in the same order"
        assert client.state == (await fresh_snapshot(server.ws(), client.game))["state"]
        await client.close()
    run(scenario())


def test_presence_follows_a_spectator_who_becomes_a_player(server):
    async def scenario():
        owner = await Client.connect(server.ws(), "p1")
        game, token = assert_created_reply(await owner.create("plane"), "plane")
        other = await Client.connect(server.ws(), "other")
        await other.watch(game)
        for client in (owner, other):
            await client.expect_type("presence", game=game, players=1, spectators=1)
        mark_owner, mark_other = owner.mark(), other.mark()
        reply = await other.join(game, token)
        assert reply.one("joined")["role"] == "player" and reply.one("joined")["you"] == "p2"
        await owner.expect_type("presence", after=mark_owner, players=2, spectators=0)
        await other.expect_type("presence", after=mark_other, players=2, spectators=0)
        await other.close()
        await owner.expect_type("presence", after=mark_owner, players=1, spectators=0)
        await owner.close()
    run(scenario())
