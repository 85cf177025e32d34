#!/usr/bin/env python3
"""Turn clocks and bots (PROTOCOL sections 17 and 18): four in a row against the
server's bots, with clocks.

  python3 Benchmarks/bots/run.py [--server PATH] [--phases clocks,think,record,s4]
        [--games 1000] [--concurrent 250] [--timeouts 200] [--delay 0]
        [--think-games 100] [--record-games 1000] [--record-minutes 10] [--record-concurrent 6]
        [--s4-games 200] [--s4-modes alone,same,other] [--s4-rounds 1] [--phase-limit 12]

The server binary is BOARDCAST_SERVER or --server; without either it is built here
(`swift build -c release --product server --scratch-path .build-bots`). Needs Python's
websockets (Tests/e2e/requirements.txt). Phases 1-3 share one server started here on
127.0.0.1 with --port 0 (a fresh SQLite --data folder in a temporary directory, or --data, the
per-address limits lifted: every game comes from 127.0.0.1); before the first phase it waits
for the server's pool of proven Klondike deals to fill (start-up work, as run.sh does).
In every game this client is p1 (the creator) and the server's bot is p2.

  clocks  --games clocked games (60+1) against a level-1 bot, --concurrent at a time (a slot
          starts a new game when its game ends), p1 played here with the same level-1 policy
          (a random column, but a four it can make) --delay s after its turn starts: "bots
          playing each other". Server CPU per move (utime+stime from /proc/PID/stat over the
          phase over the moves applied, both seats), moves/s. Every (games/timeouts)-th game
          is a timeout game: 10+1 (--timeout-clock), p1 makes 0 to 3 moves and then stops;
          lateness of the timeout = when it fired minus the deadline the state promised
          (since + clocks.p1 of the diff before it), p50/p99/max, four ways:
            server   the timeout diff's own `since` (the server's instant when it fired)
            arrival  the diff's arrival here in the server's time (the offset learnt from
                     joined's `now`, request and answer halved)
            raw      its arrival here on this machine's clock, no offset
            local    its arrival minus (the arrival of the diff before it + clocks.p1):
                     what a client that trusted no server time would compute
          Also the level-1 bot's answer time under this load: a bot move's `since` minus the
          `since` of the move before it, minus the 0.3 s pace.
  think   --think-games games of a level-3 bot against a random player, one game at a time
          (--think-concurrent), `first` alternating: per bot move, the time from the ack of
          this client's move to the bot's diff, minus the 0.3 s pace (client), and the same
          from the two diffs' `since` (server); p50/p99/max.
  record  level 3 against this client playing level 1's policy, then level 2's (a random
          column that hands no four over, blocking when it must), --record-games each,
          `first` alternating, --record-concurrent at a time, each half bounded by
          --record-minutes / 2: level 3's wins, draws and losses by who moved first, and its
          answer times under that load.
  s4      Benchmarks/fanout/run.sh S4 (FANOUT_BOARDCAST_ONLY=1, the same binary), once per
          --s4-modes, --s4-rounds times: alone; "same": with --s4-games clocked level-1 games (a
          new one as each ends) played on S4's own server from the moment run.sh names its port
          until S4's RESULT line; "other": the same games on a second server started here (a
          control: this client and the machine, without the server's own work). S4's p50/p99/max
          and CPU per delivery each time, the bot moves inside S4's measured window, and how much
          S4's server CPU went up with them.

Each phase prints the other CPU of the machine (/proc/stat's busy time, minus the server's
and this process's, as % of a core) and the load average: on a shared machine read CPU per
move, not wall figures. Everything is bounded (--phase-limit minutes per phase, games
cancelled past it are counted as unfinished) and stops by itself. Exits 1 if a phase
saw a protocol problem (a gap in seq, an error answer, a closed connection); bot moves later
than section 18's 2 s are printed and counted, not judged (a shared machine makes them too).
"""
from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

from websockets.asyncio.client import connect

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
LISTENING = re.compile(r"listening on http://[^:]+:(\d+)")
PACE_MS = 300.0        # FourInARow.botPace: a bot moves 0.3 s after its turn starts
BOT_LIMIT_MS = 2000.0  # section 18: within 2 s of its turn
COLUMNS, ROWS = 7, 6
CLK_TCK = os.sysconf("SC_CLK_TCK")


# -- figures ---------------------------------------------------------------------------------------

def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def triple(values: list[float], unit: str = "ms") -> str:
    if not values:
        return "none"
    return f"{pct(values, 0.5):.1f} / {pct(values, 0.99):.1f} / {max(values):.1f} {unit} (n={len(values)})"


