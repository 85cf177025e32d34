"""Tic-tac-toe (PROTOCOL section 20) worked out in Python, independently of the server: the state
after each move, the lines, a drawn game, the `show` drawing; and the few protocol steps the tests
repeat (create and join, a move with its diff, event and ack, section 4's invariant)."""
from __future__ import annotations

import time

from e2e_client import DEFAULT_TIMEOUT, Client, fresh_snapshot

STATE_KEYS = {"cells", "turn", "first", "status", "winner", "line", "moves"}
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
SYMBOL = {"p1": "X", "p2": "O", None: "."}

# Cells in the order they are marked, the first by the seat that moves first, whose last mark makes
# three, with the line it makes.
WINS = {
    "row": ([0, 3, 1, 4, 2], [0, 1, 2]),
    "column": ([1, 0, 4, 2, 7], [1, 4, 7]),
    "diagonal": ([0, 1, 4, 2, 8], [0, 4, 8]),
    "anti-diagonal": ([2, 0, 4, 1, 6], [2, 4, 6]),
}
# Nine marks after which nobody has three: X O X / X O O / O X X.
DRAW = [0, 1, 2, 4, 3, 5, 7, 6, 8]


def other(seat: str) -> str:
    return "p2" if seat == "p1" else "p1"


def waiting_state(first: str = "p1") -> dict:
    return {"cells": [None] * 9, "turn": None, "first": first, "status": "waiting", "winner": None,
            "line": None, "moves": 0}


def lines_through(cells: list, n: int, seat: str) -> list[list[int]]:
    return [list(line) for line in LINES if n in line and all(cells[c] == seat for c in line)]


def rows(cells: list) -> list[str]:
    """What `show`'s first three lines must be."""
    return [" ".join(SYMBOL[cells[3 * r + c]] for c in range(3)) for r in range(3)]


def assert_draw(sequence: list[int]) -> None:
    cells: list = [None] * 9
    seat = "p1"
    assert sorted(sequence) == list(range(9))
    for index, n in enumerate(sequence):
        cells[n] = seat
        assert not lines_through(cells, n, seat), f"mark {index} makes three"
        seat = other(seat)


class Model:
    """The state section 20 says the game must have, move by move."""

    def __init__(self, first: str = "p1"):
        self.state = waiting_state(first)
        self.lines: list[list[int]] = []  # the acceptable values of `line` once won

    def start(self) -> None:
        assert self.state["status"] == "waiting"
        self.state.update(status="playing", turn=self.state["first"])

    def mark(self, n: int) -> str:
        state = self.state
        assert state["status"] == "playing" and state["cells"][n] is None, (state, n)
        seat = state["turn"]
        state["cells"][n] = seat
        state["moves"] += 1
        self.lines = lines_through(state["cells"], n, seat)
        if self.lines:
            state.update(status="won", winner=seat, turn=None, line=self.lines[0])
        elif state["moves"] == 9:
            state.update(status="drawn", turn=None)
        else:
            state["turn"] = other(seat)
        return seat

    def resign(self, seat: str) -> None:
        assert self.state["status"] == "playing"
        self.state.update(status="won", winner=other(seat), turn=None, line=None)
        self.lines = []

    def reset(self) -> None:
        assert self.state["status"] in ("won", "drawn")
        first = other(self.state["first"])
        self.state = waiting_state(first)
        self.start()
        self.lines = []

    def check(self, actual: dict, who: str = "", clocks: bool = False) -> None:
        """`actual` is the model's state: exactly its keys (plus `clocks` with a clock) and values."""
        keys = STATE_KEYS | ({"clocks"} if clocks else set())
        assert isinstance(actual, dict) and set(actual) == keys, f"{who}: keys {sorted(actual)}, expected {sorted(keys)}"
        for key in STATE_KEYS - {"line"}:
            assert actual[key] == self.state[key], f"{who}: {key} is {actual[key]!r}, expected {self.state[key]!r}"
        if self.lines:
            assert actual["line"] in self.lines, f"{who}: line {actual['line']!r}, expected one of {self.lines!r}"
        else:
            assert actual["line"] is None, f"{who}: line {actual['line']!r}, expected null"


