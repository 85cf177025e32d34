"""The limits an operator sets (PROTOCOL section 14), against the real server on
127.0.0.1: connections per address, X-Forwarded-For from trusted proxies only, allowed
origins, control-frame floods, a status line for every HTTP request, games created per
address; and a normal game at the defaults that never meets any of them."""
from __future__ import annotations

import asyncio
import json
import re
import socket
import struct
import subprocess
import threading
import time

from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from e2e_client import DEFAULT_TIMEOUT, Client, run
from e2e_server import REPO, SERVER_BIN
from e2e_websocat import Websocat
from rawws import CLOSE, PING, PONG, RawWebSocket, frame, refused_upgrade, upgrade_request
from test_http import http_session, metric_samples

LIMITS = ("connections-per-address", "origin", "create-rate", "control-frames")


def refusals(server) -> dict[str, float]:
    samples = metric_samples(http_session().get(server.http + "/metrics", timeout=15).text)
    return {limit: samples[f'boardcast_limit_refusals_total{{limit="{limit}"}}'] for limit in LIMITS}


async def close_cleanly(raw: RawWebSocket) -> None:
    """A close handshake, read to the end of the connection: once it ends, the server has let the connection go."""
    await raw.send(CLOSE, struct.pack("!H", 1000))
    for _ in range(100):
        received = await raw.recv()
        if received is None:
            return
    raise AssertionError("the server did not end the connection after the close handshake")


async def client_with_headers(server, name: str, headers: dict[str, str], **options) -> Client:
    ws = await connect(server.ws(), additional_headers=headers, proxy=None, open_timeout=DEFAULT_TIMEOUT,
                       close_timeout=3, max_size=4 * 1024 * 1024, max_queue=None, **{"ping_interval": None, **options})
    return Client(ws, name)


# -- connections per address ----------------------------------------------------------------

def test_200_connections_from_one_address_then_429_and_closing_one_makes_room(start_server):
    server = start_server()  # the defaults: --max-connections-per-address 200

    async def scenario():
        raws: list[RawWebSocket] = []
        for _ in range(4):
            raws += await asyncio.gather(*(RawWebSocket.connect(server.host, server.port) for _ in range(50)))
        status, headers, body = await refused_upgrade(server.host, server.port)
        assert status == "HTTP/1.1 429 Too Many Requests", status
        assert headers["content-type"].startswith("text/plain") and headers["connection"] == "close"
        assert b"127.0.0.1" in body and b"200" in body, body
        # The 200 are untouched: each still answers.
        for raw in raws[:3] + raws[-3:]:
            await raw.send_text('{"type":"list","id":"still"}')
            answer = await raw.recv()
            assert answer is not None and json.loads(answer[1])["type"] == "lobby"
        await close_cleanly(raws.pop())
        newcomer = await RawWebSocket.connect(server.host, server.port)
        status, _, _ = await refused_upgrade(server.host, server.port)
        assert status.startswith("HTTP/1.1 429"), status
        assert refusals(server)["connections-per-address"] == 2
        for raw in [*raws, newcomer]:
            raw.drop()
    run(scenario(), timeout=60)


