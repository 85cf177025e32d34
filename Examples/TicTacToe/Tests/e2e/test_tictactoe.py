"""PROTOCOL section 20 from outside: tic-tac-toe (`"kind":"tictactoe"`), served by this package's
`tictactoe-server` with every section of the protocol as for four in a row (seats, diffs, turns,
spectators, a delay, replay with `since`, `show`, the shorthand, clocks, durability), the page's
module at /games/tictactoe/, and Boardcast's standard games beside it. Real server processes and
real WebSocket clients (Boardcast's harness); every state checked against the model in
ttt_helpers.py, every diff applied with a generic RFC 6902 library."""
from __future__ import annotations

import copy
import re
import time
from pathlib import Path

import jsonpatch
import pytest
import requests

from clock_helpers import TimedClient, parse_time
from e2e_client import DEFAULT_TIMEOUT, Client, eventually, fresh_snapshot, new_id, run
from ttt_helpers import (DRAW, WINS, Model, assert_draw, close_all, in_step, is_diff, is_event, mark, own_events, play,
                         reach, rows, start_game, waiting_state, won_event)

MODULE = Path(__file__).resolve().parents[2] / "web" / "tictactoe" / "index.js"
SHOW_LINE = re.compile(r"[XO.]( [XO.]){2}")


def http_get(process, path: str) -> requests.Response:
    session = requests.Session()
    session.trust_env = False
    return session.get(process.http + path, timeout=15)


def show_lines(reply) -> list[str]:
    lines = [m for m in reply if isinstance(m, str)]
    assert len(lines) >= 3, f"show sends at least three plain-text frames: {reply!r}"
    return lines[:3]


def own_diff(reply) -> dict:
    """The diff a request caused: the one at its ack's seq (other members' diffs may come before it)."""
    ours = [d for d in reply.of("diff") if d["seq"] == reply.ack["seq"]]
    assert len(ours) == 1, reply
    return ours[0]


async def refused(client: Client, message: dict, code: str) -> dict:
    """`message` is answered `code` and changes nothing."""
    reply = await client.request(message)
    assert reply.ack["type"] == "error" and reply.ack["code"] == code, (client.name, message, reply.ack)
    # (Another member's diff may arrive meanwhile; none is this client's.)
    assert not [d for d in reply.of("diff") if client.you and d["cause"].get("by") == client.you], (client.name, message, reply)
    assert isinstance(reply.ack.get("message"), str) and reply.ack["message"].strip(), reply.ack
    return reply.ack


# -- section 20: seats, turns, a win, a draw --------------------------------------------------------

def test_create_waits_for_p2_whose_join_starts_the_game(server):
    async def scenario():
        creator = await Client.connect(server.ws(), "p1")
        reply = await creator.create("tictactoe")
        assert [t for t in reply.types() if t != "presence"] == ["created", "joined", "snapshot", "ack"], reply
        created, joined, snapshot = reply.one("created"), reply.one("joined"), reply.one("snapshot")
        game, token = created["game"], created["token"]
        assert (joined["kind"], joined["role"], joined["you"]) == ("tictactoe", "player", "p1"), joined
        assert (snapshot["kind"], snapshot["seq"], reply.ack["seq"]) == ("tictactoe", 0, 0), snapshot
        assert snapshot["state"] == waiting_state(), snapshot["state"]
        await refused(creator, {"type": "tap", "target": "/cells/4"}, "illegal-move")  # while waiting

        spectator = await Client.connect(server.ws(), "spectator")
        watched = await spectator.watch(game)
        assert watched.one("joined")["role"] == "spectator" and "you" not in watched.one("joined")
        await refused(spectator, {"type": "tap", "target": "/cells/4"}, "forbidden")

        # The join that takes the last seat: joined, the state, the diff that starts the game, `start`, the ack.
        second = await Client.connect(server.ws(), "p2")
        reply = await second.request({"type": "join", "game": game, "token": token})
        assert reply.ok and reply.one("joined")["you"] == "p2", reply
        diff, start = reply.one("diff"), reply.one("event")
        assert diff["seq"] == 1 == reply.ack["seq"] and (start["event"], start["seq"]) == ("start", 1), reply
        order = [next(i for i, m in enumerate(reply) if m is x) for x in (reply.one("joined"), diff, start, reply.ack)]
        assert order == sorted(order), reply.types()
        model = Model()
        model.start()
        for member in (second, creator, spectator):
            await reach(member, 1)
            model.check(member.state, member.name)
        third = await Client.connect(server.ws(), "third")
        await refused(third, {"type": "join", "game": game, "token": token}, "forbidden")  # no seat is free
        await in_step(server.ws(), game, creator, second, spectator)
        await close_all(creator, second, spectator, third)

    run(scenario())


