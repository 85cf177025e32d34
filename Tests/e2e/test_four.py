"""PROTOCOL section 16 from outside: four in a row (`"kind":"four"`), two seats taking turns, and
every other section (spectators, delay, chat, `since`, replay, durability, resting games, a
cluster, a takeover, limits) working for it as for Klondike. Real server processes, real
clients, real websocat, redis-server and PostgreSQL; every state checked against a model of
the rules written here (four_helpers.py), every diff applied with a generic RFC 6902 library."""
from __future__ import annotations

import asyncio
import copy
import re
import time

import pytest
import requests

from clock_helpers import TimedClient
from e2e_client import DEFAULT_TIMEOUT, Client, eventually, fresh_snapshot, new_id, run
from e2e_websocat import Websocat, as_json
from four_helpers import (DRAW_SEQUENCE, ROWS, WINS, Model, assert_draw_sequence, assert_good_hint, board_rows,
                          hint_column, other, waiting_state)
from test_cluster import node, redis  # noqa: F401 - the redis fixture
from test_shared_store import LEASE, node as store_node, one_history, until_served

DELAY = 2.0
# A hint searches up to the server's budget off the service thread: about a second on a quiet core for a
# release build, several for a debug build on a busy machine. Only a failing test waits this out.
HINT_WAIT = 60.0
BOARD_LINE = re.compile(r"[XO.]( [XO.]){6}")
# p1 first; after it p1 has three in row 0 and p2 three in row 1; p1's 0 makes four along row 0.
HORIZONTAL_BY_P1 = [3, 3, 2, 2, 1, 1, 0]


# -- helpers --------------------------------------------------------------------------------------

def http_json(process, path: str):
    session = requests.Session()
    session.trust_env = False
    response = session.get(process.http + path, timeout=15)
    assert response.status_code == 200, (path, response.status_code, response.text)
    return response.json()


def http_text(process, path: str) -> str:
    session = requests.Session()
    session.trust_env = False
    return session.get(process.http + path, timeout=15).text


def is_diff(seq: int):
    return lambda m: isinstance(m, dict) and m.get("type") == "diff" and m.get("seq") == seq


def is_event(name: str):
    return lambda m: isinstance(m, dict) and m.get("type") == "event" and m.get("event") == name


async def reach(client: Client, seq: int, timeout: float = DEFAULT_TIMEOUT) -> None:
    """The client's state is at `seq` (from a snapshot or a diff)."""
    if client.seq != seq:
        await client.expect(is_diff(seq), timeout=timeout)


async def join(client: Client, game: str, token: str, seat: str | None = None, since: int | None = None,
               timeout: float = DEFAULT_TIMEOUT):
    message = {"type": "join", "game": game, "token": token}
    if seat is not None:
        message["seat"] = seat
    if since is not None:
        message["since"] = since
    return await client.request(message, timeout=timeout)


async def start_game(url: str, first: str | None = None, names=("p1", "p2"), url2: str | None = None, **options):
    """p1 creates, p2 joins with the token: the players by seat, the model, game and token."""
    if first is not None:
        options["first"] = first
    p1 = await Client.connect(url, names[0])
    created = (await p1.create("four", **options)).one("created")
    game, token = created["game"], created["token"]
    model = Model(first or "p1")
    model.check(p1.state, "creator")
    p2 = await Client.connect(url2 or url, names[1])
    reply = await join(p2, game, token)
    assert reply.ok and reply.one("joined")["you"] == "p2", reply
    model.start()
    model.check(p2.state, "joiner")
    await p1.expect(is_event("start"))
    model.check(p1.state, "creator after start")
    return {"p1": p1, "p2": p2}, model, game, token


async def drop(players: dict, model: Model, column: int, target: str | None = None, kind: str = "tap",
               request_id=None, cause_as_sent: bool = True):
    """The seat to move drops into `column`: its diff (cause = the command plus `by`), any event
    after it, the ack last; the state is then the model's. With `cause_as_sent` False, the cause
    may name the column instead of the cell sent (test_a_cells_cause_is_the_command_as_sent
    holds the server to the command as sent)."""
    seat = model.state["turn"]
    client = players[seat]
    command = {"type": kind, "target": target if target is not None else f"/columns/{column}"}
    if request_id is not None:
        command["id"] = request_id
    reply = await client.request(command)
    assert reply.ok, f"{seat} {command} -> {reply.ack}"
    ours = [d for d in reply.of("diff") if d["seq"] == reply.ack["seq"]]
    assert len(ours) == 1 and reply.types()[-1] == "ack", reply
    diff = ours[0]
    causes = [{"type": kind, "target": command["target"], "by": seat}]
    if not cause_as_sent:
        causes += [{"type": t, "target": f"/columns/{column}", "by": seat} for t in (kind, "tap")]
    assert diff["cause"] in causes, diff["cause"]
    # A reply may begin with messages of earlier seqs that arrived late (the other seat's move, or
    # the start that the join caused): each event still comes after the diff of its own seq.
    diff_positions = {m["seq"]: i for i, m in enumerate(reply) if m.get("type") == "diff"}
    for index, message in enumerate(reply):
        if message.get("type") == "event" and message["seq"] in diff_positions:
            assert index > diff_positions[message["seq"]], f"an event before the diff that caused it: {reply}"
    model.drop(column)
    model.check(client.state, seat)
    return reply


async def play(players: dict, model: Model, columns: list[int]) -> list:
    return [await drop(players, model, c) for c in columns]


async def in_step(url: str, game: str, *clients: Client, timeout: float = DEFAULT_TIMEOUT) -> dict:
    """Every client reached the seq a fresh snapshot shows, applied every diff with no gap, and its
    state is that snapshot's (section 4's invariant)."""
    snapshot = await fresh_snapshot(url, game)
    for client in clients:
        await reach(client, snapshot["seq"], timeout)
        assert client.problems == [], client.problems
        assert client.seq == snapshot["seq"], (client.name, client.seq, snapshot["seq"])
        assert client.state == snapshot["state"], client.name
    return snapshot


