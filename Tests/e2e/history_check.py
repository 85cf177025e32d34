"""One history per game, checked against what every client was told (PROTOCOL 2, 3, 4, 11, 11.1).

A `Recorder` per client connection keeps what the client sent (command ids and messages) and
what it was told: acks with their seq, errors, `joined` with the player id, snapshots and diffs.
`check(histories, recorders)` compares them with each game's authoritative history (every diff
from seq 1, read after the run by a fresh connection to a healthy node: `read_history`) and
returns `Findings`:

- lost: an acked game command whose seq is not in the history, or whose diff there is not
  that command (its cause, minus `by`, is not the command minus id/token/seed/deck);
  also the same id acked with two different seqs, and a history that cannot be read.
- split: a seq of a game for which two different diffs were seen, by any client or the
  history (a diff a client received that differs from the history's at its seq, or a seq
  past the history's end).
  Also: a snapshot anyone got that is not the history's state at its seq (the history's
  diffs applied, with a generic RFC 6902 library, to the game's first snapshot at seq 0).
- gaps: a member stream (one connection's membership of one game) that skipped or repeated
  a seq; `joined` with `since` N means the diffs that follow start at N+1; a snapshot
  legitimately resets the stream to its seq.
- identity: the diff of an acked command does not carry `by` = the player id `joined` gave
  a connection that sent that id.
- phantoms: diffs caused by a game command that no ack claims and no command of unknown
  outcome (sent, never acked nor refused) of that player can explain: applied twice, or
  applied without being asked.

The cause of a diff carries no id (PROTOCOL 4), so a command is matched by the seq of its ack
and the cause's content. Used by Benchmarks/faults/run.py and the partition tests.
"""
from __future__ import annotations

import collections
import copy
import dataclasses
import json
import time
from typing import Any, Callable, Iterable

import jsonpatch

# Game commands: every one that is acked caused exactly one diff, at the ack's seq.
GAME_COMMANDS = {"tap", "double-tap", "drag", "add", "color", "alpha", "reset", "undo", "resign"}
# Answers that settle a command for good: it was not applied, and never will be.
DEFINITE_REFUSALS = {"bad-request", "unknown-type", "not-joined", "forbidden", "illegal-move", "limited"}


def expected_cause(command: dict) -> dict:
    """What a diff's `cause` shows for `command`, before `by` (PROTOCOL 4)."""
    cause = {k: v for k, v in command.items() if k not in ("id", "token", "seed", "deck")}
    if isinstance(cause.get("options"), dict):
        cause["options"] = {k: v for k, v in cause["options"].items() if k not in ("seed", "deck")}
        if not cause["options"]:
            del cause["options"]
    return cause


def _without_by(cause: Any) -> Any:
    if not isinstance(cause, dict):
        return cause
    cause = {k: v for k, v in cause.items() if k != "by"}
    if cause.get("options") == {}:
        del cause["options"]
    return cause


def _same_diff(a: dict, b: dict) -> bool:
    return a.get("ops") == b.get("ops") and a.get("cause") == b.get("cause")


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return text if len(text) <= limit else text[:limit] + "..."


def _brief(message: dict) -> dict:
    """A message without its bulk (states, ops), for a timeline."""
    return {k: (v if k not in ("state", "ops", "token") else "...") for k, v in message.items()}


@dataclasses.dataclass
class Stream:
    """One connection's membership of one game: the seqs it was given, in order."""
    game: str
    role: str | None
    you: str | None
    since: int | None
    seq: int | None = None  # the last seq the stream is at (None until a snapshot/since)
    problems: list[tuple[float, str]] = dataclasses.field(default_factory=list)  # (when, what)