@pytest.mark.parametrize("shape", sorted(WINS))
def test_three_in_a_row_wins(server, shape):
    cells, line = WINS[shape]

    async def scenario():
        started = time.monotonic()
        players, model, game, _ = await start_game(server.ws())
        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok
        for n in cells[:-1]:
            reply = await mark(players, model, n)
            assert not own_events(reply), "no event before the game ends"
            model.check((await in_step(server.ws(), game, *players.values(), spectator))["state"], "snapshot")
        last = await mark(players, model, cells[-1])
        state = players["p1"].state
        assert (state["status"], state["winner"], state["turn"], state["line"], state["moves"]) == ("won", "p1", None, line, 5), state
        won_event(last, "p1", "three", 5, started)
        for member in (players["p2"], spectator):
            told = await member.expect(is_event("won"))
            assert (told["by"], told["reason"], told["moves"]) == ("p1", "three", 5), told
            at = member.messages.index(told)
            assert is_diff(last.ack["seq"])(member.messages[at - 1]), "the event follows its diff"
        for seat in ("p1", "p2"):  # after the end
            await refused(players[seat], {"type": "tap", "target": f"/cells/{state['cells'].index(None)}"}, "illegal-move")
        await in_step(server.ws(), game, *players.values(), spectator)
        await close_all(*players.values(), spectator)

    run(scenario())


def test_a_full_board_without_three_is_drawn_and_reset_gives_p2_the_first_move(server):
    assert_draw(DRAW)

    async def scenario():
        players, model, game, _ = await start_game(server.ws())
        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok
        for n in DRAW[:-1]:
            assert not own_events(await mark(players, model, n))
        last = await mark(players, model, DRAW[-1])
        state = players["p1"].state
        assert (state["status"], state["winner"], state["line"], state["turn"], state["moves"]) == ("drawn", None, None, None, 9)
        [event] = own_events(last)
        assert (event["event"], event["game"], event["seq"]) == ("drawn", game, last.ack["seq"]), event
        await spectator.expect(is_event("drawn"))
        await refused(players["p2"], {"type": "tap", "target": "/cells/0"}, "illegal-move")
        shown = await spectator.request({"type": "show"})
        assert show_lines(shown) == rows(state["cells"]) == ["X O X", "X O O", "O X X"]
        # A reset after a draw: a new game, the other seat (p2) first.
        reset = await players["p2"].request({"type": "reset"})
        assert reset.ok and [e["event"] for e in own_events(reset)] == ["reset"], reset
        model.reset()
        model.check(players["p2"].state, "after reset")
        assert players["p2"].state["turn"] == players["p2"].state["first"] == "p2"
        await mark(players, model, 4)
        await in_step(server.ws(), game, *players.values(), spectator)
        await close_all(*players.values(), spectator)

    run(scenario())


# -- section 20: what is refused ------------------------------------------------------------------