def won_event(reply, by: str, reason: str, moves: int, started: float) -> dict:
    event = reply.one("event")
    assert event["event"] == "won" and event["by"] == by and event["reason"] == reason, event
    assert event["moves"] == moves and event["seq"] == reply.ack["seq"], event
    assert isinstance(event["seconds"], (int, float)) and 0 <= event["seconds"] <= time.monotonic() - started + 1, event
    return event


def show_lines(reply) -> list[str]:
    lines = [m for m in reply if isinstance(m, str)]
    assert len(lines) >= 6, f"show sends at least six plain-text frames: {reply!r}"
    return lines[:6]


async def close_all(*clients: Client) -> None:
    for client in clients:
        await client.close()


# -- section 16: seats, start, turns --------------------------------------------------------------

@pytest.mark.parametrize("first", [None, "p2"])
def test_create_waits_for_the_second_seat_whose_join_starts_the_game(server, first):
    async def scenario():
        creator = await Client.connect(server.ws(), "p1")
        options = {} if first is None else {"first": first}
        reply = await creator.create("four", **options)
        assert [t for t in reply.types() if t != "presence"] == ["created", "joined", "snapshot", "ack"], reply
        created, joined, snapshot = reply.one("created"), reply.one("joined"), reply.one("snapshot")
        game, token = created["game"], created["token"]
        assert joined["kind"] == "four" and joined["role"] == "player" and joined["you"] == "p1", joined
        assert snapshot["kind"] == "four" and snapshot["seq"] == 0 and reply.ack["seq"] == 0
        starts = first or "p1"
        assert snapshot["state"] == waiting_state(starts), snapshot["state"]
        model = Model(starts)

        early = await creator.request({"type": "tap", "target": "/columns/3"})
        assert early.ack["code"] == "illegal-move" and not early.of("diff"), "a tap while waiting"
        spectator = await Client.connect(server.ws(), "spectator")
        watched = await spectator.watch(game)
        assert watched.one("joined")["role"] == "spectator" and "you" not in watched.one("joined")
        model.check(watched.one("snapshot")["state"], "spectator")
        forbidden = await spectator.request({"type": "tap", "target": "/columns/3"})
        assert forbidden.ack["code"] == "forbidden", "a spectator's tap, even while waiting"

        # The join that takes the last seat: joined, the state, the diff that starts the game,
        # the `start` event, the ack last.
        second = await Client.connect(server.ws(), "p2")
        reply = await join(second, game, token)
        assert reply.ok, reply
        assert reply.one("joined")["you"] == "p2" and reply.one("joined")["role"] == "player"
        types = reply.types()
        diffs = reply.of("diff")
        assert len(diffs) == 1 and diffs[0]["seq"] == 1 == reply.ack["seq"], reply
        start = reply.one("event")
        assert start["event"] == "start" and start["game"] == game and start["seq"] == 1, start
        diff_at = next(i for i, m in enumerate(reply) if m is diffs[0])
        start_at = next(i for i, m in enumerate(reply) if m is start)
        assert types.index("joined") < diff_at < start_at < len(types) - 1 and types[-1] == "ack", types
        model.start()
        model.check(second.state, "p2 after its join")
        for member in (creator, spectator):
            await member.expect(is_event("start"))
            model.check(member.state, member.name)

        # The seat to move is `first`; the other one's tap says whose turn it is.
        players = {"p1": creator, "p2": second}
        wrong = await players[other(starts)].request({"type": "tap", "target": "/columns/0"})
        assert wrong.ack["code"] == "illegal-move", wrong
        assert f"it is {starts}'s turn" in wrong.ack["message"].lower(), wrong.ack
        await drop(players, model, 3)
        await drop(players, model, 3)
        await in_step(server.ws(), game, creator, second, spectator)
        await close_all(creator, second, spectator)

    run(scenario())


def test_bad_first_option_is_bad_request(server):
    async def scenario():
        client = await Client.connect(server.ws(), "creator")
        for options in ({"first": "p3"}, {"first": 2}, {"first": "P1"}):
            reply = await client.request({"type": "create", "kind": "four", "options": options})
            assert reply.ack["code"] == "bad-request" and not reply.of("created"), (options, reply)
        await client.close()

    run(scenario())


def test_taps_alternate_full_columns_cells_and_bad_targets(server):
    async def scenario():
        players, model, game, _ = await start_game(server.ws())
        p1, p2 = players["p1"], players["p2"]
        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok

        out_of_turn = await p2.request({"type": "tap", "target": "/columns/3"})
        assert out_of_turn.ack["code"] == "illegal-move" and "it is p1's turn" in out_of_turn.ack["message"].lower()
        await drop(players, model, 3)
        again = await p1.request({"type": "tap", "target": "/columns/4"})
        assert again.ack["code"] == "illegal-move" and "it is p2's turn" in again.ack["message"].lower(), again.ack
        # A target naming a cell means its column, wherever in it the cell is.
        await drop(players, model, 3, target="/columns/3/2", cause_as_sent=False)
        await drop(players, model, 4, target="/columns/4/0", cause_as_sent=False)
        # A double-tap is a tap.
        await drop(players, model, 6, kind="double-tap", cause_as_sent=False)
        for _ in range(ROWS):  # column 5 filled, alternating: no four
            await drop(players, model, 5)
        seq = p1.seq
        assert len(model.state["columns"][5]) == ROWS and model.state["turn"] == "p1"
        mover, waiter = p1, p2
        for target in ("/columns/5", "/columns/5/5", "/columns/5/0"):
            full = await mover.request({"type": "tap", "target": target})
            assert full.ack["code"] == "illegal-move" and not full.of("diff"), (target, full)

        # Targets of any other form are bad-request, from the seat to move, the other seat (the
        # check comes before whose turn it is) and a spectator (before forbidden) alike.
        bad_targets = ["/columns/7", "/columns/x", "/stock", "/columns", "/columns/-1", "/columns/3/6",
                       "/columns/3/x", "/columns/3/2/1", "/rows", "", 3, None]
        for target in bad_targets:
            for client in (mover, waiter, spectator):
                reply = await client.request({"type": "tap", "target": target})
                assert reply.ack["code"] == "bad-request", (client.name, target, reply.ack)
        missing = await mover.request({"type": "tap"})
        assert missing.ack["code"] == "bad-request", missing.ack
        # drag and undo are illegal-move; a command four in a row does not have is unknown-type.
        for command in ({"type": "drag", "from": "/columns/1", "to": "/columns/2"}, {"type": "undo"}):
            for client in (mover, waiter):
                assert (await client.request(command)).ack["code"] == "illegal-move", (client.name, command)
        assert (await mover.request({"type": "alpha", "step": 1})).ack["code"] == "unknown-type"
        # A spectator's gestures are forbidden; a player's hint while the game is played too.
        for command in ({"type": "tap", "target": "/columns/0"}, {"type": "resign"}, {"type": "reset"}):
            assert (await spectator.request(command)).ack["code"] == "forbidden", command
        for client in (p1, p2):
            assert (await client.request({"type": "hint"})).ack["code"] == "forbidden", client.name
            assert (await client.request({"type": "reset"})).ack["code"] == "illegal-move", "reset while playing"
        snapshot = await in_step(server.ws(), game, p1, p2, spectator)
        assert snapshot["seq"] == seq, "no refused command changed anything"
        model.check(snapshot["state"], "fresh snapshot")
        await close_all(p1, p2, spectator)

    run(scenario(), timeout=60)