class Recorder:
    """What one client connection sent and was told. Call `sent(message)` before each frame it
    sends and `received(message)` for each JSON message it gets (in order); `closed()` when the
    connection ends. `label` (e.g. "p1@n2 game g7") names it in findings; `clock` stamps events."""

    def __init__(self, label: str, node: str | None = None, clock=time.monotonic):
        self.label, self.node, self.clock = label, node, clock
        self.commands: dict[Any, dict] = {}  # id -> the message (first sent)
        self.sends: list[tuple[float, Any, str]] = []  # (time, id, type)
        self.acks: list[tuple[float, Any, int | None]] = []  # (time, id, seq)
        self.errors: list[tuple[float, Any, str]] = []  # (time, id or None, code)
        self.yous: dict[Any, str | None] = {}  # id -> the player id this connection had when sending it
        self.diffs: list[dict] = []  # every diff received (with "_t": when)
        self.snapshots: list[dict] = []
        self.streams: list[Stream] = []
        self.asked_since: int | None = None  # `since` of the last join/watch sent
        self.game: str | None = None
        self.you: str | None = None
        self.ended: float | None = None
        self.events: list[tuple[float, str, Any]] = []  # (when, ">" sent or "<" received, brief)

    # -- feeding ------------------------------------------------------------

    def sent(self, message: dict) -> None:
        mid = message.get("id")
        kind = message.get("type")
        now = self.clock()
        self.sends.append((now, mid, kind))
        self.events.append((now, ">", _brief(message)))
        if kind in ("join", "watch", "create"):
            since = message.get("since")
            self.asked_since = since if isinstance(since, int) and kind != "create" else None
        if mid is None:
            return
        self.commands.setdefault(mid, dict(message))
        if kind in GAME_COMMANDS:
            self.yous[mid] = self.you

    def received(self, message: Any) -> None:
        if not isinstance(message, dict):
            return
        kind = message.get("type")
        now = self.clock()
        self.events.append((now, "<", _brief(message)))
        if kind == "joined":
            self.game, self.you = message.get("game"), message.get("you")
            # A connection asks for one join/watch at a time: this answers the last one sent.
            since, self.asked_since = self.asked_since, None
            self.streams.append(Stream(self.game, message.get("role"), self.you, since,
                                       seq=since if since is not None else None))
        elif kind == "snapshot":
            self.snapshots.append(dict(message, _t=now))
            stream = self._stream(message.get("game"))
            if stream is not None:
                stream.seq = message.get("seq")
        elif kind == "diff":
            self.diffs.append(dict(message, _t=now, _rec=self.label))
            stream = self._stream(message.get("game"))
            if stream is not None:
                seq = message.get("seq")
                if stream.seq is None:
                    stream.problems.append((now, f"diff {seq} before any snapshot or since"))
                elif seq != stream.seq + 1:
                    what = "repeated" if seq <= stream.seq else "gap"
                    stream.problems.append((now, f"{what}: diff {seq} after {stream.seq}"))
                stream.seq = seq if stream.seq is None or seq > stream.seq else stream.seq
        elif kind == "ack":
            self.acks.append((now, message.get("id"), message.get("seq")))
        elif kind == "error":
            self.errors.append((now, message.get("id"), message.get("code")))
        elif kind == "left":
            self.game = self.you = None

    def closed(self) -> None:
        if self.ended is None:
            self.ended = self.clock()
            self.events.append((self.ended, "x", "closed"))

    def _stream(self, game: str | None) -> Stream | None:
        if self.streams and self.streams[-1].game == game:
            return self.streams[-1]
        return None

    # -- reading ------------------------------------------------------------

    def acked(self) -> dict[Any, int | None]:
        return {mid: seq for _, mid, seq in self.acks}


def attach(client, recorder: Recorder):
    """Makes an e2e_client.Client feed `recorder` (what it sends and everything it receives)."""
    original_send_raw, original_track = client.send_raw, client._track

    async def send_raw(frame, text=None):
        if isinstance(frame, str):
            try:
                message = json.loads(frame)
            except ValueError:
                message = None
            if isinstance(message, dict):
                recorder.sent(message)
        await original_send_raw(frame, text=text)

    def track(message):
        recorder.received(message)
        original_track(message)

    client.send_raw, client._track = send_raw, track
    client.recorder = recorder
    # The reader ends when the connection does (closed by either side, or reset).
    client._reader.add_done_callback(lambda _: recorder.closed())
    return client


async def read_history(client, game: str, timeout: float = 15.0) -> list[dict]:
    """Every diff of `game` from seq 1, in order, as a fresh e2e_client.Client connection is
    given it by `watch` with `since: 0` (PROTOCOL 9). Raises if the node answers anything but
    diffs 1..N (N: the ack's seq), e.g. a snapshot instead."""
    client.prime(game, None)
    reply = await client.request({"type": "watch", "game": game, "since": 0}, timeout=timeout)
    if not reply.ok:
        raise RuntimeError(f"watch {game} since 0: {reply.ack}")
    if reply.of("snapshot"):
        raise RuntimeError(f"watch {game} since 0 answered a snapshot, not the history")
    diffs = [m for m in reply.of("diff") if m.get("game") == game]
    seqs = [d["seq"] for d in diffs]
    if seqs != list(range(1, reply.ack.get("seq", 0) + 1)):
        raise RuntimeError(f"watch {game} since 0: seqs {seqs[:5]}...{seqs[-5:]} for ack seq {reply.ack.get('seq')}")
    return diffs


