"""The README's websocat session, run as written (only the address is ours)."""
from __future__ import annotations

import re
import shlex
import subprocess
import threading
import queue
import time

from e2e_server import REPO
from e2e_websocat import as_json, websocat_binary

SESSION_FENCE = re.compile(r"^```websocat-session[^\n]*\n(.*?)^```", re.S | re.M)


def readme_session() -> tuple[list[str], list[str]]:
    """The websocat command line and the lines typed into it."""
    text = (REPO / "README.md").read_text()
    match = SESSION_FENCE.search(text)
    assert match, "README.md has no ```websocat-session block"
    lines = [line for line in match.group(1).splitlines() if line.strip()]
    assert lines and lines[0].startswith("websocat "), lines
    return shlex.split(lines[0]), lines[1:]


def test_readme_websocat_session_runs_as_written(server):
    command, typed = readme_session()
    assert typed, "the session types at least one command"
    argv = [websocat_binary()] + [re.sub(r"^(wss?)://[^/]+", rf"\1://{server.host}:{server.port}", arg)
                                  for arg in command[1:]]
    assert any(f":{server.port}/" in arg for arg in argv), f"no ws:// address in the README command: {command}"
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines: queue.Queue[str | None] = queue.Queue()

    def read():
        for raw in iter(proc.stdout.readline, b""):
            lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        lines.put(None)
    threading.Thread(target=read, daemon=True).start()

    # What each shorthand word must produce (any other word: at least an answer that is no error).
    expected_kind = {"create": "snapshot", "tap": "diff", "double-tap": "diff", "drag": "diff",
                     "undo": "diff", "reset": "diff", "hint": "hint", "list": "lobby", "watch": "joined",
                     "join": "joined", "leave": "left", "add": "diff", "color": "diff", "alpha": "diff"}
    seen: list[str] = []
    try:
        for line in typed:
            proc.stdin.write(line.encode() + b"\n")
            proc.stdin.flush()
            word = line.split()[0]
            start = len(seen)

            def done() -> bool:
                new = seen[start:]
                messages = [m for m in (as_json(l) for l in new) if isinstance(m, dict)]
                assert not [m for m in messages if m.get("type") == "error"], f"{line!r} -> {new}"
                if word == "show":
                    return sum(1 for l in new if not isinstance(as_json(l), dict)) >= 3
                kind = expected_kind.get(word)
                return any(m.get("type") == kind for m in messages) if kind else bool(new)

            deadline = time.monotonic() + 15  # a wait: returns as soon as the answer is whole
            while not done():
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"README line {line!r} got no full answer: {seen[start:]}"
                try:
                    item = lines.get(timeout=min(remaining, 0.5))
                except queue.Empty:
                    continue
                assert item is not None, f"websocat ended: {proc.stderr.read().decode()}"
                seen.append(item)
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
