#!/usr/bin/env python3
"""Live and resting games: start-up, memory and first-watch time with many
stored games, and a soak of games created, played and abandoned at a steady rate.

  Benchmarks/resting/run.py [--games 100000] [--moves 20] [--watches 300]
  Benchmarks/resting/run.py --soak 360 [--idle 5] [--rate 10]

The first form seeds a data directory with --games resting Klondike games of --moves
moves each (Benchmarks/rest-seed), then starts the release server on an empty directory
and on the seeded one and prints: time to `listening`, RSS, and how long a resting game's
first `watch` takes (p50/p99/max over --watches random games, each a fresh load from
SQLite), with a live game's watch beside it. The second runs one server with a small
--idle and, for --soak seconds, creates --rate games a second, plays 20 moves in each
and abandons it; it prints RSS, CPU and live games every 10 s: flat RSS after warm-up
means memory does not grow with history. Everything runs on 127.0.0.1 and stops by itself.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "e2e"))

from websockets.asyncio.client import connect  # noqa: E402

LISTENING = re.compile(r"listening on http://[^:]+:(\d+)")


def build() -> tuple[str, str]:
    server = os.environ.get("BOARDCAST_SERVER")
    seeder = os.path.join(ROOT, ".build", "release", "rest-seed")
    if not server:
        subprocess.run(["swift", "build", "-c", "release", "--product", "server"], cwd=ROOT, check=True)
        server = os.path.join(ROOT, ".build", "release", "server")
    subprocess.run(["swift", "build", "-c", "release", "--product", "rest-seed"], cwd=ROOT, check=True)
    return server, seeder


class Server:
    def __init__(self, binary: str, data: str, *extra: str):
        # Every client comes from 127.0.0.1: the per-address limits are lifted.
        self.args = [binary, "--host", "127.0.0.1", "--port", "0", "--data", data,
                     "--web", os.path.join(ROOT, "web-static"), "--log-level", "warning",
                     "--max-connections-per-address", "1000000", "--create-rate", "1000000", *extra]

    def start(self) -> float:
        started = time.monotonic()
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for line in self.proc.stdout:
            match = LISTENING.search(line)
            if match:
                self.port = int(match.group(1))
                return time.monotonic() - started
        raise RuntimeError("the server exited before listening")

    def rss_mb(self) -> float:
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def cpu_seconds(self) -> float:
        with open(f"/proc/{self.proc.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"


async def recv_until(ws, predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), max(0.01, deadline - time.monotonic())))
        if predicate(message):
            return message


async def watch_times(url: str, games: list[str]) -> list[float]:
    times = []
    async with connect(url, compression=None, max_size=None) as ws:
        for i, game in enumerate(games):
            started = time.perf_counter()
            await ws.send(json.dumps({"type": "watch", "game": game, "id": i}))
            reply = await recv_until(ws, lambda m: m.get("id") == i)
            assert reply["type"] == "ack", reply
            times.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.011)  # under the rate limit
    return times


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def resting(args, server_bin: str, seeder: str) -> None:
    work = tempfile.mkdtemp(prefix="boardcast-resting-")
    try:
        seeded = os.path.join(work, "seeded")
        began = time.monotonic()
        out = subprocess.run([seeder, "--dir", seeded, "--games", str(args.games), "--moves", str(args.moves)],
                             check=True, capture_output=True, text=True).stdout.strip()
        size = os.path.getsize(os.path.join(seeded, "boardcast.sqlite")) / 1e6
        print(f"{out} ({size:.0f} MB file, {time.monotonic() - began:.1f} s)")

        empty = Server(server_bin, os.path.join(work, "empty"))
        empty_start = empty.start()
        time.sleep(0.5)
        empty_rss = empty.rss_mb()
        empty.stop()

        loaded = Server(server_bin, seeded)
        loaded_start = loaded.start()
        time.sleep(0.5)
        loaded_rss = loaded.rss_mb()
        rng = random.Random(7)
        picks = [f"s{rng.randrange(args.games):05d}" for _ in range(args.watches)]
        first = asyncio.run(watch_times(loaded.url, picks))
        again = asyncio.run(watch_times(loaded.url, picks[:50]))
        after_rss = loaded.rss_mb()
        loaded.stop()

        print()
        print(f"{'figure':52} {'value':>10}   target")
        print(f"{'start-up, empty data directory (s)':52} {empty_start:10.3f}")
        print(f"{'start-up, ' + format(args.games, ',') + ' stored games (s)':52} {loaded_start:10.3f}   < 0.5")
        print(f"{'RSS, empty (MB)':52} {empty_rss:10.1f}")
        print(f"{'RSS, ' + format(args.games, ',') + ' stored games (MB)':52} {loaded_rss:10.1f}   within 15 MB of empty")
        print(f"{'  difference (MB)':52} {loaded_rss - empty_rss:10.1f}")
        print(f"{'first watch of a resting game, p50 (ms)':52} {statistics.median(first):10.2f}")
        print(f"{'first watch of a resting game, p99 (ms)':52} {percentile(first, 99):10.2f}   <= 20")
        print(f"{'first watch of a resting game, max (ms)':52} {max(first):10.2f}")
        print(f"{'watch of a live game (loaded just before), p50 (ms)':52} {statistics.median(again):10.2f}")
        print(f"{'RSS after ' + str(args.watches) + ' loads (MB)':52} {after_rss:10.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


async def play_one(url: str, moves: int) -> None:
    async with connect(url, compression=None, max_size=None) as ws:
        await ws.send(json.dumps({"type": "create", "kind": "klondike", "id": "c"}))
        await recv_until(ws, lambda m: m.get("id") == "c")
        for i in range(moves):
            await ws.send(json.dumps({"type": "tap", "target": "/stock", "id": i}))
            await recv_until(ws, lambda m, i=i: m.get("id") == i)


async def soak_load(url: str, seconds: float, rate: float, stop: asyncio.Event, done: list[int]) -> None:
    tasks: set[asyncio.Task] = set()
    started = time.monotonic()
    n = 0
    while time.monotonic() - started < seconds:
        due = started + n / rate
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        task = asyncio.create_task(play_one(url, 20))
        tasks.add(task)
        task.add_done_callback(lambda t: (tasks.discard(t), done.append(1)))
        n += 1
    await asyncio.gather(*tasks)
    stop.set()


async def soak_sampler(server: Server, stop: asyncio.Event, done: list[int]) -> None:
    print(f"{'t (s)':>6} {'RSS MB':>8} {'CPU s':>8} {'games done':>11}")
    started = time.monotonic()
    while not stop.is_set():
        print(f"{time.monotonic() - started:6.0f} {server.rss_mb():8.1f} {server.cpu_seconds():8.2f} {len(done):11d}",
              flush=True)
        try:
            await asyncio.wait_for(stop.wait(), 10)
        except asyncio.TimeoutError:
            pass
    print(f"{time.monotonic() - started:6.0f} {server.rss_mb():8.1f} {server.cpu_seconds():8.2f} {len(done):11d}")


def soak(args, server_bin: str) -> None:
    work = tempfile.mkdtemp(prefix="boardcast-soak-")
    server = Server(server_bin, os.path.join(work, "data"), "--idle", str(args.idle))
    server.start()
    try:
        async def main():
            stop = asyncio.Event()
            done: list[int] = []
            await asyncio.gather(soak_load(server.url, args.soak, args.rate, stop, done),
                                 soak_sampler(server, stop, done))
        asyncio.run(main())
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--watches", type=int, default=300)
    parser.add_argument("--soak", type=float, default=0, help="seconds of soak instead of the resting figures")
    parser.add_argument("--idle", type=float, default=5)
    parser.add_argument("--rate", type=float, default=10, help="games created per second in the soak")
    args = parser.parse_args()
    server_bin, seeder = build()
    if args.soak > 0:
        soak(args, server_bin)
    else:
        resting(args, server_bin, seeder)


if __name__ == "__main__":
    main()