def test_forwarded_for_counts_only_behind_a_trusted_proxy(start_server):
    untrusting = start_server(extra_args=("--max-connections-per-address", "2", "--trusted-proxy", "192.0.2.1"))
    trusting = start_server(extra_args=("--max-connections-per-address", "2", "--trusted-proxy", "127.0.0.1"))

    def forwarded(address: str) -> dict[str, str]:
        return {"X-Forwarded-For": address}

    async def scenario():
        # 127.0.0.1 is no proxy of the first server: a forged header changes nothing.
        held = [await RawWebSocket.connect(untrusting.host, untrusting.port, headers=forwarded(f"203.0.113.{i}"))
                for i in (1, 2)]
        status, _, body = await refused_upgrade(untrusting.host, untrusting.port, headers=forwarded("203.0.113.3"))
        assert status.startswith("HTTP/1.1 429") and b"127.0.0.1" in body, (status, body)

        # The second trusts 127.0.0.1: each forwarded client has a count of its own.
        first = [await RawWebSocket.connect(trusting.host, trusting.port, headers=forwarded("203.0.113.1"))
                 for _ in range(2)]
        status, _, body = await refused_upgrade(trusting.host, trusting.port, headers=forwarded("203.0.113.1"))
        assert status.startswith("HTTP/1.1 429") and b"203.0.113.1" in body, (status, body)
        # The right-most entry not a trusted proxy is the client: a forged left part does not matter.
        status, _, body = await refused_upgrade(trusting.host, trusting.port,
                                                headers=forwarded("198.51.100.77, 203.0.113.1"))
        assert status.startswith("HTTP/1.1 429") and b"203.0.113.1" in body, (status, body)
        others = [await RawWebSocket.connect(trusting.host, trusting.port, headers=forwarded("203.0.113.2")),
                  await RawWebSocket.connect(trusting.host, trusting.port, headers=forwarded("2001:db8::1"))]
        # No header, or one that does not parse: the proxy itself is the client.
        own = [await RawWebSocket.connect(trusting.host, trusting.port),
               await RawWebSocket.connect(trusting.host, trusting.port, headers=forwarded("unknown"))]
        status, _, body = await refused_upgrade(trusting.host, trusting.port)
        assert status.startswith("HTTP/1.1 429") and b"127.0.0.1" in body, (status, body)
        assert refusals(trusting)["connections-per-address"] == 3
        for raw in [*held, *first, *others, *own]:
            raw.drop()
    run(scenario())


# -- origins ----------------------------------------------------------------------------------

def test_allowed_origins_refuse_other_pages_and_let_programs_in(start_server, server):
    guarded = start_server(extra_args=("--allowed-origin", "https://game.example",
                                       "--allowed-origin", "http://localhost:8080"))

    async def scenario():
        status, headers, body = await refused_upgrade(guarded.host, guarded.port,
                                                      headers={"Origin": "https://evil.example"})
        assert status == "HTTP/1.1 403 Forbidden" and b"origin" in body, (status, body)
        for origin in ("https://game.example", "http://localhost:8080"):
            page = await client_with_headers(guarded, "page", {"Origin": origin})
            assert (await page.request({"type": "list"})).ok
            await page.close()
        try:
            await client_with_headers(guarded, "foreign", {"Origin": "http://localhost:8081"})
            raise AssertionError("a page of another origin was let in")
        except InvalidStatus as refused:
            assert refused.response.status_code == 403
        # No Origin at all: a program, not a page; websocat sends none.
        program = await Client.connect(guarded.ws(), "program")
        assert (await program.request({"type": "list"})).ok
        await program.close()
        assert refusals(guarded)["origin"] == 2
        # Without the flag every origin is allowed, as before.
        anyone = await client_with_headers(server, "anyone", {"Origin": "https://evil.example"})
        assert (await anyone.request({"type": "list"})).ok
        await anyone.close()
    run(scenario())

    terminal = Websocat(guarded.ws())
    try:
        terminal.expect_json("lobby", terminal.send("list"))
    finally:
        terminal.close()


# -- control frames -----------------------------------------------------------------------------

