#!/usr/bin/env python3
"""Takeover time (PROTOCOL 11.1): how long a live game is out of service when the node that
owns it dies.

  python3 Benchmarks/takeover/run.py [--rounds 5] [--server PATH] [--show-logs]

The server binary is the repository's release build, .build/release/server (make it with
`swift build -c release --product server`), unless BOARDCAST_SERVER or --server names another
(nothing is built here). Needs redis-server and PostgreSQL (initdb, postgres) installed, and
Python's websockets and jsonpatch (Tests/e2e/requirements.txt).

One PostgreSQL store (Tests/e2e/e2e_postgres.py, a fresh database each round) and one Redis,
both private, on free loopback ports. Each round starts three fresh nodes A, B, C with
`--lease 2`, creates a Klondike game (fixed seed) on A, joins a player from B and a spectator
from C, plays a few moves from A and from B, then `kill -9`s A. From that moment (t0) B's
player sends a move, with a fresh id, every ~50 ms until one is acked: takeover time is t0 to
that ack; `unavailable` answers meanwhile are counted, any other answer fails the round. It
also records when C's spectator gets that move's diff, and checks that the spectator saw every
diff in order with no gap (one history). The kill comes at a random point of A's 1 s lease
renewal cycle, once every node's cluster view has settled.

The breakdown comes from the survivors' logs, stamped as they arrive here (the server's own
timestamps are whole seconds), and from Redis; served = lease + detect + serve:
  lease    kill -> A's liveness key expires (its PTTL read right after the kill)
  detect   expiry -> B logs "a node's lease ran out" for A (C's own figure is shown beside it)
  serve    that -> the ack reaches B's player: B claims the game, or learns from the store
           that C did; then the client's retry pace and the request itself
  claim    on whichever node took the game: "lease ran out" -> "took a game over from its
           gone owner" (the claim in the store and the game loaded from it)
Each survivor acts on its own look at Redis: B's player is served once B has seen A dead,
whoever took the game, and C's spectator gets the diff once C has (until a member on another
node is in the new owner's room, it publishes nothing for the game).
The target is --lease + 5 s (PROTOCOL 11.1). Each round is aborted after 30 s; every process
started here (nodes, Redis, PostgreSQL) is stopped at the end, on failure too. Exits 1 if a
round failed or a takeover missed the target.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "e2e"))

from e2e_client import Client  # noqa: E402
from e2e_postgres import Postgres  # noqa: E402
from e2e_redis import Redis  # noqa: E402
from e2e_server import LISTENING, WEB_DIR  # noqa: E402

DEFAULT_SERVER = os.path.join(ROOT, ".build", "release", "server")
LEASE = 2
ROUND_LIMIT = 30.0
SEED = 42
RETRY_PAUSE = 0.05
# NodeDirectory.settling: a node takes no game over until its Redis link has been up this
# long, then one more look (rounds are 1 s apart) to set it. A kill before that would measure
# start-up, not takeover.
SETTLING = 3.0 + 1.2
# A node's round (lease renewed, others looked at) comes every 1 s, checked on a 100 ms timer:
# 1.0 to 1.1 s apart. Nodes started together keep the same phase, so a kill a fixed time after
# start-up would always land at the same point of A's renewal cycle (just before a renewal:
# about 1 s of lease left, the best case). A random wait of up to one round spreads it.
ROUND_PERIOD = 1.1

LEASE_RAN_OUT = "a node's lease ran out"
TOOK_OVER = "took a game over from its gone owner"


class RedisConnection:
    """Just enough RESP for one-line replies (PTTL, FLUSHALL), with no client library."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=2)
        self.buffer = b""

    def command(self, *args: str) -> str:
        frame = f"*{len(args)}\r\n" + "".join(f"${len(a.encode())}\r\n{a}\r\n" for a in args)
        self.sock.sendall(frame.encode())
        while b"\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("redis closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line.decode()

    def close(self) -> None:
        self.sock.close()