# -- protocol steps ---------------------------------------------------------------------------------

def is_event_at(m, seq: int) -> bool:
    return isinstance(m, dict) and m.get("type") == "event" and m.get("seq") == seq


def is_diff(seq: int):
    return lambda m: isinstance(m, dict) and m.get("type") == "diff" and m.get("seq") == seq


def is_event(name: str):
    return lambda m: isinstance(m, dict) and m.get("type") == "event" and m.get("event") == name


async def reach(client: Client, seq: int, timeout: float = DEFAULT_TIMEOUT) -> None:
    if client.seq is None or client.seq < seq:
        await client.expect(is_diff(seq), timeout=timeout)


async def start_game(url: str, names=("p1", "p2"), client_class=Client, **options):
    """p1 creates, p2 joins with the token (which starts the game): players by seat, model, game, token."""
    p1 = await client_class.connect(url, names[0])
    created = (await p1.create("tictactoe", **options)).one("created")
    game, token = created["game"], created["token"]
    model = Model()
    model.check(p1.state, "creator", clocks="clock" in options)
    p2 = await client_class.connect(url, names[1])
    reply = await p2.request({"type": "join", "game": game, "token": token})
    assert reply.ok and reply.one("joined")["you"] == "p2", reply
    model.start()
    model.check(p2.state, "joiner", clocks="clock" in options)
    await p1.expect(is_event("start"))
    return {"p1": p1, "p2": p2}, model, game, token


async def mark(players: dict, model: Model, n: int, target: str | None = None, kind: str = "tap",
               request_id=None, clocks: bool = False):
    """The seat to move marks cell n: exactly one diff of its own (cause: the tap with the cell as
    /cells/N, plus `by`), any event after that diff, the ack last; the state is then the model's."""
    seat = model.state["turn"]
    client = players[seat]
    command = {"type": kind, "target": target if target is not None else f"/cells/{n}"}
    if request_id is not None:
        command["id"] = request_id
    reply = await client.request(command)
    assert reply.ok, f"{seat} {command} -> {reply.ack}"
    ours = [d for d in reply.of("diff") if d["seq"] == reply.ack["seq"]]
    assert len(ours) == 1 and reply.types()[-1] == "ack", reply
    kinds = (kind, "tap")  # a double-tap is a tap: its cause may say either
    assert ours[0]["cause"] in [{"type": k, "target": f"/cells/{n}", "by": seat} for k in kinds], ours[0]["cause"]
    at = next(i for i, m in enumerate(reply) if m is ours[0])
    assert all(i > at for i, m in enumerate(reply) if is_event_at(m, ours[0]["seq"])), f"an event before its diff: {reply}"
    model.mark(n)
    model.check(client.state, f"{seat} after marking {n}", clocks=clocks)
    return reply


async def play(players: dict, model: Model, cells: list[int], **kwargs) -> list:
    return [await mark(players, model, n, **kwargs) for n in cells]


async def in_step(url: str, game: str, *clients: Client, timeout: float = DEFAULT_TIMEOUT) -> dict:
    """Section 4: every client applied every diff with no gap, and holds the state a fresh snapshot shows."""
    snapshot = await fresh_snapshot(url, game)
    for client in clients:
        await reach(client, snapshot["seq"], timeout)
        assert client.problems == [], client.problems
        assert (client.seq, client.state) == (snapshot["seq"], snapshot["state"]), client.name
    return snapshot


def own_events(reply) -> list[dict]:
    """The events a request's diff caused (those at its ack's seq)."""
    return [m for m in reply if is_event_at(m, reply.ack.get("seq"))]


def won_event(reply, by: str, reason: str, moves: int, started: float) -> dict:
    events = own_events(reply)
    assert len(events) == 1, reply
    event = events[0]
    assert (event["event"], event["by"], event["reason"], event["moves"]) == ("won", by, reason, moves), event
    assert event["seq"] == reply.ack["seq"], event
    assert isinstance(event["seconds"], (int, float)) and 0 <= event["seconds"] <= time.monotonic() - started + 1, event
    return event


async def close_all(*clients: Client) -> None:
    for client in clients:
        await client.close()