def test_a_cells_cause_is_the_command_as_sent(server):
    """Sections 4 and 7: a diff's cause is the command (minus id, token, seed, deck, plus by), here
    taps whose target names a cell, and a double-tap."""
    async def scenario():
        players, model, game, _ = await start_game(server.ws())
        sent = [("tap", "/columns/3/0", 3), ("tap", "/columns/3/4", 3), ("double-tap", "/columns/4", 4)]
        causes, expected = [], []
        for kind, target, column in sent:
            seat = model.state["turn"]
            reply = await drop(players, model, column, target=target, kind=kind, cause_as_sent=False)
            causes.append(reply.of("diff")[-1]["cause"])
            expected.append({"type": kind, "target": target, "by": seat})
        await in_step(server.ws(), game, *players.values())
        await close_all(*players.values())
        assert causes == expected, f"causes {causes}, expected {expected}"

    run(scenario())


@pytest.mark.parametrize("direction,first", [("horizontal", "p1"), ("vertical", "p2"),
                                             ("diagonal-up", "p1"), ("diagonal-down", "p2")])
def test_four_in_every_direction_wins(server, direction, first):
    sequence, line = WINS[direction]

    async def scenario():
        started = time.monotonic()
        players, model, game, _ = await start_game(server.ws(), first=first)
        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok
        for column in sequence[:-1]:
            reply = await drop(players, model, column)
            assert not reply.of("event"), "no event before the game ends"
            # Section 4 after every move: each member's diffs, applied in order, give a fresh snapshot.
            model.check((await in_step(server.ws(), game, *players.values(), spectator))["state"], "snapshot")
        last = await drop(players, model, sequence[-1])
        state = players[first].state
        assert state["status"] == "won" and state["winner"] == first and state["turn"] is None
        assert state["line"] in (line, line[::-1]), f"line {state['line']}, expected {line} in order along it"
        won_event(last, first, "four", len(sequence), started)
        await spectator.expect(is_event("won"))
        # The spectator's won event follows the winning diff.
        at = next(i for i, m in enumerate(spectator.messages) if is_event("won")(m))
        assert is_diff(last.ack["seq"])(spectator.messages[at - 1]), spectator.messages[at - 2:at + 1]
        for seat in ("p1", "p2"):
            after = await players[seat].request({"type": "tap", "target": "/columns/6"})
            assert after.ack["code"] == "illegal-move" and not after.of("diff"), "a tap after the end"
        await in_step(server.ws(), game, *players.values(), spectator)
        await close_all(*players.values(), spectator)

    run(scenario(), timeout=60)


def test_a_full_board_with_no_line_is_drawn(server):
    assert_draw_sequence(DRAW_SEQUENCE)

    async def scenario():
        players, model, game, _ = await start_game(server.ws())
        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok
        for index, column in enumerate(DRAW_SEQUENCE[:-1]):
            reply = await drop(players, model, column)
            assert not reply.of("event"), reply
            if index % 6 == 5:  # now and then, the spectator asks for a hint: a legal, sound column
                await spectator.expect(is_diff(reply.ack["seq"]))
                hint = await spectator.request({"type": "hint"}, timeout=HINT_WAIT)
                assert hint.ok, hint
                assert_good_hint(spectator.state, hint_column(hint.one("hint")))
        last = await drop(players, model, DRAW_SEQUENCE[-1])
        state = players["p1"].state
        assert state["status"] == "drawn" and state["winner"] is None and state["line"] is None
        assert state["turn"] is None and state["moves"] == 42
        event = last.one("event")
        assert event["event"] == "drawn" and event["game"] == game and event["seq"] == last.ack["seq"], event
        for member in (players["p2"], spectator):
            await member.expect(is_event("drawn"))
        refused = await players["p1"].request({"type": "tap", "target": "/columns/0"})
        assert refused.ack["code"] == "illegal-move"
        shown = await spectator.request({"type": "show"})
        assert show_lines(shown) == board_rows(state["columns"])
        # After a draw, a reset starts a new game with p2 first.
        reply = await players["p2"].request({"type": "reset"})
        assert reply.ok and reply.one("event")["event"] == "reset", reply
        model.reset()
        model.check(players["p2"].state, "after reset")
        await in_step(server.ws(), game, *players.values(), spectator)
        await close_all(*players.values(), spectator)

    run(scenario(), timeout=90)


