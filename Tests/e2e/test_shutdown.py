"""SIGTERM while clients stream moves: close 1001 to everyone, exit 0, nothing acked lost."""
from __future__ import annotations

import asyncio
import copy
import os
import signal

from e2e_client import Client, fresh_snapshot, normalise_cause, run, strip_cause
from e2e_streams import Streamer, wait_until


def test_sigterm_under_load_closes_1001_and_keeps_acked_moves(start_server, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    server = start_server(data=data)

    async def scenario():
        games = {}
        streamers: list[Streamer] = []
        owners = []
        for seed in (1, 2, 3):
            owner = await Client.connect(server.ws(), f"p1-{seed}")
            created = (await owner.create("klondike", draw=1 + 2 * (seed % 2), seed=seed)).one("created")
            games[created["game"]] = (created["token"], copy.deepcopy(owner.state))
            owners.append(owner)
            streamers.append(Streamer(owner, created["game"]))
        # A second player in the first game streams too.
        first_game = next(iter(games))
        second = await Client.connect(server.ws(), "p2")
        await second.join(first_game, games[first_game][0])
        streamers.append(Streamer(second, first_game))
        watchers = []
        for game in games:
            watcher = await Client.connect(server.ws(), f"watch-{game}")
            await watcher.watch(game)
            watchers.append(watcher)

        tasks = [asyncio.create_task(s.run()) for s in streamers]
        await wait_until(asyncio.gather(*(s.ready.wait() for s in streamers)), tasks, 20)
        os.kill(server.proc.pid, signal.SIGTERM)
        await asyncio.wait_for(asyncio.gather(*tasks), 15)
        for client in [*owners, second, *watchers]:
            code = await client.wait_closed(10)
            assert code == 1001, f"{client.name}: close code {code}, expected 1001 (going away)"
        return games, streamers

    games, streamers = run(scenario())
    code = server.proc.wait(timeout=15)
    assert code == 0, f"exit {code} after SIGTERM:\n{server.output()}"

    restarted = start_server(data=data)

    async def verify():
        for game, (token, initial) in games.items():
            mine = [s for s in streamers if s.game == game]
            replay = await Client.connect(restarted.ws(), "replay")
            replay.prime(game, initial)
            reply = await replay.watch(game, since=0)
            diffs = {d["seq"]: d for d in reply.of("diff")}
            last_acked = max(seq for s in mine for _, seq, _ in s.acked)
            assert reply.one("joined")["seq"] >= last_acked
            for streamer in mine:
                for _, seq, command in streamer.acked:
                    assert seq in diffs, f"acked move {seq} of {game} lost on restart"
                    expected = strip_cause(command) | {"by": streamer.client.you}
                    assert normalise_cause(diffs[seq]["cause"]) == expected
            assert not replay.problems
            snapshot = await fresh_snapshot(restarted.ws(), game)
            assert replay.state == snapshot["state"] and snapshot["seq"] == max(diffs)
            await replay.close()
            player = await Client.connect(restarted.ws(), "back")
            assert (await player.join(game, token)).ok
            await player.move({"type": "tap", "target": "/stock"})
            await player.close()
    run(verify())


def test_sigint_shuts_down_cleanly_too(start_server):
    server = start_server()

    async def scenario():
        player = await Client.connect(server.ws(), "p1")
        game = (await player.create("klondike", seed=4)).one("created")["game"]
        watcher = await Client.connect(server.ws(), "s")
        await watcher.watch(game)
        os.kill(server.proc.pid, signal.SIGINT)
        for client in (player, watcher):
            assert await client.wait_closed(10) == 1001
    run(scenario())
    assert server.proc.wait(timeout=15) == 0, server.output()
