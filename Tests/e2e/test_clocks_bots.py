"""PROTOCOL sections 17 (turn clocks) and 18 (bots) from outside: real server processes, real
clients, redis-server and PostgreSQL; every four-in-a-row state held to four_helpers' model and
every clock to section 17's arithmetic by clock_helpers.Referee, every diff applied with a
generic RFC 6902 library and compared with a fresh snapshot (section 4's invariant).

Where the protocol is silent, these tests rely on the project's choices: every `joined` carries
`now` (RFC 3339 UTC with milliseconds) in every kind; `clock` is `{"initial":S,"increment":I}` or
the string "S+I" (`create four clock=300+5`), and out of 10..10800 / 0..180 or on a game without
turns (klondike, plane, race) it is `bad-request`; the lobby object and `joined` carry `clock` and
`bots`; `bots` `{"p2":L}` with L 1..3, `p1`, a seat the game lacks or another level is
`bad-request`, shorthand `create four bot=2` and `create race seats=3 bots=2,2`; a game whose
other seats are all bots starts at creation (its start diff and event before the create's ack, or
the ack's seq says so); a bot's cause is `{"type":"tap","target":"/columns/C","by":"p2","bot":true}`;
a timeout's diff has cause `{"type":"timeout","seat":S}` and no `by`, sets that clock to 0,
`running` null, status won, the other seat the winner, then `event` `won` with `by` the winner and
`reason` "time"; a resume's cause is `{"type":"resume"}`, it sets the running clock to its value at
the last stored move and `since` to the resume's instant."""
from __future__ import annotations

import asyncio
import copy
import random
import time

from clock_helpers import (BOT_TURN, Referee, TimedClient, cause_is, check_clock_shape, check_now, diff_by,
                           http_json, in_step, is_diff, is_event, legal_columns, parse_time,
                           remaining_ms)
from e2e_client import DEFAULT_TIMEOUT, Client, new_id, run
from four_helpers import immediate_wins, other
from test_cluster import redis  # noqa: F401 - the redis fixture
from test_shared_store import LEASE, node as store_node, one_history

# p1 first; p1's last drop (column 0) makes four along row 0.
HORIZONTAL_BY_P1 = [3, 3, 2, 2, 1, 1, 0]
SHORT = {"initial": 10, "increment": 0}  # the shortest clock there is
SEED = 20261126  # the random players' generator: fixed, so a failing game plays again the same way
# The bot games have a clock no game here uses up: section 18's 2 s are then read off the server's
# own instants (what the bot's move charged its clock), not off when frames reached a busy test.
BOT_CLOCK = {"initial": 3600, "increment": 0}


# -- helpers --------------------------------------------------------------------------------------

async def start_clocked(url: str, clock: dict, first: str | None = None, url2: str | None = None, **options):
    """p1 creates a four-in-a-row game with `clock`, p2 joins with the token: the game starts.
    Returns the players by seat, the referee (which followed the start), game, token, and when the
    start event reached p1 (monotonic, wall)."""
    options = dict(options, clock=clock)
    if first is not None:
        options["first"] = first
    p1 = await TimedClient.connect(url, "p1")
    sent = time.time()
    reply = await p1.create("four", **options)
    check_now(reply.one("joined"), sent, time.time())
    assert reply.one("joined").get("clock") == clock, f"`joined` carries the game's `clock`: {reply.one('joined')}"
    created, snapshot = reply.one("created"), reply.one("snapshot")
    game, token = created["game"], created["token"]
    referee = Referee(first or "p1", clock=clock)
    referee.begin(snapshot["seq"], snapshot["state"], "creator")
    assert snapshot["state"]["status"] == "waiting" and snapshot["state"]["clocks"]["running"] is None, \
        "clocks start with the start event, not before"
    p2 = await TimedClient.connect(url2 or url, "p2")
    sent = time.time()
    joined = await p2.request({"type": "join", "game": game, "token": token})
    assert joined.ok and joined.one("joined")["you"] == "p2", joined
    check_now(joined.one("joined"), sent, time.time())
    assert joined.one("joined").get("clock") == clock, joined.one("joined")
    _, start_mono, start_wall = await p1.expect_stamped(is_event("start"))
    applied = referee.follow(p1)
    assert [d["cause"]["type"] for d in applied] == ["start"], applied
    since = parse_time(referee.state["clocks"]["since"])
    assert sent - 0.05 <= since <= start_wall + 0.05, "the clock starts with the start: `since` is its instant"
    await p2.expect(is_event("start"))
    return {"p1": p1, "p2": p2}, referee, game, token, (start_mono, start_wall)


async def move(players: dict, referee: Referee, column: int, request_id=None):
    """The seat to move (a person) drops into `column`: its diff, cause the command plus `by`,
    followed by the referee; returns the reply and that diff."""
    seat = referee.model.state["turn"]
    client = players[seat]
    command = {"type": "tap", "target": f"/columns/{column}"}
    if request_id is not None:
        command["id"] = request_id
    reply = await client.request(command)
    assert reply.ok, f"{seat} {command} -> {reply.ack}"
    ours = [d for d in reply.of("diff") if d["cause"].get("by") == seat and "bot" not in d["cause"]]
    assert len(ours) == 1, reply
    assert ours[0]["cause"] == {"type": "tap", "target": f"/columns/{column}", "by": seat}, ours[0]
    referee.follow(client)
    return reply, ours[0]


def began(client: TimedClient, seq: int) -> float:
    """When the client learnt of the state at `seq` (the diff or snapshot that brought it)."""
    for index in range(len(client.messages) - 1, -1, -1):
        m = client.messages[index]
        if isinstance(m, dict) and m.get("type") in ("diff", "snapshot") and m.get("seq") == seq:
            return client.mono[index]
    raise AssertionError(f"{client.name} never reached seq {seq}")