def test_resign_then_reset_flips_who_moves_first(server):
    async def scenario():
        started = time.monotonic()
        players, model, game, _ = await start_game(server.ws())
        p1, p2 = players["p1"], players["p2"]
        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok
        await play(players, model, [3, 4])
        # p2 resigns while it is p1's turn: the game is p1's.
        resigned = await p2.request({"type": "resign"})
        assert resigned.ok, resigned
        diff = [d for d in resigned.of("diff") if d["seq"] == resigned.ack["seq"]][0]
        assert diff["cause"] == {"type": "resign", "by": "p2"}, diff
        model.resign("p2")
        model.check(p2.state, "p2 after resigning")
        won_event(resigned, "p1", "resign", 2, started)
        await spectator.expect(is_event("won"))
        for client in (p1, p2):
            refused = await client.request({"type": "tap", "target": "/columns/0"})
            assert refused.ack["code"] == "illegal-move", "a tap after the end"

        # Reset after the end: a new game, the other seat first, then the `reset` event.
        reset = await p1.request({"type": "reset"})
        assert reset.ok, reset
        diff = [d for d in reset.of("diff") if d["seq"] == reset.ack["seq"]][0]
        assert diff["cause"] == {"type": "reset", "by": "p1"}, diff
        event = reset.one("event")
        assert event["event"] == "reset" and event["seq"] == diff["seq"]
        assert reset.types().index("event") > next(i for i, m in enumerate(reset) if m is diff)
        model.reset()
        model.check(p1.state, "after the first reset")
        assert p1.state["first"] == p1.state["turn"] == "p2"
        wrong = await p1.request({"type": "tap", "target": "/columns/0"})
        assert wrong.ack["code"] == "illegal-move" and "it is p2's turn" in wrong.ack["message"].lower()
        assert (await p2.request({"type": "reset"})).ack["code"] == "illegal-move", "reset while playing"
        started = time.monotonic()
        sequence, _ = WINS["vertical"]
        last = (await play(players, model, sequence))[-1]
        won_event(last, "p2", "four", len(sequence), started)
        # The second reset flips back: p1 first.
        assert (await p2.request({"type": "reset"})).ok
        model.reset()
        model.check(p2.state, "after the second reset")
        assert p2.state["first"] == p2.state["turn"] == "p1"
        await drop(players, model, 0)
        await in_step(server.ws(), game, p1, p2, spectator)
        events = [e["event"] for e in spectator.received("event") if e["event"] != "start"]
        assert events == ["won", "reset", "won", "reset"], events
        await close_all(p1, p2, spectator)

    run(scenario(), timeout=60)


def test_spectator_hints_win_at_once_or_block_and_players_may_not_ask(server):
    async def scenario():
        players, model, game, _ = await start_game(server.ws())
        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok

        async def hint() -> int:
            await reach(spectator, players["p1"].seq)
            reply = await spectator.request({"type": "hint"}, timeout=HINT_WAIT)
            assert reply.ok and reply.types()[-2:] == ["hint", "ack"], reply
            column = hint_column(reply.one("hint"))
            assert_good_hint(spectator.state, column)
            return column

        await hint()  # the empty board: any legal column
        await play(players, model, [0, 0, 1, 1, 2])
        assert await hint() == 3, "p2 must block p1's four in column 3"
        for seat in ("p1", "p2"):
            assert (await players[seat].request({"type": "hint"})).ack["code"] == "forbidden", seat
        await drop(players, model, 2)
        assert await hint() == 3, "p1 wins at once in column 3"
        # p2 blocks; then p1 to move with no win, and p2 threatens nothing: still a legal column.
        await play(players, model, [4, 3])
        await hint()
        await in_step(server.ws(), game, *players.values(), spectator)
        await close_all(*players.values(), spectator)

    run(scenario(), timeout=60)


def test_show_draws_the_rows_top_first(server):
    async def scenario():
        players, model, game, _ = await start_game(server.ws())
        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok
        empty = await spectator.request({"type": "show"})
        assert empty.ok and show_lines(empty) == [". . . . . . ."] * 6, empty
        await play(players, model, [3, 3, 3, 2, 4, 3, 3, 3, 0, 6])
        await reach(spectator, players["p1"].seq)
        expected = board_rows(model.state["columns"])
        assert expected == [". . . O . . .", ". . . X . . .", ". . . O . . .", ". . . X . . .", ". . . O . . .",
                            "X . O X X . O"], expected
        for client in (players["p1"], players["p2"], spectator):
            reply = await client.request({"type": "show"})
            assert reply.ok and reply.types()[-1] == "ack", reply
            lines = show_lines(reply)
            for line in lines:
                assert BOARD_LINE.fullmatch(line), f"not seven cells separated by single spaces: {line!r}"
            assert lines == expected, (client.name, lines)
        await close_all(*players.values(), spectator)

    run(scenario())


def test_seats_a_third_join_is_forbidden_and_a_dropped_player_takes_its_seat_back(server):
    async def scenario():
        players, model, game, token = await start_game(server.ws())
        await drop(players, model, 3)
        third = await Client.connect(server.ws(), "third")
        refused = await join(third, game, token)
        assert refused.ack["code"] == "forbidden" and not refused.of("joined"), refused
        named = await join(third, game, token, seat="p1")
        assert named.ack["code"] == "forbidden", "p1's seat is held"
        assert (await third.request({"type": "show"})).ack["code"] == "not-joined", "a failed join leaves it in no game"

        # p2's connection drops; p1 sees it go; p2 comes back on a new connection with `seat`.
        mark = players["p1"].mark()
        players["p2"].abort()
        await players["p1"].expect(lambda m: isinstance(m, dict) and m.get("type") == "presence"
                                   and m.get("players") == 1, after=mark, timeout=15)
        back = await Client.connect(server.ws(), "p2-back")
        reply = await join(back, game, token, seat="p2")
        assert reply.ok and reply.one("joined")["you"] == "p2", reply
        model.check(back.state, "p2 back")
        players["p2"] = back
        await drop(players, model, 4)
        await drop(players, model, 4)
        # Dropped again: a join without `seat` takes the first free seat, p2's.
        back.abort()
        mark = players["p1"].mark()
        await players["p1"].expect(lambda m: isinstance(m, dict) and m.get("type") == "presence"
                                   and m.get("players") == 1, after=mark, timeout=15)
        again = await join(third, game, token)
        assert again.ok and again.one("joined")["you"] == "p2", again
        players["p2"] = third
        await drop(players, model, 5)
        await in_step(server.ws(), game, players["p1"], third)
        await close_all(players["p1"], third)

    run(scenario())


# -- section 7: shorthand in websocat -------------------------------------------------------------