def test_illegal_moves_and_bad_targets(server):
    async def scenario():
        players, model, game, _ = await start_game(server.ws())
        p1, p2 = players["p1"], players["p2"]
        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok

        error = await refused(p2, {"type": "tap", "target": "/cells/4"}, "illegal-move")  # out of turn
        assert "p1" in error["message"] or "turn" in error["message"].lower(), error
        await mark(players, model, 4)
        await refused(p1, {"type": "tap", "target": "/cells/0"}, "illegal-move")  # out of turn again
        await refused(p2, {"type": "tap", "target": "/cells/4"}, "illegal-move")  # a marked cell
        await refused(p2, {"type": "tap", "target": "/cells/1/1"}, "illegal-move")  # the same cell, by row and column
        # /cells/1/2 is row 1, column 2: cell 5, and the cause names /cells/5.
        reply = await mark(players, model, 5, target="/cells/1/2")
        assert own_diff(reply)["cause"] == {"type": "tap", "target": "/cells/5", "by": "p2"}, own_diff(reply)
        await mark(players, model, 6, target="/cells/2/0")
        await mark(players, model, 2, kind="double-tap")  # a double-tap is a tap
        seq = p1.seq

        # Another target is bad-request: from the seat to move, the other seat and a spectator alike
        # (bad-request is checked before whose turn it is, and before forbidden).
        bad = ["/cells/9", "/cells/-1", "/cells/x", "/cells", "/cells/3/0", "/cells/0/3", "/cells/1/2/0",
               "/cells/1/x", "/columns/3", "/stock", "", 4, None]
        for target in bad:
            for client in (p1, p2, spectator):
                await refused(client, {"type": "tap", "target": target}, "bad-request")
        await refused(p1, {"type": "tap"}, "bad-request")
        for command in ({"type": "drag", "from": "/cells/0", "to": "/cells/1"}, {"type": "undo"}):
            for client in (p1, p2):
                reply = await client.request(command)
                assert reply.ack.get("code") in ("illegal-move", "unknown-type"), (command, reply.ack)
        for command in ({"type": "tap", "target": "/cells/0"}, {"type": "resign"}, {"type": "reset"}):
            await refused(spectator, command, "forbidden")
        for client in (p1, p2):
            await refused(client, {"type": "reset"}, "illegal-move")  # while the game is played
        snapshot = await in_step(server.ws(), game, p1, p2, spectator)
        assert snapshot["seq"] == seq, "nothing refused changed the game"
        model.check(snapshot["state"], "fresh snapshot")
        await close_all(p1, p2, spectator)

    run(scenario())


def test_resign_then_reset_flips_who_moves_first(server):
    async def scenario():
        started = time.monotonic()
        players, model, game, _ = await start_game(server.ws())
        p1, p2 = players["p1"], players["p2"]
        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok
        await play(players, model, [0, 4])
        resigned = await p2.request({"type": "resign"})  # p2 resigns on p1's turn
        assert resigned.ok, resigned
        assert own_diff(resigned)["cause"] == {"type": "resign", "by": "p2"}, own_diff(resigned)
        model.resign("p2")
        model.check(p2.state, "after resigning")
        won_event(resigned, "p1", "resign", 2, started)
        await spectator.expect(is_event("won"))
        await refused(p1, {"type": "tap", "target": "/cells/8"}, "illegal-move")

        reset = await p1.request({"type": "reset"})
        assert reset.ok and own_diff(reset)["cause"] == {"type": "reset", "by": "p1"}, reset
        event_at = next(i for i, m in enumerate(reset) if is_event("reset")(m))
        assert event_at > next(i for i, m in enumerate(reset) if m is own_diff(reset)), reset.types()
        model.reset()
        model.check(p1.state, "after the first reset")
        assert p1.state["first"] == p1.state["turn"] == "p2"
        await refused(p1, {"type": "tap", "target": "/cells/0"}, "illegal-move")  # p2 moves first now
        cells, line = WINS["anti-diagonal"]
        started = time.monotonic()
        last = (await play(players, model, cells))[-1]
        assert p2.state["winner"] == "p2" and p2.state["line"] == line
        won_event(last, "p2", "three", 5, started)
        assert (await p2.request({"type": "reset"})).ok  # the second reset: p1 first again
        model.reset()
        model.check(p2.state, "after the second reset")
        assert p2.state["first"] == p2.state["turn"] == "p1"
        await in_step(server.ws(), game, p1, p2, spectator)
        events = [e["event"] for e in spectator.received("event")]
        assert events == ["won", "reset", "won", "reset"], events  # (it came after the start)
        await close_all(p1, p2, spectator)

    run(scenario())


