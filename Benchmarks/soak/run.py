#!/usr/bin/env python3
"""Soak: 1,000 spectators over 100 games, moves at a steady rate (rectangles
added to each game's plane, which its player clears every 30 moves, so each game's state
stays bounded), spectators reconnecting with `since` and new ones joining and leaving, for
a configurable time.

  Benchmarks/soak/run.py [--minutes 10] [--games 100] [--spectators 1000] [--rate 100]
                         [--churn 5] [--data DIR|:memory:] [--plot soak.png]

Every 10 s it prints the server's RSS and CPU (from /proc), the deliveries and the p99
delivery latency of that window (a move's send to a spectator's receipt, one process and
one clock), and the counts of loss, reordering and errors, which must stay 0. --plot
writes a PNG of RSS and p99 over time (needs matplotlib: `pip install matplotlib`).
Everything runs on 127.0.0.1, is bounded by --minutes and stops by itself. Python is
the client here, so latency includes its event loop: figures are upper bounds.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from websockets.asyncio.client import connect  # noqa: E402

LISTENING = re.compile(r"listening on http://[^:]+:(\d+)")
# A player adds rectangles and clears its plane every RESET_EVERY moves, as people do: a game
# whose state grew without end (a plane holds up to 10,000 rectangles) would make RSS and
# snapshots grow by design, and hide a leak instead of showing one.
RESET_EVERY = 30


class Stats:
    def __init__(self):
        self.latencies: list[float] = []
        self.deliveries = 0
        self.loss = 0
        self.reordered = 0
        self.errors = 0
        self.reconnects = 0
        self.joins = 0

    def window(self) -> tuple[int, float]:
        latencies, self.latencies = self.latencies, []
        count, self.deliveries = self.deliveries, 0
        if not latencies:
            return count, 0.0
        latencies.sort()
        return count, latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]


class Game:
    def __init__(self):
        self.id = ""
        self.sent: dict[int, float] = {}  # seq -> send time


async def recv_json(ws):
    return json.loads(await ws.recv())


async def player(url: str, game: Game, rate: float, stop: asyncio.Event, stats: Stats, ready: asyncio.Event):
    async with connect(url, compression=None, max_size=None, ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "create", "kind": "plane", "id": "c"}))
        while True:
            m = await recv_json(ws)
            if m.get("type") == "created":
                game.id = m["game"]
            if m.get("id") == "c":
                break
        ready.set()
        seq = 0
        n = 0
        started = time.monotonic()
        while not stop.is_set():
            n += 1
            await asyncio.sleep(max(0.0, started + n / rate - time.monotonic()))
            game.sent[seq + 1] = time.monotonic()
            if n % RESET_EVERY == 0:
                message = {"type": "reset", "id": n}
            else:
                message = {"type": "add", "x": random.randint(0, 900), "y": random.randint(0, 640), "id": n}
            await ws.send(json.dumps(message))
            while True:
                m = await recv_json(ws)
                if m.get("type") == "diff":
                    seq = m["seq"]
                elif m.get("type") == "error":
                    stats.errors += 1
                if m.get("id") == n:
                    break


async def spectator(url: str, game: Game, stop: asyncio.Event, stats: Stats, lifetime: float | None):
    """Watches; with a lifetime, leaves after it (a join that leaves). Reconnects with since."""
    last = None
    born = time.monotonic()
    while not stop.is_set():
        try:
            async with connect(url, compression=None, max_size=None) as ws:
                message = {"type": "watch", "game": game.id}
                if last is not None:
                    message["since"] = last
                await ws.send(json.dumps(message))
                # Drop the connection now and then, as phones do, and come back with `since`.
                drop_at = time.monotonic() + random.uniform(20, 120)
                while not stop.is_set():
                    if lifetime is not None and time.monotonic() - born > lifetime:
                        return
                    if time.monotonic() > drop_at:
                        stats.reconnects += 1
                        break
                    try:
                        m = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                    except asyncio.TimeoutError:
                        continue
                    kind = m.get("type")
                    if kind == "snapshot":
                        last = m["seq"]
                    elif kind == "diff":
                        seq = m["seq"]
                        if last is not None and seq != last + 1:
                            if seq <= last:
                                stats.reordered += 1
                            else:
                                stats.loss += seq - last - 1
                        last = seq
                        sent = game.sent.get(seq)
                        if sent is not None:
                            stats.latencies.append((time.monotonic() - sent) * 1000)
                        stats.deliveries += 1
                    elif kind == "error":
                        stats.errors += 1
        except (OSError, asyncio.TimeoutError) as error:
            if not stop.is_set():
                stats.errors += 1
                print("spectator:", error, file=sys.stderr)
            return


def proc_figures(pid: int) -> tuple[float, float]:
    with open(f"/proc/{pid}/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return rss, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def churn(url: str, games: list[Game], stop: asyncio.Event, stats: Stats, per_second: float):
    tasks = set()
    while not stop.is_set():
        await asyncio.sleep(1 / per_second)
        stats.joins += 1
        task = asyncio.create_task(spectator(url, random.choice(games), stop, stats, lifetime=random.uniform(5, 30)))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    await asyncio.gather(*tasks, return_exceptions=True)


async def soak(args, pid: int, url: str) -> list[tuple]:
    stats = Stats()
    stop = asyncio.Event()
    games = [Game() for _ in range(args.games)]
    readies = [asyncio.Event() for _ in games]
    players = [asyncio.create_task(player(url, g, args.rate / args.games, stop, stats, r)) for g, r in zip(games, readies)]
    for ready in readies:
        await ready.wait()
    per_game = args.spectators // args.games
    spectators = [asyncio.create_task(spectator(url, g, stop, stats, None)) for g in games for _ in range(per_game)]
    churner = asyncio.create_task(churn(url, games, stop, stats, args.churn))
    rows = []
    started = time.monotonic()
    _, cpu0 = proc_figures(pid)
    print(f"{'t (s)':>6} {'RSS MB':>8} {'CPU %':>6} {'deliveries/s':>13} {'p99 ms':>8} {'loss':>5} {'reord':>6} {'errors':>6} "
          f"{'reconn':>7} {'joins':>6}", flush=True)
    last_t, last_cpu = started, cpu0
    while time.monotonic() - started < args.minutes * 60:
        await asyncio.sleep(10)
        now = time.monotonic()
        rss, cpu = proc_figures(pid)
        count, p99 = stats.window()
        row = (now - started, rss, 100 * (cpu - last_cpu) / (now - last_t), count / (now - last_t), p99,
               stats.loss, stats.reordered, stats.errors, stats.reconnects, stats.joins)
        rows.append(row)
        print(f"{row[0]:6.0f} {row[1]:8.1f} {row[2]:6.1f} {row[3]:13.0f} {row[4]:8.1f} {row[5]:5d} {row[6]:6d} {row[7]:6d} "
              f"{row[8]:7d} {row[9]:6d}", flush=True)
        last_t, last_cpu = now, cpu
    stop.set()
    await asyncio.gather(*players, *spectators, churner, return_exceptions=True)
    return rows


def plot(rows, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = [r[0] / 60 for r in rows]
    figure, left = plt.subplots(figsize=(8, 3.2), dpi=100)
    left.plot(t, [r[1] for r in rows], color="tab:blue", label="RSS (MB)")
    left.set_xlabel("minutes")
    left.set_ylabel("RSS (MB)", color="tab:blue")
    left.set_ylim(bottom=0)
    right = left.twinx()
    right.plot(t, [r[4] for r in rows], color="tab:red", label="p99 latency (ms)")
    right.set_ylabel("p99 delivery (ms)", color="tab:red")
    right.set_ylim(bottom=0)
    plt.title("Soak: 1,000 spectators over 100 games")
    figure.tight_layout()
    figure.savefig(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=100, help="moves a second over all games")
    parser.add_argument("--churn", type=float, default=5, help="short-lived spectators joining a second")
    parser.add_argument("--data", default=None, help="data directory (default: a fresh temporary one)")
    parser.add_argument("--plot", default=None)
    args = parser.parse_args()
    server = os.environ.get("BOARDCAST_SERVER")
    if not server:
        subprocess.run(["swift", "build", "-c", "release", "--product", "server"], cwd=ROOT, check=True)
        server = os.path.join(ROOT, ".build", "release", "server")
    work = tempfile.mkdtemp(prefix="boardcast-soak-")
    data = args.data or os.path.join(work, "data")
    # Every player and spectator comes from 127.0.0.1: the per-address limits are lifted.
    proc = subprocess.Popen([server, "--host", "127.0.0.1", "--port", "0", "--data", data, "--log-level", "warning",
                             "--web", os.path.join(ROOT, "web-static"),
                             "--max-connections-per-address", "1000000", "--create-rate", "1000000"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        port = next(int(m.group(1)) for line in proc.stdout if (m := LISTENING.search(line)))
        rows = asyncio.run(soak(args, proc.pid, f"ws://127.0.0.1:{port}/ws"))
        bad = sum(r[5] + r[6] for r in rows[-1:]) + (rows[-1][7] if rows else 0)
        print(f"{'passed' if bad == 0 else 'FAILED'}: loss {rows[-1][5]}, reordering {rows[-1][6]}, "
              f"errors {rows[-1][7]}" if rows else "no window")
        if args.plot and rows:
            plot(rows, args.plot)
            print("plot:", args.plot)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
