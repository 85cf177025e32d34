"""PROTOCOL section 11: three nodes on one Redis serve the same games, with real processes:
a real redis-server on a free loopback port, three servers, real clients; kill -9 of a
node and a Redis restart mid-game."""
from __future__ import annotations

import asyncio
import time

import pytest
import requests

from e2e_client import Client, eventually, fresh_snapshot, run
from e2e_redis import Redis, free_port
from e2e_server import ServerProcess

LEASE = "3"  # seconds: how long a dead node's games stay reachable before `unavailable`


@pytest.fixture
def redis():
    server = Redis().start()
    yield server
    server.stop()


def node(start_server, tmp_path, redis, name: str) -> ServerProcess:
    return start_server(data=tmp_path / name, extra_args=("--redis", redis.url, "--node", name, "--lease", LEASE))


def restart(process: ServerProcess) -> ServerProcess:
    again = ServerProcess(data=process.data)
    again.args = process.args
    return again.start()


def test_three_nodes_serve_one_game_as_one_server(start_server, tmp_path, redis):
    a, b, c = (node(start_server, tmp_path, redis, name) for name in ("node-a", "node-b", "node-c"))

    async def scenario():
        owner_player = await Client.connect(a.ws(), "p1@a")
        created = (await owner_player.create("klondike", seed=5)).one("created")
        game, token = created["game"], created["token"]
        spectator = await Client.connect(b.ws(), "spectator@b")
        assert (await spectator.watch(game)).ok
        remote_player = await Client.connect(c.ws(), "p2@c")
        joined = await remote_player.join(game, token)
        assert joined.ok and joined.one("joined")["you"] == "p2"
        for _ in range(3):
            await owner_player.move({"type": "tap", "target": "/stock"})
            await remote_player.move({"type": "tap", "target": "/stock", "id": f"c{_}"})
        again = await remote_player.request({"type": "tap", "target": "/stock", "id": "c0"})
        assert again.types() == ["ack"] and again.ack["seq"] == 2, "an applied id is not applied twice"
        wrong = await remote_player.request({"type": "alpha", "step": 1})
        assert wrong.ack["code"] == "unknown-type", "the same replies as one server"
        await spectator.expect(lambda m: isinstance(m, dict) and m.get("type") == "presence"
                               and m.get("players") == 2 and m.get("spectators") == 1)
        assert spectator.state == (await fresh_snapshot(a.ws(), game))["state"]
        for client in (owner_player, spectator, remote_player):
            assert client.problems == [], client.problems
            assert client.seq == 6

        def lobby_covers_every_node():
            games = {g["game"]: g for g in requests.get(b.http + "/api/games", timeout=15).json()}
            assert game in games and games[game]["players"] == 2, games
        await eventually(lobby_covers_every_node)  # as it was a second or two ago
        one = requests.get(c.http + f"/api/games/{game}", timeout=15)
        assert one.status_code == 200 and one.json()["seq"] == 6

        # A race across nodes: a seated player on another node gets its own masked view.
        racer = await Client.connect(b.ws(), "racer@b")
        race = (await racer.create("race", seats=2, seed=9)).one("created")
        rival = await Client.connect(c.ws(), "rival@c")
        assert (await rival.join(race["game"], race["token"])).ok
        await rival.expect_type("event", event="start")
        await racer.move({"type": "tap", "target": "/stock"})
        await rival.expect(lambda m: isinstance(m, dict) and m.get("type") == "diff" and m["seq"] == 2)
        assert rival.state["tables"]["p1"]["waste"] == ["??"], "a rival's card stays hidden across nodes"
        assert rival.problems == []
        for client in (owner_player, spectator, remote_player, racer, rival):
            await client.close()

    run(scenario(), timeout=60)


def test_kill_9_of_a_non_owner_loses_nothing_its_clients_resume_elsewhere(start_server, tmp_path, redis):
    a, b, c = (node(start_server, tmp_path, redis, name) for name in ("node-a", "node-b", "node-c"))

    async def scenario():
        player = await Client.connect(a.ws(), "player@a")
        game = (await player.create("plane", seed=2)).one("created")["game"]
        spectator = await Client.connect(b.ws(), "spectator@b")
        assert (await spectator.watch(game)).ok
        for _ in range(3):
            await player.move({"type": "add"})
        await spectator.expect(lambda m: isinstance(m, dict) and m.get("seq") == 3 and m.get("type") == "diff")
        seen, state = spectator.seq, spectator.state
        b.kill()
        await spectator.wait_closed()
        for _ in range(2):
            await player.move({"type": "add"})
        moved = await Client.connect(c.ws(), "spectator@c")
        moved.prime(game, state)
        reply = await moved.watch(game, since=seen)
        assert reply.ok and [d["seq"] for d in reply.of("diff")] == [4, 5]
        assert moved.problems == [] and moved.state == (await fresh_snapshot(a.ws(), game))["state"]

        def ghost_gone():
            spectators = requests.get(a.http + f"/api/games/{game}", timeout=15).json()["spectators"]
            assert spectators == 1, spectators
        await eventually(ghost_gone, within=int(LEASE) + 15)  # once the dead node's lease lapsed
        await player.close()
        await moved.close()

    run(scenario(), timeout=60)