# -- sections 3, 4, 15: spectators, a delay, replay -------------------------------------------------

def test_a_spectator_gets_every_diff_in_order(server):
    async def scenario():
        creator = await Client.connect(server.ws(), "p1")
        created = (await creator.create("tictactoe")).one("created")
        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(created["game"])).one("snapshot")["state"] == waiting_state()
        second = await Client.connect(server.ws(), "p2")
        assert (await second.request({"type": "join", "game": created["game"], "token": created["token"]})).ok
        players, model = {"p1": creator, "p2": second}, Model()
        model.start()
        await creator.expect(is_event("start"))
        states = {1: copy.deepcopy(model.state)}
        for n in WINS["column"][0]:
            reply = await mark(players, model, n)
            states[reply.ack["seq"]] = copy.deepcopy(model.state)
        await reach(spectator, 6)
        await spectator.expect(is_event("won"))
        assert [d["seq"] for d in spectator.diffs] == list(range(1, 7)) and spectator.problems == []
        assert [d["ops"] for d in spectator.diffs] == [d["ops"] for d in creator.diffs]
        assert [d["cause"] for d in spectator.diffs] == [d["cause"] for d in creator.diffs]
        assert spectator.state == states[6] == creator.state
        assert [e["event"] for e in spectator.received("event")] == ["start", "won"]
        await close_all(creator, second, spectator)

    run(scenario())


def test_a_delayed_spectator_sees_every_diff_delay_seconds_late(server):
    delay = 3

    async def scenario():
        players, model, game, _ = await start_game(server.ws(), delay=delay)
        spectator = await TimedClient.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok
        sent = {}
        for n in WINS["row"][0]:
            leaving = time.monotonic()
            reply = await mark(players, model, n)
            sent[reply.ack["seq"]] = leaving
        last = players["p1"].seq
        assert last == 6 and model.state["status"] == "won"
        if time.monotonic() - sent[last] < delay - 0.5:  # (a machine stalled for seconds proves nothing here)
            assert spectator.seq < last, "a delayed spectator saw the last move at once"
            assert http_get(server, f"/api/games/{game}").json()["seq"] < last, "the lobby's seq is the spectators'"
        for seq, leaving in sent.items():
            diff = await spectator.expect(is_diff(seq), timeout=delay + DEFAULT_TIMEOUT)
            at, _ = spectator.arrived(diff)
            assert at - leaving >= delay - 0.05, f"diff {seq} came {at - leaving:.2f}s after its move left, not {delay}s"
        await spectator.expect(is_event("won"), timeout=delay + DEFAULT_TIMEOUT)
        assert [d["ops"] for d in spectator.diffs] == [d["ops"] for d in players["p1"].diffs][-len(spectator.diffs):]
        assert spectator.problems == [] and spectator.state == players["p1"].state
        await close_all(*players.values(), spectator)

    run(scenario(), timeout=60)


