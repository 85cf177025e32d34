#!/usr/bin/env python3
"""Sign-in at connect (PROTOCOL section 19): the server CPU a connection costs
with and without a token, S5-style (Benchmarks/fanout's connect cost).

  Benchmarks/auth/run.py [--sizes 2000,5000] [--rounds 4] [--keys hs256,es256] [--modes ...] [--server PATH] [--keep]

(about 12 s a run, 14 runs a round at the default sizes: 12 minutes for four rounds)

Each run is a fresh release server on 127.0.0.1 (SQLite in a fresh --data folder, as S5;
the per-address limits lifted, the winnable pool left to fill first) and one fanload
process (Benchmarks/fanout/fanload.c, idle mode) opening N /ws connections, 200 handshakes
in flight:

  none    no key on the server, plain connections: S5 itself, the reference
  plain   the server has the key (--auth-hs256 FILE or --auth-public-key FILE), the
          connections do not sign in
  frame   each connection sends {"type":"auth","jwt":JWT,"id":"a"} once open; the phase
          ends when every one has its `authed`
  bearer  each connection sends `Authorization: Bearer JWT` with the upgrade

Every connection has a token of its own (sub user-I, name, iat, exp one hour on), minted
here: HS256 with the standard library, ES256 (P-256, r || s) with `cryptography`.
The figure is the server's CPU time (utime+stime from /proc/PID/stat) from the first connect
until 0.5 s after the last handshake (or `authed`) over N, µs per connection; fanload also
reports the same span from the scheduler's per-thread nanoseconds (schedstat), which is not
sampled at clock ticks. Runs are interleaved: every round runs every (size, key, mode) once,
in an order rotated from round to round, so slow stretches of a shared machine fall on all
of them. The "added" columns pair each signed-in run with the `plain` run of the same round,
size and key. Other CPU is the machine's busy time outside the server and fanload while the
connections opened (/proc/stat), the noise. It prints figures; it is not a pass/fail test
(a run fails when a connection, a handshake or a sign-in fails).
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
LISTENING = re.compile(r"listening on http://[^ ]*:(\d+)/?\s*$")
MODES = ("none", "plain", "frame", "bearer")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def mint(kind: str, key, kid: str, count: int) -> list[str]:
    """count tokens, one per connection (sub user-I)."""
    now = int(time.time())
    header = b64url(json.dumps({"alg": kind.upper(), "typ": "JWT", "kid": kid}, separators=(",", ":")).encode())
    tokens = []
    for i in range(count):
        claims = {"sub": f"user-{i}", "name": f"Player {i}", "iat": now, "exp": now + 3600}
        signing_input = header + "." + b64url(json.dumps(claims, separators=(",", ":")).encode())
        if kind == "hs256":
            signature = hmac.new(key, signing_input.encode(), hashlib.sha256).digest()
        else:
            r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
            signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        tokens.append(signing_input + "." + b64url(signature))
    return tokens


def proc_stat_busy() -> tuple[float, float]:
    """(busy, total) seconds of the whole machine, from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    hz = os.sysconf("SC_CLK_TCK")
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz, sum(v) / hz