def sensible_column(columns, rng: random.Random, seat: str = "p1") -> int:
    """A random player that blocks a four the other seat could make next and takes none itself:
    games against a bot then last a while."""
    threats = immediate_wins(columns, other(seat))
    if threats:
        return threats[0]
    wins = set(immediate_wins(columns, seat))
    choices = [c for c in legal_columns(columns) if c not in wins] or legal_columns(columns)
    return rng.choice(choices)


async def bot_turn(human: TimedClient, referee: Referee, bot: str = "p2") -> dict:
    """It is the bot's turn: its move comes within 2 s of the diff that made it so (section 18).
    Judged by the server's own clock: what the move charged the bot's clock is the time between
    the two diffs' `since` (the referee holds it to that), so neither the frames' way nor a busy
    test process can make a move look late."""
    assert referee.clocked, "the bots' 2 s are read off the game's clock: give the game a `clock`"
    assert referee.model.state["turn"] == bot, referee.model.state
    before, moves = referee.state["clocks"][bot], referee.model.state["moves"]
    diff = await human.expect(diff_by(bot, True, referee.seq))
    referee.follow(human)  # the clock arithmetic: charged = the time from the turn's `since` to the move's
    spent = before + referee.clock["increment"] * 1000 - human.at_seq[diff["seq"]]["clocks"][bot]
    assert spent <= BOT_TURN * 1000 + 1, \
        (f"the bot (level {referee.bots.get(bot)}) took {spent} ms of its clock to answer move {moves} "
         f"(section 18: within 2 s of its turn); board {referee.model.state['columns']}")
    return diff


async def play_against_bot(human: TimedClient, referee: Referee, rng: random.Random, chooser=None,
                           exchanges: int | None = None) -> None:
    """p1 drops (at random unless `chooser` says) and the bot in p2 answers, until the end or for
    `exchanges` of p1's moves."""
    played = 0
    while referee.model.state["status"] == "playing" and (exchanges is None or played < exchanges):
        if referee.model.state["turn"] == "p1":
            columns = referee.model.state["columns"]
            column = chooser(columns, rng) if chooser else rng.choice(legal_columns(columns))
            await move({"p1": human}, referee, column)
            played += 1
        else:
            await bot_turn(human, referee)


async def create_bot_game(url: str, options: dict, name: str = "human"):
    """Creates a four-in-a-row game with `bots` (JSON): it starts at once. Returns the human (p1),
    the referee (which followed the start and anything after it so far), game, token."""
    human = await TimedClient.connect(url, name)
    sent = time.time()
    reply = await human.request({"type": "create", "kind": "four", "options": options})
    assert reply.ok and reply.of("created"), reply
    assert [t for t in reply.types() if t != "presence"][:3] == ["created", "joined", "snapshot"], reply.types()
    joined = reply.one("joined")
    check_now(joined, sent, time.time())
    assert joined.get("bots") == options["bots"], f"`joined` carries `bots`: {joined}"
    assert reply.ack["seq"] >= 1, f"a game whose other seats are all bots starts as it is created: {reply}"
    referee = Referee(options.get("first", "p1"), clock=options.get("clock"), bots=options["bots"])
    snapshot = reply.one("snapshot")
    referee.begin(snapshot["seq"], snapshot["state"], name)
    await human.until_state(lambda s: s["status"] != "waiting")
    if snapshot["state"]["status"] == "waiting":
        await human.expect(is_event("start"))
    referee.follow(human)
    return human, referee, reply.one("created")["game"], reply.one("created")["token"]


async def close_all(*clients: Client) -> None:
    for client in clients:
        await client.close()


# -- section 17: `now`, `clock` and `clocks` where they belong ------------------------------------

def test_every_joined_carries_now_and_games_without_a_clock_have_no_clocks(server):
    async def scenario():
        extra = []  # `clock` and `bots` in a `joined` of a game without them, listed at the end
        for kind, options in (("klondike", {"seed": 3}), ("plane", {}), ("race", {"seats": 2, "seed": 7}),
                              ("four", {})):
            creator = await TimedClient.connect(server.ws(), f"{kind}-creator")
            sent = time.time()
            reply = await creator.create(kind, **options)
            joined = reply.one("joined")
            check_now(joined, sent, time.time())
            extra += [(kind, key, joined[key]) for key in ("clock", "bots") if key in joined]
            assert "clocks" not in creator.state, f"{kind}: no clocks without a clock: {creator.state}"
            game, token = reply.one("created")["game"], reply.one("created")["token"]

            spectator = await TimedClient.connect(server.ws(), f"{kind}-spectator")
            sent = time.time()
            watched = await spectator.watch(game)
            assert watched.ok and watched.one("joined")["role"] == "spectator", watched
            check_now(watched.one("joined"), sent, time.time())

            other_player = await TimedClient.connect(server.ws(), f"{kind}-player")
            sent = time.time()
            joined_again = await other_player.join(game, token)
            assert joined_again.ok, joined_again
            check_now(joined_again.one("joined"), sent, time.time())
            if kind in ("race", "four"):
                await creator.expect(is_event("start"))
                assert "clocks" not in creator.state and "clocks" not in other_player.state, creator.state
            one = http_json(server, f"/api/games/{game}")
            assert "clock" not in one and "bots" not in one, one
            await close_all(creator, spectator, other_player)
        assert extra == [], f"`joined` carries `clock` and `bots` only when the game has them: {extra}"

    run(scenario())


