"""PROTOCOL section 10: games rest in storage and come back on first use; the lobby lists live games."""
from __future__ import annotations

import re
import time

import requests

from e2e_client import Client, Pacer, eventually, fresh_snapshot, run
from e2e_server import ServerProcess


def http_json(server, path: str):
    response = requests.get(server.http + path, timeout=15)
    assert response.status_code == 200, (path, response.status_code, response.text)
    return response.json()


def test_a_game_rests_when_idle_and_comes_back_on_watch_since_and_api(start_server, tmp_path):
    server = start_server(data=tmp_path / "data", extra_args=("--idle", "1"))

    async def scenario():
        player = await Client.connect(server.ws(), "player")
        created = (await player.create("klondike", seed=42)).one("created")
        game = created["game"]
        for _ in range(5):
            await player.move({"type": "tap", "target": "/stock"})
        before = await fresh_snapshot(server.ws(), game)
        await player.close()

        def rested():
            assert game not in [g["game"] for g in http_json(server, "/api/games")]
        await eventually(rested, within=30)  # --idle 1: about a second

        # One game's object, live or resting.
        one = http_json(server, f"/api/games/{game}")
        assert one["game"] == game and one["seq"] == 5 and one["status"] == "playing"
        assert requests.get(server.http + "/api/games/nosuch", timeout=15).status_code == 404

        watcher = await Client.connect(server.ws(), "watcher")
        reply = await watcher.watch(game, since=2)
        assert reply.ok, reply
        assert [d["seq"] for d in reply.of("diff")] == [3, 4, 5]
        again = await fresh_snapshot(server.ws(), game)
        assert again == before
        # The player's token still works and ids stay applied once.
        back = await Client.connect(server.ws(), "back")
        joined = await back.join(game, created["token"], since=5)
        assert joined.ok and joined.ack["seq"] == 5
        await watcher.close()
        await back.close()

    run(scenario())


def test_since_older_than_the_window_is_read_from_storage_in_order(start_server, tmp_path):
    server = start_server(data=tmp_path / "data")

    async def scenario():
        player = await Client.connect(server.ws(), "player")
        await player.create("plane", seed=3)
        pacer = Pacer()
        for i in range(300):
            await pacer.take()
            await player.send({"type": "add", "x": i % 700, "y": 10})
        await player.move({"type": "add"})
        # The deal (seq 0) from a replay, then `since: 0` from storage: 301 diffs, more than the window holds.
        deal = await Client.connect(server.ws(), "deal")
        initial = (await deal.request({"type": "watch", "game": player.game, "replay": True})).one("snapshot")["state"]
        await deal.close()
        watcher = await Client.connect(server.ws(), "watcher")
        watcher.prime(player.game, initial)
        reply = await watcher.watch(player.game, since=0)
        assert reply.ok, reply
        assert [d["seq"] for d in reply.of("diff")] == list(range(1, 302))
        assert watcher.problems == []
        assert watcher.state == (await fresh_snapshot(server.ws(), player.game))["state"]
        await player.close()
        await watcher.close()

    run(scenario(), timeout=120)


def test_restart_loads_only_live_games_and_the_lobby_lists_only_them(start_server, tmp_path):
    data = tmp_path / "data"
    first = start_server(data=data, extra_args=("--idle", "2"))

    async def make_games():
        games = []
        for i in range(6):
            client = await Client.connect(first.ws(), f"c{i}")
            games.append((await client.create("klondike", seed=i)).one("created")["game"])
            await client.close()
        return games

    games = run(make_games())
    created_by = time.monotonic()
    assert first.terminate() == 0
    # What is under test is the passage of time itself: past --idle 0.5 none of the six is live.
    time.sleep(max(0.0, created_by + 0.6 - time.monotonic()))
    second = ServerProcess(data=data, extra_args=("--idle", "0.5"))
    second.start()
    try:
        restored = [line for line in second.stderr_lines if "live games restored" in line]
        assert restored and re.search(r"games=0\b", restored[0]), second.output()
        assert http_json(second, "/api/games") == []
        everything = http_json(second, "/api/games?limit=500")
        assert sorted(g["game"] for g in everything) == sorted(games)
        assert http_json(second, "/api/games?limit=500&kind=plane") == []
        for bad in ["kind=chess", "limit=0", "limit=1001", "status=asleep", "colour=red"]:
            assert requests.get(second.http + "/api/games?" + bad, timeout=15).status_code == 400, bad
    finally:
        assert second.terminate() == 0
