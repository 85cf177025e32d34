"""Turn clocks (PROTOCOL section 17) and bots (section 18) worked out from outside: server times,
a client that stamps when each message arrived and keeps the state at every seq, and a referee
that follows a four-in-a-row game diff by diff (moves, the start, timeouts, resumes, bots) and
holds every state to four_helpers' model and every clock to section 17's arithmetic."""
from __future__ import annotations

import copy
import datetime
import re
import time
from typing import Any, Callable

import requests

from e2e_client import DEFAULT_TIMEOUT, Client, fresh_snapshot
from four_helpers import COLUMNS, ROWS, STATE_KEYS, Model, immediate_wins, other

TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")
CLOCK_KEYS = {"p1", "p2", "running", "since"}
TOLERANCE_MS = 25  # a clock against its own `since` arithmetic: both are the server's instants, in ms
BOT_TURN = 2.0  # section 18: a bot moves within 2 s of its turn (judged by the server's own clock times)


def parse_time(text: Any) -> float:
    """An RFC 3339 UTC time with milliseconds (`2026-11-25T21:40:07.250Z`), as Unix seconds."""
    assert isinstance(text, str) and TIME.fullmatch(text), f"not an RFC 3339 UTC time with milliseconds: {text!r}"
    moment = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")
    return moment.replace(tzinfo=datetime.timezone.utc).timestamp()


def check_now(joined: dict, before: float, after: float, slack: float = 0.1) -> float:
    """`joined` carries `now`, the server's time, between when the request left and the answer came."""
    assert "now" in joined, f"`joined` carries `now` (section 17): {joined}"
    now = parse_time(joined["now"])
    assert before - slack <= now <= after + slack, (joined["now"], before, after)
    return now


def http_get(process, path: str) -> requests.Response:
    session = requests.Session()
    session.trust_env = False
    return session.get(process.http + path, timeout=15)


def http_json(process, path: str):
    response = http_get(process, path)
    assert response.status_code == 200, (path, response.status_code, response.text)
    return response.json()


def diff_by(seat: str | None = None, bot: bool | None = None, after_seq: int = -1):
    """A predicate: a diff made by `seat` (a bot's when `bot` is True, a person's when False)."""
    def matches(m) -> bool:
        if not (isinstance(m, dict) and m.get("type") == "diff" and m.get("seq", -1) > after_seq):
            return False
        cause = m.get("cause") or {}
        if seat is not None and cause.get("by") != seat:
            return False
        if bot is not None and bool(cause.get("bot")) != bot:
            return False
        return True
    return matches


def cause_is(kind: str, after_seq: int = -1):
    return lambda m: (isinstance(m, dict) and m.get("type") == "diff" and m.get("seq", -1) > after_seq
                      and (m.get("cause") or {}).get("type") == kind)


def is_diff(seq: int):
    return lambda m: isinstance(m, dict) and m.get("type") == "diff" and m.get("seq") == seq


def is_event(name: str):
    return lambda m: isinstance(m, dict) and m.get("type") == "event" and m.get("event") == name


class TimedClient(Client):
    """A client that stamps every message's arrival (monotonic and wall clock) and keeps a copy of
    its state at every seq it reached (from a snapshot or a diff)."""

    def __init__(self, ws, name: str = ""):
        self.mono: list[float] = []
        self.wall: list[float] = []
        self.at_seq: dict[int, Any] = {}
        super().__init__(ws, name)

    def _track(self, m) -> None:
        self.mono.append(time.monotonic())
        self.wall.append(time.time())
        super()._track(m)
        if (isinstance(m, dict) and m.get("type") in ("snapshot", "diff") and m.get("game") == self.game
                and self.state is not None):
            self.at_seq[m["seq"]] = copy.deepcopy(self.state)

    def index_of(self, message) -> int:
        return next(i for i, m in enumerate(self.messages) if m is message)

    def arrived(self, message) -> tuple[float, float]:
        """(monotonic, wall) arrival of a message this client received."""
        index = self.index_of(message)
        return self.mono[index], self.wall[index]

    async def expect_stamped(self, predicate, after: int = 0, timeout: float = DEFAULT_TIMEOUT):
        """The first matching message at or after `after`, with its monotonic and wall arrival."""
        index = await self.expect_index(predicate, after, timeout)
        return self.messages[index], self.mono[index], self.wall[index]

    async def until_state(self, predicate: Callable[[Any], bool], timeout: float = DEFAULT_TIMEOUT) -> Any:
        """Awaits a state (the current one, or one a later message brings) that satisfies `predicate`."""
        def holds(_m) -> bool:
            return self.state is not None and predicate(self.state)
        if self.state is not None and predicate(self.state):
            return self.state
        await self.expect_index(holds, max(0, len(self.messages) - 1), timeout)
        return self.state


