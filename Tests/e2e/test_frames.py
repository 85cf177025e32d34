"""Frame limits, binary frames, the rate limit and pings."""
from __future__ import annotations

import asyncio
import json
import time

import pytest

from e2e_client import Client, run
from rawws import PING, PONG, TEXT, RawWebSocket, frame

LIMIT = 64 * 1024


def padded_list(size: int, request_id: str) -> str:
    head = '{"type":"list","id":"' + request_id + '","pad":"'
    text = head + "x" * (size - len(head) - 2) + '"}'
    assert len(text.encode()) == size
    return text


@pytest.mark.parametrize("compression", [None, "deflate"])
def test_message_over_64k_closes_with_1009(server, compression):
    async def scenario():
        client = await Client.connect(server.ws(), "big", compression=compression)
        bystander = await Client.connect(server.ws(), "bystander")
        await client.send_raw(padded_list(LIMIT + 1, "too-big"))
        code = await client.wait_closed()
        assert code == 1009, f"expected close 1009, got {code}"
        assert not [m for m in client.messages if isinstance(m, dict) and m.get("id") == "too-big"]
        assert (await bystander.request({"type": "list"})).ok
        await bystander.close()
    run(scenario())


@pytest.mark.parametrize("compression", [None, "deflate"])
def test_message_of_exactly_64k_is_read(server, compression):
    async def scenario():
        client = await Client.connect(server.ws(), "edge", compression=compression)
        reply = await client.request_raw(padded_list(LIMIT, "edge"), "edge")
        assert reply.ok or reply.ack["code"] == "bad-request", reply
        assert client.is_open
        assert (await client.request({"type": "list"})).ok
        await client.close()
    run(scenario())


def test_fragmented_message_over_64k_closes_with_1009(server):
    """The limit is on the message, not on each frame of it."""
    async def scenario():
        raw = await RawWebSocket.connect(server.host, server.port)
        message = padded_list(LIMIT + 1, "frag").encode()
        half = len(message) // 2
        await raw.send(TEXT, message[:half], fin=False)
        await raw.send(0x0, message[half:], fin=True)
        close_code = None
        for _ in range(50):
            received = await raw.recv()
            if received is None:
                break
            opcode, payload = received
            if opcode == 0x8:
                close_code = int.from_bytes(payload[:2], "big")
                break
        assert close_code == 1009, f"expected a close frame with 1009, got {close_code}"
        raw.drop()
    run(scenario())


def test_binary_frame_is_bad_request(server):
    async def scenario():
        client = await Client.connect(server.ws())
        mark = client.mark()
        await client.send_raw(b"\x00\x01\x02binary")
        error = await client.next_error(mark)
        assert error["code"] == "bad-request" and "id" not in error
        assert (await client.request({"type": "list"})).ok
        await client.close()
    run(scenario())


def test_rate_limit(server):
    async def scenario():
        client = await Client.connect(server.ws(), "flood", compression=None)
        mark = client.mark()
        # 150 frames at once, bypassing the client's own pacing: in one write, so that the bucket
        # (100, refilled at 100/s) cannot refill while a busy machine holds this process mid-way.
        client.ws.transport.write(b"".join(frame(TEXT, json.dumps({"type": "leave", "id": f"r{i}"}).encode())
                                           for i in range(150)))
        # Once a later frame is answered, every earlier frame has been answered or refused.
        reply = None
        for _ in range(100):
            attempt = client.mark()
            await client.ws.send(json.dumps({"type": "list", "id": "after"}))
            answer = await client.expect(lambda m: isinstance(m, dict) and m.get("type") == "error"
                                         and m.get("code") == "rate-limited"
                                         or isinstance(m, dict) and m.get("id") == "after", attempt)
            if answer.get("id") == "after":
                reply = answer
                break
            await asyncio.sleep(0.02)  # pacing retries while the bucket refills
        assert reply is not None and reply["type"] == "ack", "frames work again after the flood"
        answered = [m for m in client.messages[mark:] if isinstance(m, dict)
                    and isinstance(m.get("id"), str) and m["id"].startswith("r")]
        limited = [m for m in client.messages[mark:] if isinstance(m, dict) and m.get("code") == "rate-limited"]
        assert limited, "150 frames at once must hit the limit of 100 a second"
        assert all("id" not in m for m in limited), "a frame over the limit is not read: its error has no id"
        assert all(m["code"] == "not-joined" for m in answered)
        ids = [m["id"] for m in answered]
        assert len(ids) == len(set(ids)), "each id answered once"
        assert 100 <= len(ids) < 150, f"{len(ids)} of 150 read: a bucket of 100"
        assert client.is_open
        await client.close()
    run(scenario())