def test_a_clocked_game_shows_its_clock_in_joined_the_lobby_and_its_state(server):
    clock = {"initial": 10, "increment": 2}

    async def scenario():
        players, referee, game, token, _ = await start_clocked(server.ws(), clock)
        clocks = players["p1"].state["clocks"]
        assert clocks["p1"] == clocks["p2"] == 10000 and clocks["running"] == "p1", clocks
        spectator = await TimedClient.connect(server.ws(), "spectator")
        sent = time.time()
        watched = await spectator.watch(game)
        joined = watched.one("joined")
        check_now(joined, sent, time.time())
        assert joined.get("clock") == clock, joined
        assert watched.one("snapshot")["state"] == players["p1"].state, "the state changes only by diffs"
        # The lobby's object, over HTTP and in `lobby`.
        assert http_json(server, f"/api/games/{game}").get("clock") == clock
        listed = {g["game"]: g for g in http_json(server, "/api/games?kind=four")}
        assert listed[game].get("clock") == clock, listed[game]
        lobby = await spectator.request({"type": "list"})
        entry = next(g for g in lobby.one("lobby")["games"] if g["game"] == game)
        assert entry.get("clock") == clock, entry
        await in_step(server.ws(), game, *players.values(), spectator)

        # Shorthand `clock=S+I`; the same string in JSON; the edges of the ranges.
        terminal = await TimedClient.connect(server.ws(), "terminal")
        mark = terminal.mark()
        await terminal.send_raw("create four clock=300+5")
        shorthand = await terminal.expect_type("joined", mark)
        await terminal.expect_type("snapshot", mark)
        assert shorthand.get("clock") == {"initial": 300, "increment": 5}, shorthand
        assert "now" in shorthand, shorthand
        check_clock_shape(terminal.state["clocks"])
        assert (terminal.state["clocks"]["p1"], terminal.state["clocks"]["p2"]) == (300000, 300000), terminal.state
        for given, meant in (({"initial": 60}, {"initial": 60, "increment": 0}),
                             ({"initial": 10, "increment": 0}, {"initial": 10, "increment": 0}),
                             ({"initial": 10800, "increment": 180}, {"initial": 10800, "increment": 180})):
            made = await terminal.request({"type": "create", "kind": "four", "options": {"clock": given}})
            assert made.ok and made.one("joined").get("clock") == meant, (given, made)
            state = made.one("snapshot")["state"]
            assert state["clocks"]["p1"] == state["clocks"]["p2"] == meant["initial"] * 1000, (given, state)
        await close_all(*players.values(), spectator, terminal)

    run(scenario())


def test_options_out_of_range_or_on_the_wrong_game_are_refused(server):
    """Every case is tried and every disagreement listed at once: (sent, answered, expected)."""
    race = {"seats": 2, "winnable": True}
    cases = [
        ("four", {"clock": {"initial": 9, "increment": 0}}, "bad-request"),
        ("four", {"clock": {"initial": 10801, "increment": 0}}, "bad-request"),
        ("four", {"clock": {"initial": 10, "increment": 181}}, "bad-request"),
        ("four", {"clock": {"initial": 10, "increment": -1}}, "bad-request"),
        ("four", {"clock": {"initial": "ten", "increment": 0}}, "bad-request"),
        ("four", {"clock": "5+0"}, "bad-request"),
        # The shorthand's short forms are the terminal's; a JSON message states objects (section 2).
        ("four", {"clock": "300+5"}, "bad-request"),
        ("four", {"clock": 300}, "bad-request"),
        ("four", {"bots": 2}, "bad-request"),
        ("four", {"bot": 2}, "bad-request"),
        ("four", {"bots": "2"}, "bad-request"),
        ("race", dict(race, bots="2"), "bad-request"),
        ("klondike", {"clock": {"initial": 60, "increment": 0}}, "bad-request"),
        ("plane", {"clock": {"initial": 60, "increment": 0}}, "bad-request"),
        ("race", {"seats": 2, "clock": {"initial": 60, "increment": 0}}, "bad-request"),
        ("four", {"bots": {"p1": 1}}, "bad-request"),
        ("four", {"bots": {"p2": 4}}, "bad-request"),
        ("four", {"bots": {"p2": 0}}, "bad-request"),
        ("four", {"bots": {"p3": 1}}, "bad-request"),
        ("klondike", {"bots": {"p2": 1}}, "bad-request"),
        ("plane", {"bots": {"p2": 1}}, "bad-request"),
        ("race", dict(race, bots={"p1": 1}), "bad-request"),
        ("race", dict(race, bots={"p3": 1}), "bad-request"),
        ("race", dict(race, bots={"p2": 4}), "bad-request"),
        ("race", {"seats": 2, "bots": {"p2": 1}}, "illegal-move"),
    ]
    lines = [("create four clock=9+0", "bad-request"), ("create four clock=10+181", "bad-request"),
             ("create klondike clock=60+0", "bad-request"), ("create four bot=4", "bad-request"),
             ("create four bot=0", "bad-request"), ("create klondike bot=1", "bad-request")]

    async def scenario():
        client = await Client.connect(server.ws(), "refused")
        wrong = []
        for kind, options, code in cases:
            sent = {"type": "create", "kind": kind, "options": options}
            reply = await client.request(sent, timeout=10)
            if reply.ack.get("code") != code or reply.of("created"):
                wrong.append((sent, reply.ack, code))
        for line, code in lines:
            mark = client.mark()
            await client.send_raw(line)
            fence = await client.request({"type": "list"}, timeout=10)
            answers = [m for m in client.messages[mark:] if isinstance(m, dict) and m.get("type") in ("error", "created")]
            answers = [m for m in answers if "id" not in m]
            if [m.get("code") for m in answers] != [code]:
                wrong.append((line, answers, code))
            assert fence.ok
        assert wrong == [], "\n".join(f"sent {s!r}\n  received {r!r}\n  expected {e!r}" for s, r, e in wrong)
        await client.close()

    run(scenario(), timeout=120)