def test_shorthand_in_websocat(server):
    one, two, three = Websocat(server.ws()), Websocat(server.ws()), Websocat(server.ws())
    try:
        mark = three.send("create four")
        _, snapshot = three.expect_json("snapshot", mark)
        assert snapshot["state"] == waiting_state("p1")

        mark = one.send("create four first=p2")
        _, created = one.expect_json("created", mark)
        _, joined = one.expect_json("joined", mark)
        _, snapshot = one.expect_json("snapshot", mark)
        assert joined["you"] == "p1" and snapshot["state"] == waiting_state("p2")
        game = created["game"]

        mark = two.send(f"join {game} {created['token']}")
        _, joined = two.expect_json("joined", mark)
        assert joined["you"] == "p2"
        _, start = two.expect_json("event", mark, event="start")
        one.expect_json("event", 0, event="start")

        mark = one.send("tap 3")
        _, error = one.expect_json("error", mark)
        assert error["code"] == "illegal-move" and "it is p2's turn" in error["message"].lower(), error
        mark = two.send("tap columns/3")
        _, diff = two.expect_json("diff", mark, seq=2)
        assert diff["cause"] == {"type": "tap", "target": "/columns/3", "by": "p2"}, diff
        one.expect_json("diff", 0, seq=2)
        mark = one.send("tap 4")
        _, diff = one.expect_json("diff", mark, seq=3)
        assert diff["cause"] == {"type": "tap", "target": "/columns/4", "by": "p1"}, diff
        two.expect_json("diff", 0, seq=3)
        for line in ("tap 7", "tap columns/7", "tap columns/x", "tap stock", "tap 3 4 5"):
            mark = two.send(line)
            _, error = two.expect_json("error", mark)
            assert error["code"] == "bad-request", (line, error)

        # show: the rows, top first, then (after a list marks the end) nothing but text.
        mark = one.send("show")
        one.send("list")
        lobby_at, _ = one.expect_json("lobby", mark)
        drawing = [line for line in one.lines[mark:lobby_at] if as_json(line) is None]
        assert drawing[:6] == [". . . . . . ."] * 5 + [". . . O X . ."], one.lines[mark:lobby_at]

        mark = two.send("resign")
        _, diff = two.expect_json("diff", mark, seq=4)
        assert diff["cause"] == {"type": "resign", "by": "p2"}, diff
        _, won = two.expect_json("event", mark, event="won")
        assert won["by"] == "p1" and won["reason"] == "resign" and won["moves"] == 2, won
        one.expect_json("event", 0, event="won")
    finally:
        for term in (one, two, three):
            term.close()


# -- sections 3 and 10: the lobby -----------------------------------------------------------------

def test_lobby_and_api_games_show_four_games_with_the_states_status(start_server):
    server = start_server()

    async def scenario():
        waiting = await Client.connect(server.ws(), "waiting")
        waiting_game = (await waiting.create("four")).one("created")["game"]
        playing, playing_model, playing_game, _ = await start_game(server.ws())
        await drop(playing, playing_model, 3)
        won, won_model, won_game, _ = await start_game(server.ws())
        await play(won, won_model, WINS["diagonal-up"][0])
        drawn, drawn_model, drawn_game, _ = await start_game(server.ws())
        await play(drawn, drawn_model, DRAW_SEQUENCE)
        other_kind = await Client.connect(server.ws(), "klondike")
        klondike_game = (await other_kind.create("klondike", seed=3)).one("created")["game"]
        expected = {waiting_game: ("waiting", 0), playing_game: ("playing", 2), won_game: ("won", 12),
                    drawn_game: ("drawn", 43)}

        def listed():
            games = {g["game"]: g for g in http_json(server, "/api/games?kind=four")}
            assert klondike_game not in games and all(g["kind"] == "four" for g in games.values()), games
            for game, (status, seq) in expected.items():
                assert game in games, (game, games)
                assert (games[game]["status"], games[game]["seq"]) == (status, seq), games[game]
                assert games[game]["players"] == (1 if game == waiting_game else 2), games[game]
        await eventually(listed)
        for game, (status, seq) in expected.items():
            one = http_json(server, f"/api/games/{game}")
            assert one["game"] == game and one["kind"] == "four", one
            assert (one["status"], one["seq"]) == (status, seq), one
            chosen = {g["game"] for g in http_json(server, f"/api/games?kind=four&status={status}")}
            assert game in chosen and not (set(expected) - {game}) & chosen, (status, chosen)
        everything = {g["game"]: g for g in http_json(server, "/api/games")}
        assert everything[klondike_game]["kind"] == "klondike" and everything[won_game]["kind"] == "four"
        deadline = time.monotonic() + DEFAULT_TIMEOUT  # the lobby is recomputed at most once a second
        while True:
            lobby = await waiting.request({"type": "list"})
            entries = {g["game"]: g for g in lobby.one("lobby")["games"]}
            statuses = {game: entries.get(game, {}).get("status") for game in expected}
            if statuses == {game: status for game, (status, _) in expected.items()} or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)
        assert statuses == {game: status for game, (status, _) in expected.items()}, statuses
        assert '"token"' not in http_text(server, "/api/games")
        await close_all(waiting, *playing.values(), *won.values(), *drawn.values(), other_kind)

    run(scenario(), timeout=60)


# -- section 15: a spectator delay, chat ----------------------------------------------------------