def test_watch_since_0_rebuilds_every_state(server):
    async def scenario():
        players, model, game, _ = await start_game(server.ws())
        states = {0: waiting_state(), 1: copy.deepcopy(model.state)}
        for n in DRAW:
            reply = await mark(players, model, n)
            states[reply.ack["seq"]] = copy.deepcopy(model.state)
        final = await in_step(server.ws(), game, *players.values())
        assert final["seq"] == 10 and final["state"]["status"] == "drawn"

        replay = await Client.connect(server.ws(), "since-0")
        replay.prime(game, states[0])
        reply = await replay.watch(game, since=0)
        assert reply.ok and not reply.of("snapshot"), reply.types()
        diffs = reply.of("diff")
        assert [d["seq"] for d in diffs] == list(range(1, 11)), [d["seq"] for d in diffs]
        assert [d["cause"] for d in diffs] == [d["cause"] for d in players["p1"].diffs]
        # Every state again, diff by diff, from the empty board.
        rebuilt = Model()
        state = waiting_state()
        for diff in diffs:
            state = jsonpatch.apply_patch(state, diff["ops"])
            if diff["cause"]["type"] in ("tap", "double-tap"):
                rebuilt.mark(int(diff["cause"]["target"].rsplit("/", 1)[1]))
            else:  # the join that took the last seat
                rebuilt.start()
            rebuilt.check(state, f"replayed seq {diff['seq']}")
            assert state == states[diff["seq"]], diff["seq"]
        assert replay.problems == [] and replay.state == final["state"]

        middle = await Client.connect(server.ws(), "since-5")
        middle.prime(game, states[5])
        reply = await middle.watch(game, since=5)
        assert [d["seq"] for d in reply.of("diff")] == list(range(6, 11)) and not reply.of("snapshot")
        assert middle.state == final["state"]
        await close_all(*players.values(), replay, middle)

    run(scenario())


# -- section 7: show and the shorthand ------------------------------------------------------------

def test_show_draws_the_three_rows(server):
    async def scenario():
        players, model, game, _ = await start_game(server.ws())
        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok
        assert show_lines(await spectator.request({"type": "show"})) == [". . ."] * 3
        await play(players, model, [4, 0, 8, 2])
        await reach(spectator, players["p1"].seq)
        for client in (*players.values(), spectator):
            reply = await client.request({"type": "show"})
            assert reply.ok and reply.types()[-1] == "ack", reply
            lines = show_lines(reply)
            assert all(SHOW_LINE.fullmatch(line) for line in lines), lines
            assert lines == rows(model.state["cells"]) == ["O . O", ". X .", ". . X"], (client.name, lines)
        await close_all(*players.values(), spectator)

    run(scenario())


def test_shorthand_in_plain_text_frames(server):
    async def scenario():
        one, two = await Client.connect(server.ws(), "one"), await Client.connect(server.ws(), "two")
        at = one.mark()
        await one.send_raw("create tictactoe")
        created = await one.expect_type("created", at)
        snapshot = await one.expect_type("snapshot", at)
        assert snapshot["state"] == waiting_state() and one.you == "p1"
        game = created["game"]
        at = two.mark()
        await two.send_raw(f"join {game} {created['token']}")
        await two.expect_type("event", at, event="start")
        assert two.you == "p2"

        at = one.mark()
        await one.send_raw("tap 4")
        diff = await one.expect_type("diff", at, seq=2)
        assert diff["cause"] == {"type": "tap", "target": "/cells/4", "by": "p1"}, diff
        at = two.mark()
        await two.send_raw("tap cells/1/2")
        diff = await two.expect_type("diff", at, seq=3)
        assert diff["cause"] == {"type": "tap", "target": "/cells/5", "by": "p2"}, diff
        for line, code in (("tap 9", "bad-request"), ("tap cells/3/0", "bad-request"), ("tap cells/x", "bad-request"),
                           ("tap 4", "illegal-move"), ("tap", "bad-request")):
            at = two.mark()
            await two.send_raw(line)
            error = await two.expect_type("error", at)
            assert error["code"] == code, (line, error)
        at = one.mark()
        await one.send_raw("show")
        await one.send_raw("list")
        lobby_at = await one.expect_index(lambda m: isinstance(m, dict) and m.get("type") == "lobby", at)
        drawing = [m for m in one.messages[at:lobby_at] if isinstance(m, str)]
        assert drawing[:3] == [". . .", ". X O", ". . ."], one.messages[at:lobby_at]
        at = two.mark()
        await two.send_raw("resign")
        diff = await two.expect_type("diff", at, seq=4)
        assert diff["cause"] == {"type": "resign", "by": "p2"}, diff
        won = await two.expect_type("event", at, event="won")
        assert (won["by"], won["reason"], won["moves"]) == ("p1", "resign", 2), won
        await reach(one, 4)
        assert one.problems == two.problems == [] and one.state == two.state
        await close_all(one, two)

    run(scenario())