# -- section 17: moves, the invariant ------------------------------------------------------------

def test_a_moves_diff_sets_the_movers_time_the_running_seat_and_since(server):
    clock = {"initial": 10, "increment": 2}

    async def scenario():
        players, referee, game, _, _ = await start_clocked(server.ws(), clock)
        p1 = players["p1"]
        spectator = await TimedClient.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok
        thinks = [0.4, 0.2, 0.3, 0.6, 0.2, 0.3, 0.4]
        for index, (column, think) in enumerate(zip(HORIZONTAL_BY_P1, thinks)):
            seat = referee.model.state["turn"]
            old = copy.deepcopy(referee.state["clocks"])
            began(p1, referee.seq)  # p1 has seen the state the mover thinks about (from `since` on, its clock ran)
            await asyncio.sleep(think)  # the player thinks: its clock runs
            sent = time.time()
            _, diff = await move(players, referee, column)  # the referee checks the clocks' arithmetic
            arrived_wall = (await p1.expect_stamped(is_diff(diff["seq"])))[2]
            new = referee.state["clocks"]
            if new["running"] is not None:
                since = parse_time(new["since"])
                assert sent - 0.05 <= since <= arrived_wall + 0.05, f"`since` is the move's instant: {new}"
                # What the server charged (its two instants) covers the player's thinking, which began
                # after the old `since` reached p1; and ends before the answer came. Bounds that a slow
                # frame only widens: a busy machine cannot break them.
                spent = since - parse_time(old["since"])
                assert think - 0.05 <= spent <= arrived_wall - parse_time(old["since"]) + 0.05, (think, spent, old, new)
                assert new["running"] == other(seat), new
            if index % 3 == 2:
                await in_step(server.ws(), game, *players.values(), spectator)
        assert referee.model.state["status"] == "won" and referee.state["clocks"]["running"] is None
        won = await p1.expect(is_event("won"))
        assert won["by"] == "p1" and won["reason"] == "four", won
        stopped = copy.deepcopy(referee.state["clocks"])
        await asyncio.sleep(0.5)  # a stopped clock stays as it is: a fresh snapshot later shows it unchanged
        final = await in_step(server.ws(), game, *players.values(), spectator)
        assert final["state"]["clocks"] == stopped
        await close_all(*players.values(), spectator)

    run(scenario())


# -- section 17: time running out -----------------------------------------------------------------

def test_time_running_out_ends_the_game_within_half_a_second_for_everyone(server):
    async def scenario():
        players, referee, game, _, _ = await start_clocked(server.ws(), SHORT)
        p1, p2 = players["p1"], players["p2"]
        spectator = await TimedClient.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok
        since = parse_time(referee.state["clocks"]["since"])
        diff, _, arrived_wall = await p1.expect_stamped(cause_is("timeout"), timeout=10 + DEFAULT_TIMEOUT)
        assert arrived_wall >= since + 10 - 0.02, "not before the time was used up"
        assert diff["cause"] == {"type": "timeout", "seat": "p1"}, diff["cause"]
        referee.follow(p1)  # p1's clock 0, nothing running, won by p2
        state = p1.state
        # When the game ended is the server's own instant: the stopped clock's `since`.
        late = parse_time(state["clocks"]["since"]) - (since + 10)
        assert -0.002 <= late <= 0.5 + 0.002, f"the game ended {late:+.3f}s after p1's time ran out (within 0.5 s)"
        assert state["status"] == "won" and state["winner"] == "p2" and state["clocks"]["p1"] == 0, state
        assert state["clocks"]["p2"] == 10000 and state["clocks"]["running"] is None, state
        event = await p1.expect(is_event("won"))
        assert p1.index_of(event) > p1.index_of(diff), "the event follows its diff"
        assert event["by"] == "p2" and event["reason"] == "time" and event["seq"] == diff["seq"], event
        assert event["moves"] == 0 and isinstance(event["seconds"], (int, float)) and 9 <= event["seconds"] <= 11, event
        for member in (p2, spectator):
            theirs = await member.expect(is_diff(diff["seq"]))
            assert theirs["cause"] == diff["cause"] and theirs["ops"] == diff["ops"], (member.name, theirs)
            told = await member.expect(is_event("won"))
            assert (told["by"], told["reason"]) == ("p2", "time"), told
        refused = await p2.request({"type": "tap", "target": "/columns/3"})
        assert refused.ack["code"] == "illegal-move", "the game is over"
        assert http_json(server, f"/api/games/{game}")["status"] == "won"
        await in_step(server.ws(), game, p1, p2, spectator)
        await close_all(p1, p2, spectator)

    run(scenario(), timeout=40)