class Server:
    def __init__(self, binary: str, work: str, name: str, key_args: list[str]):
        self.data = os.path.join(work, "data-" + name)
        shutil.rmtree(self.data, ignore_errors=True)
        os.makedirs(self.data)
        self.log = os.path.join(work, name + ".log")
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(
                [binary, "--host", "127.0.0.1", "--port", "0", "--data", self.data,
                 "--max-connections-per-address", "1000000", "--create-rate", "1000000", *key_args],
                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        self.port = 0
        deadline = time.monotonic() + 30
        while not self.port and time.monotonic() < deadline and self.proc.poll() is None:
            with open(self.log) as log:
                for line in log:
                    m = LISTENING.search(line)
                    if m:
                        self.port = int(m.group(1))
                        break
            time.sleep(0.05)
        if not self.port:
            self.stop()
            raise RuntimeError(f"server {name} did not print its listening line; see {self.log}")

    def wait_for_pool(self) -> None:
        """A fresh server fills its pool of winnable deals in the background: start-up work,
        not a connection's, so no run starts before it is full (as run.sh's wait_for_pool)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                metrics = urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=2).read().decode()
            except OSError:
                return
            target = re.search(r"^boardcast_winnable_pool_target ([0-9.]+)$", metrics, re.M)
            if not target:
                return
            seeds = [float(x) for x in re.findall(r"^boardcast_winnable_pool_seeds\S* ([0-9.]+)$", metrics, re.M)]
            if seeds and all(s >= float(target.group(1)) for s in seeds):
                return
            time.sleep(0.1)
        print("   the winnable pool did not fill within 60 s; measuring anyway", file=sys.stderr)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.data, ignore_errors=True)


def parse_result(text: str) -> dict[str, str]:
    for line in text.splitlines():
        if line.startswith("RESULT "):
            return dict(kv.split("=", 1) for kv in line.split()[1:])
    return {}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="2000,5000", help="connections a run, comma-separated (at most 19,000)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--keys", default="hs256,es256", help="hs256 and/or es256")
    ap.add_argument("--modes", default=",".join(MODES), help="of " + ", ".join(MODES))
    ap.add_argument("--server", default=os.environ.get("BOARDCAST_SERVER"),
                    help="a server binary (or BOARDCAST_SERVER=PATH); without it, the release build in .build-bench, built first")
    ap.add_argument("--keep", action="store_true", help="keep the work folder (keys, tokens, logs)")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # stop the server on the way out (finally)
    sizes = [int(s) for s in args.sizes.split(",")]
    keys = [k for k in args.keys.split(",") if k]
    modes = [m for m in args.modes.split(",") if m]
    if any(n < 1 or n > 19000 for n in sizes) or not set(keys) <= {"hs256", "es256"} or not set(modes) <= set(MODES):
        ap.error("sizes 1..19000, keys hs256/es256, modes " + "/".join(MODES))
    if not args.server:
        print("building the server (release, scratch path .build-bench)", file=sys.stderr)
        subprocess.run(["swift", "build", "-c", "release", "--scratch-path", ".build-bench", "--product", "server"], cwd=ROOT,
                       check=True)
        args.server = os.path.join(ROOT, ".build-bench", "release", "server")
    if not os.access(args.server, os.X_OK):
        ap.error(f"no server binary at {args.server}")

    work = tempfile.mkdtemp(prefix="boardcast-auth-")
    fanload = os.path.join(work, "fanload")
    subprocess.run(["cc", "-O2", "-Wall", "-pthread", "-o", fanload, os.path.join(ROOT, "Benchmarks", "fanout", "fanload.c")],
                   check=True)

    # keys: the file names (without extension) are the key ids the tokens' kid names
    secret = os.urandom(32).hex().encode()       # 64 bytes of hex text: the file's bytes are the secret
    with open(os.path.join(work, "hs.key"), "wb") as f:
        f.write(secret + b"\n")
    ec_key = ec.generate_private_key(ec.SECP256R1())
    with open(os.path.join(work, "es.pem"), "wb") as f:
        f.write(ec_key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    key_args = {"hs256": ["--auth-hs256", os.path.join(work, "hs.key")],
                "es256": ["--auth-public-key", os.path.join(work, "es.pem")]}
    most = max(sizes)
    token_files = {}
    for kind, key, kid in (("hs256", secret, "hs"), ("es256", ec_key, "es")):
        if kind in keys:
            token_files[kind] = os.path.join(work, kind + ".tokens")
            with open(token_files[kind], "w") as f:
                f.write("\n".join(mint(kind, key, kid, most)) + "\n")

    # every (size, key, mode) once a round; "none" needs no key, once per size
    cells = []
    for n in sizes:
        for mode in modes:
            for kind in (["-"] if mode == "none" else keys):
                cells.append((n, kind, mode))
    results: dict[tuple, list[dict]] = {c: [] for c in cells}
    failures = 0
    busy0, total0 = proc_stat_busy()
    wall0 = time.time()
    print(f"server {args.server}; {len(cells)} runs a round, {args.rounds} rounds; work folder {work}", file=sys.stderr)
    for r in range(args.rounds):
        order = cells[r % len(cells):] + cells[:r % len(cells)]
        if r % 2:
            order.reverse()
        for (n, kind, mode) in order:
            name = f"r{r}-{n}-{kind}-{mode}"
            server = Server(args.server, work, name, [] if mode == "none" else key_args[kind])
            try:
                server.wait_for_pool()
                cmd = [fanload, "--port", str(server.port), "--pid", str(server.proc.pid), "--label", "boardcast",
                       "--storage", "sqlite", "--timeout", "300", "--idle", str(n), "--name", name, "--settle-ms", "500"]
                if mode in ("frame", "bearer"):
                    cmd += ["--auth", mode, "--auth-tokens", token_files[kind]]
                run = subprocess.run(cmd, capture_output=True, text=True)
            finally:
                server.stop()
            res = parse_result(run.stdout)
            if run.returncode != 0 or res.get("ok") != "1":
                failures += 1
                print(f"   FAILED {name}: exit {run.returncode}; {run.stderr.strip()[-400:]}", file=sys.stderr)
                continue
            results[(n, kind, mode)].append(dict(res, round=r))
            print(f"   {name}: {res['server_us_per_conn']} µs/conn (schedstat {res['sched_us_per_conn']}), "
                  f"{res['open_seconds']} s, other CPU {res['other_cpu_pct']}%", file=sys.stderr)
    busy1, total1 = proc_stat_busy()
    wall1 = time.time()

    def fig(v: list[float], fmt: str = "{:.1f}") -> str:
        if not v:
            return "-"
        return (fmt.format(statistics.median(v)) + " (" + fmt.format(min(v)) + "-" + fmt.format(max(v)) + ")") if len(v) > 1 \
            else fmt.format(v[0])

    print()
    print(f"{args.rounds} rounds, {time.strftime('%Y-%m-%d %H:%M', time.gmtime(wall0))}-{time.strftime('%H:%M', time.gmtime(wall1))}Z; "
          f"figures: median (min-max) over the rounds")
    print()
    print("| N | key | connections | server µs per connection, utime+stime | schedstat | added over `plain`, utime+stime | added, schedstat | share of the connect cost (schedstat) | s to connect | other CPU % |")
    print("|---:|---|---|---|---|---|---|---|---|---|")
    for (n, kind, mode) in cells:
        rs = results[(n, kind, mode)]
        us = [float(x["server_us_per_conn"]) for x in rs]
        sched = [float(x["sched_us_per_conn"]) for x in rs]
        added, added_sched, share = [], [], []
        if mode in ("frame", "bearer"):
            base = {x["round"]: x for x in results.get((n, kind, "plain"), [])}
            for x in rs:
                b = base.get(x["round"])
                if b:
                    added.append(float(x["server_us_per_conn"]) - float(b["server_us_per_conn"]))
                    added_sched.append(float(x["sched_us_per_conn"]) - float(b["sched_us_per_conn"]))
                    share.append(100 * added_sched[-1] / float(b["sched_us_per_conn"]))
        label = {"none": "plain, no key on the server (S5)", "plain": "plain, key on the server",
                 "frame": "`auth` message, wait for `authed`", "bearer": "Bearer header on the upgrade"}[mode]
        print(f"| {n:,} | {kind.upper() if kind != '-' else '-'} | {label} | {fig(us)} | {fig(sched)} | {fig(added)} | "
              f"{fig(added_sched)} | {fig(share, '{:.0f}%')} | {fig([float(x['open_seconds']) for x in rs], '{:.2f}')} | "
              f"{fig([float(x['other_cpu_pct']) for x in rs], '{:.0f}')} |")
    print()
    span = wall1 - wall0
    print(f"whole run: {span:.0f} s; the machine's busy CPU over it {100 * (busy1 - busy0) / span:.0f}% of "
          f"{os.cpu_count()}00% (server, fanload and everything else)")
    print(f"{failures} failed runs")
    if not args.keep and not failures:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
