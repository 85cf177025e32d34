"""PROTOCOL section 13: races, several players on one deal, each view patched on its own."""
from __future__ import annotations

from e2e_client import Client, fresh_snapshot, run


def masked_cards(table: dict) -> list[str]:
    return table["stock"] + table["waste"] + [card for pile in table["tableau"] for card in pile]


def test_two_players_and_a_spectator_race_over_the_protocol(server):
    async def scenario():
        p1 = await Client.connect(server.ws(), "p1")
        reply = await p1.create("race", seats=2, seed=7)
        created = reply.one("created")
        game, token = created["game"], created["token"]
        assert reply.one("joined")["you"] == "p1"
        assert p1.state["status"] == "waiting" and sorted(p1.state["tables"]) == ["p1", "p2"]
        early = await p1.request({"type": "tap", "target": "/stock"})
        assert early.ack["code"] == "illegal-move"

        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok
        p2 = await Client.connect(server.ws(), "p2")
        joined = await p2.join(game, token)
        assert joined.ok and joined.one("joined")["you"] == "p2"
        start = await p2.expect_type("event", event="start")
        assert start["game"] == game
        await p1.expect_type("event", event="start")
        assert p1.state["status"] == "playing"

        # Both play their own tables; every view's diffs patch that view's own snapshot.
        for _ in range(4):
            await p1.move({"type": "tap", "target": "/stock"})
            await p2.move({"type": "tap", "target": "/stock"})
        await p1.move({"type": "undo"})
        hint = await p2.request({"type": "hint"})
        assert hint.ok and "from" in hint.one("hint")
        spectator_hint = await spectator.request({"type": "hint"})
        assert spectator_hint.ack["code"] == "forbidden"

        final = max(p1.seq, p2.seq)
        for client in (p1, p2, spectator):
            await client.expect(lambda m: isinstance(m, dict) and m.get("type") == "diff" and m.get("seq") == final)
            assert client.problems == [], client.problems
        assert p1.state["tables"]["p1"] == spectator.state["tables"]["p1"]
        assert p2.state["tables"]["p2"] == spectator.state["tables"]["p2"]
        # A seated player never sees a rival's cards but foundations: all `??`, true lengths.
        rival = p1.state["tables"]["p2"]
        assert set(masked_cards(rival)) <= {"??"}
        assert len(rival["waste"]) == len(spectator.state["tables"]["p2"]["waste"]) > 0
        assert spectator.state == (await fresh_snapshot(server.ws(), game))["state"]

        # Seats: a third player is refused; a dropped one takes their seat back by name.
        third = await Client.connect(server.ws(), "third")
        refused = await third.join(game, token)
        assert refused.ack["code"] == "forbidden"
        await p2.close()
        back = await third.request({"type": "join", "game": game, "token": token, "seat": "p2"})
        assert back.ok and back.one("joined")["you"] == "p2"
        assert third.state["tables"]["p2"] == spectator.state["tables"]["p2"]
        reset = await p1.request({"type": "reset"})
        assert reset.ack["code"] == "illegal-move"

        lobby = await spectator.request({"type": "list"})
        entry = next(g for g in lobby.one("lobby")["games"] if g["game"] == game)
        assert entry["kind"] == "race" and entry["seats"] == 2 and entry["status"] == "playing"
        for client in (p1, spectator, third):
            await client.close()

    run(scenario())


def test_show_draws_every_table_hiding_rivals_cards(server):
    async def scenario():
        p1 = await Client.connect(server.ws(), "p1")
        created = (await p1.create("race", seats=3, seed=11, draw=3)).one("created")
        mark = p1.mark()
        await p1.send_raw("show")
        await p1.expect(lambda m: isinstance(m, str) and m.startswith("race "), after=mark)
        await p1.expect(lambda m: isinstance(m, str) and "p3" in m, after=mark)
        await p1.close()
        assert created["game"]

    run(scenario())