def column_of(target: str) -> int:
    match = re.fullmatch(r"/columns/([0-6])(/[0-5])?", str(target))
    assert match, f"a four-in-a-row target: {target!r}"
    return int(match.group(1))


def legal_columns(columns: list[list[str]]) -> list[int]:
    return [c for c in range(COLUMNS) if len(columns[c]) < ROWS]


def board(state: dict) -> dict:
    """The four-in-a-row state without `clocks`; checks `clocks` is there exactly when expected."""
    return {k: v for k, v in state.items() if k != "clocks"}


def check_clock_shape(clocks: Any, who: str = "") -> dict:
    assert isinstance(clocks, dict) and set(clocks) == CLOCK_KEYS, f"{who}: clocks keys {clocks!r}"
    for seat in ("p1", "p2"):
        value = clocks[seat]
        assert isinstance(value, int) and not isinstance(value, bool) and value >= 0, \
            f"{who}: clocks.{seat} is milliseconds (an integer >= 0): {value!r}"
    assert clocks["running"] in (None, "p1", "p2"), f"{who}: running {clocks['running']!r}"
    if clocks["running"] is not None:
        parse_time(clocks["since"])
    elif clocks["since"] is not None:
        parse_time(clocks["since"])
    return clocks


def check_four(model: Model, state: dict, clocked: bool, who: str = "") -> dict | None:
    """`state` is the model's, with `clocks` (well formed, running the seat to move) iff `clocked`."""
    assert isinstance(state, dict), f"{who}: {state!r}"
    if not clocked:
        assert "clocks" not in state, f"{who}: a game without `clock` has no `clocks`: {state}"
        model.check(state, who)
        return None
    assert set(state) == STATE_KEYS | {"clocks"}, f"{who}: keys {sorted(state)}"
    model.check(board(state), who)
    clocks = check_clock_shape(state["clocks"], who)
    expected_running = model.state["turn"] if model.state["status"] == "playing" else None
    assert clocks["running"] == expected_running, f"{who}: running {clocks['running']!r}, expected {expected_running!r}"
    return clocks


def ms_between(later: str, earlier: str) -> float:
    return (parse_time(later) - parse_time(earlier)) * 1000.0


