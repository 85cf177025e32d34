"""Request heads too large for the server (PROTOCOL section 14): 431 where the server reads the head
before lws, and what happens where lws alone reads it.

The first request of every connection (so every WebSocket upgrade) is read by the server before lws
sees it: a head over 16,384 bytes, over 64 header fields or with a field line over 8,192 bytes is
answered `431 Request Header Fields Too Large`. A later request on a kept-alive connection is parsed
by lws 4.1.6 alone, which closes the connection without a status line when the head overflows its
header buffer or its table of fields: that is asserted here as it is, with the server serving
everyone else meanwhile."""
from __future__ import annotations

import re
import socket
import threading
import time

from e2e_client import Client, run
from rawws import RawWebSocket, upgrade_request
from test_http import http_session
from test_limits import responses

MAX_HEAD_BYTES = 16384
MAX_FIELDS = 64
MAX_FIELD_BYTES = 8192


def complete_responses(answer: bytes) -> int:
    """How many whole responses (head and Content-Length body) `answer` holds."""
    count = 0
    while True:
        head, separator, rest = answer.partition(b"\r\n\r\n")
        length = re.search(rb"(?im)^content-length: *(\d+)", head)
        if not separator or not length or len(rest) < int(length.group(1)):
            return count
        count += 1
        answer = rest[int(length.group(1)):]


