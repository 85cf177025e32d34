"""The real server process, started as a user would start it.

Every test talks to a `server` binary over 127.0.0.1; nothing here fakes it.
"""
from __future__ import annotations

import os
import pathlib
import queue
import re
import signal
import subprocess
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
SERVER_BIN = os.environ.get("BOARDCAST_SERVER", str(REPO / ".build" / "debug" / "server"))
WEB_DIR = REPO / "web-static"
LISTENING = re.compile(r"listening on http://(\[[^\]]+\]|[^\s:/]+):(\d+)")


class ServerProcess:
    """One `server` process; `start()` returns once it printed its listening line."""

    def __init__(self, data: str | os.PathLike = ":memory:", ping_interval: int = 30,
                 web: os.PathLike = WEB_DIR, extra_args: tuple[str, ...] = ()):
        self.args = [SERVER_BIN, "--host", "127.0.0.1", "--port", "0",
                     "--data", str(data), "--web", str(web),
                     "--ping-interval", str(ping_interval), *extra_args]
        self.data = data
        self.proc: subprocess.Popen | None = None
        self.host = "127.0.0.1"
        self.port: int | None = None
        self.stdout_lines: list[str] = []
        self.stderr_lines: list[str] = []
        self._stdout_queue: queue.Queue[str | None] = queue.Queue()

    # -- life cycle ---------------------------------------------------------

    def start(self, timeout: float = 30.0) -> "ServerProcess":
        self.proc = self._spawn()
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise AssertionError(f"server printed no listening line within {timeout}s:\n{self.output()}")
            try:
                line = self._stdout_queue.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                continue
            if line is None:  # stdout closed: the process is gone
                code = self.proc.wait(timeout=5)
                raise AssertionError(f"server exited with {code} before listening:\n{self.output()}")
            match = LISTENING.search(line)
            if match:
                self.port = int(match.group(2))
                assert match.group(1) == self.host, line
                return self

    def start_expecting_failure(self, timeout: float = 20.0) -> int:
        """Starts the process and returns its exit code; fails if it ever listens."""
        self.proc = self._spawn()
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"server still running after {timeout}s:\n{self.output()}")
        self._join_drains()
        assert not any(LISTENING.search(l) for l in self.stdout_lines), self.output()
        return code

    def terminate(self, timeout: float = 15.0) -> int:
        """SIGTERM, then the exit code (killing it and failing if it hangs)."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"server did not exit within {timeout}s of SIGTERM:\n{self.output()}")
        self._join_drains()
        return code

    def kill(self) -> None:
        """SIGKILL (kill -9): no chance to flush anything."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._join_drains()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # -- addresses ----------------------------------------------------------

    @property
    def http(self) -> str:
        return f"http://{self.host}:{self.port}"

    def ws(self, path: str = "/ws") -> str:
        return f"ws://{self.host}:{self.port}{path}"

    def output(self) -> str:
        return ("--- stdout ---\n" + "".join(self.stdout_lines)[-6000:] +
                "\n--- stderr ---\n" + "".join(self.stderr_lines)[-6000:])

    # -- plumbing -----------------------------------------------------------

    def _spawn(self) -> subprocess.Popen:
        assert os.path.exists(self.args[0]), f"no server binary at {self.args[0]} (set BOARDCAST_SERVER)"
        self._stdout_queue = queue.Queue()  # a start again reads only its own process's lines
        proc = self._popen()
        # Both pipes are drained for the whole life of the process so its logging never blocks.
        self._drains = [
            threading.Thread(target=self._drain, args=(proc.stdout, self.stdout_lines, self._stdout_queue), daemon=True),
            threading.Thread(target=self._drain, args=(proc.stderr, self.stderr_lines, None), daemon=True),
        ]
        for thread in self._drains:
            thread.start()
        return proc

    def _popen(self) -> subprocess.Popen:
        """The process itself (a subclass may start it elsewhere: netns_hosts.NodeProcess)."""
        return subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=str(REPO))

    @staticmethod
    def _drain(pipe, lines: list[str], q: queue.Queue | None) -> None:
        for raw in iter(pipe.readline, b""):
            line = raw.decode("utf-8", "replace")
            lines.append(line)
            if q is not None:
                q.put(line)
        if q is not None:
            q.put(None)

    def _join_drains(self) -> None:
        for thread in getattr(self, "_drains", []):
            thread.join(timeout=5)