def test_rate_limit_of_one_connection_does_not_stall_others(server):
    async def scenario():
        flooder = await Client.connect(server.ws(), "flood")
        calm = await Client.connect(server.ws(), "calm")
        game = (await calm.create("klondike", seed=1)).one("created")["game"]
        await flooder.watch(game)

        async def flood_frames():
            for _ in range(2000):  # separate messages, as fast as the socket takes them
                await flooder.ws.send('{"type":"show"}')
        flood = asyncio.create_task(flood_frames())
        started = time.monotonic()
        for _ in range(20):
            await calm.move({"type": "tap", "target": "/stock"})
        # Milliseconds a move on a quiet machine; a server that waited on the flooder would hold them for
        # seconds each. A generous bound for a busy machine that still catches that.
        assert time.monotonic() - started < 10
        await asyncio.wait_for(flood, 30)
        await flooder.expect(lambda m: isinstance(m, dict) and m.get("code") == "rate-limited")
        assert calm.is_open and flooder.is_open
        await flooder.close()
        await calm.close()
    run(scenario())


def test_pings_keep_answering_clients_and_drop_silent_ones(start_server):
    server = start_server(ping_interval=1)

    async def answering(raw: RawWebSocket, stop: asyncio.Event, pings: list[float], pinged: asyncio.Event):
        """Answers every ping; returns "open" once told to stop, "closed" if the server dropped it."""
        while not stop.is_set():
            received = await raw.recv()  # pings come every second
            if received is None:
                return "closed"
            opcode, payload = received
            if opcode == PING:
                pings.append(time.monotonic())
                await raw.send(PONG, payload)
                pinged.set()
        return "open"

    async def silent(raw: RawWebSocket, pings: list[float]) -> float:
        """Never answers; returns when the server closed the socket."""
        deadline = time.monotonic() + 15  # a wait: the bound is asserted on what it returns
        while time.monotonic() < deadline:
            received = await raw.recv(timeout=max(0.1, deadline - time.monotonic()))
            if received is None:
                return time.monotonic()
            if received[0] == PING:
                pings.append(time.monotonic())
        raise AssertionError("a client that never answers pings was not dropped within 15 s")

    async def scenario():
        library = await Client.connect(server.ws(), "library")  # websockets answers pings itself
        started = time.monotonic()
        polite_raw = await RawWebSocket.connect(server.host, server.port)
        mute_raw = await RawWebSocket.connect(server.host, server.port)
        stop, pinged = asyncio.Event(), asyncio.Event()
        polite_pings: list[float] = []
        mute_pings: list[float] = []
        polite = asyncio.create_task(answering(polite_raw, stop, polite_pings, pinged))
        dropped_at = await silent(mute_raw, mute_pings)
        lifetime = dropped_at - started
        assert mute_pings, "the server pings every --ping-interval"
        # Hung up after twice the interval (2 s), read at lws's 1 s beat: 2-3 s on a quiet machine. The
        # upper bound leaves room for a busy one and still tells it from never, or from a 10 s beat.
        assert 0.9 <= lifetime <= 6.0, f"dropped after {lifetime:.2f}s; expected within ~2-3 intervals"
        # The answering clients outlive it, keep being pinged (at least three pings, one after the silent
        # client was dropped), and still work.
        while True:
            pinged.clear()
            if len(polite_pings) >= 3 and polite_pings[-1] > dropped_at:
                break
            await asyncio.wait_for(pinged.wait(), 15)
        assert not polite.done(), f"an answering client was dropped: {polite.result()}"
        stop.set()
        await polite_raw.send_text('{"type":"list","id":"still-here"}')
        assert await asyncio.wait_for(polite, 15) == "open"
        for _ in range(20):
            received = await polite_raw.recv()
            assert received is not None, "the answering client was dropped"
            if received[0] == PING:
                await polite_raw.send(PONG, received[1])
            elif received[0] == TEXT and b'"still-here"' in received[1]:
                assert json.loads(received[1])["type"] == "ack"
                break
        else:
            raise AssertionError("no ack for the answering client")
        assert library.is_open
        assert (await library.request({"type": "list"})).ok
        polite_raw.drop()
        await library.close()
    run(scenario())


@pytest.mark.parametrize("pad", [40, 700, 3000])
def test_pipelined_frames_in_one_write_are_all_answered(server, pad):
    """Many frames arriving in one TCP write, far more than the server's receive buffer
    holds, are each answered at once: none waits for more input to arrive."""
    async def scenario():
        raw = await RawWebSocket.connect(server.host, server.port)
        count = 90  # under the rate limit's bucket of 100
        burst = b"".join(frame(TEXT, json.dumps({"type": "list", "id": i, "pad": "x" * pad}).encode())
                         for i in range(count))
        raw.writer.write(burst)
        await raw.writer.drain()
        acked = set()
        while len(acked) < count:
            got = await raw.recv()
            assert got is not None, f"connection closed after {len(acked)} of {count} acks"
            opcode, payload = got
            if opcode == TEXT:
                message = json.loads(payload)
                if message.get("type") == "ack":
                    acked.add(message["id"])
        assert acked == set(range(count))
        raw.drop(reset=False)
    run(scenario(), timeout=30)