def server_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def server_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def machine_busy() -> float:
    """Busy CPU seconds of the whole machine since boot (/proc/stat: all but idle and iowait)."""
    with open("/proc/stat") as f:
        parts = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = (parts + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / CLK_TCK


def self_cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class Meter:
    """Server CPU, this process's CPU and the machine's, over a stretch of time."""

    def __init__(self, pid: int | None):
        self.pid = pid
        self.t0 = time.monotonic()
        self.server0 = server_cpu(pid) if pid else 0.0
        self.self0 = self_cpu()
        self.busy0 = machine_busy()
        self.load0 = os.getloadavg()[0]

    def stop(self) -> dict:
        wall = time.monotonic() - self.t0
        server = (server_cpu(self.pid) if self.pid else 0.0) - self.server0
        mine = self_cpu() - self.self0
        busy = machine_busy() - self.busy0
        return {"wall": wall, "server_cpu": server, "client_cpu": mine,
                "other_pct": max(0.0, 100 * (busy - server - mine) / wall) if wall > 0 else 0.0,
                "busy_pct": 100 * busy / wall if wall > 0 else 0.0,
                "load": (self.load0, os.getloadavg()[0])}


def noise_line(m: dict) -> str:
    return (f"noise: other CPU {m['other_pct']:.0f}% of a core (machine busy {m['busy_pct']:.0f}% of 2 cores' 200%), "
            f"this client {100 * m['client_cpu'] / m['wall']:.0f}%, server {100 * m['server_cpu'] / m['wall']:.0f}%, "
            f"load average {m['load'][0]:.1f} -> {m['load'][1]:.1f}, {m['wall']:.0f} s")


# -- four in a row, client side --------------------------------------------------------------------

def server_ms(text: str) -> int:
    """RFC 3339 UTC with milliseconds, as Unix milliseconds."""
    return round(datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


def makes_four(columns: list[list[str]], column: int, seat: str) -> bool:
    row = len(columns[column])
    if row >= ROWS:
        return False

    def at(c: int, r: int) -> str | None:
        if 0 <= c < COLUMNS and 0 <= r < len(columns[c]):
            return columns[c][r]
        return None

    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            c, r = column + sign * dc, row + sign * dr
            while at(c, r) == seat:
                count += 1
                c, r = c + sign * dc, r + sign * dr
        if count >= 4:
            return True
    return False


def legal(columns) -> list[int]:
    return [c for c in range(COLUMNS) if len(columns[c]) < ROWS]


def other(seat: str) -> str:
    return "p2" if seat == "p1" else "p1"


def policy_random(columns, seat, rng) -> int:
    return rng.choice(legal(columns))


def policy_level1(columns, seat, rng) -> int:
    """Section 18's level 1: at random, but a four it can make."""
    playable = legal(columns)
    wins = [c for c in playable if makes_four(columns, c, seat)]
    return wins[0] if wins else rng.choice(playable)


def policy_level2(columns, seat, rng) -> int:
    """Level 2 (as FourBot.levelTwo): a four it can make; else a random column that leaves the
    opponent no four at once; when every column does, a block of one of its fours."""
    playable = legal(columns)
    wins = [c for c in playable if makes_four(columns, c, seat)]
    if wins:
        return wins[0]
    them = other(seat)

    def hands_over(c: int) -> bool:
        columns[c].append(seat)
        try:
            return any(makes_four(columns, d, them) for d in legal(columns))
        finally:
            columns[c].pop()

    safe = [c for c in playable if not hands_over(c)]
    if safe:
        return rng.choice(safe)
    threats = [c for c in playable if makes_four(columns, c, them)]
    return rng.choice(threats or playable)


POLICIES = {"random": policy_random, "level1": policy_level1, "level2": policy_level2}


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def apply_patch(doc, ops):
    """RFC 6902, the operations the server sends (add, remove, replace, move, copy, test)."""
    def walk(path):
        tokens = [unescape(t) for t in path.split("/")[1:]]
        parent = doc
        for t in tokens[:-1]:
            parent = parent[int(t)] if isinstance(parent, list) else parent[t]
        return parent, tokens[-1]

    def get(path):
        node = doc
        for t in [unescape(t) for t in path.split("/")[1:]] if path else []:
            node = node[int(t)] if isinstance(node, list) else node[t]
        return node

    for op in ops:
        kind, path = op["op"], op["path"]
        if kind == "test":
            continue
        if kind in ("move", "copy"):
            value = json.loads(json.dumps(get(op["from"])))
            if kind == "move":
                op = {"op": "remove", "path": op["from"]}
                doc = apply_patch(doc, [op])
            kind, op = "add", {"op": "add", "path": path, "value": value}
        if path == "":
            if kind in ("add", "replace"):
                doc = op["value"]
            continue
        parent, key = walk(path)
        if kind == "add":
            if isinstance(parent, list):
                parent.append(op["value"]) if key == "-" else parent.insert(int(key), op["value"])
            else:
                parent[key] = op["value"]
        elif kind == "replace":
            if isinstance(parent, list):
                parent[int(key)] = op["value"]
            else:
                parent[key] = op["value"]
        elif kind == "remove":
            if isinstance(parent, list):
                parent.pop(int(key))
            else:
                del parent[key]
    return doc


# -- one game ----------------------------------------------------------------------------------------

class Results:
    def __init__(self):
        self.games = 0
        self.unfinished = 0
        self.moves = 0                 # tap diffs applied, both seats
        self.bot_moves = 0
        self.outcomes: dict[tuple, int] = {}   # (first, result for the bot) -> count
        self.timeouts: list[dict] = []
        self.unexpected_timeouts = 0
        self.bot_server: list[float] = []      # bot answer minus pace, from the diffs' since
        self.bot_client: list[float] = []      # the same from arrivals here
        self.bot_at: list[int] = []            # discs on the board before each bot_server entry
        self.slow: list[str] = []              # bot moves past 2 s
        self.problems: list[str] = []
        self.arrivals: list[float] = []        # monotonic arrival of each tap diff (s4's window)
        self.keep_arrivals = False


async def play_game(url: str, res: Results, *, level: int, policy: str, clock: dict | None, first: str,
                    rng: random.Random, delay: float = 0.0, stop_after: int | None = None,
                    timeout: float = 120.0) -> None:
    """One game: this client creates (p1) against a bot in p2 and plays with `policy` until the
    game ends. With `stop_after`, p1 makes that many moves and then waits for its clock to run out."""
    options = {"bots": {"p2": level}, "first": first}
    if clock:
        options["clock"] = clock
    choose = POLICIES[policy]
    async with connect(url, compression=None, max_size=None, ping_interval=None, open_timeout=30) as ws:
        sent_create = time.time()
        await ws.send(json.dumps({"type": "create", "kind": "four", "options": options, "id": "c"}))
        state = None
        seq = None
        offset_ms = 0.0
        pending_id = None      # our move in flight
        ack_mono = None        # when our last move's ack came
        last_since = None      # the state's clocks.since after the last diff
        last_arrival_mono = None
        start_mono = None
        our_moves = 0
        next_id = 0
        ended = False
        deadline = time.monotonic() + timeout
        while True:
            if ended:
                break
            left = deadline - time.monotonic()
            if left <= 0:
                raise asyncio.TimeoutError
            # Our turn, no move in flight: move (after --delay), unless this game stops moving.
            if (state is not None and state.get("status") == "playing" and state.get("turn") == "p1"
                    and pending_id is None and (stop_after is None or our_moves < stop_after)):
                if delay > 0:
                    await asyncio.sleep(delay)
                next_id += 1
                pending_id = next_id
                column = choose([list(c) for c in state["columns"]], "p1", rng)
                await ws.send(json.dumps({"type": "tap", "target": f"/columns/{column}", "id": pending_id}))
                our_moves += 1
            raw = await asyncio.wait_for(ws.recv(), left)
            mono, wall = time.monotonic(), time.time()
            m = json.loads(raw)
            kind = m.get("type")
            if kind == "joined":
                offset_ms = server_ms(m["now"]) - (sent_create + wall) / 2 * 1000
            elif kind == "snapshot":
                state, seq = m["state"], m["seq"]
                if state.get("clocks"):
                    last_since = state["clocks"]["since"]
                last_arrival_mono = mono
                start_mono = mono
            elif kind == "diff":
                if seq is None or m["seq"] != seq + 1:
                    res.problems.append(f"seq {m['seq']} after {seq}")
                before = state
                clocks_before = dict(before["clocks"]) if before and before.get("clocks") else None
                state = apply_patch(json.loads(json.dumps(before)), m["ops"])
                seq = m["seq"]
                cause = m.get("cause") or {}
                ctype = cause.get("type")
                since_now = state["clocks"]["since"] if state.get("clocks") else None
                if ctype in ("tap", "double-tap"):
                    res.moves += 1
                    if res.keep_arrivals:
                        res.arrivals.append(mono)  # CLOCK_MONOTONIC, as fanload's t0 and t1
                    if cause.get("bot"):
                        res.bot_moves += 1
                        if cause.get("by") != "p2":
                            res.problems.append(f"a bot move by {cause.get('by')}")
                        # The bot's turn started at the diff before (ours, or the start).
                        if last_since is not None and since_now is not None and before.get("moves", 0) > 0:
                            answer = server_ms(since_now) - server_ms(last_since)
                            res.bot_server.append(answer - PACE_MS)
                            res.bot_at.append(before["moves"])
                            if answer > BOT_LIMIT_MS:
                                res.slow.append(f"level {level} took {answer:.0f} ms at move {before['moves']} "
                                                f"(server's since): {before['columns']}")
                        if ack_mono is not None and before.get("moves", 0) > 0:
                            res.bot_client.append((mono - ack_mono) * 1000 - PACE_MS)
                elif ctype == "timeout":
                    deadline_ms = server_ms(last_since) + clocks_before[cause["seat"]]
                    if stop_after is None:
                        res.unexpected_timeouts += 1
                    else:
                        fired = server_ms(since_now)
                        res.timeouts.append({
                            "server": fired - deadline_ms,
                            "arrival": wall * 1000 + offset_ms - deadline_ms,
                            "raw": wall * 1000 - deadline_ms,
                            "local": (mono - (last_arrival_mono + clocks_before[cause["seat"]] / 1000)) * 1000,
                            "offset": offset_ms,
                        })
                last_since = since_now
                last_arrival_mono = mono
            elif kind == "ack":
                if m.get("id") == pending_id and pending_id is not None:
                    pending_id = None
                    ack_mono = mono
            elif kind == "error":
                res.problems.append(f"error {m.get('code')}: {m.get('message')}")
                if m.get("id") == pending_id:
                    pending_id = None
            elif kind == "event" and m.get("event") in ("won", "drawn"):
                ended = True
        status, winner = state["status"], state.get("winner")
        result = "draw" if status == "drawn" else ("win" if winner == "p2" else "loss")
        res.outcomes[(first, result)] = res.outcomes.get((first, result), 0) + 1
        res.games += 1


async def run_slots(url: str, res: Results, specs: list[dict], concurrent: int, limit_s: float,
                    stop: asyncio.Event | None = None) -> None:
    """Plays `specs` (keyword arguments of play_game), `concurrent` at a time, until all are
    played, `limit_s` passes (later games are not started; running ones are cancelled), or `stop`."""
    queue = list(reversed(specs))
    end = time.monotonic() + limit_s

    async def slot():
        while queue and time.monotonic() < end and not (stop and stop.is_set()):
            spec = queue.pop()
            try:
                await asyncio.wait_for(play_game(url, res, **spec), max(1.0, end - time.monotonic()))
            except (asyncio.TimeoutError, TimeoutError):
                res.unfinished += 1
            except asyncio.CancelledError:
                res.unfinished += 1
                raise
            except Exception as error:  # a closed connection, a refused handshake
                res.unfinished += 1
                res.problems.append(f"{type(error).__name__}: {error}")

    tasks = []
    for i in range(concurrent):
        tasks.append(asyncio.create_task(slot()))
        if i % 50 == 49:
            await asyncio.sleep(0.05)  # a ramp: handshakes in batches of 50
    if stop is None:
        await asyncio.gather(*tasks)
    else:
        waiter = asyncio.create_task(stop.wait())
        group = asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.wait([waiter, group], return_when=asyncio.FIRST_COMPLETED)
        for t in tasks:
            t.cancel()
        await group
        waiter.cancel()


# -- phases ------------------------------------------------------------------------------------------

def report_problems(name: str, res: Results) -> bool:
    bad = bool(res.problems or res.slow)
    for p in res.problems[:10]:
        print(f"  PROBLEM ({name}): {p}")
    if len(res.problems) > 10:
        print(f"  ... {len(res.problems) - 10} more problems")
    for s in res.slow[:10]:
        print(f"  SLOW BOT ({name}): {s}")
    return not res.problems


async def phase_clocks(args, url: str, pid: int) -> dict:
    rng = random.Random(args.seed)
    every = max(1, args.games // args.timeouts) if args.timeouts else 0
    specs = []
    for i in range(args.games):
        if every and i % every == 0 and sum(1 for s in specs if "stop_after" in s) < args.timeouts:
            specs.append(dict(level=1, policy="level1", first="p1", rng=random.Random(rng.random()),
                              clock={"initial": args.timeout_clock, "increment": 1}, delay=args.delay,
                              stop_after=rng.randint(0, 3)))
        else:
            specs.append(dict(level=1, policy="level1", first="p1", rng=random.Random(rng.random()),
                              clock={"initial": 60, "increment": 1}, delay=args.delay))
    res = Results()
    print(f"\n== clocks: {args.games} clocked games (60+1) against a level-1 bot, {args.concurrent} at a time, "
          f"p1 level-1 policy, delay {args.delay} s; {sum(1 for s in specs if 'stop_after' in s)} of them with "
          f"{args.timeout_clock}+1 where p1 stops after 0-3 moves", flush=True)
    meter = Meter(pid)
    await run_slots(url, res, specs, args.concurrent, args.phase_limit * 60)
    m = meter.stop()
    ok = report_problems("clocks", res)
    t = res.timeouts
    out = {
        "games": res.games, "unfinished": res.unfinished, "moves": res.moves, "bot_moves": res.bot_moves,
        "wall": m["wall"], "moves_per_s": res.moves / m["wall"], "server_cpu": m["server_cpu"],
        "cpu_us_per_move": 1e6 * m["server_cpu"] / max(1, res.moves),
        "cpu_pct": 100 * m["server_cpu"] / m["wall"],
        "timeouts": len(t), "unexpected_timeouts": res.unexpected_timeouts,
        "late_server": [x["server"] for x in t], "late_arrival": [x["arrival"] for x in t],
        "late_raw": [x["raw"] for x in t], "late_local": [x["local"] for x in t],
        "offsets": [x["offset"] for x in t], "bot_server": res.bot_server, "bot_client": res.bot_client,
        "noise": m, "ok": ok, "rss": server_rss_mb(pid), "slow": len(res.slow),
    }
    print(f"games {res.games} (unfinished {res.unfinished}), moves applied {res.moves} (bot {res.bot_moves}) in "
          f"{m['wall']:.1f} s: {out['moves_per_s']:.0f} moves/s")
    print(f"server CPU {m['server_cpu']:.2f} s ({out['cpu_pct']:.0f}% of a core): "
          f"{out['cpu_us_per_move']:.0f} us per move (creates and joins included; "
          f"{1000 * m['server_cpu'] / max(1, res.games):.1f} ms per game), RSS {out['rss']:.0f} MB")
    print(f"timeouts {len(t)} (unexpected, in 60+1 games: {res.unexpected_timeouts}); lateness p50 / p99 / max:")
    print(f"  server's since   {triple(out['late_server'])}")
    print(f"  arrival (offset) {triple(out['late_arrival'])}   offsets {triple(out['offsets'])}")
    print(f"  arrival (raw)    {triple(out['late_raw'])}")
    print(f"  local only       {triple(out['late_local'])}")
    print(f"level-1 bot answer minus the 0.3 s pace: server {triple(res.bot_server)}; client {triple(res.bot_client)}; "
          f"> 2 s: {len(res.slow)}")
    print(noise_line(m), flush=True)
    return out


async def phase_think(args, url: str, pid: int) -> dict:
    rng = random.Random(args.seed + 1)
    specs = [dict(level=3, policy="random", first="p1" if i % 2 == 0 else "p2", rng=random.Random(rng.random()),
                  clock={"initial": 600, "increment": 0}) for i in range(args.think_games)]
    res = Results()
    print(f"\n== think: {args.think_games} games of a level-3 bot against a random player, "
          f"{args.think_concurrent} at a time, first alternating (clock 600+0, for the server's since)", flush=True)
    meter = Meter(pid)
    await run_slots(url, res, specs, args.think_concurrent, args.phase_limit * 60)
    m = meter.stop()
    ok = report_problems("think", res)
    out = {"games": res.games, "unfinished": res.unfinished, "bot_moves": res.bot_moves,
           "server": res.bot_server, "client": res.bot_client, "noise": m, "ok": ok, "slow": len(res.slow),
           "outcomes": dict(res.outcomes), "stages": by_stage(res), "cpu_ms_per_bot_move": 1000 * m["server_cpu"] / max(1, res.bot_moves)}
    print(f"games {res.games} (unfinished {res.unfinished}), bot moves {res.bot_moves} (after one of ours: "
          f"{len(res.bot_server)}), outcomes {fmt_outcomes(res.outcomes)}")
    print(f"level-3 thinking (answer minus the 0.3 s pace) p50 / p99 / max: client {triple(res.bot_client)}")
    print(f"                                                     server {triple(res.bot_server)}")
    print(f"  by stage (server): {by_stage(res)}")
    print(f"server CPU {m['server_cpu']:.1f} s: {out['cpu_ms_per_bot_move']:.1f} ms per bot move; > 2 s: {len(res.slow)}")
    print(noise_line(m), flush=True)
    return out


def by_stage(res: Results) -> str:
    """The server's answer times split by the discs on the board when the bot's turn came."""
    parts = []
    for low, high in ((0, 6), (7, 14), (15, 42)):
        values = [v for v, at in zip(res.bot_server, res.bot_at) if low <= at <= high]
        if values:
            parts.append(f"{low}-{high} discs: {triple(values)}")
    return "; ".join(parts)


def fmt_outcomes(outcomes: dict) -> str:
    parts = []
    for first in ("p1", "p2"):
        w, d, l = (outcomes.get((first, r), 0) for r in ("win", "draw", "loss"))
        if w + d + l:
            who = "bot second" if first == "p1" else "bot first"
            parts.append(f"{who}: {w} won, {d} drawn, {l} lost")
    return "; ".join(parts) or "none"


async def phase_record(args, url: str, pid: int) -> dict:
    out = {}
    for policy in ("level1", "level2"):
        rng = random.Random(args.seed + (2 if policy == "level1" else 3))
        specs = [dict(level=3, policy=policy, first="p1" if i % 2 == 0 else "p2", rng=random.Random(rng.random()),
                      clock={"initial": 600, "increment": 0}) for i in range(args.record_games)]
        res = Results()
        half = args.record_minutes / 2
        print(f"\n== record: level 3 against this client playing {policy}'s policy, {args.record_games} games at most, "
              f"{args.record_concurrent} at a time, first alternating, at most {half:.1f} min", flush=True)
        meter = Meter(pid)
        await run_slots(url, res, specs, args.record_concurrent, half * 60)
        m = meter.stop()
        ok = report_problems(f"record {policy}", res)
        out[policy] = {"games": res.games, "unfinished": res.unfinished, "outcomes": dict(res.outcomes),
                       "server": res.bot_server, "client": res.bot_client, "noise": m, "ok": ok,
                       "slow": len(res.slow), "bot_moves": res.bot_moves,
                       "cpu_ms_per_bot_move": 1000 * m["server_cpu"] / max(1, res.bot_moves)}
        print(f"games {res.games} (unfinished, cut at the time limit: {res.unfinished}) in {m['wall']:.0f} s: "
              f"{fmt_outcomes(res.outcomes)}")
        print(f"level-3 answer minus pace under this load: server {triple(res.bot_server)}; client {triple(res.bot_client)}; "
              f"> 2 s: {len(res.slow)}; server CPU {out[policy]['cpu_ms_per_bot_move']:.1f} ms per bot move")
        print(f"  by stage (server): {by_stage(res)}")
        print(noise_line(m), flush=True)
    return out


RESULT_FIELDS = ("p50_ms", "p99_ms", "max_ms", "server_cpu_pct", "server_us_per_delivery", "other_cpu_pct",
                 "gen_cpu_pct", "deliveries", "seconds", "t0", "t1", "ok")


S4_MODES = {"alone": "alone", "same": "with {n} bot games on S4's server",
            "other": "with {n} bot games on another server"}


def start_server(binary: str, data: str) -> tuple[subprocess.Popen, int]:
    """A server on 127.0.0.1 --port 0, the per-address limits lifted; returns it and its port."""
    proc = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0", "--data", data,
                             "--web", os.path.join(ROOT, "web-static"), "--log-level", "warning",
                             "--max-connections-per-address", "1000000", "--create-rate", "1000000"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    for line in proc.stdout:
        if m := LISTENING.search(line):
            return proc, int(m.group(1))
    raise RuntimeError(f"{binary} exited before listening")


async def run_s4(args, binary: str, mode: str) -> dict:
    """run.sh S4 once; with mode "same" the bot games play on S4's own server (named on run.sh's
    stderr), with "other" on a second server started here (same client, same timing: a control
    for what the bot games' client and the machine do to S4, apart from the server's own work)."""
    env = dict(os.environ, FANOUT_BOARDCAST_ONLY="1", BOARDCAST_SERVER=binary)
    side = None
    side_url = None
    if mode == "other":
        side, side_port = start_server(binary, ":memory:")
        side_url = f"ws://127.0.0.1:{side_port}/ws"
    proc = await asyncio.create_subprocess_exec(os.path.join(ROOT, "Benchmarks", "fanout", "run.sh"), "S4",
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                env=env, cwd=ROOT)
    res = Results()
    res.keep_arrivals = True
    stop = asyncio.Event()
    bots_task = None
    result: dict = {}
    lines: list[str] = []
    meter = Meter(None)
    side_cpu0 = server_cpu(side.pid) if side else 0.0

    async def read_err():
        nonlocal bots_task
        async for raw in proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            lines.append(line)
            found = re.search(r"S4 on boardcast \(port (\d+), pid (\d+)", line)
            if found and mode != "alone" and bots_task is None:
                url = side_url or f"ws://127.0.0.1:{found.group(1)}/ws"
                rng = random.Random(args.seed + 4)
                specs = [dict(level=1, policy="level1", first="p1", rng=random.Random(rng.random()),
                              clock={"initial": 60, "increment": 1}, delay=args.delay) for _ in range(100_000)]
                bots_task = asyncio.create_task(run_slots(url, res, specs, args.s4_games, args.phase_limit * 60, stop))
            if line.startswith("RESULT "):
                result.update(dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv))
                stop.set()

    async def read_out():
        async for raw in proc.stdout:
            lines.append(raw.decode("utf-8", "replace").rstrip("\n"))

    try:
        await asyncio.wait_for(asyncio.gather(read_err(), read_out(), proc.wait()), args.phase_limit * 60)
    except asyncio.TimeoutError:
        proc.terminate()
        await proc.wait()
    stop.set()
    if bots_task:
        await bots_task
    m = meter.stop()
    side_cpu = 0.0
    if side:
        side_cpu = server_cpu(side.pid) - side_cpu0
        side.terminate()
        side.wait(timeout=30)
    if not result:
        print("\n".join(lines[-30:]))
    t0, t1 = float(result.get("t0", 0)), float(result.get("t1", 0))
    in_window = sum(1 for a in res.arrivals if t0 <= a <= t1) if t0 and t1 else 0
    return {"result": result, "bot_games": res.games, "bot_moves": res.moves, "bot_moves_in_window": in_window,
            "window": t1 - t0 if t0 and t1 else 0, "problems": res.problems, "noise": m, "side_cpu": side_cpu,
            "bot_server": res.bot_server, "unfinished": res.unfinished, "rc": proc.returncode}


async def phase_s4(args, binary: str, cpu_us_per_move: float | None) -> dict:
    out = {}
    modes = [x.strip() for x in args.s4_modes.split(",") if x.strip()]
    for round_ in range(args.s4_rounds):
        for mode in modes:
            label = S4_MODES[mode].format(n=args.s4_games)
            print(f"\n== s4: Benchmarks/fanout/run.sh S4 {label}"
                  + (f" (round {round_ + 1} of {args.s4_rounds})" if args.s4_rounds > 1 else ""), flush=True)
            r = await run_s4(args, binary, mode)
            out.setdefault(mode, []).append(r)
            res = r["result"]
            print(f"S4 {label}: p50 / p99 / max {res.get('p50_ms')} / {res.get('p99_ms')} / {res.get('max_ms')} ms, "
                  f"server CPU {res.get('server_cpu_pct')}% of a core, {res.get('server_us_per_delivery')} us per delivery, "
                  f"other CPU {res.get('other_cpu_pct')}% (fanload's figure: this client's included), ok={res.get('ok')}, "
                  f"run.sh exit {r['rc']}")
            if mode != "alone":
                per_s = r["bot_moves_in_window"] / r["window"] if r["window"] else 0
                print(f"bot games: {r['bot_games']} finished, {r['bot_moves']} moves in all, {r['bot_moves_in_window']} "
                      f"inside S4's {r['window']:.1f} s window ({per_s:.0f}/s); level-1 answer minus pace "
                      f"{triple(r['bot_server'])}")
                if mode == "other":
                    print(f"  the other server's CPU: {r['side_cpu']:.2f} s "
                          f"({1e6 * r['side_cpu'] / max(1, r['bot_moves']):.0f} us per bot-game move, creates included)")
                alone = out.get("alone", [{}])[-1].get("result", {})
                if mode == "same" and per_s and alone.get("server_cpu_pct") and res.get("server_cpu_pct"):
                    extra = float(res["server_cpu_pct"]) - float(alone["server_cpu_pct"])
                    print(f"  S4's server CPU went up by {extra:.1f} points of a core against the run alone: "
                          f"{extra / 100 * 1e6 / per_s:.0f} us per bot-game move (games in memory)"
                          + (f"; phase 1's figure, creates included: {cpu_us_per_move:.0f} us" if cpu_us_per_move else ""))
                for p in r["problems"][:5]:
                    print(f"  PROBLEM (s4 bots): {p}")
            print(noise_line(r["noise"]), flush=True)
    if args.s4_rounds > 1 or len(modes) > 1:
        print("\nS4 summary (p99 ms; server us per delivery), by run:")
        for mode in modes:
            runs = out.get(mode, [])
            print(f"  {S4_MODES[mode].format(n=args.s4_games):42} p99 "
                  + ", ".join(str(r["result"].get("p99_ms")) for r in runs)
                  + "; us/delivery " + ", ".join(str(r["result"].get("server_us_per_delivery")) for r in runs))
    return out


# -- main --------------------------------------------------------------------------------------------

def wait_for_pool(port: int, limit: float = 60.0) -> None:
    """As run.sh: a fresh server fills its pool of proven Klondike deals 10 s after it starts,
    at the lowest priority; start-up work, kept out of the phases' CPU figures."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as answer:
                text = answer.read().decode()
        except OSError:
            return
        target = re.search(r"^boardcast_winnable_pool_target ([0-9.]+)$", text, re.M)
        seeds = re.findall(r"^boardcast_winnable_pool_seeds\S* ([0-9.]+)$", text, re.M)
        if not target or not seeds:
            return
        if all(float(s) >= float(target.group(1)) for s in seeds):
            return
        time.sleep(0.2)
    print("the winnable pool did not fill within 60 s; measuring anyway")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=os.environ.get("BOARDCAST_SERVER"))
    parser.add_argument("--phases", default="clocks,think,record,s4")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--concurrent", type=int, default=250)
    parser.add_argument("--timeouts", type=int, default=200)
    parser.add_argument("--timeout-clock", type=int, default=10)
    parser.add_argument("--delay", type=float, default=0.0, help="p1's pause before each move, seconds")
    parser.add_argument("--think-games", type=int, default=100)
    parser.add_argument("--think-concurrent", type=int, default=1)
    parser.add_argument("--record-games", type=int, default=1000)
    parser.add_argument("--record-concurrent", type=int, default=6)
    parser.add_argument("--record-minutes", type=float, default=10)
    parser.add_argument("--s4-games", type=int, default=200)
    parser.add_argument("--s4-modes", default="alone,same,other",
                        help="alone; same: bot games on S4's server; other: on a second server (a control)")
    parser.add_argument("--s4-rounds", type=int, default=1)
    parser.add_argument("--phase-limit", type=float, default=12, help="minutes; no phase runs longer")
    parser.add_argument("--data", default=None, help="the server's --data (default: a fresh SQLite folder)")
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args()
    phases = [p.strip() for p in args.phases.split(",") if p.strip()]
    binary = args.server
    if not binary:
        subprocess.run(["nice", "swift", "build", "-c", "release", "--product", "server", "--scratch-path",
                        os.path.join(ROOT, ".build-bots")], cwd=ROOT, check=True)
        binary = os.path.join(ROOT, ".build-bots", "release", "server")
    binary = os.path.abspath(binary)
    print(f"server {binary}; {os.cpu_count()} CPUs; phases {', '.join(phases)}; "
          f"started {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M:%SZ}", flush=True)
    ok = True
    clocks = None
    work = tempfile.mkdtemp(prefix="boardcast-bots-")
    proc = None
    try:
        if any(p in phases for p in ("clocks", "think", "record")):
            data = args.data or os.path.join(work, "data")
            proc, port = start_server(binary, data)
            wait_for_pool(port)
            url = f"ws://127.0.0.1:{port}/ws"
            print(f"listening on port {port}, pid {proc.pid}, data {data}", flush=True)
            if "clocks" in phases:
                clocks = asyncio.run(phase_clocks(args, url, proc.pid))
                ok &= clocks["ok"]
            if "think" in phases:
                ok &= asyncio.run(phase_think(args, url, proc.pid))["ok"]
            if "record" in phases:
                record = asyncio.run(phase_record(args, url, proc.pid))
                ok &= all(r["ok"] for r in record.values())
            proc.terminate()
            proc.wait(timeout=30)
            proc = None
        if "s4" in phases:
            asyncio.run(phase_s4(args, binary, clocks["cpu_us_per_move"] if clocks else None))
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{'passed' if ok else 'FAILED'} ({datetime.datetime.now(datetime.timezone.utc):%H:%M:%SZ})")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