class Node:
    """One server process; every line it writes is kept with the monotonic time it arrived."""

    def __init__(self, binary: str, name: str, work: str, store: str, redis_url: str):
        self.name = name
        self.args = [binary, "--host", "127.0.0.1", "--port", "0", "--data", os.path.join(work, name),
                     "--web", str(WEB_DIR), "--store", store, "--redis", redis_url, "--node", name,
                     "--lease", str(LEASE), "--log-level", "info"]
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None
        self.lines: list[tuple[float, str]] = []
        self._drains: list[threading.Thread] = []

    def start(self) -> None:
        self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=ROOT)
        # Drained all along so the server never blocks on a full pipe; stamped here because
        # the log's own timestamps have a resolution of one second.
        for pipe in (self.proc.stdout, self.proc.stderr):
            thread = threading.Thread(target=self._drain, args=(pipe,), daemon=True)
            thread.start()
            self._drains.append(thread)

    def _drain(self, pipe) -> None:
        for raw in iter(pipe.readline, b""):
            self.lines.append((time.monotonic(), raw.decode("utf-8", "replace")))

    async def logged(self, pattern: re.Pattern | str, timeout: float) -> tuple[float, str]:
        """The first line matching `pattern` (when it arrived, the line), awaited."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.find(pattern)
            if found:
                return found
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} never logged {pattern!r} within {timeout:.0f} s")
            await asyncio.sleep(0.02)

    def find(self, pattern: re.Pattern | str) -> tuple[float, str] | None:
        for stamp, line in list(self.lines):
            if (pattern.search(line) if isinstance(pattern, re.Pattern) else pattern in line):
                return stamp, line
        return None

    async def until_listening(self, timeout: float) -> None:
        _, line = await self.logged(LISTENING, timeout)
        self.port = int(LISTENING.search(line).group(2))

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def get(self, path: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=2) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, b""
        except OSError:
            return 0, b""

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> int | None:
        """SIGTERM (SIGKILL if it hangs); its exit code, None if it was never started."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for thread in self._drains:
            thread.join(timeout=5)
        return self.proc.returncode

    def tail(self, count: int = 25) -> str:
        return "".join(line for _, line in self.lines[-count:])


class StampedClient(Client):
    """e2e_client's Client, with the monotonic time each message arrived (same index)."""

    def __init__(self, ws, name: str = ""):
        self.arrivals: list[float] = []
        super().__init__(ws, name)

    def _track(self, message) -> None:
        # Called once per message, just before it is appended to `messages`.
        self.arrivals.append(time.monotonic())
        super()._track(message)


@dataclasses.dataclass
class Result:
    takeover: float          # kill -> B's move acked
    spectator: float         # kill -> C's spectator got that diff
    unavailable: int         # `unavailable` answers before it
    seq: int                 # the served move's seq
    owner: str               # the node that took the game over
    lease: float | None      # kill -> A's key expired
    detect_b: float | None   # expiry -> B saw A dead
    detect_c: float | None   # expiry -> C saw A dead
    serve: float | None      # B saw A dead -> the ack reached B's player
    claim: float | None      # the new owner: saw A dead -> took the game over


def stamp(node: Node, text: str, subject: str) -> float | None:
    """When `node` first logged a line with both `text` and `subject`."""
    for when, line in list(node.lines):
        if text in line and subject in line:
            return when
    return None


