"""PROTOCOL section 14's retention from outside: games nobody touches for `--retain-days` are
deleted from storage (and are `not-found` after), games touched are kept, and `/metrics`
shows what storage holds."""
from __future__ import annotations

import asyncio
import re
import time

import requests

from e2e_client import Client, run

RETAIN_DAYS = 0.0001  # 8.64 s: the sweep runs every second


def stored_games(server) -> float:
    text = requests.get(server.http + "/metrics", timeout=15).text
    match = re.search(r"^boardcast_stored_games (\S+)$", text, re.M)
    assert match, "boardcast_stored_games is in /metrics"
    return float(match.group(1))


def test_untouched_games_are_deleted_and_touched_ones_kept(start_server, tmp_path, backend):
    server = start_server(data=tmp_path / "data", extra_args=(*backend, "--retain-days", str(RETAIN_DAYS), "--idle", "1"))

    async def scenario():
        player = await Client.connect(server.ws(), "player")
        forgotten = (await player.create("klondike", seed=3)).one("created")["game"]
        # Stamped before the forgotten game's last touch (its move, then the player leaving it), so
        # that the check below cannot fail by a slow answer: the game may go no earlier than this.
        started = time.monotonic()
        await player.move({"type": "tap", "target": "/stock"})
        kept = (await player.create("plane", seed=1)).one("created")["game"]  # the player moves to it
        # Someone looks at the kept game every 2 s (a watch touches it); nobody at the other one.
        watcher = await Client.connect(server.ws(), "watcher")
        gone = False
        while time.monotonic() - started < 60:  # a wait: the sweep runs every second
            assert (await watcher.watch(kept)).ok
            assert (await watcher.request({"type": "leave"})).ok
            if requests.get(server.http + f"/api/games/{forgotten}", timeout=15).status_code == 404:
                gone = True
                break
            await asyncio.sleep(2)
        assert gone, "the untouched game was not deleted within 60 s:\n" + server.output()
        elapsed = time.monotonic() - started
        assert elapsed >= RETAIN_DAYS * 86_400 - 2, f"deleted after {elapsed:.1f}s, before its time"
        refused = await watcher.request({"type": "watch", "game": forgotten})
        assert refused.ack["code"] == "not-found"
        assert (await watcher.watch(kept)).ok, "a game touched within the retention is kept"
        deadline = time.monotonic() + 15
        while stored_games(server) != 1:
            assert time.monotonic() < deadline, f"/metrics shows {stored_games(server)} stored games, not 1"
            await asyncio.sleep(0.5)
        for client in (player, watcher):
            await client.close()

    run(scenario(), timeout=90)


def test_at_the_defaults_no_game_is_ever_deleted(start_server, tmp_path):
    server = start_server(data=tmp_path / "data", extra_args=("--idle", "1"))

    async def scenario():
        player = await Client.connect(server.ws(), "player")
        game = (await player.create("klondike", seed=3)).one("created")["game"]
        await player.close()
        await asyncio.sleep(3)
        assert requests.get(server.http + f"/api/games/{game}", timeout=15).status_code == 200

    run(scenario(), timeout=30)