class RawFlooder:
    """A WebSocket client on a blocking socket that sends one control frame after another as
    fast as the socket takes them (batches of 500), for at most `seconds`, while a second
    thread reads everything the server sends. Threads, so reading keeps up however fast the
    sender goes, and nothing the server sent before closing is lost."""

    def __init__(self, server, opcode: int, payload: bytes, seconds: float = 10.0):
        self.sock = socket.create_connection((server.host, server.port), timeout=10)
        self.sock.sendall(upgrade_request(server.host, server.port, "/ws", "dGhlIHNhbXBsZSBub25jZQ=="))
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            assert chunk, "closed during the upgrade"
            head += chunk
        assert head.startswith(b"HTTP/1.1 101"), head
        self.rest = head.split(b"\r\n\r\n", 1)[1]
        self.batch = b"".join(frame(opcode, payload) for _ in range(500))
        self.seconds = seconds
        self.sent = 0
        self.pongs = 0
        self.close_code: int | None = None
        self.close_reason = b""
        self.closed_after: float | None = None
        self.stop = threading.Event()
        self.started = time.monotonic()
        self.threads = [threading.Thread(target=self._send, daemon=True), threading.Thread(target=self._read, daemon=True)]
        for thread in self.threads:
            thread.start()

    def _send(self) -> None:
        try:
            while not self.stop.is_set() and time.monotonic() - self.started < self.seconds:
                self.sock.sendall(self.batch)
                self.sent += 500
        except OSError:
            pass  # the server closed the connection

    def _read(self) -> None:
        buffer = self.rest
        try:
            while time.monotonic() - self.started < self.seconds + 5:
                while len(buffer) >= 2:
                    length = buffer[1] & 0x7F
                    if len(buffer) < 2 + length:
                        break
                    opcode, payload, buffer = buffer[0] & 0x0F, buffer[2:2 + length], buffer[2 + length:]
                    if opcode == PONG:
                        self.pongs += 1
                    elif opcode == CLOSE and self.close_code is None:
                        self.close_code = int.from_bytes(payload[:2], "big")
                        self.close_reason = payload[2:]
                        self.closed_after = time.monotonic() - self.started
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                buffer += chunk
        except OSError:
            pass
        finally:
            self.stop.set()

    def finish(self) -> None:
        """Waits for the server to end the connection (or the flood's time to run out), then stops."""
        self.threads[1].join(timeout=self.seconds + 10)
        self.stop.set()
        self.threads[0].join(timeout=10)
        self.sock.close()

    @property
    def done(self) -> bool:
        return self.stop.is_set()


def test_a_ping_flood_is_cut_off_and_other_players_stay_fast(start_server):
    server = start_server()

    async def scenario():
        player = await Client.connect(server.ws(), "player")
        await player.create("klondike", seed=3)
        loop = asyncio.get_running_loop()
        flooder = RawFlooder(server, PING, b"p")
        latencies = []
        for _ in range(400):  # about 20 s at most; ends once the flooder is cut off
            started = loop.time()
            await player.move({"type": "tap", "target": "/stock"})
            latencies.append(loop.time() - started)
            if flooder.done:
                break
            await asyncio.sleep(0.02)  # a player's pace, not synchronisation
        await asyncio.to_thread(flooder.finish)
        assert flooder.close_code == 1008, (flooder.close_code, flooder.close_reason, flooder.sent, flooder.pongs)
        assert b"control frames" in flooder.close_reason
        assert 2.5 <= flooder.closed_after <= 8, flooder.closed_after
        # Answered at about the rate limit (a bucket of 100 refilled at 100/s), not at the flood's pace.
        assert flooder.sent >= 20 * flooder.pongs and flooder.pongs <= 100 + 100 * flooder.closed_after + 100, \
            (flooder.sent, flooder.pongs)
        # Not stalled by the flood: a move takes milliseconds on a quiet machine, and a server that served
        # the flood first would hold them for the flood's seconds. 2 s: a generous bound for a busy one.
        assert len(latencies) >= 10 and max(latencies) < 2.0, \
            f"{len(latencies)} moves, up to {max(latencies):.3f}s each, during the flood"
        assert player.is_open and refusals(server)["control-frames"] == 1
        await player.move({"type": "tap", "target": "/stock"})
        await player.close()
    run(scenario(), timeout=60)


def test_a_flood_of_empty_pongs_is_cut_off_too(start_server):
    """lws reports no empty pong to the server: what counts is that the socket was read and
    nothing came of it."""
    server = start_server()
    flooder = RawFlooder(server, PONG, b"")
    flooder.finish()
    assert flooder.close_code == 1008 and 2.5 <= flooder.closed_after <= 8, (flooder.close_code, flooder.closed_after)


def test_a_client_that_pings_at_a_sane_pace_is_never_touched(server):
    async def scenario():
        raw = await RawWebSocket.connect(server.host, server.port)
        for i in range(60):  # 60 pings over 3 s, each answered
            await raw.send(PING, f"k{i}".encode())
            answer = await raw.recv()
            assert answer == (PONG, f"k{i}".encode()), answer
            await asyncio.sleep(0.05)  # the client's pace
        await raw.send_text('{"type":"list","id":"after"}')
        answer = await raw.recv()
        assert answer is not None and answer[0] != CLOSE and json.loads(answer[1])["type"] == "lobby", answer
        raw.drop()
    run(scenario())