# -- section 17: a clock ----------------------------------------------------------------------------

def test_a_clock_runs_out_and_the_other_seat_wins_on_time(server):
    clock = {"initial": 10, "increment": 0}

    async def scenario():
        p1 = await TimedClient.connect(server.ws(), "p1")
        reply = await p1.create("tictactoe", clock=clock)
        created, joined = reply.one("created"), reply.one("joined")
        assert joined.get("clock") == clock and "now" in joined, joined
        model = Model()
        model.check(p1.state, "created", clocks=True)
        assert (p1.state["clocks"]["p1"], p1.state["clocks"]["p2"]) == (10000, 10000), p1.state["clocks"]
        p2 = await TimedClient.connect(server.ws(), "p2")
        assert (await p2.request({"type": "join", "game": created["game"], "token": created["token"]})).ok
        model.start()
        await reach(p1, 1)
        clocks = p1.state["clocks"]
        assert (clocks["p1"], clocks["p2"], clocks["running"]) == (10000, 10000, "p1"), clocks
        started = parse_time(clocks["since"])
        players = {"p1": p1, "p2": p2}
        await mark(players, model, 4, clocks=True)  # now p2's clock runs
        clocks = p1.state["clocks"]
        assert clocks["running"] == "p2" and clocks["p2"] == 10000 and 0 < clocks["p1"] <= 10000, clocks
        assert abs(clocks["p1"] - (10000 - (parse_time(clocks["since"]) - started) * 1000)) <= 25, clocks

        # p2 never moves: the server ends the game on time, with nobody's command.
        diff = await p1.expect(lambda m: isinstance(m, dict) and m.get("type") == "diff"
                               and (m.get("cause") or {}).get("type") == "timeout", timeout=10 + 2 * DEFAULT_TIMEOUT)
        assert diff["cause"] == {"type": "timeout", "seat": "p2"}, diff["cause"]
        model.resign("p2")
        model.check(p1.state, "after the timeout", clocks=True)
        assert (p1.state["clocks"]["p2"], p1.state["clocks"]["running"]) == (0, None), p1.state["clocks"]
        event = await p1.expect(is_event("won"))
        assert (event["by"], event["reason"], event["seq"]) == ("p1", "time", diff["seq"]), event
        told = await p2.expect(is_event("won"))
        assert told["reason"] == "time" and p2.state == p1.state
        await refused(p2, {"type": "tap", "target": "/cells/0"}, "illegal-move")
        await in_step(server.ws(), created["game"], p1, p2)
        await close_all(p1, p2)

    run(scenario(), timeout=90)


# -- section 9: kill -9 and a restart on the same data ----------------------------------------------