async def play_round(nodes: dict[str, Node], redis: Redis, show_logs: bool) -> Result:
    a, b, c = nodes["a"], nodes["b"], nodes["c"]
    for node in (a, b, c):
        node.start()
    for node in (a, b, c):
        await node.until_listening(10)
    links = {}
    for node in (a, b, c):
        links[node.name] = (await node.logged("cluster link up", 10))[0]
        while node.get("/healthz")[0] != 200:
            await asyncio.sleep(0.05)

    clients: list[StampedClient] = []
    try:
        owner = await StampedClient.connect(a.ws, "player@a")
        player = await StampedClient.connect(b.ws, "player@b")
        spectator = await StampedClient.connect(c.ws, "spectator@c")
        clients += [owner, player, spectator]
        created = (await owner.create("klondike", seed=SEED)).one("created")
        game, token = created["game"], created["token"]
        joined = await player.join(game, token)
        assert joined.ok, f"join from B: {joined.ack}"
        watched = await spectator.watch(game)
        assert watched.ok, f"watch from C: {watched.ack}"
        watch_seq = watched.one("snapshot")["seq"]

        # B and C list A's game in their lobby only once their look at Redis counts A alive:
        # then A is a node they know, whose death they can notice.
        for node in (b, c):
            while True:
                status, body = node.get("/api/games")
                if status == 200 and any(g.get("game") == game for g in json.loads(body or b"[]")):
                    break
                await asyncio.sleep(0.1)

        for _ in range(3):
            await owner.move({"type": "tap", "target": "/stock"})
            await player.move({"type": "tap", "target": "/stock"})
        before = player.seq
        await spectator.expect(lambda m: isinstance(m, dict) and m.get("type") == "diff" and m["seq"] == before)
        snapshots_before = len(spectator.received("snapshot"))

        settled_at = max(links[b.name], links[c.name]) + SETTLING
        await asyncio.sleep(max(0.0, settled_at - time.monotonic()) + random.uniform(0, ROUND_PERIOD))

        probe = RedisConnection(redis.port)
        try:
            t0 = time.monotonic()
            a.kill9()
            # Read after the kill, not before: A can no longer renew its key, so this PTTL is
            # when it runs out. (-2: already gone.)
            read_at = time.monotonic()
            pttl = int(probe.command("PTTL", f"bc:alive:{a.name}").lstrip(":"))
        finally:
            probe.close()
        expiry = read_at + max(pttl, 0) / 1000 if pttl != -1 else None

        unavailable = 0
        first_answer = None
        while True:
            # A request carried to A before B noticed A's key gone waits for that (up to lease + 1 s);
            # the round's own limit bounds the wait.
            reply = await player.request({"type": "tap", "target": "/stock"}, timeout=ROUND_LIMIT)
            if first_answer is None:
                first_answer = time.monotonic() - t0
            if reply.ok:
                break
            code = reply.ack.get("code")
            if code != "unavailable":
                raise AssertionError(f"B's move answered {reply.ack} while the game changed hands")
            unavailable += 1
            await asyncio.sleep(RETRY_PAUSE)
        ack_index = len(player.messages) - 1
        while player.messages[ack_index] is not reply.ack:
            ack_index -= 1
        t1 = player.arrivals[ack_index]
        seq = reply.ack["seq"]
        assert seq == before + 1, f"the game went on at seq {seq}, not {before + 1}"

        spectator_index = await spectator.expect_index(
            lambda m: isinstance(m, dict) and m.get("type") == "diff" and m["seq"] == seq, timeout=ROUND_LIMIT)
        t2 = spectator.arrivals[spectator_index]

        # One history: the spectator on C applied every diff, in order, without a gap or a new
        # snapshot (e2e_client records a gap or a patch that does not apply in `problems`).
        seen = [d["seq"] for d in spectator.diffs]
        assert seen == list(range(watch_seq + 1, seq + 1)), f"spectator on C saw seqs {seen}"
        assert len(spectator.received("snapshot")) == snapshots_before, "spectator on C got a new snapshot"
        for client in (player, spectator):
            assert client.problems == [], client.problems

        took = {n.name: stamp(n, TOOK_OVER, game) for n in (b, c)}
        winners = [name for name, when in took.items() if when is not None]
        assert len(winners) == 1, f"took the game over: {winners or 'nobody, by the logs'}"
        new_owner = b if winners[0] == b.name else c
        dead = {n.name: stamp(n, LEASE_RAN_OUT, f"node={a.name}") for n in (b, c)}
        taken, owner_saw = took[new_owner.name], dead[new_owner.name]

        def since_expiry(when: float | None) -> float | None:
            return when - expiry if when is not None and expiry is not None else None

        if show_logs:
            print(f"    B's player: first answer at {first_answer:+.3f} s, {unavailable} unavailable,"
                  f" acked at {t1 - t0:+.3f} s; A's key expired at {(expiry or float('nan')) - t0:+.3f} s")
            for node in (b, c):
                for when, line in node.lines:
                    if when >= t0 - 0.5 and "refused" not in line:
                        print(f"    {node.name} {when - t0:+7.3f}  {line.rstrip()}")
        return Result(
            takeover=t1 - t0, spectator=t2 - t0, unavailable=unavailable, seq=seq, owner=new_owner.name,
            lease=expiry - t0 if expiry is not None else None,
            detect_b=since_expiry(dead[b.name]), detect_c=since_expiry(dead[c.name]),
            serve=t1 - dead[b.name] if dead[b.name] is not None else None,
            claim=taken - owner_saw if owner_saw is not None else None)
    finally:
        # Dropped, not closed: the survivors are stopped next and need not wait for a close handshake.
        for client in clients:
            client.abort()