def test_delayed_spectators_see_the_game_late_and_in_order(server):
    async def scenario():
        creator = await Client.connect(server.ws(), "p1")
        created = (await creator.create("four", delay=DELAY)).one("created")
        game = created["game"]
        spectator = await Client.connect(server.ws(), "spectator")
        watched = await spectator.watch(game)
        assert watched.one("snapshot")["seq"] == 0 and watched.one("snapshot")["state"] == waiting_state()
        model = Model()
        states = {0: copy.deepcopy(model.state)}
        second = await Client.connect(server.ws(), "p2")
        joined = await join(second, game, created["token"])
        assert joined.ok
        await creator.expect(is_event("start"))
        model.start()
        states[1] = copy.deepcopy(model.state)
        players = {"p1": creator, "p2": second}
        for column in HORIZONTAL_BY_P1:
            reply = await drop(players, model, column)
            states[reply.ack["seq"]] = copy.deepcopy(model.state)
        last = creator.seq
        assert last == 8 and model.state["status"] == "won"

        # Right after the last move, everything a spectator is told is still behind the players.
        seen_before = spectator.seq
        shown = await spectator.request({"type": "show"})
        lines = show_lines(shown)
        matching = [seq for seq, state in states.items() if board_rows(state["columns"]) == lines]
        assert matching and seen_before <= max(matching) < last, (lines, seen_before, matching)
        lobby_seq = http_json(server, f"/api/games/{game}")["seq"]
        assert lobby_seq < last, "the lobby's seq of a delayed game is the spectators'"
        late = await Client.connect(server.ws(), "late")
        reply = await late.watch(game)
        late_seq = reply.one("joined")["seq"]
        assert reply.one("snapshot")["seq"] == late_seq < last and reply.one("snapshot")["state"] == states[late_seq]

        await spectator.expect(is_diff(last), timeout=DELAY + DEFAULT_TIMEOUT)
        await spectator.expect(is_event("won"), timeout=DELAY + DEFAULT_TIMEOUT)
        assert [e["event"] for e in spectator.received("event")] == ["start", "won"]
        assert [d["ops"] for d in spectator.diffs] == [d["ops"] for d in creator.diffs], "the same diffs, later"
        assert spectator.problems == [] and spectator.state == creator.state
        await late.expect(is_diff(last), timeout=DELAY + DEFAULT_TIMEOUT)
        assert late.problems == [] and late.state == creator.state
        await close_all(creator, second, spectator, late)

    run(scenario(), timeout=40)


def test_delay_shift_per_diff(server):
    async def scenario():
        players, model, game, _ = await start_game(server.ws(), delay=DELAY)
        spectator = await TimedClient.connect(server.ws(), "spectator")  # stamps each frame as it arrives
        assert (await spectator.watch(game)).ok
        sent, answered = {}, {}
        for column in [3, 3, 2, 2]:  # seqs 2 to 5, spaced out so that each one's shift shows
            leaving = time.monotonic()
            reply = await drop(players, model, column)
            sent[reply.ack["seq"]], answered[reply.ack["seq"]] = leaving, time.monotonic()
            await asyncio.sleep(0.3)
        for seq in sent:
            at = spectator.arrived(await spectator.expect(is_diff(seq), timeout=DELAY + DEFAULT_TIMEOUT))[0]
            # Never early: the server applied the move after it left, and holds it DELAY from then. A
            # busy machine only makes it later.
            assert at - sent[seq] >= DELAY - 0.01, \
                f"diff {seq} came {at - sent[seq]:.2f}s after its move left, not {DELAY}s"
            # Not much later than the players' copy: DELAY, and at most a second for the frames on their way.
            assert at - answered[seq] <= DELAY + 1.0, f"diff {seq} came {at - answered[seq]:.2f}s after the players'"
        assert spectator.problems == [] and spectator.state == players["p1"].state
        await close_all(*players.values(), spectator)

    run(scenario(), timeout=40)


def test_chat_rooms_follow_the_game_being_played(server):
    async def scenario():
        players, model, game, _ = await start_game(server.ws())
        p1, p2 = players["p1"], players["p2"]
        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok

        def spectators_room(client: Client) -> list[dict]:
            return [m for m in client.received("chat") if m["room"] == "spectators"]

        async def marker(text: str) -> None:
            """A players' line after which p1 and p2 have had anything said before it."""
            assert (await p1.request({"type": "say", "text": text})).ok
            for client in (p2, spectator):
                await client.expect(lambda m: isinstance(m, dict) and m.get("type") == "chat" and m.get("text") == text)

        said = await p1.request({"type": "say", "text": "good luck"})
        line = said.one("chat")
        assert line["room"] == "players" and line["by"] == "p1" and line["game"] == game and line["at"].endswith("Z")
        assert (await spectator.expect_type("chat", by="p1"))["text"] == "good luck"
        assert (await p2.expect_type("chat", by="p1"))["text"] == "good luck"
        fan = await spectator.request({"type": "say", "text": "p2 should play 3"})
        assert fan.ok and fan.one("chat")["room"] == "spectators" and fan.one("chat")["by"] == "s1"
        assert (await spectator.request({"type": "say", "text": "x", "to": "players"})).ack["code"] == "forbidden"
        assert (await p2.request({"type": "say", "text": "x", "to": "spectators"})).ack["code"] == "forbidden"
        await marker("one")
        assert spectators_room(p1) == [] and spectators_room(p2) == [], "not while the game is played"

        await drop(players, model, 3)
        assert (await p2.request({"type": "resign"})).ok
        await spectator.expect(is_event("won"))
        assert (await spectator.request({"type": "say", "text": "well played"})).ok
        for client in (p1, p2):
            line = await client.expect(lambda m: isinstance(m, dict) and m.get("type") == "chat"
                                       and m.get("room") == "spectators")
            assert line["text"] == "well played" and line["by"] == "s1", "players read it once the game is won"

        assert (await p1.request({"type": "reset"})).ok
        await spectator.expect(is_event("reset"))
        mark1, mark2 = p1.mark(), p2.mark()
        assert (await spectator.request({"type": "say", "text": "new game, same tip"})).ok
        await marker("two")
        assert [m for m in p1.received("chat", mark1) if m["room"] == "spectators"] == []
        assert [m for m in p2.received("chat", mark2) if m["room"] == "spectators"] == [], "played again: hidden again"

        late = await Client.connect(server.ws(), "late")
        reply = await late.watch(game)
        texts = [m["text"] for m in reply.of("chat")]
        assert texts == ["good luck", "p2 should play 3", "one", "well played", "new game, same tip", "two"], texts
        await close_all(p1, p2, spectator, late)

    run(scenario(), timeout=40)


# -- sections 3, 4, 9: since, replay --------------------------------------------------------------

