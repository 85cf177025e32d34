"""Players that stream moves back to back and remember what the server acknowledged."""
from __future__ import annotations

import asyncio
from typing import Callable

from websockets.exceptions import ConnectionClosed

from e2e_client import Client, Closed


def klondike_taps(client: Client, i: int) -> dict:
    return {"type": "tap", "target": "/stock"}


def plane_moves(client: Client, i: int) -> dict:
    """Legal plane gestures worked out from the state the client follows."""
    state = client.state
    selected = state["selections"].get(client.you)
    if selected is None or i % 25 == 0:
        return {"type": "add", "x": 100 + (i % 50) * 3, "y": 100 + (i % 40) * 3, "width": 60, "height": 40,
                "alpha": 5}
    rect = state["rectangles"][selected]
    if i % 3 == 0:
        return {"type": "color", "r": i % 256, "g": (i * 7) % 256, "b": (i * 13) % 256}
    if i % 3 == 1:
        return {"type": "alpha", "step": -1 if rect["alpha"] >= 6 else 1}
    cx, cy = rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2
    dx = 7 if cx < state["width"] / 2 else -7
    dy = 5 if cy < state["height"] / 2 else -5
    return {"type": "drag", "from": {"x": cx, "y": cy}, "to": {"x": cx + dx, "y": cy + dy}}


class Streamer:
    """Sends the next command as soon as the last one is answered, until the connection ends."""

    def __init__(self, client: Client, game: str, next_command: Callable[[Client, int], dict] = klondike_taps,
                 ready_after: int = 15, tolerate: tuple[str, ...] = ()):
        self.client, self.game, self.next_command = client, game, next_command
        self.acked: list[tuple[object, int, dict]] = []  # (id, seq, command), in order
        self.ready = asyncio.Event()  # set once `ready_after` moves were acked
        self.ready_after = ready_after
        self.tolerate = tolerate  # error codes that may answer a generated command

    async def run(self, limit: int = 2000, on_ack: Callable[[], None] | None = None) -> None:
        try:
            for i in range(limit):
                command = self.next_command(self.client, i)
                reply = await self.client.request(command)
                if not reply.ok:
                    assert reply.ack["code"] in self.tolerate, (command, reply.ack)
                    continue
                self.acked.append((reply.ack["id"], reply.ack["seq"], command))
                if on_ack:
                    on_ack()
                if len(self.acked) >= self.ready_after:
                    self.ready.set()
        except (ConnectionClosed, Closed):
            return


async def wait_until(event_waits, tasks: list[asyncio.Task], timeout: float) -> None:
    """Awaits `event_waits` (a coroutine), failing at once if a streaming task fails first."""
    waiter = asyncio.ensure_future(event_waits)
    done, _ = await asyncio.wait([waiter, *tasks], timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    for task in done:
        if task is not waiter and task.exception():
            waiter.cancel()
            raise task.exception()
    if waiter not in done:
        waiter.cancel()
        raise AssertionError(f"not ready within {timeout}s")
