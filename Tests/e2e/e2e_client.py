"""A small protocol client over the `websockets` library.

It keeps every message it receives, follows one game's seq and state by applying
each diff with a generic RFC 6902 library, and records any gap or patch failure
so tests can assert there were none.
"""
from __future__ import annotations

import asyncio
import copy
import itertools
import json
import time
import uuid
from typing import Any, Callable

import jsonpatch
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

# Generous: an answer that takes this long is a failure on any machine, and a busy 2-core one (load 4)
# answers in well under a second; only a failing test ever waits it out.
DEFAULT_TIMEOUT = 15.0
ServerMessage = Any  # a dict for JSON messages, a str for plain-text frames, bytes for binary ones


class Closed(AssertionError):
    """The connection closed while a reply was awaited."""


class Reply(list):
    """The messages received from sending a request up to its ack/error."""

    @property
    def ack(self) -> dict:
        return self[-1]

    @property
    def ok(self) -> bool:
        return self.ack.get("type") == "ack"

    def of(self, kind: str) -> list[dict]:
        return [m for m in self if isinstance(m, dict) and m.get("type") == kind]

    def one(self, kind: str) -> dict:
        found = self.of(kind)
        assert len(found) == 1, f"expected one {kind!r} in {self!r}"
        return found[0]

    def types(self) -> list[str]:
        return [m.get("type") if isinstance(m, dict) else "<text>" for m in self]


class Pacer:
    """Keeps a client under the server's 100 frames/s rate limit (a bucket of its own)."""

    def __init__(self, rate: float = 80.0, burst: float = 60.0):
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp = burst, time.monotonic()

    async def take(self) -> None:
        for _ in range(1000):
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            await asyncio.sleep((1 - self.tokens) / self.rate)


_unique = itertools.count(1)


def new_id() -> str:
    return f"t{next(_unique)}-{uuid.uuid4().hex[:10]}"