def test_watch_since_and_replay_reproduce_the_game(server):
    async def scenario():
        players, model, game, _ = await start_game(server.ws())
        states = {0: waiting_state(), 1: copy.deepcopy(model.state)}
        for column in WINS["diagonal-down"][0]:
            reply = await drop(players, model, column)
            states[reply.ack["seq"]] = copy.deepcopy(model.state)
        final = await in_step(server.ws(), game, *players.values())
        last = final["seq"]
        assert last == 12 and final["state"]["status"] == "won"
        causes = [d["cause"] for d in players["p1"].diffs]

        # since 0: every diff, from storage or memory, no snapshot.
        zero = await Client.connect(server.ws(), "since-0")
        zero.prime(game, states[0])
        reply = await zero.watch(game, since=0)
        assert reply.ok and not reply.of("snapshot"), reply.types()
        assert [d["seq"] for d in reply.of("diff")] == list(range(1, last + 1))
        assert zero.problems == [] and zero.state == final["state"]
        assert [d["cause"] for d in reply.of("diff")] == causes

        middle = await Client.connect(server.ws(), "since-5")
        middle.prime(game, states[5])
        reply = await middle.watch(game, since=5)
        assert [d["seq"] for d in reply.of("diff")] == list(range(6, last + 1)) and not reply.of("snapshot")
        assert middle.problems == [] and middle.state == final["state"]

        # The project's replay: the state at seq 0, then every diff.
        replay = await Client.connect(server.ws(), "replay")
        reply = await replay.request({"type": "watch", "game": game, "replay": True})
        assert reply.ok and reply.one("snapshot")["seq"] == 0, reply.types()
        assert reply.one("snapshot")["state"] == waiting_state()
        assert [d["seq"] for d in reply.of("diff")] == list(range(1, last + 1))
        assert replay.problems == [] and replay.state == final["state"]

        ahead = await Client.connect(server.ws(), "ahead")
        reply = await ahead.watch(game, since=last + 5)
        assert reply.one("snapshot")["state"] == final["state"], "a since above the seq gets a snapshot"
        await close_all(*players.values(), zero, middle, replay, ahead)

    run(scenario())


# -- section 9: durability ------------------------------------------------------------------------

def test_kill_9_mid_game_then_both_players_resume_with_since_and_finish(start_server, tmp_path, backend):
    data = tmp_path / "data"
    data.mkdir()
    first = start_server(data=data, extra_args=backend)

    async def before():
        started = time.monotonic()
        players, model, game, token = await start_game(first.ws())
        acked = []
        for column in HORIZONTAL_BY_P1[:4]:
            request_id = new_id()
            reply = await drop(players, model, column, request_id=request_id)
            acked.append((request_id, reply.ack["seq"], column))
        first.kill()
        for client in players.values():
            await client.wait_closed()
        return started, game, token, model, acked, {seat: (c.seq, copy.deepcopy(c.state)) for seat, c in players.items()}

    started, game, token, model, acked, seen = run(before())
    again = start_server(data=data, extra_args=backend)

    async def after():
        players = {}
        for seat in ("p1", "p2"):
            seq, state = seen[seat]
            client = await Client.connect(again.ws(), f"{seat}-back")
            client.prime(game, state)
            reply = await join(client, game, token, seat=seat, since=seq)
            assert reply.ok and reply.one("joined")["you"] == seat, reply
            assert not reply.of("snapshot") and reply.ack["seq"] == 5, reply
            model.check(client.state, seat)
            players[seat] = client
        # An id applied before the kill is acked with its seq, not applied again.
        request_id, seq, column = acked[-1]
        resent = await players["p2"].request({"type": "tap", "target": f"/columns/{column}", "id": request_id})
        assert resent.ack == {"type": "ack", "id": request_id, "seq": seq} and not resent.of("diff"), resent
        replies = await play(players, model, HORIZONTAL_BY_P1[4:])
        won_event(replies[-1], "p1", "four", 7, started)
        spectator = await Client.connect(again.ws(), "replay")
        spectator.prime(game, waiting_state())
        reply = await spectator.watch(game, since=0)
        assert [d["seq"] for d in reply.of("diff")] == list(range(1, 9))
        await in_step(again.ws(), game, *players.values(), spectator)
        await close_all(*players.values(), spectator)

    run(after(), timeout=60)


def test_a_resting_four_game_comes_back_on_api_watch_and_join(start_server, tmp_path):
    server = start_server(data=tmp_path / "data", extra_args=("--idle", "1"))

    async def scenario():
        players, model, game, token = await start_game(server.ws())
        states = {1: copy.deepcopy(model.state)}
        acked = []
        for column in HORIZONTAL_BY_P1[:4]:
            request_id = new_id()
            reply = await drop(players, model, column, request_id=request_id)
            acked.append((request_id, reply.ack["seq"]))
            states[reply.ack["seq"]] = copy.deepcopy(model.state)
        await close_all(*players.values())

        def rested():
            assert game not in [g["game"] for g in http_json(server, "/api/games")]
        await eventually(rested, within=30, every=0.25)  # --idle 1: about a second
        one = http_json(server, f"/api/games/{game}")
        assert (one["kind"], one["status"], one["seq"]) == ("four", "playing", 5), one

        spectator = await Client.connect(server.ws(), "spectator")
        spectator.prime(game, states[2])
        reply = await spectator.watch(game, since=2)
        assert [d["seq"] for d in reply.of("diff")] == [3, 4, 5] and not reply.of("snapshot"), reply.types()
        model.check(spectator.state, "spectator after the rest")
        shown = await spectator.request({"type": "show"})
        assert show_lines(shown) == board_rows(model.state["columns"])

        back = {}
        for seat in ("p2", "p1"):
            client = await Client.connect(server.ws(), f"{seat}-back")
            client.prime(game, states[5])
            reply = await join(client, game, token, seat=seat, since=5)
            assert reply.ok and reply.one("joined")["you"] == seat and not reply.of("snapshot"), reply
            back[seat] = client
        request_id, seq = acked[0]
        resent = await back["p1"].request({"type": "tap", "target": "/columns/3", "id": request_id})
        assert resent.ack["seq"] == seq and not resent.of("diff"), resent
        await play(back, model, HORIZONTAL_BY_P1[4:])
        await in_step(server.ws(), game, *back.values(), spectator)
        await close_all(*back.values(), spectator)
        await eventually(rested, within=30, every=0.25)
        one = http_json(server, f"/api/games/{game}")
        assert (one["status"], one["seq"]) == ("won", 8), one
        final = await fresh_snapshot(server.ws(), game)
        model.check(final["state"], "after the second rest")

    run(scenario(), timeout=60)