def exchange(server, *requests: bytes, served: int | None = None, timeout: float = 10.0) -> tuple[bytes, str]:
    """Sends the requests on one connection from a second thread while this one reads, so a server
    that answers before the client has sent everything is heard; returns what came and how the
    connection ended: "eof" (the server closed it), "reset" (it reset it) or "open" (still open
    after `timeout`, or once `served` whole responses came on a connection kept alive)."""
    sock = socket.create_connection((server.host, server.port), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send() -> None:
        try:
            for request in requests:
                sock.sendall(request)
        except OSError:  # the server refused and closed while the rest was on its way
            pass

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    answer, ended = b"", "open"
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                ended = "reset"
                break
            if not chunk:
                ended = "eof"
                break
            answer += chunk
            if served is not None and complete_responses(answer) >= served:
                break
    finally:
        sock.close()
        sender.join(5)
    return answer, ended


def head(path: str = "/healthz", fields: list[str] | None = None, upgrade: bool = False) -> bytes:
    """A request head: the request line, Host, the given field lines, the empty line."""
    extra = "".join(line + "\r\n" for line in fields or [])
    if upgrade:
        return upgrade_request("127.0.0.1", 1, path, "dGhlIHNhbXBsZSBub25jZQ==", None)[:-2] + extra.encode() + b"\r\n"
    return f"GET {path} HTTP/1.1\r\nHost: x\r\n{extra}\r\n".encode()


A_MEGABYTE = [f"X-Big-{i}: " + "v" * 1000 for i in range(1000)]
FIVE_THOUSAND = [f"X-H{i}: v" for i in range(5000)]
ONE_LONG_LINE = ["X-Long: " + "v" * 10_000]


def assert_431(answer: bytes, ended: str, why: bytes) -> None:
    assert ended in ("eof", "reset"), f"the connection was left open after {answer[:100]!r}"
    found = responses(answer)
    assert len(found) == 1, found
    status, body = found[0]
    assert status == 431, (status, body)
    assert answer.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"), answer[:80]
    assert re.search(rb"(?im)^connection: close\r$", answer.partition(b"\r\n\r\n")[0] + b"\r"), answer[:200]
    assert body == b"request header fields too large: " + why + b"\n", body


def assert_still_serving(server) -> None:
    """Others are served as before: a plain request, and a WebSocket that plays."""
    assert http_session().get(server.http + "/healthz", timeout=15).text == "ok\n"

    async def play():
        client = await Client.connect(server.ws(), "after")
        reply = await client.create("klondike", draw=1, seed=7)
        assert reply.one("created")["game"]
        await client.close()
    run(play())
    assert server.running


# -- the first request of a connection: 431 -----------------------------------------------------------

def test_a_megabyte_of_headers_is_431(server):
    for request in (head(fields=A_MEGABYTE), head("/ws", A_MEGABYTE, upgrade=True), head("/index.html", A_MEGABYTE)):
        answer, ended = exchange(server, request)
        assert_431(answer, ended, b"headers over 16384 bytes")
    assert_still_serving(server)


def test_five_thousand_small_headers_are_431(server):
    for request in (head(fields=FIVE_THOUSAND), head("/ws", FIVE_THOUSAND, upgrade=True)):
        answer, ended = exchange(server, request)
        assert_431(answer, ended, b"over 64 header fields")
    # The 65th field is one too many, whatever its name (Host is the first).
    answer, ended = exchange(server, head(fields=["Accept: text/plain"] * MAX_FIELDS))
    assert_431(answer, ended, b"over 64 header fields")
    assert_still_serving(server)


def test_one_over_long_header_line_is_431(server):
    for request in (head(fields=ONE_LONG_LINE), head("/ws", ["Cookie: " + "c" * 9000], upgrade=True),
                    head(fields=["X-Long: " + "v" * 100_000])):
        answer, ended = exchange(server, request)
        assert_431(answer, ended, b"a header field over 8192 bytes")
    # The longest field line is served, one byte more is not.
    longest = "X-Long: " + "v" * (MAX_FIELD_BYTES - len("X-Long: "))
    answer, _ = exchange(server, head(fields=[longest]), served=1)
    assert responses(answer) == [(200, b"ok\n")]
    answer, ended = exchange(server, head(fields=[longest + "v"]))
    assert_431(answer, ended, b"a header field over 8192 bytes")
    assert_still_serving(server)


def test_a_head_sent_in_pieces_is_judged_as_a_whole(server):
    request = head(fields=FIVE_THOUSAND[:200])
    pieces = [request[i:i + 300] for i in range(0, len(request), 300)]
    answer, ended = exchange(server, *pieces)
    assert_431(answer, ended, b"over 64 header fields")
    # Within the limits, in pieces: served (the largest head too, so the wait for its end goes on
    # while most of it is in).
    for request, size in ((head(fields=FIVE_THOUSAND[:40]), 50), (largest_head(), 1000)):
        answer, _ = exchange(server, *[request[i:i + size] for i in range(0, len(request), size)], served=1)
        assert responses(answer) == [(200, b"ok\n")]
    request = largest_head()[:-4] + b"w\r\n\r\n"
    answer, ended = exchange(server, *[request[i:i + 1000] for i in range(0, len(request), 1000)])
    assert_431(answer, ended, b"headers over 16384 bytes")


def largest_head(path: str = "/healthz", line_end: bytes = b"\r\n") -> bytes:
    """A head of exactly the most bytes, in the most fields (Host and 63 more), of names lws does not
    know: lws keeps each with an 8-byte link and no line end, so this takes the most of its buffer."""
    base = len(head(path, fields=[]))
    each = (MAX_HEAD_BYTES - base) // (MAX_FIELDS - 1)
    fields = [f"X-F{i:02d}: " + "v" * (each - len("X-F00: ") - 2) for i in range(MAX_FIELDS - 1)]
    fields[-1] += "w" * (MAX_HEAD_BYTES - len(head(path, fields=fields)))
    request = head(path, fields=fields)
    assert len(request) == MAX_HEAD_BYTES
    if line_end != b"\r\n":  # bare line feeds: more room for the values, as much head
        request = request.replace(b"\r\n", line_end)
        request = request[:-2] + b"v" * (MAX_HEAD_BYTES - len(request)) + request[-2:]
        assert len(request) == MAX_HEAD_BYTES
    return request


def test_heads_up_to_the_limits_are_served_and_lws_has_room_for_them(server):
    """lws 4.1.6's own header buffer is 4,096 bytes by default and its table 94 fields: the server
    gives it room for any head its own limits pass, so these would be dropped without it."""
    args = "&".join(f"a{i}=1" for i in range(24))
    for request in (largest_head(), largest_head(line_end=b"\n"), largest_head("/healthz?" + args, b"\n")):
        answer, _ = exchange(server, request, served=1)
        assert responses(answer) == [(200, b"ok\n")], answer[:200]
    # One byte more is refused.
    answer, ended = exchange(server, largest_head()[:-4] + b"w\r\n\r\n")
    assert_431(answer, ended, b"headers over 16384 bytes")
    # The most fields of one name lws knows, and the most query arguments: lws's table is full but not over.
    answer, _ = exchange(server, head("/healthz?" + args, ["Accept: */*"] * (MAX_FIELDS - 1)), served=1)
    assert responses(answer) == [(200, b"ok\n")], answer[:200]
    answer, ended = exchange(server, head("/healthz?" + args + "&a24=1"))
    assert ended in ("eof", "reset") and responses(answer)[0][0] == 400 and b"over 24 query arguments" in answer
    # A WebSocket upgrade with a 5 KB cookie and 50 more fields: 101.

    async def upgrade():
        extra = {"Cookie": "c" * 5000, **{f"X-Proxy-{i}": "10.0.0.1" for i in range(50)}}
        raw = await RawWebSocket.connect(server.host, server.port, headers=extra)
        await raw.send_text('{"type":"list"}')
        assert b'"type":"lobby"' in (await raw.recv())[1]
        raw.drop()
    run(upgrade())


# -- later requests on a kept-alive connection: lws's alone, closed without a status line -----------------

def test_a_later_request_over_lws_limits_is_closed_without_a_status_line(server):
    keep = head()  # GET /healthz, kept alive
    for later in (head(fields=A_MEGABYTE), head(fields=FIVE_THOUSAND), head(fields=["Accept: x"] * 100)):
        started = time.monotonic()
        answer, ended = exchange(server, keep, later)
        # The first request is answered; the second gets nothing, and the connection ends at once.
        assert responses(answer) == [(200, b"ok\n")], answer[:300]
        assert ended in ("eof", "reset"), ended
        assert time.monotonic() - started < 5
        assert b"431" not in answer
    # Within lws's buffer, a later request is served even past the first request's field count:
    # the server does not see it.
    answer, ended = exchange(server, keep, head(fields=FIVE_THOUSAND[:200]), served=2)
    assert responses(answer) == [(200, b"ok\n"), (200, b"ok\n")], answer[:300]
    assert_still_serving(server)
