"""PROTOCOL section 15 from outside: a spectator delay, and chat rooms, against the real server."""
from __future__ import annotations

import asyncio
import time

from clock_helpers import TimedClient
from e2e_client import DEFAULT_TIMEOUT, Client, run
from test_cluster import node, redis  # noqa: F401 - the redis fixture

DELAY = 2.0  # seconds: long enough to see the shift, short enough for a test


def test_delayed_spectators_get_exactly_the_players_diffs_shifted_by_the_delay(server):
    async def scenario():
        player = await Client.connect(server.ws(), "player")
        game = (await player.create("klondike", seed=7, delay=DELAY)).one("created")["game"]
        spectator = await TimedClient.connect(server.ws(), "spectator")  # stamps each frame as it arrives
        watched = await spectator.watch(game)
        assert watched.one("joined")["delay"] == 2 and watched.one("snapshot")["seq"] == 0
        sent_at, answered_at = {}, {}
        for _ in range(6):
            leaving = time.monotonic()
            reply = await player.move({"type": "tap", "target": "/stock"})
            sent_at[reply.one("diff")["seq"]], answered_at[reply.one("diff")["seq"]] = leaving, time.monotonic()
            await asyncio.sleep(0.25)
        for seq in range(1, 7):
            diff = await spectator.expect(lambda m, s=seq: isinstance(m, dict) and m.get("type") == "diff"
                                          and m["seq"] == s, timeout=DELAY + DEFAULT_TIMEOUT)
            got = spectator.arrived(diff)[0]
            # Never early: the server applied the move after it left, and holds it DELAY from then (a busy
            # machine only makes it later). Not much late: DELAY after the player's copy, and at most a
            # second for the frames on their way.
            assert got - sent_at[seq] >= DELAY - 0.01, f"diff {seq} came {got - sent_at[seq]:.2f}s after its move left"
            assert got - answered_at[seq] <= DELAY + 1.0, \
                f"diff {seq} came {got - answered_at[seq]:.2f}s after the player's"
        players = [m for m in player.diffs]
        assert [d["ops"] for d in spectator.diffs] == [d["ops"] for d in players], "the same diffs, later"
        assert spectator.problems == [] and spectator.state == player.state
        await player.close()
        await spectator.close()

    run(scenario(), timeout=30)


def test_a_players_second_connection_watching_learns_nothing_early(server):
    async def scenario():
        player = await Client.connect(server.ws(), "racer")
        race = (await player.create("race", seats=2, seed=11, delay=30)).one("created")
        rival = await Client.connect(server.ws(), "rival")
        assert (await rival.join(race["game"], race["token"])).ok
        for _ in range(3):
            await player.move({"type": "tap", "target": "/stock"})
        # The racer opens a second connection as a spectator to see every card of every table.
        peek = await Client.connect(server.ws(), "peek")
        watched = await peek.watch(race["game"])
        assert watched.one("joined")["seq"] == 0 and watched.one("snapshot")["state"]["status"] == "waiting"
        hint = await peek.request({"type": "show"})
        assert any("seq 0" in line for line in hint if isinstance(line, str))
        await asyncio.sleep(0.5)
        assert peek.received("diff") == [] and peek.received("event") == [], "nothing for 30 s"
        lobby = await peek.request({"type": "list"})
        entry = next(g for g in lobby.one("lobby")["games"] if g["game"] == race["game"])
        assert entry["seq"] == 0 and entry["delay"] == 30, entry
        for client in (player, rival, peek):
            await client.close()

    run(scenario(), timeout=30)


def test_chat_rooms_visibility_mute_limit_and_html_as_text(server):
    async def scenario():
        player = await Client.connect(server.ws(), "player")
        game = (await player.create("klondike", seed=2)).one("created")["game"]
        fan = await Client.connect(server.ws(), "fan")
        assert (await fan.watch(game)).ok
        other = await Client.connect(server.ws(), "other")
        assert (await other.watch(game)).ok
        said = await player.request({"type": "say", "text": "hello <b>all</b>"})
        assert said.ok and said.one("chat") == {**said.one("chat"), "room": "players", "by": "p1", "text": "hello <b>all</b>"}
        assert (await fan.expect_type("chat", by="p1"))["text"] == "hello <b>all</b>", "spectators read the players"
        mark = player.mark()
        said = await fan.request({"type": "say", "text": "<script>alert(1)</script> the 7!"})
        line = said.one("chat")
        assert line["by"] == "s1" and line["room"] == "spectators" and line["at"].endswith("Z")
        await other.expect_type("chat", by="s1")
        # A fence, not a wait: the line was said (acked) before the player's `list`, and everything the
        # server sends a connection leaves in the order it decided it; so a line meant for the player
        # would be there before this answer.
        assert (await player.request({"type": "list"})).ok
        assert player.received("chat", mark) == [], "players never read the spectators' room while playing"
        assert (await fan.request({"type": "say", "text": "x", "to": "players"})).ack["code"] == "forbidden"
        assert (await player.request({"type": "say", "text": "   "})).ack["code"] == "bad-request"
        assert (await player.request({"type": "say", "text": "y" * 281})).ack["code"] == "bad-request"
        # Mute.
        assert (await player.request({"type": "mute", "who": "s1"})).ok
        muted = await fan.request({"type": "say", "text": "again"})
        assert muted.ack["code"] == "forbidden"
        # The limit: other writes 5 lines, the 6th is limited.
        for i in range(5):
            assert (await other.request({"type": "say", "text": f"line {i}"})).ok
        limited = await other.request({"type": "say", "text": "one too many"})
        assert limited.ack["code"] == "limited" and "try again" in limited.ack["message"], limited.ack
        # A newcomer gets the last lines it may read after joined and the state.
        late = await Client.connect(server.ws(), "late")
        reply = await late.watch(game)
        assert reply.types()[:2] == ["joined", "snapshot"] and reply.types()[-1] == "ack"
        texts = [m["text"] for m in reply.of("chat")]
        assert texts[0] == "hello <b>all</b>" and texts[-1] == "line 4" and len(texts) == 7, texts
        for client in (player, fan, other, late):
            await client.close()

    run(scenario(), timeout=30)