class Client:
    def __init__(self, ws, name: str = ""):
        self.ws = ws
        self.name = name
        self.messages: list[ServerMessage] = []
        self.game: str | None = None
        self.kind: str | None = None
        self.role: str | None = None
        self.you: str | None = None
        self.seq: int | None = None
        self.state: Any = None
        self.diffs: list[dict] = []
        self.problems: list[str] = []  # gaps, patch failures: must stay empty
        self.close_code: int | None = None
        self.pacer = Pacer()
        self._since: int | None = None
        self._arrived = asyncio.Event()
        self._closed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, url: str, name: str = "", subprotocols=None, compression: str | None = "deflate",
                      timeout: float = DEFAULT_TIMEOUT) -> "Client":
        ws = await connect(url, subprotocols=subprotocols, compression=compression, proxy=None,
                           open_timeout=timeout, ping_interval=None, close_timeout=3,
                           max_size=4 * 1024 * 1024, max_queue=None)
        return cls(ws, name)

    # -- receiving ----------------------------------------------------------

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                if isinstance(frame, bytes):
                    message: ServerMessage = frame
                else:
                    try:
                        message = json.loads(frame)
                    except ValueError:
                        message = frame
                self._track(message)
                self.messages.append(message)
                self._arrived.set()
        except ConnectionClosed:
            pass
        finally:
            self.close_code = self.ws.close_code
            self._closed.set()
            self._arrived.set()

    def _track(self, m: ServerMessage) -> None:
        if not isinstance(m, dict):
            return
        kind = m.get("type")
        if kind == "joined":
            if m.get("game") != self.game and self._since is None:
                self.state = None
            self.game, self.kind, self.role, self.you = m.get("game"), m.get("kind"), m.get("role"), m.get("you")
            # With `since`, the diffs that follow start right after it.
            self.seq = self._since if self._since is not None else m.get("seq")
            self._since = None
        elif kind == "snapshot" and m.get("game") == self.game:
            self.state = copy.deepcopy(m["state"])
            self.seq = m["seq"]
        elif kind == "diff" and m.get("game") == self.game:
            self.diffs.append(m)
            if self.seq is not None and m["seq"] != self.seq + 1:
                self.problems.append(f"{self.name}: diff seq {m['seq']} after {self.seq}")
            if self.state is not None:
                try:
                    self.state = jsonpatch.apply_patch(self.state, m["ops"])
                except Exception as error:  # noqa: BLE001 - any failure is a finding
                    self.problems.append(f"{self.name}: diff {m['seq']} does not apply: {error!r}")
            self.seq = m["seq"]
        elif kind == "left":
            self.game = self.role = self.you = None
            self.state = self.seq = None

    def prime(self, game: str, state: Any) -> None:
        """Gives a new connection a state it already knows, to resume with `since`."""
        self.game, self.state = game, copy.deepcopy(state)

    def mark(self) -> int:
        return len(self.messages)

    async def expect(self, predicate: Callable[[ServerMessage], bool], after: int = 0,
                     timeout: float = DEFAULT_TIMEOUT) -> ServerMessage:
        """The first message at index >= `after` matching `predicate`, awaited."""
        index = await self.expect_index(predicate, after, timeout)
        return self.messages[index]

    async def expect_index(self, predicate, after: int = 0, timeout: float = DEFAULT_TIMEOUT) -> int:
        deadline = time.monotonic() + timeout
        position = after
        while True:
            self._arrived.clear()
            while position < len(self.messages):
                if predicate(self.messages[position]):
                    return position
                position += 1
            if self._closed.is_set():
                raise Closed(f"{self.name}: closed ({self.close_code}) while waiting; got {self.messages[after:]!r}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{self.name}: timed out after {timeout}s; got {self.messages[after:]!r}")
            try:
                await asyncio.wait_for(self._arrived.wait(), remaining)
            except asyncio.TimeoutError:
                pass

    async def expect_type(self, kind: str, after: int = 0, timeout: float = DEFAULT_TIMEOUT, **fields) -> dict:
        return await self.expect(lambda m: isinstance(m, dict) and m.get("type") == kind
                                 and all(m.get(k) == v for k, v in fields.items()), after, timeout)

    def received(self, kind: str, after: int = 0) -> list[dict]:
        return [m for m in self.messages[after:] if isinstance(m, dict) and m.get("type") == kind]

    # -- sending ------------------------------------------------------------

    async def send_raw(self, frame: str | bytes, text: bool | None = None) -> None:
        await self.pacer.take()
        await self.ws.send(frame, text=text)

    async def send(self, message: dict) -> None:
        if message.get("type") in ("join", "watch") and "since" in message and isinstance(message["since"], int):
            self._since = message["since"]
        await self.send_raw(json.dumps(message))

    async def request(self, message: dict, timeout: float = DEFAULT_TIMEOUT) -> Reply:
        """Sends `message` with an id (its own, or a fresh one) and awaits the ack/error for it."""
        message = dict(message)
        message.setdefault("id", new_id())
        start = self.mark()
        await self.send(message)
        return await self.reply_to(message["id"], start, timeout)

    async def request_raw(self, frame: str | bytes, request_id, text: bool | None = None,
                          timeout: float = DEFAULT_TIMEOUT) -> Reply:
        start = self.mark()
        await self.send_raw(frame, text=text)
        return await self.reply_to(request_id, start, timeout)

    async def reply_to(self, request_id, start: int, timeout: float = DEFAULT_TIMEOUT) -> Reply:
        def answers(m):
            return (isinstance(m, dict) and m.get("type") in ("ack", "error") and "id" in m
                    and m["id"] == request_id and type(m["id"]) is type(request_id))
        end = await self.expect_index(answers, start, timeout)
        return Reply(self.messages[start:end + 1])

    async def next_error(self, after: int, timeout: float = DEFAULT_TIMEOUT) -> dict:
        return await self.expect_type("error", after, timeout)

    # -- conveniences -------------------------------------------------------

    async def create(self, kind: str, **options) -> Reply:
        reply = await self.request({"type": "create", "kind": kind, "options": options})
        assert reply.ok, reply
        return reply

    async def watch(self, game: str, since: int | None = None) -> Reply:
        message = {"type": "watch", "game": game}
        if since is not None:
            message["since"] = since
        return await self.request(message)

    async def join(self, game: str, token: str, since: int | None = None) -> Reply:
        message = {"type": "join", "game": game, "token": token}
        if since is not None:
            message["since"] = since
        return await self.request(message)

    async def move(self, message: dict, timeout: float = DEFAULT_TIMEOUT) -> Reply:
        """A command that must be applied: exactly one diff of ours, then the ack."""
        reply = await self.request(message, timeout)
        assert reply.ok, f"{message} -> {reply.ack}"
        return reply

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self.ws.close(), 5)
        except Exception:  # noqa: BLE001 - best effort at teardown
            self.ws.transport.abort()
        await self.wait_closed(5)

    def abort(self) -> None:
        """Drops the TCP connection without a close handshake."""
        self.ws.transport.abort()

    async def wait_closed(self, timeout: float = DEFAULT_TIMEOUT) -> int | None:
        await asyncio.wait_for(self._closed.wait(), timeout)
        return self.close_code

    @property
    def is_open(self) -> bool:
        return not self._closed.is_set()


async def fresh_snapshot(url: str, game: str) -> dict:
    """The game as a new spectator sees it: its `snapshot` message."""
    client = await Client.connect(url, name="snapshot")
    try:
        reply = await client.watch(game)
        assert reply.ok, reply
        return reply.one("snapshot")
    finally:
        await client.close()


async def connect_many(url: str, count: int, prefix: str = "c") -> list[Client]:
    return list(await asyncio.gather(*(Client.connect(url, name=f"{prefix}{i}") for i in range(count))))


def strip_cause(command: dict) -> dict:
    """What a diff's `cause` must show for `command` (before `by` is added)."""
    cause = {k: v for k, v in command.items() if k not in ("id", "token", "seed", "deck")}
    if isinstance(cause.get("options"), dict):
        cause["options"] = {k: v for k, v in cause["options"].items() if k not in ("seed", "deck")}
    return cause


def normalise_cause(cause: dict) -> dict:
    """An `options` object left empty once seed/deck are removed may be sent or left out."""
    cause = dict(cause)
    if cause.get("options") == {}:
        del cause["options"]
    return cause


async def eventually(check: Callable[[], Any], within: float = 10.0, every: float = 0.1) -> Any:
    """For what can only be polled (HTTP): `check()` must pass within `within` seconds."""
    deadline = time.monotonic() + within
    while True:
        try:
            return check()
        except AssertionError:
            if time.monotonic() >= deadline:
                raise
        await asyncio.sleep(every)


def run(coroutine, timeout: float = 90.0):
    """Runs one test's coroutine on a fresh event loop, bounded in time."""
    return asyncio.run(asyncio.wait_for(coroutine, timeout))
