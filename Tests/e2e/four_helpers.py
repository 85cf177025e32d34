"""Four in a row (PROTOCOL section 16) worked out in Python, independently of the server: the
expected state after each move, lines, immediate wins, the `show` drawing, a drawn game."""
from __future__ import annotations

import copy
import re

COLUMNS, ROWS = 7, 6
STATE_KEYS = {"columns", "rows", "turn", "first", "status", "winner", "line", "moves"}
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
SYMBOL = {"p1": "X", "p2": "O"}

# 42 drops, the first by the seat that moves first, after which nobody has four: worked out
# by a search, and checked again by `assert_draw_sequence` in the test that plays it.
DRAW_SEQUENCE = [4, 1, 6, 2, 1, 0, 1, 4, 4, 2, 4, 1, 3, 6, 3, 3, 1, 0, 4, 6, 6,
                 1, 2, 3, 6, 0, 6, 4, 2, 5, 5, 3, 3, 2, 5, 5, 0, 2, 0, 5, 5, 0]

# Sequences in which the seat that moves first makes four with its last drop, one per direction,
# with the line that drop makes (as [column, row] cells in one order along it).
WINS = {
    "horizontal": ([0, 0, 1, 1, 2, 2, 3], [[0, 0], [1, 0], [2, 0], [3, 0]]),
    "vertical": ([0, 1, 0, 1, 0, 1, 0], [[0, 0], [0, 1], [0, 2], [0, 3]]),
    "diagonal-up": ([0, 1, 1, 2, 3, 2, 2, 3, 4, 3, 3], [[0, 0], [1, 1], [2, 2], [3, 3]]),
    "diagonal-down": ([6, 5, 5, 4, 3, 4, 4, 3, 2, 3, 3], [[3, 3], [4, 2], [5, 1], [6, 0]]),
}


def other(seat: str) -> str:
    return "p2" if seat == "p1" else "p1"


def waiting_state(first: str = "p1") -> dict:
    """A new game before its second seat is taken."""
    return {"columns": [[] for _ in range(COLUMNS)], "rows": ROWS, "turn": None, "first": first,
            "status": "waiting", "winner": None, "line": None, "moves": 0}


def lines_through(columns: list[list[str]], column: int, row: int, seat: str) -> list[list[list[int]]]:
    """Every four cells in a line that hold `seat`'s discs and include (column, row)."""
    found = []
    for dc, dr in DIRECTIONS:
        for start in range(-3, 1):
            cells = [[column + (start + k) * dc, row + (start + k) * dr] for k in range(4)]
            if all(0 <= c < COLUMNS and 0 <= r < len(columns[c]) and columns[c][r] == seat for c, r in cells):
                found.append(cells)
    return found


def any_four(columns: list[list[str]]) -> bool:
    return any(lines_through(columns, c, r, columns[c][r]) for c in range(COLUMNS) for r in range(len(columns[c])))


def immediate_wins(columns: list[list[str]], seat: str) -> list[int]:
    """The columns where a drop by `seat` now makes four."""
    wins = []
    for c in range(COLUMNS):
        if len(columns[c]) < ROWS:
            trial = copy.deepcopy(columns)
            trial[c].append(seat)
            if lines_through(trial, c, len(trial[c]) - 1, seat):
                wins.append(c)
    return wins


def board_rows(columns: list[list[str]]) -> list[str]:
    """What `show`'s first six lines must be: the rows, top first, X for p1, O for p2."""
    return [" ".join(SYMBOL[col[r]] if r < len(col) else "." for col in columns) for r in range(ROWS - 1, -1, -1)]


def assert_draw_sequence(sequence: list[int]) -> None:
    """42 legal drops, nobody makes four on the way, the board ends full."""
    columns: list[list[str]] = [[] for _ in range(COLUMNS)]
    seat = "p1"
    assert len(sequence) == COLUMNS * ROWS
    for index, c in enumerate(sequence):
        assert len(columns[c]) < ROWS, f"drop {index} into full column {c}"
        columns[c].append(seat)
        assert not lines_through(columns, c, len(columns[c]) - 1, seat), f"drop {index} makes four"
        seat = other(seat)
    assert all(len(col) == ROWS for col in columns) and not any_four(columns)


class Model:
    """The state section 16 says the game must have, move by move."""

    def __init__(self, first: str = "p1"):
        self.state = waiting_state(first)
        self.lines: list[list[list[int]]] = []  # the acceptable values of `line` once won

    def start(self) -> None:
        assert self.state["status"] == "waiting"
        self.state["status"] = "playing"
        self.state["turn"] = self.state["first"]

    def drop(self, column: int) -> str:
        """The seat to move drops into `column`; returns that seat."""
        state = self.state
        assert state["status"] == "playing", "the model's game is not being played"
        seat = state["turn"]
        assert len(state["columns"][column]) < ROWS, f"the model's column {column} is full"
        state["columns"][column].append(seat)
        state["moves"] += 1
        lines = lines_through(state["columns"], column, len(state["columns"][column]) - 1, seat)
        if lines:
            state.update(status="won", winner=seat, turn=None)
            self.lines = [cells for line in lines for cells in (line, line[::-1])]
            state["line"] = self.lines[0]
        elif state["moves"] == COLUMNS * ROWS:
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
        self.state.update(status="playing", turn=first)
        self.lines = []

    def check(self, actual: dict, who: str = "") -> None:
        """`actual` is the model's state: exactly its keys and values, `line` in either order along it."""
        assert isinstance(actual, dict) and set(actual) == STATE_KEYS, f"{who}: keys {sorted(actual)}"
        expected = self.state
        for key in STATE_KEYS - {"line"}:
            assert actual[key] == expected[key], f"{who}: {key} is {actual[key]!r}, expected {expected[key]!r}"
        if self.lines:
            assert actual["line"] in self.lines, f"{who}: line {actual['line']!r}, expected one of {self.lines[:2]!r}"
        else:
            assert actual["line"] is None, f"{who}: line {actual['line']!r}, expected null"


def hint_column(hint: dict) -> int:
    assert hint.get("type") == "hint" and hint.get("from", "absent") is None, hint
    match = re.fullmatch(r"/columns/([0-6])", str(hint.get("to")))
    assert match, f"a hint's `to` is /columns/C: {hint}"
    return int(match.group(1))


def assert_good_hint(state: dict, column: int) -> None:
    """A legal column; one that wins at once if the seat to move has one; else one that blocks the
    opponent's only immediate four (when blocking it does not lose at once anyway)."""
    columns, seat = state["columns"], state["turn"]
    assert seat in ("p1", "p2"), state
    assert len(columns[column]) < ROWS, f"hint /columns/{column} is full: {columns}"
    wins = immediate_wins(columns, seat)
    if wins:
        assert column in wins, f"{seat} wins at once in {wins}, hint says {column}: {columns}"
        return
    threats = immediate_wins(columns, other(seat))
    if len(threats) == 1:
        after = copy.deepcopy(columns)
        after[threats[0]].append(seat)
        if not immediate_wins(after, other(seat)):
            assert column == threats[0], f"{other(seat)} makes four next in {threats}, hint says {column}: {columns}"
