"""Resuming with `since`, replaying from 0, and commands applied at most once."""
from __future__ import annotations

import copy

from e2e_client import Client, fresh_snapshot, run


async def game_with_moves(server, moves: int, seed: int = 31):
    player = await Client.connect(server.ws(), "p1")
    reply = await player.create("klondike", draw=3, seed=seed)
    created = reply.one("created")
    initial = copy.deepcopy(reply.one("snapshot")["state"])
    for _ in range(moves):
        await player.move({"type": "tap", "target": "/stock"})
    return player, created["game"], created["token"], initial


def test_resume_with_since_gets_the_missing_diffs(server):
    async def scenario():
        player, game, token, _ = await game_with_moves(server, 3)
        watcher = await Client.connect(server.ws(), "watcher")
        await watcher.watch(game)
        at_three = copy.deepcopy(watcher.state)
        await watcher.close()
        for _ in range(5):
            await player.move({"type": "tap", "target": "/stock"})

        resumed = await Client.connect(server.ws(), "resumed")
        resumed.prime(game, at_three)
        reply = await resumed.watch(game, since=3)
        assert reply.ok and reply.ack["seq"] == 8
        assert [t for t in reply.types() if t != "presence"] == ["joined"] + ["diff"] * 5 + ["ack"], reply
        assert reply.one("joined")["seq"] == 8
        assert [d["seq"] for d in reply.of("diff")] == [4, 5, 6, 7, 8]
        assert not resumed.problems
        assert resumed.state == (await fresh_snapshot(server.ws(), game))["state"] == player.state

        # A player resumes the same way.
        rejoined = await Client.connect(server.ws(), "rejoined")
        rejoined.prime(game, at_three)
        reply = await rejoined.join(game, token, since=3)
        assert reply.one("joined")["role"] == "player" and not reply.of("snapshot")
        assert [d["seq"] for d in reply.of("diff")] == [4, 5, 6, 7, 8]
        assert rejoined.state == player.state
        for client in (player, resumed, rejoined):
            await client.close()
    run(scenario())


def test_since_equal_to_seq_sends_no_state(server):
    async def scenario():
        player, game, _, _ = await game_with_moves(server, 2)
        watcher = await Client.connect(server.ws(), "watcher")
        watcher.prime(game, player.state)
        reply = await watcher.watch(game, since=2)
        assert reply.ok and reply.ack["seq"] == 2
        assert [t for t in reply.types() if t != "presence"] == ["joined", "ack"], reply
        await player.move({"type": "tap", "target": "/stock"})
        await watcher.expect_type("diff", seq=3)
        assert watcher.state == player.state and not watcher.problems
        for client in (player, watcher):
            await client.close()
    run(scenario())


def test_since_above_seq_gets_a_snapshot(server):
    async def scenario():
        player, game, _, _ = await game_with_moves(server, 2)
        watcher = await Client.connect(server.ws(), "watcher")
        reply = await watcher.watch(game, since=50)
        assert [t for t in reply.types() if t != "presence"] == ["joined", "snapshot", "ack"], reply
        assert reply.one("snapshot")["seq"] == 2 and reply.one("snapshot")["state"] == player.state
        for client in (player, watcher):
            await client.close()
    run(scenario())


def test_watch_from_zero_replays_every_move(server):
    async def scenario():
        player, game, _, initial = await game_with_moves(server, 12, seed=8)
        await player.move({"type": "undo"})
        await player.move({"type": "reset", "options": {"seed": 9}})
        await player.move({"type": "tap", "target": "/stock"})
        replay = await Client.connect(server.ws(), "replay")
        replay.prime(game, initial)
        reply = await replay.watch(game, since=0)
        assert not reply.of("snapshot")
        assert [d["seq"] for d in reply.of("diff")] == list(range(1, 16))
        assert [d["cause"] for d in reply.of("diff")] == [d["cause"] for d in player.diffs]
        assert [d["ops"] for d in reply.of("diff")] == [d["ops"] for d in player.diffs]
        assert not replay.problems and replay.state == player.state
        for client in (player, replay):
            await client.close()
    run(scenario())


def test_a_resent_id_is_acked_again_and_not_applied(server):
    async def scenario():
        player, game, token, _ = await game_with_moves(server, 1)
        spectator = await Client.connect(server.ws(), "s")
        await spectator.watch(game)
        command = {"type": "tap", "target": "/stock", "id": "once-only-7f3a"}
        first = await player.move(command)
        assert first.ack == {"type": "ack", "id": "once-only-7f3a", "seq": 2}
        await player.move({"type": "tap", "target": "/stock"})
        state = player.state

        again = await player.request(command)
        assert again.ack == {"type": "ack", "id": "once-only-7f3a", "seq": 2}, "the original seq, again"
        assert not again.of("diff")
        # From another connection of the same game (a reconnecting player), too.
        other = await Client.connect(server.ws(), "p1-again")
        await other.join(game, token)
        again = await other.request(command)
        assert again.ack == {"type": "ack", "id": "once-only-7f3a", "seq": 2} and not again.of("diff")
        # An integer id is an id too, and answered as an integer.
        numbered = await player.move({"type": "tap", "target": "/stock", "id": 9001})
        assert numbered.ack == {"type": "ack", "id": 9001, "seq": 4}
        assert (await player.request({"type": "tap", "target": "/stock", "id": 9001})).ack["seq"] == 4
        probe = await spectator.request({"type": "show"})
        assert probe.ack["seq"] == 4
        assert [d["seq"] for d in spectator.diffs] == [2, 3, 4], "spectators saw each command once"
        snapshot = await fresh_snapshot(server.ws(), game)
        assert snapshot["seq"] == 4 and snapshot["state"] == spectator.state
        assert state != spectator.state
        for client in (player, spectator, other):
            await client.close()
    run(scenario())


def test_ids_are_per_game_and_only_applied_commands_count(server):
    async def scenario():
        player, game, _, _ = await game_with_moves(server, 0)
        # An illegal command is not applied: the same id may then carry a legal one.
        refused = await player.request({"type": "tap", "target": "/waste", "id": "retry-me"})
        assert refused.ack["code"] == "illegal-move"
        applied = await player.move({"type": "tap", "target": "/stock", "id": "retry-me"})
        assert applied.ack == {"type": "ack", "id": "retry-me", "seq": 1} and applied.of("diff")
        # Another command under an applied id is that command again: acked, not applied.
        other = await player.request({"type": "undo", "id": "retry-me"})
        assert other.ack == {"type": "ack", "id": "retry-me", "seq": 1} and not other.of("diff")
        # Ids are unique within a game, not across games.
        elsewhere, _, _, _ = await game_with_moves(server, 0, seed=32)
        reply = await elsewhere.move({"type": "tap", "target": "/stock", "id": "retry-me"})
        assert reply.ack == {"type": "ack", "id": "retry-me", "seq": 1} and reply.of("diff")
        assert (await fresh_snapshot(server.ws(), game))["seq"] == 1
        for client in (player, elsewhere):
            await client.close()
    run(scenario())
