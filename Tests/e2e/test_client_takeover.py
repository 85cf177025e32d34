"""PROTOCOL section 21 across a takeover (section 11.1): `boardcast-client play` and `watch`
reach two nodes on one PostgreSQL store through a proxy, as they would through a load balancer.
The node that owns their game is killed -9 mid-game and the proxy sends every new connection to
the other node, which takes the game over from the store. The clients must ride that out by
themselves: the game's history then holds each move `play` printed exactly once, in the order it
printed them, and `watch` printed every seq once, in order, with the server's state.

Each client built here is tried: Node's (clients/js) always, the Swift one when
BOARDCAST_SWIFT_CLIENT names its binary (scripts/test does once clients/swift is built)."""
from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from pathlib import Path

import jsonpatch
import pytest

from e2e_client import Client, run
from test_cluster import redis  # noqa: F401 - the redis fixture

ROOT = Path(__file__).resolve().parents[2]
LEASE = 2  # seconds


def _clients() -> list:
    node_command = ["node"]
    probe = subprocess.run(["node", "-e", "process.exit(typeof WebSocket === 'function' ? 0 : 1)"],
                           capture_output=True)
    if probe.returncode != 0:
        node_command.append("--experimental-websocket")
    clients = [pytest.param([*node_command, str(ROOT / "clients/js/bin/boardcast-client.js")], id="js")]
    swift = os.environ.get("BOARDCAST_SWIFT_CLIENT")
    if swift:
        clients.append(pytest.param([swift], id="swift"))
    return clients


class SwitchingProxy:
    """A TCP proxy in front of the nodes: each connection goes to the node it points at when the
    connection opens. `point_at` moves it and cuts every open connection at once (an abort, no
    close frame), as a load balancer does when its node dies."""

    def __init__(self) -> None:
        self.upstream: int | None = None
        self.open: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self.server: asyncio.Server | None = None
        self.port = 0

    async def start(self, upstream: int) -> None:
        self.upstream = upstream
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def point_at(self, upstream: int) -> None:
        self.upstream = upstream
        for client, server in list(self.open):
            client.transport.abort()
            server.transport.abort()

    async def close(self) -> None:
        self.point_at(0)
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        except OSError:
            writer.transport.abort()
            return
        pair = (writer, up_writer)
        self.open.add(pair)

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                sink.transport.abort()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self.open.discard(pair)


class Child:
    """A boardcast-client process: its stdout lines as they come, its stderr kept for failures."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self.stderr = ""
        self.arrived = asyncio.Event()
        self.readers = asyncio.gather(self._read_stdout(), self._read_stderr())

    @classmethod
    async def start(cls, command: list[str]) -> "Child":
        process = await asyncio.create_subprocess_exec(
            *command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return cls(process)

    async def _read_stdout(self) -> None:
        while line := await self.process.stdout.readline():
            self.lines.append(line.decode())
            self.arrived.set()

    async def _read_stderr(self) -> None:
        while chunk := await self.process.stderr.read(4096):
            self.stderr += chunk.decode(errors="replace")
            self.arrived.set()

    async def until(self, check, timeout: float) -> None:
        async def wait() -> None:
            while not check(self):
                self.arrived.clear()
                await self.arrived.wait()
        try:
            await asyncio.wait_for(wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"not within {timeout} s; stdout {self.lines}; stderr:\n{self.stderr[-3000:]}")

    async def exit_code(self, timeout: float) -> int:
        try:
            code = await asyncio.wait_for(self.process.wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"still running after {timeout} s; stderr:\n{self.stderr[-3000:]}")
        await self.readers
        return code

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()

    def parsed(self) -> list[dict]:
        assert all(line.endswith("\n") for line in self.lines), "every stdout line ends with a newline"
        return [json.loads(line) for line in self.lines]


CREATED = re.compile(r"created game ([A-Za-z0-9]+)\s")


async def created_game(child: Child) -> str:
    """The id play logs on stderr once it has created its game."""
    await child.until(lambda c: CREATED.search(c.stderr), timeout=30)
    return CREATED.search(child.stderr).group(1)


async def replayed_states(url: str, game: str) -> list:
    """The game's state at every seq, from a replay (the snapshot at seq 0, then every diff)."""
    reader = await Client.connect(url, "history")
    reply = await reader.request({"type": "watch", "game": game, "replay": True})
    assert reply.ok, reply.ack
    snapshot = reply.one("snapshot")
    assert snapshot["seq"] == 0
    states, causes = [snapshot["state"]], [None]
    for diff in reply.of("diff"):
        assert diff["seq"] == len(states), f"replay: diff {diff['seq']} after {len(states) - 1}"
        states.append(jsonpatch.apply_patch(states[-1], diff["ops"]))
        causes.append(diff["cause"])
    await reader.close()
    return list(zip(states, causes))


@pytest.mark.parametrize("command", _clients())
def test_play_and_watch_ride_out_a_kill_9_of_their_games_owner_and_its_takeover(command, start_server, tmp_path,
                                                                                redis, postgres_server):  # noqa: F811
    store = postgres_server.create_database()
    a, b = (start_server(data=tmp_path / name, extra_args=(
        "--store", store, "--redis", redis.url, "--node", name, "--lease", str(LEASE))) for name in ("node-a", "node-b"))
    children: list[Child] = []

    async def scenario() -> None:
        proxy = SwitchingProxy()
        await proxy.start(a.port)
        try:
            play = await Child.start([*command, "play", proxy.url, "--seed", "20261128", "--bot", "1"])
            children.append(play)
            game = await created_game(play)
            watch = await Child.start([*command, "watch", proxy.url, game])
            children.append(watch)
            await watch.until(lambda c: len(c.lines) >= 1, timeout=30)
            # Two moves on the first owner, then it dies with the game under way.
            await play.until(lambda c: len(c.lines) >= 2, timeout=60)
            a.kill()
            proxy.point_at(b.port)
            assert await play.exit_code(timeout=120) == 0, play.stderr[-3000:]
            assert await watch.exit_code(timeout=60) == 0, watch.stderr[-3000:]
        finally:
            await proxy.close()

        out = play.parsed()
        final, moves = out[-1], out[:-1]
        assert len(moves) >= 4, "at least four moves of p1 in a game of four in a row"
        assert [m["move"] for m in moves] == list(range(1, len(moves) + 1))
        assert list(final) == ["game", "seq", "status", "state"] and final["game"] == game
        assert final["status"] in ("won", "drawn") and final["state"]["status"] == final["status"]

        history = await replayed_states(b.ws(), game)
        taps = [(seq, int(cause["target"].split("/")[2])) for seq, (_, cause) in enumerate(history)
                if cause and cause.get("by") == "p1" and cause.get("type") == "tap"]
        assert taps == [(m["seq"], m["column"]) for m in moves], \
            "the history holds each of play's moves exactly once, in the order it printed them"
        assert final["seq"] == len(history) - 1 and final["state"] == history[-1][0], "play's copy is the server's"

        shown = watch.parsed()
        assert [s["seq"] for s in shown] == list(range(shown[0]["seq"], final["seq"] + 1)), "every seq once, in order"
        for s in shown:
            assert s["state"] == history[s["seq"]][0], f"watch's state at seq {s['seq']}"

    try:
        run(scenario(), timeout=240)
    finally:
        for child in children:
            child.kill()