class Referee:
    """Follows one four-in-a-row game diff by diff, whichever connection (or server process) the
    diffs came through, and checks each against the model and, with a clock, section 17:

    - the start: both clocks at `initial`, `running` the first seat, `since` the start;
    - a move: the mover's clock is what it had minus the time since `since`, plus the increment;
      the other clock unchanged; `running` the next seat; `since` the move's instant;
    - a timeout: that seat's clock 0, nothing running, the other seat the winner;
    - a resume: the running clock is what it had at the last stored move, `since` not earlier;
    - a bot's move: `by` the bot's seat plus `"bot":true`, and `level` 1 takes any four it can make.
    """

    def __init__(self, first: str = "p1", clock: dict | None = None, bots: dict | None = None):
        self.model = Model(first)
        self.clock = clock
        self.bots = bots or {}
        self.seq = 0
        self.state: dict | None = None
        self.causes: list[dict] = []
        self.resumes: list[dict] = []
        self.timeouts: list[dict] = []

    @property
    def clocked(self) -> bool:
        return self.clock is not None

    def begin(self, seq: int, state: dict, who: str = "") -> None:
        """The state a client first showed (a snapshot at `seq`): waiting, or already started."""
        assert state["moves"] == 0, "the referee follows games from their first move"
        if state["status"] == "playing" and self.model.state["status"] == "waiting":
            self.model.start()
        check_four(self.model, state, self.clocked, who)
        if self.clocked:
            initial = self.clock["initial"] * 1000
            assert (state["clocks"]["p1"], state["clocks"]["p2"]) == (initial, initial), state["clocks"]
        self.seq, self.state = seq, copy.deepcopy(state)

    def follow(self, client: TimedClient, upto: int | None = None) -> list[dict]:
        """Applies the client's diffs after the referee's seq (up to `upto`); returns them."""
        applied = []
        for diff in list(client.diffs):
            if diff["seq"] <= self.seq or (upto is not None and diff["seq"] > upto):
                continue
            assert diff["seq"] == self.seq + 1, f"{client.name}: diff {diff['seq']} after {self.seq}"
            self.apply(diff, client.at_seq[diff["seq"]], client.name)
            applied.append(diff)
        return applied

    def apply(self, diff: dict, state: dict, who: str = "") -> None:
        cause = diff["cause"]
        kind = cause.get("type")
        before = self.state
        model = self.model
        mover = None
        if kind == "start":
            assert model.state["status"] == "waiting", f"{who}: a start while {model.state['status']}"
            model.start()
        elif kind == "resume":
            assert cause == {"type": "resume"}, f"{who}: a resume's cause is {{\"type\":\"resume\"}}: {cause}"
            for op in diff["ops"]:
                assert op["path"].startswith("/clocks"), f"{who}: a resume touches the clocks only: {diff['ops']}"
            self.resumes.append(diff)
        elif kind == "timeout":
            assert cause == {"type": "timeout", "seat": model.state["turn"]}, \
                f"{who}: a timeout's cause is {{type: timeout, seat: the seat to move}} with no `by`: {cause}"
            model.resign(cause["seat"])
            self.timeouts.append(diff)
        elif kind in ("tap", "double-tap"):
            mover = model.state["turn"]
            assert cause.get("by") == mover, f"{who}: {cause} when it is {mover}'s turn"
            if mover in self.bots:
                assert cause == {"type": "tap", "target": cause["target"], "by": mover, "bot": True}, \
                    f"{who}: a bot's cause is the tap plus by and bot:true: {cause}"
                column = column_of(cause["target"])
                if self.bots[mover] == 1:
                    wins = immediate_wins(model.state["columns"], mover)
                    assert not wins or column in wins, f"{who}: the level 1 bot could make four in {wins}, dropped {column}"
            else:
                assert "bot" not in cause, f"{who}: a person's move is no bot's: {cause}"
                column = column_of(cause["target"])
            model.drop(column)
        elif kind == "resign":
            model.resign(cause["by"])
        else:
            raise AssertionError(f"{who}: a diff the referee does not know: {diff}")
        check_four(model, state, self.clocked, f"{who} at seq {diff['seq']} ({kind})")
        if self.clocked:
            self._check_clocks(kind, cause, mover, before["clocks"], state["clocks"], who, diff["seq"])
        self.causes.append(cause)
        self.seq, self.state = diff["seq"], copy.deepcopy(state)

    def _check_clocks(self, kind, cause, mover, old: dict, new: dict, who: str, seq: int) -> None:
        where = f"{who} at seq {seq} ({kind}): clocks {old} -> {new}"
        initial, increment = self.clock["initial"] * 1000, self.clock["increment"] * 1000
        if kind == "start":
            assert new["p1"] == new["p2"] == initial and new["running"] == self.model.state["first"], where
        elif kind == "resume":
            running = old["running"]
            assert running is not None and new["running"] == running, where
            assert new[running] == old[running], f"the running clock shows what it had at the last stored move: {where}"
            assert new[other(running)] == old[other(running)], where
            assert ms_between(new["since"], old["since"]) >= 0, where
        elif kind == "timeout":
            seat = cause["seat"]
            assert new[seat] == 0 and new["running"] is None, where
            assert new[other(seat)] == old[other(seat)], where
        elif mover is not None:
            elapsed = ms_between(new["since"], old["since"]) if new["running"] is not None else None
            assert new[other(mover)] == old[other(mover)], f"only the mover's clock changes: {where}"
            if elapsed is not None:
                assert elapsed >= -TOLERANCE_MS, where
                expected = old[mover] - elapsed + increment
                assert abs(new[mover] - expected) <= TOLERANCE_MS, \
                    f"the mover's clock is {old[mover]} - {elapsed:.0f} + {increment} = {expected:.0f}: {where}"
            else:  # the move ended the game: its clock stops, never above what it had plus the increment
                assert 0 <= new[mover] <= old[mover] + increment, where
        elif kind == "resign":
            assert new["running"] is None, where


def remaining_ms(clocks: dict, seat: str, at_wall: float) -> float:
    """What a client shows for `seat` at the (server) time `at_wall`."""
    if clocks["running"] == seat:
        return clocks[seat] - (at_wall - parse_time(clocks["since"])) * 1000.0
    return clocks[seat]


async def in_step(url: str, game: str, *clients: TimedClient, timeout: float = DEFAULT_TIMEOUT) -> dict:
    """Section 4's invariant: every client's diffs, applied with a generic RFC 6902 library to the
    state it had, give at the seq of a fresh snapshot exactly that snapshot's state."""
    snapshot = await fresh_snapshot(url, game)
    for client in clients:
        if snapshot["seq"] not in client.at_seq:
            await client.expect(is_diff(snapshot["seq"]), timeout=timeout)
        assert client.problems == [], client.problems
        assert client.at_seq[snapshot["seq"]] == snapshot["state"], \
            (client.name, snapshot["seq"], client.at_seq[snapshot["seq"]], snapshot["state"])
    return snapshot
