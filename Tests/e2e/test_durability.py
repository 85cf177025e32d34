"""Games survive restarts, kill -9 included; a damaged database stops the server at start."""
from __future__ import annotations

import asyncio
import copy
import os

from e2e_client import Client, fresh_snapshot, normalise_cause, run, strip_cause
from e2e_server import ServerProcess
from e2e_streams import Streamer, klondike_taps, plane_moves, wait_until
from klondike_deal import initial_state, shuffled_deck

TOTAL_MOVES = 500
KILL_AFTER = 300  # acknowledged moves, over all three games


def test_kill_9_during_a_stream_of_500_moves(start_server, tmp_path, backend):
    data = tmp_path / "data"
    data.mkdir()
    server = start_server(data=data, extra_args=backend)

    async def stream():
        setups = [("klondike", {"draw": 1, "seed": 101}, klondike_taps),
                  ("klondike", {"draw": 3, "seed": 202}, klondike_taps),
                  ("plane", {"width": 800, "height": 600, "seed": 303}, plane_moves)]
        games = []
        streamers = []
        for kind, options, moves in setups:
            client = await Client.connect(server.ws(), kind)
            created = (await client.create(kind, **options)).one("created")
            games.append({"game": created["game"], "token": created["token"], "kind": kind,
                          "initial": copy.deepcopy(client.state)})
            streamers.append(Streamer(client, created["game"], moves, ready_after=1,
                                      tolerate=("illegal-move",) if kind == "plane" else ()))
        acked_total = 0
        enough = asyncio.Event()

        def count():
            nonlocal acked_total
            acked_total += 1
            if acked_total >= KILL_AFTER:
                enough.set()

        tasks = [asyncio.create_task(s.run(limit=TOTAL_MOVES // 3 + 1, on_ack=count)) for s in streamers]
        await wait_until(enough.wait(), tasks, 60)
        server.kill()  # kill -9 while the moves keep coming
        await asyncio.wait_for(asyncio.gather(*tasks), 15)
        for s in streamers:
            await s.client.wait_closed()
        return games, streamers

    games, streamers = run(stream(), timeout=120)
    assert sum(len(s.acked) for s in streamers) >= KILL_AFTER
    assert all(s.acked for s in streamers), "every game had acknowledged moves"

    restarted = start_server(data=data, extra_args=backend)

    async def verify():
        for game, streamer in zip(games, streamers):
            gid = game["game"]
            last_acked = streamer.acked[-1][1]
            seen = {d["seq"]: d for d in streamer.client.diffs}
            replay = await Client.connect(restarted.ws(), "replay")
            replay.prime(gid, game["initial"])
            reply = await replay.watch(gid, since=0)
            assert reply.ok and not reply.of("snapshot"), "watch GAME 0 replays the stored diffs"
            joined_seq = reply.one("joined")["seq"]
            diffs = {d["seq"]: d for d in reply.of("diff")}
            assert list(diffs) == list(range(1, joined_seq + 1))
            assert joined_seq >= last_acked, f"{game['kind']} {gid}: seq {joined_seq} < last acked {last_acked}"
            # Every diff sent before the kill was stored first: the same diff, at the same seq.
            for seq, diff in seen.items():
                assert seq in diffs, f"{gid}: diff {seq} was sent before the kill but is gone"
                assert diffs[seq]["ops"] == diff["ops"] and diffs[seq]["cause"] == diff["cause"], seq
            # Every acknowledged command is there, in order, as its cause.
            for _, seq, command in streamer.acked:
                assert normalise_cause(diffs[seq]["cause"]) == normalise_cause(strip_cause(command) | {"by": "p1"})
            # Anything stored after what the player saw was its unacknowledged moves, or (plane) the
            # removal of its selection when the game was loaded.
            for seq in range(max(seen, default=0) + 1, joined_seq + 1):
                assert diffs[seq]["cause"]["by"] == "p1", diffs[seq]
            assert not replay.problems
            snapshot = await fresh_snapshot(restarted.ws(), gid)
            assert snapshot["seq"] == joined_seq and replay.state == snapshot["state"]
            if game["kind"] == "plane":
                assert snapshot["state"]["selections"] == {}, "selections of players gone are removed on load"
            await replay.close()

            # The token still works; a re-sent id is acknowledged with its seq, not applied again.
            player = await Client.connect(restarted.ws(), "back")
            resume_from = streamer.client.seq
            player.prime(gid, streamer.client.state)
            reply = await player.join(gid, game["token"], since=resume_from)
            assert reply.ok and reply.one("joined")["role"] == "player"
            assert not reply.of("snapshot"), "the stored diffs after since, not a snapshot"
            assert [d["seq"] for d in reply.of("diff")] == list(range(resume_from + 1, joined_seq + 1))
            assert not player.problems and player.state == snapshot["state"]
            last_id, last_seq, last_command = streamer.acked[-1]
            again = await player.request(dict(last_command, id=last_id))
            assert again.ack == {"type": "ack", "id": last_id, "seq": last_seq} and not again.of("diff"), again
            move = {"type": "tap", "target": "/stock"} if game["kind"] == "klondike" else \
                {"type": "add", "x": 1, "y": 1, "width": 10, "height": 10}
            reply = await player.move(move)
            assert reply.ack["seq"] == joined_seq + 1
            assert player.state == (await fresh_snapshot(restarted.ws(), gid))["state"]
            await player.close()
    run(verify(), timeout=60)


def test_restart_then_resume_with_since_and_resent_id(start_server, tmp_path, backend):
    data = tmp_path / "data"
    data.mkdir()
    first = start_server(data=data, extra_args=backend)

    async def play():
        player = await Client.connect(first.ws(), "p1")
        created = (await player.create("klondike", draw=1, seed=7)).one("created")
        states = {0: copy.deepcopy(player.state)}
        acks = []
        for i in range(10):
            reply = await player.move({"type": "tap", "target": "/stock", "id": f"move-{i}"})
            acks.append(reply.ack)
            states[reply.ack["seq"]] = copy.deepcopy(player.state)
        plane = await Client.connect(first.ws(), "plane")
        plane_created = (await plane.create("plane", seed=1)).one("created")
        await plane.move({"type": "add"})
        await player.close()
        await plane.close()
        return created, states, acks, plane_created

    created, states, acks, plane_created = run(play())
    assert first.terminate() == 0
    second = start_server(data=data, extra_args=backend)

    async def resume():
        game, token = created["game"], created["token"]
        watcher = await Client.connect(second.ws(), "watcher")
        watcher.prime(game, states[5])
        reply = await watcher.watch(game, since=5)
        assert reply.one("joined")["seq"] == 10
        assert [d["seq"] for d in reply.of("diff")] == [6, 7, 8, 9, 10] and not reply.of("snapshot")
        assert watcher.state == states[10]
        player = await Client.connect(second.ws(), "p1-again")
        assert (await player.join(game, token)).ok
        for i in (0, 9):
            again = await player.request({"type": "tap", "target": "/stock", "id": f"move-{i}"})
            assert again.ack == acks[i] and not again.of("diff"), again
        reply = await player.move({"type": "tap", "target": "/stock", "id": "move-10"})
        assert reply.ack["seq"] == 11
        await watcher.expect_type("diff", seq=11)
        assert not watcher.problems and watcher.state == player.state
        # The plane is back too, without the selection of its player who is gone.
        plane = await fresh_snapshot(second.ws(), plane_created["game"])
        assert len(plane["state"]["rectangles"]) == 1 and plane["state"]["selections"] == {}
        for client in (watcher, player):
            await client.close()
    run(resume())


def test_damaged_database_stops_the_server_at_start(start_server, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    server = start_server(data=data)

    async def make_a_game():
        client = await Client.connect(server.ws())
        await client.create("klondike", seed=1)
        await client.move({"type": "tap", "target": "/stock"})
        await client.close()
    run(make_a_game())
    assert server.terminate() == 0
    database = data / "boardcast.sqlite"
    assert database.exists(), f"no {database}: {sorted(os.listdir(data))}"
    size = max(database.stat().st_size, 8192)
    garbage = (b"this is not a database, just garbage \x00\xff" * (size // 40 + 1))[:size]
    database.write_bytes(garbage)

    damaged = ServerProcess(data=data)
    code = damaged.start_expecting_failure(timeout=20)
    assert code != 0, f"the server must not start on a damaged database:\n{damaged.output()}"
    output = "".join(damaged.stdout_lines + damaged.stderr_lines)
    assert "boardcast.sqlite" in output, f"the message must name the file:\n{output}"


def test_a_created_game_survives_kill_9_at_once(start_server, tmp_path, backend):
    data = tmp_path / "data"
    data.mkdir()
    server = start_server(data=data, extra_args=backend)

    async def create():
        client = await Client.connect(server.ws())
        reply = await client.create("klondike", seed=5)
        server.kill()  # the token was sent: the game must be stored already
        return reply.one("created")
    created = run(create())
    restarted = start_server(data=data, extra_args=backend)

    async def rejoin():
        client = await Client.connect(restarted.ws())
        reply = await client.join(created["game"], created["token"])
        assert reply.ok and reply.one("snapshot")["seq"] == 0
        assert reply.one("snapshot")["state"] == initial_state(shuffled_deck(5), 1)
        await client.move({"type": "tap", "target": "/stock"})
        await client.close()
    run(rejoin())
