"""A WebSocket client written by hand on a TCP socket (RFC 6455), for what a
library would not do: never answer pings, send odd frames, vanish mid-frame."""
from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import socket
import struct

# How long a wait for what must come may take: it returns as soon as it comes, so only a failing test
# waits it out (the same as e2e_client.DEFAULT_TIMEOUT; a busy machine can take seconds).
TIMEOUT = 15.0
GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TEXT, BINARY, CLOSE, PING, PONG = 0x1, 0x2, 0x8, 0x9, 0xA


def frame(opcode: int, payload: bytes, fin: bool = True, masked: bool = True) -> bytes:
    head = bytes([(0x80 if fin else 0) | opcode])
    length = len(payload)
    mask_bit = 0x80 if masked else 0
    if length < 126:
        head += bytes([mask_bit | length])
    elif length < 65536:
        head += bytes([mask_bit | 126]) + struct.pack("!H", length)
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", length)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def upgrade_request(host: str, port: int, path: str, key: str, headers: dict[str, str] | None = None) -> bytes:
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    return (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n").encode()


async def refused_upgrade(host: str, port: int, path: str = "/ws", headers: dict[str, str] | None = None,
                          timeout: float = TIMEOUT) -> tuple[str, dict[str, str], bytes]:
    """An upgrade the server must refuse: its status line, headers and body, read to the end of
    the connection (the server closes it)."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        writer.write(upgrade_request(host, port, path, base64.b64encode(os.urandom(16)).decode(), headers))
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), timeout)  # to EOF
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert not lines[0].startswith("HTTP/1.1 101"), "the upgrade was accepted"
    answered = {l.split(":", 1)[0].strip().lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
    assert int(answered.get("content-length", -1)) == len(body), (lines, body)
    return lines[0], answered, body


class RawWebSocket:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, host: str, port: int, path: str = "/ws", timeout: float = TIMEOUT,
                      receive_buffer: int | None = None, headers: dict[str, str] | None = None) -> "RawWebSocket":
        if receive_buffer is None:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        else:  # a small kernel buffer makes a client that does not read push back at once
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
            sock.setblocking(False)
            await asyncio.wait_for(asyncio.get_running_loop().sock_connect(sock, (host, port)), timeout)
            reader, writer = await asyncio.open_connection(sock=sock)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(upgrade_request(host, port, path, key, headers))
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        lines = head.decode("latin-1").split("\r\n")
        assert lines[0].split(" ")[1] == "101", lines[0]
        answered = {l.split(":", 1)[0].strip().lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
        accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        assert answered.get("sec-websocket-accept") == accept, answered
        return cls(reader, writer)

    async def send(self, opcode: int, payload: bytes, fin: bool = True) -> None:
        self.writer.write(frame(opcode, payload, fin))
        await self.writer.drain()

    async def send_text(self, text: str) -> None:
        await self.send(TEXT, text.encode())

    async def recv(self, timeout: float = TIMEOUT) -> tuple[int, bytes] | None:
        """The next whole frame from the server as (opcode, payload); None once the socket closed."""
        try:
            first = await asyncio.wait_for(self.reader.readexactly(2), timeout)
            length = first[1] & 0x7F
            if length == 126:
                length = struct.unpack("!H", await self.reader.readexactly(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", await self.reader.readexactly(8))[0]
            if first[1] & 0x80:
                raise AssertionError("a server must not mask its frames")
            payload = await self.reader.readexactly(length)
            return first[0] & 0x0F, payload
        except (asyncio.IncompleteReadError, ConnectionResetError, BrokenPipeError):
            return None

    def drop(self, reset: bool = True) -> None:
        """Goes away without a close frame: RST (linger 0) or a bare FIN."""
        sock = self.writer.get_extra_info("socket")
        if reset and sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.writer.transport.abort()