def test_kill_9_then_restart_on_the_same_data_loses_no_accepted_move(start_server, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    first = start_server(data=data)

    async def before():
        started = time.monotonic()
        players, model, game, token = await start_game(first.ws())
        acked = []
        for n in WINS["diagonal"][0][:3]:
            request_id = new_id()
            reply = await mark(players, model, n, request_id=request_id)
            acked.append((request_id, reply.ack["seq"], n))
        first.kill()
        for client in players.values():
            await client.wait_closed()
        return started, game, token, model, acked, {seat: (c.seq, copy.deepcopy(c.state)) for seat, c in players.items()}

    started, game, token, model, acked, seen = run(before())
    again = start_server(data=data)

    async def after():
        snapshot = await fresh_snapshot(again.ws(), game)
        assert snapshot["seq"] == acked[-1][1] == 4, snapshot
        model.check(snapshot["state"], "the game after the restart")
        players = {}
        for seat in ("p1", "p2"):
            seq, state = seen[seat]
            client = await Client.connect(again.ws(), f"{seat}-back")
            client.prime(game, state)
            reply = await client.request({"type": "join", "game": game, "token": token, "seat": seat, "since": seq})
            assert reply.ok and reply.one("joined")["you"] == seat and not reply.of("snapshot"), reply
            model.check(client.state, seat)
            players[seat] = client
        # A command applied before the kill, sent again with its id: acked with its seq, not applied again.
        request_id, seq, n = acked[-1]
        resent = await players["p1"].request({"type": "tap", "target": f"/cells/{n}", "id": request_id})
        assert resent.ack == {"type": "ack", "id": request_id, "seq": seq} and not resent.of("diff"), resent
        replies = await play(players, model, WINS["diagonal"][0][3:])
        won_event(replies[-1], "p1", "three", 5, started)
        watcher = await Client.connect(again.ws(), "since-0")
        watcher.prime(game, waiting_state())
        reply = await watcher.watch(game, since=0)
        assert [d["seq"] for d in reply.of("diff")] == list(range(1, 7))
        await in_step(again.ws(), game, *players.values(), watcher)
        await close_all(*players.values(), watcher)

    run(after(), timeout=60)


# -- the package's page module, and the standard games beside tic-tac-toe -----------------------------

def test_api_pages_lists_the_module_and_it_is_served_as_javascript(server):
    pages = http_get(server, "/api/pages")
    assert pages.status_code == 200 and pages.headers["content-type"].startswith("application/json"), pages.headers
    assert pages.json() == [{"kind": "tictactoe", "module": "/games/tictactoe/index.js"}], pages.text
    module = http_get(server, "/games/tictactoe/index.js")
    assert module.status_code == 200, module.status_code
    assert module.headers["content-type"].split(";")[0].strip() == "text/javascript", module.headers
    assert module.content == MODULE.read_bytes(), "the module served is the package's web/tictactoe/index.js"
    style = http_get(server, "/games/tictactoe/tictactoe.css")  # linked by the module (the page allows no inline style)
    assert style.status_code == 200 and style.headers["content-type"].split(";")[0].strip() == "text/css", style.headers
    assert style.content == (MODULE.parent / "tictactoe.css").read_bytes()
    assert http_get(server, "/games/tictactoe/nothing-here.js").status_code == 404
    assert http_get(server, "/").status_code == 200, "Boardcast's page is served as ever"


def test_the_standard_games_are_served_beside_tictactoe(server):
    async def scenario():
        client = await Client.connect(server.ws(), "standard")
        games = {}
        stays = await Client.connect(server.ws(), "tictactoe")  # stays in its game: a live one, in the lobby
        games["tictactoe"] = (await stays.create("tictactoe")).one("created")["game"]
        for kind, options in (("four", {}), ("klondike", {"seed": 7}), ("plane", {})):
            reply = await client.create(kind, **options)
            assert reply.one("joined")["kind"] == kind and reply.one("snapshot")["kind"] == kind, reply
            games[kind] = reply.one("created")["game"]
        four = await Client.connect(server.ws(), "four-p2")
        created = await client.create("four")
        assert (await four.request({"type": "join", "game": created.one("created")["game"],
                                     "token": created.one("created")["token"]})).ok
        await client.expect(is_event("start"))
        reply = await client.request({"type": "tap", "target": "/columns/3"})
        assert reply.ok and own_diff(reply)["cause"] == {"type": "tap", "target": "/columns/3", "by": "p1"}, reply
        for kind, game in games.items():
            one = http_get(server, f"/api/games/{game}")
            assert one.status_code == 200 and one.json()["kind"] == kind, (kind, one.text)

        def listed():
            games_listed = {g["game"]: g for g in http_get(server, "/api/games?kind=tictactoe").json()}
            assert games["tictactoe"] in games_listed and games_listed[games["tictactoe"]]["status"] == "waiting", games_listed
            assert all(g["kind"] == "tictactoe" for g in games_listed.values())
        await eventually(listed)
        await close_all(client, four, stays)

    run(scenario())
