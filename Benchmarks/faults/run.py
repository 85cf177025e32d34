#!/usr/bin/env python3
"""A fault campaign: a cluster played without pause while faults come and go, then
every game's history checked against what every client saw.

  python3 Benchmarks/faults/run.py --minutes N [--seed S] [--games G] [--server PATH] [--logs DIR]

Hosts of their own (network namespaces, Tests/e2e/netns_hosts.py, prefix `bcf`, 10.78.0.0/24, or
the next free subnet while another run holds that one):
three nodes n1 n2 n3 (`--lease 3`, one Redis, one PostgreSQL store), `redis`, `pg`, and `cl`,
the client host every connection is made from. Clients play and watch G games (default 15:
four in a row with its two players on different nodes, Klondike and Plane with two players
each, each game with a spectator on the third node) at a few moves a second per game; a
finished four-in-a-row game is replaced by a new one. A player whose connection drops, or
whose command is not answered within 6 s, or is answered `unavailable` for 3 s, reconnects to
another node with `since` (PROTOCOL 11) and re-sends the same command with the same id;
spectators reconnect with `since` when their connection drops.

Every few seconds one fault, chosen at random (each kind once per round, in a random order),
undone a few seconds later: kill -9 of a node, then its restart; SIGSTOP of a node past its
lease, then SIGCONT; a node isolated; a node cut from Redis only; from PostgreSQL only; a
one-way cut (a node and another host, one direction); a lossy link (30% of a node's packets
dropped each way); Redis restarted; PostgreSQL restarted (a fast shutdown, then a start).

Then the faults stop, everything is healed and settles, each game's history is read from a
healthy node (`watch` with `since` 0) and checked by Tests/e2e/history_check.py: every acked
move exactly once at its seq (lost), one diff per seq whoever saw it (split), no member stream
with a gap or repeat, or left behind (gaps), a move's diff carries its sender's player id
(identity), no diff without a command (phantoms). Findings, each with the fault of its time,
go to stderr and the log folder; stdout gets ONE line:

  faults kill=2 stop=2 ... ; games 71, acked moves 5876, lost 0, split 0, gaps 0, identity 0,
  phantoms 0, other surprises 6 (put-out 6), stretches over lease+5 s 3, longest unavailable
  71.4s (game amycut2x four, from 49.9s, 3.5s after kill n2 was undone); seed S, logs DIR

A game whose history no node serves within 30 s at the end counts each of its acked moves as lost
("lost N (of which in K unreadable games M)").
"Other surprises" are not counted as findings but break a promise of PROTOCOL all the same:
put-out (a member's command answered `not-joined` though it never left), gave-up (no node
took a player back within 120 s: the last answer is in the log), error (another answer no
command should get). A stretch is the time from one ack of a game to the next.

Exit status 0 only if nothing was found (lost = split = gaps = identity = phantoms = 0); 2 if
the campaign could not run (2 with "skipped:" where namespaces cannot be made). Bounded: the
whole run is stopped after N minutes + 6; every namespace (and all in it) is removed at the
end, also when killed (SIGTERM/SIGINT; a SIGKILLed run's namespaces are removed by the next).
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import random
import signal
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "e2e"))

NODES = ("n1", "n2", "n3")
HOSTS = ("redis", "pg", *NODES, "cl")
LEASE = 3
KINDS = ("kill", "stop", "isolate", "cut-redis", "cut-pg", "one-way", "lossy", "redis-restart", "pg-restart")
REPLY_TIMEOUT = 6.0  # a command not answered by then: reconnect elsewhere and re-send
UNAVAILABLE_SWITCH = 3.0  # `unavailable` this long on one node: try another


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class Faults:
    """The fault log: what was done when, to say which fault a finding happened under."""

    def __init__(self, clock):
        self.clock = clock
        self.entries: list[dict] = []

    def begin(self, kind: str, target: str) -> dict:
        entry = {"kind": kind, "target": target, "start": self.clock(), "end": None}
        self.entries.append(entry)
        log(f"[{entry['start']:7.1f}s] fault {kind} {target}")
        return entry

    def end(self, entry: dict) -> None:
        entry["end"] = self.clock()
        log(f"[{entry['end']:7.1f}s] undone {entry['kind']} {entry['target']}")

    def when(self, t: float) -> str:
        now = [e for e in self.entries if e["start"] <= t and (e["end"] is None or t <= e["end"])]
        if now:
            return f"{t:.1f}s, during " + ", ".join(f"{e['kind']} {e['target']}" for e in now)
        before = [e for e in self.entries if e["end"] is not None and e["end"] < t]
        if before:
            last = before[-1]
            return f"{t:.1f}s, {t - last['end']:.1f}s after {last['kind']} {last['target']} was undone"
        return f"{t:.1f}s, before any fault"

    def counts(self) -> dict[str, int]:
        return dict(collections.Counter(e["kind"] for e in self.entries))

    def after_heal(self, start: float, length: float) -> float:
        """How much of a stretch with no ack, from `start` for `length` s, came after the last
        fault before its end was undone: 0 while a fault was still on at its end, all of it when
        none came before. The promise (section 11.1) is service within the lease + 5 s of that."""
        end = start + length
        if any(e["start"] <= end and (e["end"] is None or e["end"] >= end) for e in self.entries):
            return 0.0
        healed = [e["end"] for e in self.entries if e["end"] is not None and e["end"] <= end]
        return end - max([start] + healed)


class Cluster:
    """The processes, owned by the main thread (a spawn's parent-death signal is its thread's)."""

    def __init__(self, hosts, work: str, server: str | None):
        from netns_hosts import NodeProcess, PostgresHost, RedisHost
        self.hosts = hosts
        self.redis = RedisHost(hosts, "redis")
        self.pg = PostgresHost(hosts, "pg")
        self.work = work
        self.nodes: dict[str, NodeProcess] = {}
        self._node_class = NodeProcess
        self.server = server
        self.frozen: set[str] = set()

    def nodes_binary(self) -> str:
        from e2e_server import SERVER_BIN
        return self.server or SERVER_BIN

    def start(self) -> None:
        self.redis.start()
        self.pg.start()
        store = self.pg.create_database()
        for name in NODES:
            node = self._node_class(self.hosts, name, name, data=os.path.join(self.work, name), redis=self.redis.url,
                                    store=store, lease=LEASE)
            if self.server:
                node.args[0] = self.server
            os.makedirs(os.path.join(self.work, name), exist_ok=True)
            self.nodes[name] = node.start()

    def pg_restart(self) -> None:
        proc = self.pg.proc
        if proc and proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # a fast shutdown
            try:
                proc.wait(timeout=20)
            except Exception:  # noqa: BLE001
                proc.kill()
                proc.wait(timeout=10)
        self.pg.proc = None

    def pg_start(self) -> None:
        for attempt in range(5):
            try:
                self.pg.start()
                return
            except AssertionError as error:
                log(f"postgres start failed ({error}); again")
                time.sleep(1)
        raise RuntimeError("postgres does not start again")

    def restore(self) -> None:
        """Everything up and healed (the end of the campaign, or a fault cut short)."""
        self.hosts.heal()
        for name in list(self.frozen):
            self.nodes[name].cont()
            self.frozen.discard(name)
        if self.redis.proc is None or self.redis.proc.poll() is not None:
            self.redis.start()
        if self.pg.proc is None or self.pg.proc.poll() is not None:
            self.pg_start()
        for node in self.nodes.values():
            if not node.running:
                node.start()

    def stop_all(self) -> None:
        for name in list(self.frozen):
            with contextlib.suppress(Exception):
                self.nodes[name].cont()
        for node in self.nodes.values():
            with contextlib.suppress(Exception):
                node.kill()
        with contextlib.suppress(Exception):
            self.redis.stop()
        with contextlib.suppress(Exception):
            self.pg.remove()


def inject(cluster: Cluster, faults: Faults, kind: str, rng: random.Random, stop_at: float) -> None:
    """One fault, held a few seconds, then undone (main thread)."""
    hosts = cluster.hosts
    node = rng.choice(NODES)
    hold = rng.uniform(3, 6)
    if kind == "kill":
        entry = faults.begin(kind, node)
        cluster.nodes[node].kill()
        time.sleep(rng.uniform(2, 5))
        cluster.nodes[node].start()
    elif kind == "stop":
        entry = faults.begin(kind, node)
        cluster.nodes[node].stop()
        cluster.frozen.add(node)
        time.sleep(LEASE + rng.uniform(1.5, 3))
        cluster.nodes[node].cont()
        cluster.frozen.discard(node)
    elif kind == "isolate":
        entry = faults.begin(kind, node)
        hosts.isolate(node)
        time.sleep(hold)
        hosts.heal()
    elif kind in ("cut-redis", "cut-pg"):
        other = "redis" if kind == "cut-redis" else "pg"
        entry = faults.begin(kind, node)
        hosts.cut(node, other)
        time.sleep(hold)
        hosts.heal()
    elif kind == "one-way":
        other = rng.choice([n for n in NODES if n != node] + ["redis", "pg", "cl"])
        a, b = (node, other) if rng.random() < 0.5 else (other, node)
        entry = faults.begin(kind, f"{a}->{b}")
        hosts.cut(a, b, one_way=True)
        time.sleep(hold)
        hosts.heal()
    elif kind == "lossy":
        entry = faults.begin(kind, f"{node} 30%")
        hosts.lossy(node, 30)
        time.sleep(hold)
        hosts.heal()
    elif kind == "redis-restart":
        entry = faults.begin(kind, "redis")
        cluster.redis.stop()
        time.sleep(rng.uniform(1, 4))
        cluster.redis.start()
    elif kind == "pg-restart":
        entry = faults.begin(kind, "pg")
        cluster.pg_restart()
        time.sleep(rng.uniform(1, 4))
        cluster.pg_start()
    else:
        raise ValueError(kind)
    faults.end(entry)


# -- the workload (an asyncio loop in a thread of its own) ---------------------------------------

class Workload:
    def __init__(self, hosts, cluster: Cluster, clock, games: int, rng: random.Random):
        self.hosts, self.cluster, self.clock = hosts, cluster, clock
        self.rng = rng
        self.slots = games
        self.recorders = []
        self.clients = []  # every Client opened (closed at the very end)
        self.games: dict[str, str] = {}  # game -> kind
        self.acks: dict[str, list[float]] = collections.defaultdict(list)  # game -> ack times
        self.pending_since: dict[str, float] = {}  # game -> when its oldest unacked command was first sent
        self.stopping = False
        self.stop_deadline: float | None = None  # monotonic: past it, no reconnecting
        self.unexpected: list[str] = []
        self.surprises: collections.Counter = collections.Counter()
        self.counter = 0
        self.loop: asyncio.AbstractEventLoop | None = None

    def node_order(self, first: str) -> list:
        names = list(NODES)
        start = names.index(first)
        return [self.cluster.nodes[names[(start + k) % 3]] for k in range(3)]

    async def open(self, label: str, prefer: str, message: dict | None, since_from=None, retry_for: float = 60.0):
        """A connection from `cl` to a node (`prefer` first, then the others) on which `message`
        (join/watch/create) was acked: (client, node name, reply). `since_from`: the old client,
        whose seq and state the new connection resumes from."""
        from e2e_client import Client, Closed, new_id
        from history_check import Recorder, attach
        from netns_hosts import connect_client
        started = time.monotonic()
        deadline = started + retry_for
        order = self.node_order(prefer)
        last = None
        attempt = 0
        while True:
            node = order[attempt % 3]
            attempt += 1
            if time.monotonic() > deadline or (self.stopping and message and message["type"] == "create") \
                    or (self.stop_deadline is not None and time.monotonic() > self.stop_deadline):
                raise TimeoutError(f"{label}: no node served {message and message['type']} "
                                   f"({message and message.get('game')}) within {retry_for:.0f}s, from "
                                   f"{self.clock() - (time.monotonic() - started):.1f}s; last answer: {last}")
            try:
                client = await asyncio.wait_for(connect_client(self.hosts, "cl", node, label, timeout=2), 4)
            except Exception:  # noqa: BLE001 - refused, timed out, reset: another node
                await asyncio.sleep(0.2)
                continue
            self.counter += 1
            rec = Recorder(f"{label}@{node.node}#{self.counter}", node=node.node, clock=self.clock)
            attach(client, rec)
            self.recorders.append(rec)
            self.clients.append(client)
            if message is None:
                return client, node.node, None
            request = dict(message, id=new_id())
            if since_from is not None and since_from.seq is not None and since_from.game == message.get("game"):
                client.prime(since_from.game, since_from.state)
                request["since"] = since_from.seq
            try:
                reply = await client.request(request, timeout=REPLY_TIMEOUT)
            except (Closed, AssertionError, OSError, Exception):  # noqa: BLE001
                self.drop(client)
                continue
            if reply.ok:
                return client, node.node, reply
            self.drop(client)
            code = reply.ack.get("code")
            last = f"{code} ({reply.ack.get('message')}) from {node.node}"
            if code not in ("unavailable", "forbidden", "not-found"):
                self.surprise("error", f"{label}: {request['type']} answered {reply.ack}")
            await asyncio.sleep(0.5 if attempt % 3 else 1.0)

    def surprise(self, kind: str, text: str) -> None:
        """Not one of the checker's counts, but not what PROTOCOL promises either: `put-out` (a
        member answered not-joined without having left), `gave-up` (no node took a player back
        for 120 s), `error` (another answer no command should get), `stuck`, `failed`."""
        self.unexpected.append(f"{kind}: {text} [{self.clock():.1f}s]")
        self.surprises[kind] += 1

    def drop(self, client) -> None:
        client.recorder.closed()
        with contextlib.suppress(Exception):
            client.abort()

    async def command_loop(self, label: str, game: str, kind: str, client, node: str, join: dict, next_command,
                           done=None, pace=(0.25, 0.6)) -> None:
        """Plays `next_command(client, i)` (None: nothing to do now) until stopping or `done()`."""
        from e2e_client import Closed, new_id
        from websockets.exceptions import ConnectionClosed
        pending = None
        i = 0
        unavailable_since = None
        finished_at = None
        while True:
            if done is not None and done():
                # A command not answered yet is sent again, as a client would, until it is (an
                # id sent again is acked with its seq): the game may have ended by that very move.
                if pending is None:
                    return
                finished_at = finished_at or time.monotonic()
                if time.monotonic() - finished_at > 60:
                    self.surprise("unanswered", f"{label} game {game}: {pending} not answered within 60 s "
                                                f"of the game's end")
                    return
            if pending is None and self.stopping:
                return
            if client is None or not client.is_open:
                if client is not None:
                    self.drop(client)
                try:
                    client, node, _ = await self.open(label, NODES[(NODES.index(node) + 1) % 3], join,
                                                      since_from=client, retry_for=120)
                except TimeoutError as error:
                    self.surprise("gave-up", f"{label} game {game} gave up: {error}")
                    return
                unavailable_since = None
            if pending is None:
                command = next_command(client, i)
                i += 1
                if command is None:
                    await asyncio.sleep(0.05)
                    continue
                pending = dict(command, id=new_id())
                self.pending_since.setdefault(game, self.clock())
            try:
                reply = await client.request(pending, timeout=REPLY_TIMEOUT)
            except (Closed, AssertionError, ConnectionClosed, OSError):
                self.drop(client)
                continue
            code = reply.ack.get("code") if not reply.ok else None
            if reply.ok:
                now = self.clock()
                self.acks[game].append(now)
                self.pending_since.pop(game, None)
                pending, unavailable_since = None, None
                await asyncio.sleep(self.rng.uniform(*pace))
            elif code == "unavailable":
                now = time.monotonic()
                unavailable_since = unavailable_since or now
                if now - unavailable_since > UNAVAILABLE_SWITCH:
                    self.drop(client)  # try another node
                await asyncio.sleep(0.3)
            elif code == "rate-limited":
                await asyncio.sleep(1)
            elif code == "not-joined":
                # The connection was put out of its game without a word: a finding; play goes
                # on from another connection, the same command re-sent.
                self.surprise("put-out", f"{label} game {game}: {client.recorder.label} answered not-joined "
                                       f"at {self.clock():.1f}s for {pending['type']} ({client.recorder.label} "
                                       f"had joined as {client.you})")
                self.drop(client)
            else:
                if code != "illegal-move":
                    self.surprise("error", f"{label} game {game}: {pending} answered {reply.ack}")
                pending = None
                self.pending_since.pop(game, None)
                await asyncio.sleep(0.1)

    async def spectate(self, label: str, game: str, node: str, gone) -> None:
        """Watches `game` until `gone()`, reconnecting with `since` when the connection drops."""
        client = None
        while not gone():
            if client is None or not client.is_open:
                if client is not None:
                    self.drop(client)
                    node = NODES[(NODES.index(node) + 1) % 3]
                try:
                    client, node, _ = await self.open(label, node, {"type": "watch", "game": game},
                                                      since_from=client, retry_for=120)
                except TimeoutError as error:
                    self.surprise("gave-up", str(error))
                    return
            await asyncio.sleep(0.2)

    # -- games ----------------------------------------------------------------

    async def create(self, label: str, node: str, kind: str, options: dict):
        client, node, reply = await self.open(label, node, {"type": "create", "kind": kind, "options": options},
                                              retry_for=120)
        created = reply.one("created")
        self.games[created["game"]] = kind
        return client, node, created["game"], created["token"]

    async def klondike_or_plane(self, slot: int, kind: str) -> None:
        from e2e_streams import plane_moves
        nodes = [NODES[(slot + k) % 3] for k in range(3)]
        options = {"seed": self.rng.randrange(1, 10**6)} if kind == "klondike" else {}
        c1, n1, game, token = await self.create(f"s{slot}-{kind}-p1", nodes[0], kind, options)
        join = {"type": "join", "game": game, "token": token}
        c2, n2, _ = await self.open(f"s{slot}-{kind}-p2", nodes[1], join, retry_for=120)

        def klondike(client, i):
            return {"type": "undo"} if i % 9 == 8 else {"type": "tap", "target": "/stock"}

        def plane(client, i):
            if client.state is None or client.you is None:
                return None
            return plane_moves(client, i)

        moves = klondike if kind == "klondike" else plane
        tasks = [asyncio.ensure_future(self.command_loop(f"s{slot}-{kind}-p1", game, kind, c1, n1, join, moves)),
                 asyncio.ensure_future(self.command_loop(f"s{slot}-{kind}-p2", game, kind, c2, n2, join, moves)),
                 asyncio.ensure_future(self.spectate(f"s{slot}-{kind}-w", game, nodes[2], lambda: self.stopping))]
        await asyncio.gather(*tasks)

    async def four_games(self, slot: int) -> None:
        round_ = 0
        while not self.stopping:
            round_ += 1
            nodes = [NODES[(slot + round_ + k) % 3] for k in range(3)]
            label = f"s{slot}-four{round_}"
            try:
                c1, n1, game, token = await self.create(f"{label}-p1", nodes[0], "four", {})
            except TimeoutError as error:
                if not self.stopping:
                    self.surprise("gave-up", str(error))
                return
            over = {"flag": False}

            def finished(client) -> bool:
                state = client.state
                return isinstance(state, dict) and state.get("status") in ("won", "drawn")

            def mover(seat):
                def next_command(client, i):
                    state = client.state
                    if not isinstance(state, dict):
                        return None
                    if state.get("status") in ("won", "drawn"):
                        over["flag"] = True
                        return None
                    if state.get("status") != "playing" or state.get("turn") != seat:
                        return None
                    if i % 41 == 40:
                        return {"type": "resign"}
                    free = [c for c in range(7) if len(state["columns"][c]) < state.get("rows", 6)]
                    return {"type": "tap", "target": f"/columns/{self.rng.choice(free)}"}
                return next_command

            join2 = {"type": "join", "game": game, "token": token, "seat": "p2"}
            try:
                c2, n2, _ = await self.open(f"{label}-p2", nodes[1], join2, retry_for=60)
            except TimeoutError as error:
                self.surprise("gave-up", str(error))
                continue
            join1 = {"type": "join", "game": game, "token": token, "seat": "p1"}
            done = lambda: over["flag"] or self.stopping  # noqa: E731
            players = [asyncio.ensure_future(self.command_loop(f"{label}-p1", game, "four", c1, n1, join1,
                                                               mover("p1"), done=lambda: over["flag"])),
                       asyncio.ensure_future(self.command_loop(f"{label}-p2", game, "four", c2, n2, join2,
                                                               mover("p2"), done=lambda: over["flag"]))]
            watcher = asyncio.ensure_future(self.spectate(f"{label}-w", game, nodes[2], done))
            # A player that gave up (no node would take it back) ends the game for this slot.
            await asyncio.wait(players, return_when=asyncio.FIRST_COMPLETED)
            over["flag"] = True
            await asyncio.gather(*players, watcher)

    async def run(self, stop_event: asyncio.Event) -> None:
        kinds = ["four", "klondike", "plane"]
        tasks = []
        for slot in range(self.slots):
            kind = kinds[slot % 3]
            if kind == "four":
                tasks.append(asyncio.ensure_future(self.four_games(slot)))
            else:
                tasks.append(asyncio.ensure_future(self.klondike_or_plane(slot, kind)))
        await stop_event.wait()
        self.stopping = True
        self.stop_deadline = time.monotonic() + 45
        done, pending = await asyncio.wait(tasks, timeout=90)
        for task in pending:
            task.cancel()
            self.surprise("stuck", f"a workload task did not finish its last command within 90 s: {task}")
        for task in done:
            if task.exception() is not None:
                self.surprise("failed", f"a workload task failed: {task.exception()!r}")

    async def settle(self, quiet: float = 3.0, within: float = 30.0) -> None:
        """Until no client got anything for `quiet` seconds."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            counts = sum(len(c.messages) for c in self.clients)
            await asyncio.sleep(quiet)
            if sum(len(c.messages) for c in self.clients) == counts:
                return

    async def histories(self, games=None) -> tuple[dict, dict]:
        """Each game's history from a node that serves it (all games at once, a few at a time);
        a game no node serves within 30 s is unreadable, with the last reason."""
        from history_check import read_history
        self.stop_deadline = None
        histories, unreadable = {}, {}
        gate = asyncio.Semaphore(6)

        async def one(game: str) -> None:
            async with gate:
                deadline = time.monotonic() + 30
                reason, attempt = None, 0
                while time.monotonic() < deadline:
                    node = NODES[attempt % 3]
                    attempt += 1
                    try:
                        client, _, _ = await self.open(f"history-{game}", node, None, retry_for=10)
                        try:
                            histories[game] = await read_history(
                                client, game, timeout=max(1.0, min(10.0, deadline - time.monotonic())))
                            return
                        finally:
                            client.recorder.closed()
                            client.abort()
                    except Exception as error:  # noqa: BLE001
                        reason = f"{type(error).__name__}: {str(error)[:300]} (from {node})"
                        await asyncio.sleep(1.0)
                unreadable[game] = reason

        await asyncio.gather(*(one(g) for g in (games if games is not None else list(self.games))))
        # The history readers recorded nothing a member must check.
        self.recorders = [r for r in self.recorders if not r.label.startswith("history-")]
        return histories, unreadable

    def unavailable(self, end: float) -> list[tuple[float, str, float]]:
        """(seconds, game, start) of every stretch in which a game acked no command while its
        players played (from one ack to the next; a command still waiting at the end counts),
        longest first."""
        stretches = []
        for game, times in self.acks.items():
            for a, b in zip(times, times[1:]):
                stretches.append((b - a, game, a))
        for game, since in self.pending_since.items():
            stretches.append((end - since, game, since))
        return sorted(stretches, reverse=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, required=True)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--games", type=int, default=15)
    parser.add_argument("--server", default=None, help="the server binary (default $BOARDCAST_SERVER or .build/debug/server)")
    parser.add_argument("--logs", default=None, help="a folder for findings, the fault log and the nodes' output")
    parser.add_argument("--strict", action="store_true",
                        help="fail on identity and phantom findings too (by default the exit status is the issue's "
                             "target: 0 lost, 0 split, 0 gaps; the line prints every count either way)")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    log(f"fault campaign: {args.minutes} min, seed {seed}, {args.games} games")

    from netns_hosts import Hosts, namespaces_unavailable
    why = namespaces_unavailable()
    if why:
        print(f"skipped: {why}")
        return 2
    budget = args.minutes * 60 + 360

    def on_signal(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    import faulthandler
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # where is it stuck: kill -USR1 PID
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    # Bounded: past the budget, SIGTERM to ourselves (cleans up); 30 s later, out at any price.
    watchdog = threading.Timer(budget, lambda: os.kill(os.getpid(), signal.SIGTERM))
    watchdog.daemon = True
    watchdog.start()
    last_resort = threading.Timer(budget + 30, lambda: os._exit(3))
    last_resort.daemon = True
    last_resort.start()

    work = tempfile.mkdtemp(prefix="boardcast-faults-")
    logs = args.logs or os.path.join(work, "logs")
    os.makedirs(logs, exist_ok=True)
    origin = time.monotonic()

    def clock() -> float:
        return time.monotonic() - origin

    faults = Faults(clock)
    result = 2
    with Hosts(list(HOSTS), prefix="bcf", subnet=78) as hosts:
        cluster = Cluster(hosts, work, args.server)
        workload = None
        loop_thread = None
        try:
            binary = cluster.nodes_binary()
            log(f"server {binary} (built {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(os.path.getmtime(binary)))}Z)")
            cluster.start()
            log(f"[{clock():7.1f}s] cluster up: {', '.join(f'{n}={hosts.addr(n)}' for n in HOSTS)}")
            workload = Workload(hosts, cluster, clock, args.games, random.Random(rng.random()))
            loop = asyncio.new_event_loop()
            workload.loop = loop
            stop_event = None
            outcome: dict = {}

            def loop_main():
                nonlocal stop_event
                asyncio.set_event_loop(loop)

                async def body():
                    nonlocal stop_event
                    stop_event = asyncio.Event()
                    await workload.run(stop_event)
                try:
                    loop.run_until_complete(body())
                    outcome["ran"] = True
                except BaseException as error:  # noqa: BLE001
                    outcome["error"] = error

            loop_thread = threading.Thread(target=loop_main, name="workload", daemon=True)
            loop_thread.start()
            time.sleep(5)  # games made and joined before the first fault
            end = clock() + args.minutes * 60
            deck: list[str] = []
            while clock() < end:
                if not deck:
                    deck = list(KINDS)
                    rng.shuffle(deck)
                inject(cluster, faults, deck.pop(), rng, end)
                time.sleep(rng.uniform(2, 4))
            log(f"[{clock():7.1f}s] faults over; healing, letting play settle")
            cluster.restore()
            time.sleep(LEASE + 5)
            loop.call_soon_threadsafe(stop_event.set)
            loop_thread.join(timeout=150)
            if loop_thread.is_alive():
                raise RuntimeError("the workload did not stop")
            if "error" in outcome:
                raise outcome["error"]
            stopped = clock()
            log(f"[{stopped:7.1f}s] players stopped; reading the histories")
            histories, unreadable = loop.run_until_complete(_finish(workload))
            from history_check import check
            found = check(histories, workload.recorders, unreadable=unreadable, when=faults.when)
            unreadable_lost = sum(1 for text in found.lost if "history unreadable" in text)
            stretches = workload.unavailable(stopped)
            seconds, game, at = stretches[0] if stretches else (0.0, None, 0.0)
            long_ones = [x for x in stretches if x[0] > LEASE + 5]
            after_heal = sorted(((faults.after_heal(t, n), g, t) for n, g, t in stretches), reverse=True)
            late = [x for x in after_heal if x[0] > LEASE + 5]
            counts = found.counts()
            details = found.describe(limit=50)
            with open(os.path.join(logs, "findings.txt"), "w") as out:
                out.write("".join(f"unreadable: game {g} {workload.games.get(g)}: {why}\n"
                                  for g, why in unreadable.items()))
                out.write(found.describe(limit=10**9) + "\n")
                out.write("\n".join(workload.unexpected) + "\n")
                out.write("\n".join(f"unavailable {n:.1f}s: game {g} {workload.games.get(g)} from {faults.when(t)}"
                                     for n, g, t in long_ones) + "\n")
                out.write("\n".join(f"unavailable after heal {n:.1f}s: game {g} {workload.games.get(g)}, stretch "
                                     f"from {faults.when(t)}" for n, g, t in late) + "\n")
            with open(os.path.join(logs, "faults.json"), "w") as out:
                json.dump(faults.entries, out, indent=1)
            with open(os.path.join(logs, "clients.jsonl"), "w") as out:
                for rec in workload.recorders:
                    out.write(json.dumps({"label": rec.label, "events": rec.events}, default=str) + "\n")
            for name, node in cluster.nodes.items():
                with open(os.path.join(logs, f"{name}.log"), "w") as out:
                    out.write("".join(node.stdout_lines) + "--- stderr ---\n" + "".join(node.stderr_lines))
            for g, why in unreadable.items():
                log(f"unreadable: game {g} {workload.games.get(g)}: {why}")
            if details:
                log(details)
            for text in workload.unexpected[:40]:
                log(f"surprise: {text}")
            for length, g, start in long_ones[:20]:
                log(f"unavailable {length:.1f}s: game {g} {workload.games.get(g)} from {faults.when(start)}")
            for length, g, start in late[:20]:
                log(f"unavailable after heal {length:.1f}s: game {g} {workload.games.get(g)}, stretch from {faults.when(start)}")
            kinds = " ".join(f"{k}={faults.counts().get(k, 0)}" for k in KINDS)
            where = f" (game {game} {workload.games.get(game)}, from {faults.when(at)})" if game else ""
            print(f"faults {kinds}; games {counts['games']}, acked moves {counts['acked']}, lost {counts['lost']}"
                  f"{f' (of which in {len(unreadable)} unreadable games {unreadable_lost})' if unreadable else ''}, "
                  f"split {counts['split']}, gaps {counts['gaps']}, identity {counts['identity']}, "
                  f"phantoms {counts['phantoms']}, other surprises {len(workload.unexpected)}{kinds_of(workload.surprises)}, "
                  f"stretches over lease+5 s {len(long_ones)}, longest unavailable {seconds:.1f}s{where}, "
                  f"unavailable after heal over lease+5 s {len(late)} (longest {after_heal[0][0] if after_heal else 0:.1f}s); seed {seed}, "
                  f"logs {logs}", flush=True)
            target_met = not (found.lost or found.split or found.gaps)
            result = 0 if (found.ok if args.strict else target_met) else 1
        except KeyboardInterrupt as stop:
            log(f"stopped: {stop}")
            result = 3
        finally:
            if workload is not None and workload.loop is not None and not workload.loop.is_closed() \
                    and (loop_thread is None or not loop_thread.is_alive()):
                with contextlib.suppress(Exception):
                    workload.loop.run_until_complete(_close_all(workload))
                    workload.loop.close()
            cluster.stop_all()
    watchdog.cancel()
    last_resort.cancel()
    return result


def kinds_of(counter) -> str:
    return f" ({', '.join(f'{k} {n}' for k, n in sorted(counter.items()))})" if counter else ""


async def _finish(workload: Workload):
    """The histories, read once play is quiet; a game read again if a member got more since (a
    late `leave` of a dropped connection, say), so that only a real difference is a finding."""
    await workload.settle()
    histories, unreadable = await workload.histories()
    await workload.settle(quiet=2.0, within=10)
    seen: dict[str, int] = collections.defaultdict(int)
    for rec in workload.recorders:
        for diff in rec.diffs:
            seen[diff.get("game")] = max(seen[diff.get("game")], diff.get("seq") or 0)
    again = [g for g, diffs in histories.items() if seen.get(g, 0) > len(diffs)]
    if again:
        log(f"reading {len(again)} histories again (members got more since)")
        more, gone = await workload.histories(again)
        histories.update(more)
        unreadable.update(gone)
    return histories, unreadable


async def _close_all(workload: Workload) -> None:
    for client in workload.clients:
        with contextlib.suppress(Exception):
            client.abort()
        client._reader.cancel()
    await asyncio.gather(*(c._reader for c in workload.clients), return_exceptions=True)


if __name__ == "__main__":
    sys.exit(main())