# -- section 11: a cluster on Redis, a takeover on a shared store ---------------------------------

def test_a_four_game_played_across_three_nodes(start_server, tmp_path, redis):  # noqa: F811
    a, b, c = (node(start_server, tmp_path, redis, name) for name in ("node-a", "node-b", "node-c"))

    async def scenario():
        players, model, game, token = await start_game(a.ws(), url2=c.ws())
        spectator = await Client.connect(b.ws(), "spectator@b")
        assert (await spectator.watch(game)).ok
        await play(players, model, [0, 1, 0, 1])
        third = await Client.connect(b.ws(), "third@b")
        refused = await join(third, game, token)
        assert refused.ack["code"] == "forbidden", refused

        # p2 leaves node c and comes back on node b with its seat and `since`.
        state, seq = copy.deepcopy(players["p2"].state), players["p2"].seq
        mark = players["p1"].mark()
        await players["p2"].close()
        await players["p1"].expect(lambda m: isinstance(m, dict) and m.get("type") == "presence"
                                   and m.get("players") == 1, after=mark, timeout=15)
        back = await Client.connect(b.ws(), "p2@b")
        back.prime(game, state)
        reply = await join(back, game, token, seat="p2", since=seq)
        assert reply.ok and reply.one("joined")["you"] == "p2" and not reply.of("snapshot"), reply
        players["p2"] = back
        await play(players, model, [0, 1])
        await reach(spectator, players["p1"].seq)
        hint = await spectator.request({"type": "hint"}, timeout=HINT_WAIT)
        assert hint_column(hint.one("hint")) == 0, "p1 wins at once in column 0"
        assert (await third.watch(game)).ok
        lines = show_lines(await third.request({"type": "show"}))
        assert lines == board_rows(model.state["columns"])
        last = await drop(players, model, 0)
        assert last.one("event")["by"] == "p1"
        await spectator.expect(is_event("won"))
        await in_step(c.ws(), game, players["p1"], back, spectator, third)

        def listed():
            games = {g["game"]: g for g in http_json(c, "/api/games?kind=four")}
            assert game in games and games[game]["status"] == "won", games
        await eventually(listed)
        assert http_json(b, f"/api/games/{game}")["status"] == "won"
        await close_all(players["p1"], back, spectator, third)

    run(scenario(), timeout=60)


def test_takeover_after_kill_9_of_the_owner_the_game_goes_on(start_server, tmp_path, redis, store):  # noqa: F811
    a, b, c = (store_node(start_server, tmp_path, redis, store, name) for name in ("node-a", "node-b", "node-c"))

    async def scenario():
        players, model, game, token = await start_game(a.ws(), url2=c.ws())
        spectator = await Client.connect(b.ws(), "spectator@b")
        assert (await spectator.watch(game)).ok
        acked = {}
        for column in HORIZONTAL_BY_P1[:3]:
            request_id = new_id()
            reply = await drop(players, model, column, request_id=request_id)
            acked[request_id] = (reply.ack["seq"], column)
        await spectator.expect(is_diff(4))
        snapshots = len(spectator.received("snapshot"))
        p1_seq, p1_state = players["p1"].seq, copy.deepcopy(players["p1"].state)
        a.kill()
        dead_by = time.monotonic()  # kill() returns once the process is gone
        await players["p1"].wait_closed()

        # p2 (node c) is to move: served again once another node took the game over, within
        # --lease + 5 s of the owner's death (section 11.1; the store nodes' lease is LEASE).
        column = HORIZONTAL_BY_P1[3]
        reply, _ = await until_served(players["p2"], {"type": "tap", "target": f"/columns/{column}"},
                                      by=dead_by + LEASE + 5)
        assert reply.one("diff")["seq"] == 5 and reply.one("diff")["cause"]["by"] == "p2"
        model.drop(column)
        model.check(players["p2"].state, "p2 after the takeover")
        await spectator.expect(is_diff(5))
        assert spectator.is_open and len(spectator.received("snapshot")) == snapshots

        # p1 comes back on node b with its seat and `since`; its id from before is acked, not applied.
        back = await Client.connect(b.ws(), "p1@b")
        back.prime(game, p1_state)
        resumed = await join(back, game, token, seat="p1", since=p1_seq)
        assert resumed.ok and resumed.one("joined")["you"] == "p1", resumed
        assert [d["seq"] for d in resumed.of("diff")] == [5] and not resumed.of("snapshot")
        players["p1"] = back
        request_id, (seq, column) = next(iter(acked.items()))
        again = await back.request({"type": "tap", "target": f"/columns/{column}", "id": request_id})
        assert again.ok and again.ack["seq"] == seq and not again.of("diff"), again
        replies = await play(players, model, HORIZONTAL_BY_P1[4:])
        assert replies[-1].one("event")["event"] == "won" and replies[-1].one("event")["by"] == "p1"
        await spectator.expect(is_event("won"))
        await in_step(c.ws(), game, back, players["p2"], spectator)
        one_history(spectator, players["p2"], back)
        assert http_json(b, f"/api/games/{game}")["status"] == "won"
        await close_all(back, players["p2"], spectator)

    try:
        run(scenario(), timeout=60)
    except BaseException:
        for process in (a, b, c):
            print(process.args[-5], "".join(process.stderr_lines)[-3000:])
        raise


# -- section 14: limits ---------------------------------------------------------------------------

def test_the_create_rate_applies_to_four(start_server):
    server = start_server(extra_args=("--create-rate", "3"))

    async def scenario():
        clients = [await Client.connect(server.ws(), f"c{i}") for i in range(2)]
        for index in range(3):
            reply = await clients[index % 2].request({"type": "create", "kind": "four"})
            assert reply.ok and reply.of("created"), (index, reply.ack)
        over = await clients[0].request({"type": "create", "kind": "four", "options": {"first": "p2"}})
        assert over.ack["code"] == "limited" and not over.of("created"), over
        assert re.search(r"try again in \d+ ?s", over.ack["message"]), over.ack["message"]
        await close_all(*clients)

    run(scenario())