def test_kill_9_of_an_owner_is_unavailable_then_play_resumes_when_it_is_back(start_server, tmp_path, redis):
    a, b = (node(start_server, tmp_path, redis, name) for name in ("node-a", "node-b"))

    async def scenario():
        owner_client = await Client.connect(a.ws(), "p1@a")
        created = (await owner_client.create("klondike", seed=8)).one("created")
        game, token = created["game"], created["token"]
        remote = await Client.connect(b.ws(), "p2@b")
        assert (await remote.join(game, token)).ok
        await remote.move({"type": "tap", "target": "/stock"})
        a.kill()
        started = time.monotonic()
        while True:
            reply = await remote.request({"type": "tap", "target": "/stock"}, timeout=int(LEASE) + 5)
            if reply.ack.get("code") == "unavailable":
                break
            assert time.monotonic() - started < int(LEASE) + 5, reply
            await asyncio.sleep(0.2)
        assert remote.is_open, "members keep their connections"
        restarted = restart(a)
        try:
            # Once the owner is back (its new lease seen), the member's session there is renewed
            # without the client doing anything, and its moves are applied again.
            deadline = time.monotonic() + int(LEASE) + 30  # a wait: no bound is promised here
            while True:
                reply = await remote.request({"type": "tap", "target": "/stock"}, timeout=int(LEASE) + 5)
                if reply.ok:
                    break
                assert reply.ack.get("code") == "unavailable" and time.monotonic() < deadline, reply
                await asyncio.sleep(0.2)
            assert reply.one("diff")["seq"] == 2
            assert remote.problems == []
            assert remote.state == (await fresh_snapshot(restarted.ws(), game))["state"]
        finally:
            await remote.close()
            assert restarted.terminate() == 0

    run(scenario(), timeout=90)


def test_redis_restarted_mid_game_each_node_serves_its_own_and_others_catch_up(start_server, tmp_path, redis):
    a, b = (node(start_server, tmp_path, redis, name) for name in ("node-a", "node-b"))

    async def scenario():
        player = await Client.connect(a.ws(), "player@a")
        game = (await player.create("klondike", seed=3)).one("created")["game"]
        spectator = await Client.connect(b.ws(), "spectator@b")
        assert (await spectator.watch(game)).ok
        await player.move({"type": "tap", "target": "/stock"})
        await spectator.expect(lambda m: isinstance(m, dict) and m.get("type") == "diff" and m["seq"] == 1)
        redis.stop()
        for _ in range(3):  # the owner keeps serving its own client
            await player.move({"type": "tap", "target": "/stock"})
        cut_off = await spectator.request({"type": "show"})
        assert cut_off.ack.get("code") == "unavailable", cut_off
        redis.start()
        await spectator.expect(lambda m: isinstance(m, dict) and m.get("type") == "diff" and m["seq"] == 4, timeout=15)
        assert spectator.problems == [], "caught up with no gap"
        await player.move({"type": "tap", "target": "/stock"})
        await spectator.expect(lambda m: isinstance(m, dict) and m.get("type") == "diff" and m["seq"] == 5)
        assert spectator.state == (await fresh_snapshot(a.ws(), game))["state"]
        await player.close()
        await spectator.close()

    run(scenario(), timeout=90)


def test_two_nodes_share_one_port_with_reuse_port_and_serve_each_others_games(tmp_path, redis):
    port = free_port()
    nodes = []
    for name in ("node-a", "node-b"):
        process = ServerProcess(data=tmp_path / name,
                                extra_args=("--redis", redis.url, "--node", name, "--lease", LEASE, "--reuse-port"))
        process.args[process.args.index("--port") + 1] = str(port)
        nodes.append(process)
    try:
        for process in nodes:
            process.start()
            assert process.port == port

        async def scenario():
            # The kernel spreads connections over the listeners by their source ports: with 24
            # connections, both nodes get some (all on one: odds 2 in 2^24), and each creates its
            # games under its own node code.
            players = [await Client.connect(f"ws://127.0.0.1:{port}/ws", f"p{i}") for i in range(24)]
            games = [(await player.create("plane", seed=i)).one("created")["game"] for i, player in enumerate(players)]
            assert len({game[:2] for game in games}) == 2, games
            codes = {game[:2]: game for game in games}
            # Whichever node a spectator lands on, it watches a game of either.
            for game in codes.values():
                spectator = await Client.connect(f"ws://127.0.0.1:{port}/ws", "spectator")
                assert (await spectator.watch(game)).ok
                owner = players[games.index(game)]
                await owner.move({"type": "add"})
                await spectator.expect(lambda m: isinstance(m, dict) and m.get("type") == "diff" and m["seq"] == 1)
                assert spectator.problems == []
                await spectator.close()
            for player in players:
                await player.close()

        run(scenario(), timeout=60)
    finally:
        for process in nodes:
            if process.running:
                assert process.terminate() == 0, process.output()