def test_time_runs_out_with_nobody_connected(server):
    async def scenario():
        players, referee, game, _, _ = await start_clocked(server.ws(), SHORT)
        await asyncio.sleep(0.3)
        await move(players, referee, 3)  # now p2's clock runs
        since = parse_time(referee.state["clocks"]["since"])
        seq, state = referee.seq, copy.deepcopy(referee.state)
        await close_all(*players.values())

        # Nobody is there to await: the lobby's object is polled, only to learn that it happened; when
        # it happened is the server's own instant, the stopped clock's `since` (below).
        deadline = since + 10 + DEFAULT_TIMEOUT
        while http_json(server, f"/api/games/{game}")["status"] != "won":
            assert time.time() < deadline, "the game never timed out with nobody connected"
            await asyncio.sleep(0.1)
        one = http_json(server, f"/api/games/{game}")
        assert (one["status"], one["seq"]) == ("won", seq + 1), one

        watcher = await TimedClient.connect(server.ws(), "watcher")
        watched = await watcher.watch(game)
        snapshot = watched.one("snapshot")
        assert snapshot["seq"] == seq + 1, snapshot
        final = snapshot["state"]
        assert final["status"] == "won" and final["winner"] == "p1" and final["turn"] is None, final
        assert final["clocks"]["p2"] == 0 and final["clocks"]["running"] is None, final["clocks"]
        assert final["clocks"]["p1"] == state["clocks"]["p1"], final["clocks"]
        late = parse_time(final["clocks"]["since"]) - (since + state["clocks"]["p2"] / 1000)
        assert -0.002 <= late <= 0.5 + 0.002, f"the game ended {late:+.3f}s after p2's time ran out (within 0.5 s)"
        late = await TimedClient.connect(server.ws(), "since")
        late.prime(game, state)
        caught_up = await late.watch(game, since=seq)
        assert [d["seq"] for d in caught_up.of("diff")] == [seq + 1] and not caught_up.of("snapshot"), caught_up
        assert caught_up.of("diff")[0]["cause"] == {"type": "timeout", "seat": "p2"}, caught_up.of("diff")
        referee.follow(late)
        assert late.state == final and late.problems == []
        await close_all(watcher, late)

    run(scenario(), timeout=40)


def test_a_game_with_a_running_clock_stays_live_then_times_out(start_server, tmp_path):
    server = start_server(data=tmp_path / "data", extra_args=("--idle", "1"))
    clock = {"initial": 15, "increment": 0}

    async def scenario():
        # A game without a clock, left alone: it rests after --idle 1.
        control = await TimedClient.connect(server.ws(), "control-p1")
        made = await control.create("four")
        other_player = await TimedClient.connect(server.ws(), "control-p2")
        assert (await other_player.join(made.one("created")["game"], made.one("created")["token"])).ok
        control_game = made.one("created")["game"]
        players, referee, game, _, _ = await start_clocked(server.ws(), clock)
        since = parse_time(referee.state["clocks"]["since"])
        await close_all(control, other_player, *players.values())

        # Polled until the clocked game is won: some poll must show the game without a clock rested
        # while the clocked one is still live and playing (an idle game rests; one whose clock runs does not).
        both_seen = False
        timed_out = False
        while time.time() < since + 15 + DEFAULT_TIMEOUT:
            asked = time.time()
            listed = {g["game"]: g for g in http_json(server, "/api/games")}
            if game in listed:
                entry = listed[game]
                assert (entry["players"], entry["spectators"]) == (0, 0), entry
                if entry["status"] == "won":
                    timed_out = True
                    break
                both_seen = both_seen or control_game not in listed
            else:
                one = http_json(server, f"/api/games/{game}")
                assert one["status"] == "won", \
                    f"a game whose clock runs rested {asked - since:.1f}s into a 15 s clock: {one}"
                timed_out = True
                break
            await asyncio.sleep(0.2)
        assert both_seen, "the game without a clock never rested while the clocked one ran"
        assert timed_out, "the clocked game never timed out"
        watcher = await TimedClient.connect(server.ws(), "watcher")
        final = (await watcher.watch(game)).one("snapshot")["state"]
        assert final["winner"] == "p2" and final["clocks"]["p1"] == 0, final
        late = parse_time(final["clocks"]["since"]) - (since + 15)
        assert -0.002 <= late <= 0.5 + 0.002, f"the game ended {late:+.3f}s after p1's time ran out (within 0.5 s)"
        await watcher.close()

    run(scenario(), timeout=60)


# -- section 17: a player never loses time to the server ------------------------------------------