@dataclasses.dataclass
class Findings:
    lost: list[str] = dataclasses.field(default_factory=list)
    split: list[str] = dataclasses.field(default_factory=list)
    gaps: list[str] = dataclasses.field(default_factory=list)
    identity: list[str] = dataclasses.field(default_factory=list)
    phantoms: list[str] = dataclasses.field(default_factory=list)
    acked: int = 0  # acked game commands checked
    games: int = 0
    members: int = 0  # member streams checked
    split_seqs: set = dataclasses.field(default_factory=set)  # (game, seq)
    gap_members: int = 0

    @property
    def ok(self) -> bool:
        return not (self.lost or self.split or self.gaps or self.identity or self.phantoms)

    def counts(self) -> dict[str, int]:
        return {"games": self.games, "acked": self.acked, "lost": len(self.lost), "split": len(self.split_seqs),
                "gaps": self.gap_members, "identity": len(self.identity), "phantoms": len(self.phantoms)}

    def describe(self, limit: int = 50) -> str:
        lines = []
        for name in ("lost", "split", "gaps", "identity", "phantoms"):
            items = getattr(self, name)
            for item in items[:limit]:
                lines.append(f"{name}: {item}")
            if len(items) > limit:
                lines.append(f"{name}: ... and {len(items) - limit} more")
        return "\n".join(lines)