# -- HTTP: a status line for every request --------------------------------------------------------

def raw_http(server, *requests: bytes, pieces: bool = False) -> bytes:
    """Sends the requests on one connection (byte by byte with `pieces`) and reads to its end."""
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            for request in requests:
                if pieces:
                    for index in range(len(request)):
                        sock.sendall(request[index:index + 1])
                else:
                    sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            # The server answered a request it refused from its request line, and closed, while the
            # rest of its headers were still on their way: what it answered is read below.
            pass
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
        return answer


def responses(answer: bytes) -> list[tuple[int, bytes]]:
    """Each response in the bytes: (status, body), by Content-Length."""
    found = []
    while answer:
        head, separator, rest = answer.partition(b"\r\n\r\n")
        assert separator, f"no whole response in {answer[:200]!r}"
        status = re.match(rb"HTTP/1\.[01] (\d{3}) ", head)
        assert status, f"no status line: {head[:100]!r}"
        length = int(re.search(rb"(?im)^content-length: *(\d+)", head).group(1))
        found.append((int(status.group(1)), rest[:length]))
        answer = rest[length:]
    return found


def test_every_http_request_gets_a_status_line(server):
    def get(path: bytes) -> bytes:
        return b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"

    cases = {
        b"/api/games/" + b"a" * 10_000: (400, b"path over 2048 bytes"),
        b"/api/games/" + b"a" * 3000: (400, b"path over 2048 bytes"),
        b"/" + b"b" * 5000 + b".js": (400, b"path over 2048 bytes"),
        b"/api/games/ab%00cd": (400, b"NUL"),
        b"/index%00.html": (400, b"NUL"),
        b"/ws?watch=%00": (400, b"NUL"),
        b"/api/games/%zz": (400, b"percent-encoding"),
        b"/api/games/%4": (400, b"percent-encoding"),
        b"/%": (400, b"percent-encoding"),
        b"/api/games/%0a": (400, b"control character"),
        b"/api/nothing-here": (404, b"not found"),
        b"/api/games/zzzzzz": (404, b"zzzzzz"),
    }
    for path, (status, words) in cases.items():
        answers = responses(raw_http(server, get(path)))
        assert len(answers) == 1 and answers[0][0] == status and words in answers[0][1], (path[:40], answers)
    for line in (b"GARBAGE\r\n\r\n", b"GET /a b HTTP/1.1\r\n\r\n", b"GET / HTTP/3\r\n\r\n"):
        assert responses(raw_http(server, line))[0][0] == 400, line
    # A request line that arrives a byte at a time is read to its end first.
    assert responses(raw_http(server, get(b"/api/games/ab%00cd"), pieces=True))[0][0] == 400
    assert responses(raw_http(server, get(b"/healthz"), pieces=True)) == [(200, b"ok\n")]
    # A later request on a kept-alive connection: lws cuts its over-long path for the server to refuse.
    keep = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    answers = responses(raw_http(server, keep, get(b"/api/games/" + b"c" * 3000)))
    assert [status for status, _ in answers] == [200, 400], answers
    # An upgrade anywhere but /ws.
    status, _, body = asyncio.run(refused_upgrade(server.host, server.port, path="/elsewhere"))
    assert status == "HTTP/1.1 404 Not Found" and b"/ws" in body
    assert http_session().get(server.http + "/healthz", timeout=15).text == "ok\n"


def test_a_connection_that_never_sends_a_request_is_closed(server):
    with socket.create_connection((server.host, server.port), timeout=20) as sock:
        started = time.monotonic()
        assert sock.recv(100) == b""
        assert 9 <= time.monotonic() - started <= 15


# -- games created per address ---------------------------------------------------------------------