def test_resume_after_kill_9_charges_nobody_for_the_downtime(start_server, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    clock = {"initial": 30, "increment": 1}
    first = start_server(data=data)

    async def before():
        players, referee, game, token, _ = await start_clocked(first.ws(), clock)
        await asyncio.sleep(0.3)
        await move(players, referee, 3)
        await asyncio.sleep(0.3)
        await move(players, referee, 3)
        for client in players.values():
            await client.expect(is_diff(referee.seq))
        await asyncio.sleep(1.0)  # p1's clock runs; this second is never charged once the server dies
        first.kill()
        for client in players.values():
            await client.wait_closed()
        return referee, game, token, {seat: (c.seq, copy.deepcopy(c.state)) for seat, c in players.items()}

    referee, game, token, seen = run(before())
    stored = copy.deepcopy(referee.state["clocks"])
    assert stored["running"] == "p1"
    time.sleep(1.5)  # the server is down: time that is nobody's
    restarted = time.time()
    again = start_server(data=data)

    async def after():
        players = {}
        for seat in ("p1", "p2"):
            seq, state = seen[seat]
            client = await TimedClient.connect(again.ws(), f"{seat}-back")
            client.prime(game, state)
            sent = time.time()
            reply = await client.request({"type": "join", "game": game, "token": token, "seat": seat, "since": seq})
            assert reply.ok and reply.one("joined")["you"] == seat and not reply.of("snapshot"), reply
            check_now(reply.one("joined"), sent, time.time())
            assert reply.one("joined").get("clock") == clock
            players[seat] = client
        p1 = players["p1"]
        resume = await p1.expect(cause_is("resume", referee.seq))
        applied = referee.follow(p1)
        assert [d["cause"]["type"] for d in applied] == ["resume"], applied
        clocks = referee.state["clocks"]
        assert clocks["p1"] == stored["p1"] and clocks["running"] == "p1", (stored, clocks)
        resumed = parse_time(clocks["since"])
        assert resumed >= restarted - 0.05, "`since` is the resume's instant, after the restart"
        shown = remaining_ms(clocks, "p1", time.time())
        assert shown >= stored["p1"] - (time.time() - restarted) * 1000 - 50, \
            f"p1 shows {shown:.0f} ms: charged for the downtime (it had {stored['p1']} at the last stored move)"
        await players["p2"].expect(is_diff(resume["seq"]))

        # It is in the history, with its `since`.
        replay = await TimedClient.connect(again.ws(), "replay")
        replayed = await replay.request({"type": "watch", "game": game, "replay": True})
        resumes = [d for d in replayed.of("diff") if d["cause"].get("type") == "resume"]
        assert [(d["seq"], d["ops"]) for d in resumes] == [(resume["seq"], resume["ops"])], resumes
        assert any(op["path"] in ("/clocks/since", "/clocks") for op in resume["ops"]), resume["ops"]

        # Play goes on, each clock from there.
        await asyncio.sleep(0.3)
        await move(players, referee, 2)
        await asyncio.sleep(0.3)
        await move(players, referee, 2)
        await in_step(again.ws(), game, *players.values(), replay)
        await close_all(*players.values(), replay)

    run(after(), timeout=60)


def test_a_takeover_on_the_shared_store_resumes_the_running_clock_with_one_history(
        start_server, tmp_path, redis, store):  # noqa: F811
    a, b, c = (store_node(start_server, tmp_path, redis, store, name) for name in ("node-a", "node-b", "node-c"))
    clock = {"initial": 40, "increment": 1}

    async def scenario():
        players, referee, game, token, _ = await start_clocked(a.ws(), clock, url2=c.ws())
        spectator = await TimedClient.connect(b.ws(), "spectator@b")
        assert (await spectator.watch(game)).ok
        await asyncio.sleep(0.3)
        await move(players, referee, 3)
        await asyncio.sleep(0.3)
        await move(players, referee, 4)
        for member in (spectator, *players.values()):
            await member.expect(is_diff(referee.seq))
        snapshots = len(spectator.received("snapshot"))
        stored = copy.deepcopy(referee.state["clocks"])
        assert stored["running"] == "p1"
        p1_seq, p1_state = players["p1"].seq, copy.deepcopy(players["p1"].state)
        killed = time.time()
        a.kill()
        dead_by = time.time()  # kill() returns once the process is gone
        await players["p1"].wait_closed()

        # p1 comes back on node b: served once another node took the game over, within --lease + 5 s
        # of the owner's death (section 11.1). Judged by when each join left: one refused that was
        # sent after that is a failure, and a slow answer cannot make it look late.
        back = await TimedClient.connect(b.ws(), "p1@b")
        back.prime(game, p1_state)
        while True:
            asked = time.time()
            reply = await back.request({"type": "join", "game": game, "token": token, "seat": "p1", "since": p1_seq})
            if reply.ok:
                break
            assert reply.ack["code"] == "unavailable", reply.ack
            assert asked < dead_by + LEASE + 5, f"a join sent {asked - dead_by:.1f}s after the owner's death was refused"
            await asyncio.sleep(0.2)
        assert reply.one("joined")["you"] == "p1" and reply.one("joined").get("clock") == clock, reply
        resume = await back.expect(cause_is("resume", p1_seq))
        applied = referee.follow(back)
        assert [d["cause"]["type"] for d in applied] == ["resume"], applied
        clocks = referee.state["clocks"]
        assert clocks["p1"] == stored["p1"] and parse_time(clocks["since"]) >= killed - 0.05, (stored, clocks)
        for member in (players["p2"], spectator):
            theirs = await member.expect(is_diff(resume["seq"]))
            assert theirs["cause"] == {"type": "resume"} and theirs["ops"] == resume["ops"], theirs
        assert spectator.is_open and len(spectator.received("snapshot")) == snapshots, "no snapshot, no gap"

        players["p1"] = back
        await asyncio.sleep(0.3)
        await move(players, referee, 3)
        await asyncio.sleep(0.3)
        await move(players, referee, 4)
        await spectator.expect(is_diff(referee.seq))
        one_history(spectator, players["p2"], back)
        replay = await TimedClient.connect(c.ws(), "replay@c")
        replayed = await replay.request({"type": "watch", "game": game, "replay": True})
        seqs = [d["seq"] for d in replayed.of("diff")]
        assert seqs == list(range(1, referee.seq + 1)), seqs
        assert [d["cause"]["type"] for d in replayed.of("diff")].count("resume") == 1, replayed.of("diff")
        await in_step(c.ws(), game, back, players["p2"], spectator, replay)
        await close_all(back, players["p2"], spectator, replay)

    try:
        run(scenario(), timeout=90)
    except BaseException:
        for process in (a, b, c):
            print(process.args[-5], "".join(process.stderr_lines)[-3000:])
        raise


# -- section 18: bots in four in a row ------------------------------------------------------------

def test_a_level_1_bot_starts_at_once_answers_within_2_seconds_and_plays_to_the_end(server):
    async def scenario():
        rng = random.Random(SEED)
        # Shorthand: `create four bot=1`.
        human = await TimedClient.connect(server.ws(), "human")
        mark = human.mark()
        sent = time.time()
        await human.send_raw(f"create four bot=1 clock={BOT_CLOCK['initial']}")
        joined = await human.expect_type("joined", mark)
        snapshot = await human.expect_type("snapshot", mark)
        check_now(joined, sent, time.time())
        assert joined.get("bots") == {"p2": 1} and joined["you"] == "p1", joined
        assert joined.get("clock") == BOT_CLOCK, joined
        game = (await human.expect_type("created", mark))["game"]
        referee = Referee("p1", clock=BOT_CLOCK, bots={"p2": 1})
        referee.begin(snapshot["seq"], snapshot["state"], "human")
        await human.until_state(lambda s: s["status"] == "playing")
        if snapshot["state"]["status"] == "waiting":
            await human.expect(is_event("start"))
        referee.follow(human)
        assert http_json(server, f"/api/games/{game}").get("bots") == {"p2": 1}
        spectator = await TimedClient.connect(server.ws(), "spectator")
        watched = await spectator.watch(game)
        assert watched.one("joined").get("bots") == {"p2": 1}, watched.one("joined")
        await play_against_bot(human, referee, rng)
        state = referee.model.state
        assert state["status"] in ("won", "drawn"), state
        ended = await human.expect(is_event(state["status"]))
        if state["status"] == "won":
            assert ended["by"] == state["winner"] and ended["reason"] == "four", ended
        await spectator.expect(is_event(state["status"]))
        bot_moves = [c for c in referee.causes if c.get("by") == "p2"]
        assert bot_moves and all(c.get("bot") is True for c in bot_moves)
        await in_step(server.ws(), game, human, spectator)
        await close_all(human, spectator)

    run(scenario(), timeout=120)


def test_a_json_created_bot_game_starts_at_once_and_is_in_the_lobby(server):
    async def scenario():
        human, referee, game, _ = await create_bot_game(server.ws(), {"bots": {"p2": 2}, "clock": BOT_CLOCK})
        assert referee.model.state["status"] == "playing" and referee.model.state["turn"] == "p1"
        lobby = await human.request({"type": "list"})
        entry = next(g for g in lobby.one("lobby")["games"] if g["game"] == game)
        assert entry.get("bots") == {"p2": 2} and entry["status"] == "playing", entry
        await play_against_bot(human, referee, random.Random(SEED + 1), exchanges=3)
        await in_step(server.ws(), game, human)
        await human.close()

    run(scenario(), timeout=60)


def test_a_player_may_ask_for_a_hint_against_a_bot(server):
    """Section 16: a player's `hint` while the game is played is `forbidden`, except against a bot."""
    async def scenario():
        human, referee, game, _ = await create_bot_game(server.ws(), {"bots": {"p2": 1}})
        hint = await human.request({"type": "hint"}, timeout=60)  # a search off the service thread
        assert hint.ok, hint
        assert hint.one("hint")["from"] is None and hint.one("hint")["to"] in [f"/columns/{c}" for c in range(7)], hint
        await human.close()

    run(scenario())


def test_a_level_3_bot_moving_first_beats_a_random_player(server):
    async def scenario():
        human, referee, game, _ = await create_bot_game(server.ws(), {"first": "p2", "bots": {"p2": 3}, "clock": BOT_CLOCK})
        if referee.model.state["turn"] == "p2":
            await bot_turn(human, referee)
        await play_against_bot(human, referee, random.Random(SEED + 2))
        state = referee.model.state
        assert state["status"] == "won" and state["winner"] == "p2", \
            f"level 3 moving first wins every game against a random player: {state}"
        won = await human.expect(is_event("won"))
        assert won["by"] == "p2" and won["reason"] == "four", won
        await in_step(server.ws(), game, human)
        await human.close()

    run(scenario(), timeout=120)


def test_the_bot_moves_after_a_kill_9(start_server, tmp_path):
    """Killed right after the person's move, while it is the bot's turn: the bot's move comes
    after the restart (its clock's `since`, the move's instant, says when it was made)."""
    data = tmp_path / "data"
    data.mkdir()
    clock = {"initial": 60, "increment": 0}
    options = {"bots": {"p2": 2}, "clock": clock}

    async def scenario():
        rng = random.Random(SEED + 3)
        process = start_server(data=data)
        human, referee, game, token = await create_bot_game(process.ws(), options)
        tried = []
        for attempt in range(6):
            await human.until_state(lambda s: s["turn"] == "p1")
            referee.follow(human)
            state = referee.model.state
            assert state["status"] == "playing" and state["turn"] == "p1", state
            column = sensible_column(state["columns"], rng)
            await human.send({"type": "tap", "target": f"/columns/{column}", "id": new_id()})
            mine = await human.expect(diff_by("p1", False, referee.seq))
            process.kill()
            await human.wait_closed()
            referee.follow(human)
            seen_seq, seen_state = human.seq, copy.deepcopy(human.state)
            restarted = time.time()
            process = start_server(data=data)
            human = await TimedClient.connect(process.ws(), f"human-{attempt}")
            human.prime(game, seen_state)
            reply = await human.request({"type": "join", "game": game, "token": token, "seat": "p1",
                                         "since": seen_seq})
            assert reply.ok and reply.one("joined")["you"] == "p1", reply
            assert reply.one("joined").get("bots") == {"p2": 2}, reply.one("joined")
            if referee.model.state["turn"] == "p1":
                tried.append("the bot's move reached us before the kill")
                await human.expect(cause_is("resume", seen_seq))
                continue
            bot, _, _ = await human.expect_stamped(diff_by("p2", True, mine["seq"]))
            referee.follow(human)
            made = parse_time(human.at_seq[bot["seq"]]["clocks"]["since"])
            if made < restarted:
                tried.append(f"the bot moved {restarted - made:.3f}s before the restart (stored, not sent)")
                continue
            resumes = [d for d in referee.resumes if seen_seq < d["seq"] < bot["seq"]]
            assert len(resumes) == 1, f"the bot's running clock is resumed first: {referee.causes[-3:]}"
            resumed = parse_time(human.at_seq[resumes[0]["seq"]]["clocks"]["since"])
            assert resumed >= restarted - 0.05 and made - resumed <= BOT_TURN + 0.05, (restarted, resumed, made)
            print(f"killed while it was the bot's turn at attempt {attempt + 1}; before that: {tried}")
            break
        else:
            raise AssertionError(f"never killed the server while it was the bot's turn: {tried}")
        await play_against_bot(human, referee, rng, chooser=sensible_column, exchanges=2)
        await in_step(process.ws(), game, human)
        await human.close()

    run(scenario(), timeout=120)


# -- section 18: bots in races --------------------------------------------------------------------

def race_bot_moves(client: TimedClient, seat: str) -> list[tuple[dict, float]]:
    found = []
    for index, m in enumerate(client.messages):
        if isinstance(m, dict) and m.get("type") == "diff" and (m.get("cause") or {}).get("by") == seat:
            found.append((m, client.mono[index]))
    return found


def assert_pace(moves: list[tuple[dict, float]], pace: float, low: float, high: float, who: str) -> None:
    """Section 18: a race bot moves once every `pace` seconds. Races carry no server time, so this is
    read off arrivals, but over the whole run of moves (first to last), never gap by gap: a frame
    held up shortens one gap and lengthens the next, and a busy test process that stamps two
    frames at once changes nothing but the ends. The server's gaps are each at least the pace (the
    next move is scheduled a pace after the last), plus the bot's thinking: `low` leaves room for a
    first frame held up by about a second; `high` stays under the next slower level's pace."""
    gaps = [b - a for (_, a), (_, b) in zip(moves, moves[1:])]
    mean = (moves[-1][1] - moves[0][1]) / len(gaps)
    assert low <= mean <= high, \
        f"{who}: one move every {pace} s; {mean:.2f} s on average, gaps {[round(g, 2) for g in gaps]}"


def test_a_level_3_race_bot_moves_about_every_0_6_s(server):
    async def scenario():
        p1 = await TimedClient.connect(server.ws(), "p1")
        sent = time.time()
        reply = await p1.request({"type": "create", "kind": "race",
                                  "options": {"seats": 2, "winnable": True, "bots": {"p2": 3}}}, timeout=30)
        assert reply.ok, reply
        joined = reply.one("joined")
        check_now(joined, sent, time.time())
        assert joined.get("bots") == {"p2": 3}, joined
        assert reply.ack["seq"] >= 1, f"every other seat is a bot: the race starts as it is created: {reply}"
        game = reply.one("created")["game"]
        await p1.until_state(lambda s: s["status"] == "playing")
        spectator = await TimedClient.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).one("joined").get("bots") == {"p2": 3}
        assert http_json(server, f"/api/games/{game}").get("bots") == {"p2": 3}

        await p1.expect(lambda m: len(race_bot_moves(p1, "p2")) >= 8, timeout=30)
        moves = race_bot_moves(p1, "p2")[:8]
        for diff, _ in moves:
            assert diff["cause"].get("bot") is True and diff["cause"]["by"] == "p2", diff["cause"]
            assert all(op["path"].startswith("/tables/p2") for op in diff["ops"]), diff["ops"]
        assert_pace(moves, 0.6, 0.45, 1.2, "level 3")  # level 2 moves every 1.5 s

        # The person plays on their own table meanwhile; every view stays consistent.
        mine = await p1.move({"type": "tap", "target": "/stock"})
        assert [d["cause"] for d in mine.of("diff") if d["cause"].get("by") == "p1"] == \
            [{"type": "tap", "target": "/stock", "by": "p1"}]
        snapshot = await in_step(server.ws(), game, spectator)
        await p1.expect(is_diff(snapshot["seq"]))
        seen = p1.at_seq[snapshot["seq"]]
        assert p1.problems == [] and seen["tables"]["p1"] == snapshot["state"]["tables"]["p1"]
        theirs, truth = seen["tables"]["p2"], snapshot["state"]["tables"]["p2"]
        assert theirs["foundations"] == truth["foundations"] and len(theirs["waste"]) == len(truth["waste"])
        assert set(theirs["waste"] + theirs["stock"] + [c for pile in theirs["tableau"] for c in pile]) <= {"??"}
        await close_all(p1, spectator)

    run(scenario(), timeout=60)


def test_race_shorthand_two_level_2_bots(server):
    async def scenario():
        p1 = await TimedClient.connect(server.ws(), "p1")
        mark = p1.mark()
        await p1.send_raw("create race seats=3 winnable=true bots=2,2")
        joined = await p1.expect_type("joined", mark)
        assert joined.get("bots") == {"p2": 2, "p3": 2}, joined
        await p1.until_state(lambda s: s["status"] == "playing")
        await p1.expect(lambda m: len(race_bot_moves(p1, "p2")) >= 4 and len(race_bot_moves(p1, "p3")) >= 4,
                        timeout=30)
        for seat in ("p2", "p3"):
            moves = race_bot_moves(p1, seat)[:4]
            assert all(d["cause"].get("bot") is True for d, _ in moves), moves
            assert_pace(moves, 1.5, 1.2, 2.4, f"level 2 ({seat})")  # level 1: every 3 s
        assert p1.problems == []
        await p1.close()

    run(scenario(), timeout=60)