def run_round(number: int, binary: str, pg: Postgres, redis: Redis, show_logs: bool) -> Result:
    work = tempfile.mkdtemp(prefix=f"boardcast-takeover-{number}-")
    store = pg.create_database()
    # Node names unique per round (and per run, for the `bc:nodes` set they are listed in).
    tag = f"t{os.getpid()}r{number}"
    nodes = {key: Node(binary, f"{tag}-{key}", work, store, redis.url) for key in "abc"}
    try:
        return asyncio.run(asyncio.wait_for(play_round(nodes, redis, show_logs), ROUND_LIMIT))
    except Exception as error:
        for node in nodes.values():
            if node.lines:
                print(f"--- {node.name} (last lines) ---\n{node.tail()}", file=sys.stderr)
        if isinstance(error, (asyncio.TimeoutError, TimeoutError)):
            raise RuntimeError(f"round aborted after {ROUND_LIMIT:.0f} s") from None
        raise
    finally:
        for key, node in nodes.items():
            code = node.stop()
            if key != "a" and node.port is not None and code not in (None, 0):
                print(f"note: {node.name} exited with {code} on SIGTERM", file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)
        # The next round's nodes must not find this one's keys, streams or node list.
        with contextlib.suppress(OSError, RuntimeError):
            connection = RedisConnection(redis.port)
            connection.command("FLUSHALL")
            connection.close()


def summary(label: str, values: list[float], form: str = "6.3f") -> str:
    if not values:
        return f"{label:36} (none)"
    return (f"{label:36} min {min(values):{form}}   median {statistics.median(values):{form}}"
            f"   max {max(values):{form}}")


def fmt(value: float | None) -> str:
    return "   ?  " if value is None else f"{value:6.3f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--server", default=os.environ.get("BOARDCAST_SERVER", DEFAULT_SERVER))
    parser.add_argument("--show-logs", action="store_true",
                        help="print the survivors' log lines from the kill on, at their offsets from it")
    args = parser.parse_args()
    if not os.access(args.server, os.X_OK):
        parser.error(f"no server binary at {args.server}")
    # A SIGTERM to this script stops what it started too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    target = LEASE + 5.0
    print(f"server {args.server}, --lease {LEASE}, target {target:.0f} s (lease + 5 s), {args.rounds} rounds")
    print("seconds from kill -9 of the owner to:   first command served | spectator on C got it"
          " | unavailable answers;\nthen served = lease + detect (B; C beside it) + serve, and the new owner's claim")
    results: list[Result] = []
    failures = 0
    pg = redis = None
    try:
        pg = Postgres().init().start()
        redis = Redis().start()
        for number in range(1, args.rounds + 1):
            try:
                r = run_round(number, args.server, pg, redis, args.show_logs)
            except Exception as error:  # noqa: BLE001 - a failed round is reported, the next one runs
                failures += 1
                print(f"round {number}: FAILED: {type(error).__name__}: {error}", flush=True)
                continue
            results.append(r)
            print(f"round {number}: served {r.takeover:6.3f}   spectator {r.spectator:6.3f}   "
                  f"unavailable {r.unavailable:3d}   (seq {r.seq}, taken by {r.owner})   "
                  f"lease {fmt(r.lease)}  detect {fmt(r.detect_b)} (C {fmt(r.detect_c)})  serve {fmt(r.serve)}"
                  f"  claim {fmt(r.claim)}", flush=True)
    finally:
        if redis:
            redis.stop()
        if pg:
            pg.remove()

    print()
    print(summary("first command served (s)", [r.takeover for r in results]))
    print(summary("spectator on C got it (s)", [r.spectator for r in results]))
    print(summary("unavailable answers", [float(r.unavailable) for r in results], "6.0f"))
    print(summary("  lease: kill -> key expired", [r.lease for r in results if r.lease is not None]))
    print(summary("  detect: expired -> B saw A dead", [r.detect_b for r in results if r.detect_b is not None]))
    print(summary("  (C saw A dead)", [r.detect_c for r in results if r.detect_c is not None]))
    print(summary("  serve: B saw A dead -> acked", [r.serve for r in results if r.serve is not None]))
    print(summary("  claim: new owner saw -> took over", [r.claim for r in results if r.claim is not None]))
    worst = max((r.takeover for r in results), default=None)
    verdict = "n/a" if worst is None else ("met" if worst <= target else "MISSED")
    print(f"lease {LEASE} s, target {target:.0f} s: {verdict}"
          + (f" (worst {worst:.3f} s)" if worst is not None else "")
          + (f"; {failures} round(s) failed" if failures else ""))
    return 1 if failures or verdict != "met" else 0


if __name__ == "__main__":
    sys.exit(main())