def test_the_31st_create_within_a_minute_from_one_address_is_limited(start_server):
    """Two connections of one address share its 30 creations a minute; another address is not
    touched. (Addresses by X-Forwarded-For from a trusted 127.0.0.1.)"""
    server = start_server(extra_args=("--trusted-proxy", "127.0.0.1"))

    async def scenario():
        home = [await client_with_headers(server, f"home{i}", {"X-Forwarded-For": "203.0.113.50"}) for i in range(2)]
        elsewhere = await client_with_headers(server, "elsewhere", {"X-Forwarded-For": "203.0.113.51"})
        started = time.monotonic()
        for index in range(30):  # the bucket starts full: 30 at once
            reply = await home[index % 2].request({"type": "create", "kind": "plane"})
            assert reply.ok and reply.of("created"), (index, reply.ack)
        # Then one every 2 s (30 a minute): the next is refused, unless the 30 took 2 s or more on a busy
        # machine; then the bucket has one more for each 2 s they took, and not one more.
        for extra in range(10):
            mid = f"one-too-many-{extra}"
            over = await home[extra % 2].request({"type": "create", "kind": "plane", "id": mid})
            if not over.ok:
                break
            elapsed = time.monotonic() - started
            assert extra + 1 <= elapsed / 2, f"{31 + extra} creations in {elapsed:.1f}s: over 30 and one per 2 s"
        else:
            raise AssertionError("ten creations past the first 30 and none refused")
        error = over.ack
        assert error["type"] == "error" and error["code"] == "limited" and error["id"] == mid, error
        assert not over.of("created")
        assert re.search(r"try again in \d+ ?s", error["message"]), error["message"]
        other = await elsewhere.request({"type": "create", "kind": "plane"})
        assert other.ok, other.ack
        assert refusals(server)["create-rate"] == 1
        for client in [*home, elsewhere]:
            await client.close()
    run(scenario())


# -- the defaults touch no well-behaved client ---------------------------------------------------

def test_a_normal_game_at_the_defaults_meets_no_limit(start_server):
    server = start_server()

    async def scenario():
        # A player whose library pings (websockets, every 0.2 s), spectators, a replay, a reconnect.
        player = await client_with_headers(server, "player", {}, ping_interval=0.2, ping_timeout=DEFAULT_TIMEOUT)
        game = (await player.create("klondike", seed=11)).one("created")
        spectators = [await Client.connect(server.ws(), f"s{i}") for i in range(5)]
        for spectator in spectators:
            assert (await spectator.watch(game["game"])).ok
        plane = await Client.connect(server.ws(), "plane")
        await plane.create("plane", seed=2)
        for _ in range(40):
            await player.move({"type": "tap", "target": "/stock"})
            await plane.move({"type": "add"})
        for spectator in spectators:
            await spectator.expect(lambda m: isinstance(m, dict) and m.get("type") == "diff" and m.get("seq") == 40)
        state, seq = spectators[0].state, spectators[0].seq
        await spectators[0].close()
        again = await Client.connect(server.ws(), "again")
        again.prime(game["game"], state)
        assert (await again.watch(game["game"], since=seq)).ok
        rejoined = await Client.connect(server.ws(), "rejoined")
        assert (await rejoined.join(game["game"], game["token"])).ok
        await rejoined.move({"type": "tap", "target": "/stock"})
        lobby = await Client.connect(server.ws(), "lobby")
        assert (await lobby.request({"type": "list", "follow": True})).ok
        everyone = [player, *spectators[1:], plane, again, rejoined, lobby]
        for client in everyone:
            limited = [m for m in client.messages if isinstance(m, dict) and m.get("type") == "error"
                       and m.get("code") in ("rate-limited", "limited")]
            assert not limited and client.is_open and not client.problems, (client.name, limited, client.problems)
        assert refusals(server) == {limit: 0 for limit in LIMITS}
        for client in everyone:
            await client.close()
    run(scenario(), timeout=60)


def test_each_limit_has_its_flag_in_help_and_its_line_in_the_readme():
    helped = subprocess.run([SERVER_BIN, "--help"], capture_output=True, text=True, timeout=20).stdout
    readme = (REPO / "README.md").read_text()
    for flag in ("--max-connections-per-address", "--create-rate", "--trusted-proxy", "--allowed-origin"):
        assert flag in helped, f"{flag} not in --help"
        assert re.search(rf"^- `{flag}", readme, re.M), f"no README line starting with `{flag}"