def check(histories: dict[str, list[dict]], recorders: Iterable[Recorder],
          unreadable: dict[str, str] | None = None, game_of: dict[Any, str] | None = None,
          all_recorded: bool = True, when: Callable[[float], str] | None = None) -> Findings:
    """`histories`: game -> its diffs from seq 1 (`read_history`). `unreadable`: game -> why its
    history could not be read (every acked command of it is then lost). `game_of`: command id ->
    game, for commands sent before a recorder knew its game (else the recorder's streams say).
    `all_recorded`: every client that played these games was recorded (else no phantom check):
    then a connection still open (never `closed()`) must also have been given the history's last
    seq ("behind" counts as a gap). `when(t)` describes a recorder's time stamp in findings."""
    def at(t):
        return f" [{when(t)}]" if when is not None and t is not None else ""

    recorders = list(recorders)
    unreadable = dict(unreadable or {})
    found = Findings(games=len(histories) + len(unreadable))
    by_seq: dict[str, dict[int, dict]] = {}
    for game, diffs in histories.items():
        table = by_seq[game] = {}
        for index, diff in enumerate(diffs, start=1):
            if diff.get("seq") != index:
                found.lost.append(f"game {game}: history has seq {diff.get('seq')} at position {index}")
            table[diff.get("seq")] = diff

    def split(game, seq, text):
        found.split_seqs.add((game, seq))
        found.split.append(text)

    # Every diff anyone received is the history's at its seq.
    for rec in recorders:
        for diff in rec.diffs:
            game, seq = diff.get("game"), diff.get("seq")
            if game in unreadable or game not in by_seq:
                continue
            truth = by_seq[game].get(seq)
            if truth is None:
                split(game, seq, f"game {game} seq {seq}: {rec.label} got a diff the history does not have "
                                 f"(history ends at {len(by_seq[game])}): cause {_short(diff.get('cause'))}"
                                 f"{at(diff.get('_t'))}")
            elif not _same_diff(diff, truth):
                split(game, seq, f"game {game} seq {seq}: {rec.label} got cause {_short(diff.get('cause'))} "
                                 f"ops {_short(diff.get('ops'))}; the history has cause {_short(truth.get('cause'))} "
                                 f"ops {_short(truth.get('ops'))}{at(diff.get('_t'))}")
    # Two clients that disagree with each other at a seq the history lacks count once per seq.

    # Every snapshot anyone got is the history's state at its seq.
    for game, table in by_seq.items():
        wanted: dict[int, list[tuple[Recorder, dict]]] = collections.defaultdict(list)
        for rec in recorders:
            for snap in rec.snapshots:
                if snap.get("game") == game and isinstance(snap.get("seq"), int):
                    wanted[snap["seq"]].append((rec, snap))
        if 0 not in wanted or len(wanted) < 2:
            continue
        state = copy.deepcopy(wanted[0][0][1]["state"])
        for seq in range(0, len(table) + 1):
            if seq > 0:
                try:
                    state = jsonpatch.apply_patch(state, table[seq]["ops"])
                except Exception as error:  # noqa: BLE001 - any failure is a finding
                    split(game, seq, f"game {game} seq {seq}: the history's diff does not apply to its state: {error!r}")
                    break
            for rec, snap in wanted.get(seq, ()):
                if snap["state"] != state:
                    split(game, seq, f"game {game} seq {seq}: {rec.label} got a snapshot that is not the history's "
                                     f"state at that seq: {_short(snap['state'])} vs {_short(state)}{at(snap.get('_t'))}")
        for seq in wanted:
            if seq > len(table):
                for rec, snap in wanted[seq]:
                    split(game, seq, f"game {game} seq {seq}: {rec.label} got a snapshot past the history's end "
                                     f"({len(table)}){at(snap.get('_t'))}")

    # Member streams: no gap, no repeat.
    for rec in recorders:
        for index, stream in enumerate(rec.streams):
            found.members += 1
            problems = list(stream.problems)
            last = index == len(rec.streams) - 1
            if (all_recorded and last and rec.ended is None and stream.game in by_seq and stream.seq is not None
                    and stream.seq < len(by_seq[stream.game])):
                problems.append((None, f"behind: still open at seq {stream.seq}, the history ends at "
                                       f"{len(by_seq[stream.game])}"))
            if problems:
                found.gap_members += 1
                for t, problem in problems:
                    found.gaps.append(f"game {stream.game}: {rec.label} ({stream.role} {stream.you or ''}"
                                      f"{', since ' + str(stream.since) if stream.since is not None else ''}): "
                                      f"{problem}{at(t)}")

    # Acked game commands: exactly once, at their seq, as their sender.
    commands: dict[Any, dict] = {}
    game_by_id: dict[Any, str] = dict(game_of or {})
    yous: dict[Any, set] = collections.defaultdict(set)
    senders: dict[Any, list[str]] = collections.defaultdict(list)
    acks: dict[Any, list[tuple[int | None, str]]] = collections.defaultdict(list)
    ack_time: dict[Any, float] = {}
    refused: set = set()
    unanswered: set = set()  # ids some connection sent and heard nothing back for
    for rec in recorders:
        stream_games = [s.game for s in rec.streams]
        for mid, message in rec.commands.items():
            if message.get("type") not in GAME_COMMANDS:
                continue
            commands.setdefault(mid, message)
            senders[mid].append(rec.label)
            if rec.yous.get(mid) is not None:
                yous[mid].add(rec.yous[mid])
            if mid not in game_by_id and stream_games:
                game_by_id[mid] = stream_games[-1]
        for t, mid, seq in rec.acks:
            if mid in rec.commands and rec.commands[mid].get("type") in GAME_COMMANDS:
                acks[mid].append((seq, rec.label))
                ack_time.setdefault(mid, t)
        for _, mid, code in rec.errors:
            if mid is not None and code in DEFINITE_REFUSALS:
                refused.add(mid)
        answered = {mid for _, mid, _ in rec.acks} | {mid for _, mid, _ in rec.errors}
        unanswered.update(mid for mid in rec.commands if mid not in answered)
    # A refusal settles only the frame it answers: a frame of the same id sent on a connection
    # that ended unanswered may still arrive and be applied (a refused id is not remembered,
    # PROTOCOL section 2), so such an id stays of unknown outcome.
    refused -= unanswered

    claimed: dict[str, set] = collections.defaultdict(set)
    for mid, answers in acks.items():
        game = game_by_id.get(mid)
        command = commands[mid]
        seqs = sorted({seq for seq, _ in answers if seq is not None})
        found.acked += 1
        where = (f"game {game}: id {mid} {_short(expected_cause(command))} acked seq {seqs} to "
                 f"{answers[0][1]}{at(ack_time.get(mid))}")
        if len(seqs) != 1:
            found.lost.append(f"{where}: acked with {len(seqs)} different seqs")
            if not seqs:
                continue
        if game in unreadable:
            found.lost.append(f"{where}: history unreadable ({unreadable[game]})")
            continue
        if game not in by_seq:
            continue
        for seq in seqs:
            truth = by_seq[game].get(seq)
            if truth is None:
                found.lost.append(f"{where}: the history ends at {len(by_seq[game])}")
                continue
            if _without_by(truth.get("cause")) != expected_cause(command):
                found.lost.append(f"{where}: the history's diff {seq} is {_short(truth.get('cause'))}")
                continue
            claimed[game].add(seq)
            by = truth["cause"].get("by") if isinstance(truth.get("cause"), dict) else None
            if yous[mid] and by not in yous[mid]:
                found.identity.append(f"{where}: diff {seq} carries by={by!r}, the sender was {sorted(yous[mid])}")

    # Diffs caused by game commands that no ack claims: each needs a command of unknown outcome.
    unknown: dict[str, list[dict]] = collections.defaultdict(list)
    for mid, command in commands.items():
        if mid not in acks and mid not in refused and game_by_id.get(mid):
            unknown[game_by_id[mid]].append(command)
    for game, table in by_seq.items() if all_recorded else ():
        spare = list(unknown.get(game, []))
        for seq, diff in sorted(table.items()):
            cause = diff.get("cause") if isinstance(diff.get("cause"), dict) else {}
            if seq in claimed[game] or cause.get("type") not in GAME_COMMANDS:
                continue
            bare = _without_by(cause)
            match = next((c for c in spare if expected_cause(c) == bare), None)
            if match is not None:
                spare.remove(match)
                continue
            found.phantoms.append(f"game {game} seq {seq}: {_short(cause)} answers no ack and no command of "
                                  f"unknown outcome (applied twice, or never asked for)")
    return found