def test_chat_is_kept_with_the_game_across_a_restart_and_in_replay(start_server, tmp_path):
    data = tmp_path / "data"
    first = start_server(data=data)

    async def before():
        player = await Client.connect(first.ws(), "player")
        created = (await player.create("klondike", seed=2)).one("created")
        assert (await player.request({"type": "say", "text": "first words"})).ok
        await player.move({"type": "tap", "target": "/stock"})
        assert (await player.request({"type": "say", "text": "after a draw"})).ok
        await player.close()
        return created["game"]

    game = run(before(), timeout=20)
    first.kill()
    again = start_server(data=data)

    async def after():
        spectator = await Client.connect(again.ws(), "spectator")
        reply = await spectator.watch(game)
        assert [m["text"] for m in reply.of("chat")] == ["first words", "after a draw"]
        replay = await spectator.request({"type": "watch", "game": game, "replay": True})
        order = [m["type"] if m["type"] != "chat" else m["text"] for m in replay if isinstance(m, dict)]
        assert order == ["joined", "snapshot", "first words", "diff", "after a draw", "ack"], order
        await spectator.close()

    run(after(), timeout=20)


def test_chat_and_the_delay_on_another_cluster_node(start_server, tmp_path, redis):  # noqa: F811
    a, b = (node(start_server, tmp_path, redis, name) for name in ("node-a", "node-b"))

    async def scenario():
        player = await Client.connect(a.ws(), "player@a")
        game = (await player.create("plane", seed=3, delay=DELAY)).one("created")["game"]
        fan = await Client.connect(b.ws(), "fan@b")
        watched = await fan.watch(game)
        assert watched.ok and watched.one("joined")["delay"] == 2
        started = time.monotonic()
        await player.move({"type": "add"})
        assert (await player.request({"type": "say", "text": "from a"})).ok
        diff = await fan.expect_type("diff", timeout=DELAY + DEFAULT_TIMEOUT)
        assert time.monotonic() - started >= DELAY - 0.5 and diff["seq"] == 1
        assert (await fan.expect_type("chat", by="p1"))["text"] == "from a"
        said = await fan.request({"type": "say", "text": "from b"})
        assert said.ok and said.one("chat")["by"] == "s1"
        # A fence, not a wait: the owner (a, the player's node) answered the line before the player's
        # `list`; a line meant for the player would be there before this answer.
        assert (await player.request({"type": "list"})).ok
        assert [m for m in player.received("chat") if m["room"] == "spectators"] == []
        await player.close()
        await fan.close()

    run(scenario(), timeout=40)


def test_a_replay_from_since_0_shows_each_chat_line_after_the_diff_it_followed(server):
    """Section 15: "replay shows them in order with the diffs". A spectator reads both rooms
    (the players' and its own), so a fresh spectator's `since: 0` gets every diff and, after
    the diff at whose seq each line was said, that line; players never read the spectators' room
    while the game is played."""
    async def scenario():
        player = await Client.connect(server.ws(), "player")
        created = await player.create("klondike", seed=5)
        game = created.one("created")["game"]
        dealt = created.one("snapshot")["state"]
        fan = await Client.connect(server.ws(), "fan")
        assert (await fan.watch(game)).ok
        said = {}

        async def say(client, text):
            reply = await client.request({"type": "say", "text": text})
            assert reply.ok, reply
            said[text] = reply.one("chat")

        # move, "a", move, the spectator's "c", move, "b", move
        await player.move({"type": "tap", "target": "/stock"})
        await say(player, "a")
        await player.move({"type": "tap", "target": "/stock"})
        await say(fan, "c")
        await player.move({"type": "tap", "target": "/stock"})
        await say(player, "b")
        await player.move({"type": "tap", "target": "/stock"})
        assert [d["seq"] for d in player.diffs] == [1, 2, 3, 4]
        assert said["a"]["room"] == said["b"]["room"] == "players" and said["a"]["by"] == "p1"
        assert said["c"]["room"] == "spectators" and said["c"]["by"] == "s1"

        late = await Client.connect(server.ws(), "late")
        late.prime(game, dealt)  # it holds the state at seq 0: `since: 0` sends the diffs only
        reply = await late.watch(game, since=0)
        assert reply.ok, reply
        shown = [m for m in reply if m.get("type") != "presence"]
        order = [m["type"] if m["type"] != "chat" else m["text"] for m in shown]
        assert order == ["joined", "diff", "a", "diff", "c", "diff", "b", "diff", "ack"], order
        assert "snapshot" not in reply.types()
        assert [d["seq"] for d in reply.of("diff")] == [1, 2, 3, 4]
        assert [d["ops"] for d in reply.of("diff")] == [d["ops"] for d in player.diffs]
        assert [d["cause"] for d in reply.of("diff")] == [d["cause"] for d in player.diffs]
        for line in reply.of("chat"):
            first = said[line["text"]]
            assert {k: line.get(k) for k in ("game", "room", "by", "text", "at", "n")} == \
                {k: first.get(k) for k in ("game", "room", "by", "text", "at", "n")}, (line, first)
        assert late.problems == [] and late.state == player.state and late.seq == 4
        # Players never read the spectators' room while the game is played.
        assert [m["text"] for m in player.received("chat")] == ["a", "b"]
        for client in (player, fan, late):
            await client.close()

    run(scenario(), timeout=30)
