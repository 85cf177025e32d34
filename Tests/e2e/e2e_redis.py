"""A real redis-server on a free loopback port, nothing persisted: the cluster tests' and the
takeover benchmark's Redis."""
from __future__ import annotations

import contextlib
import socket
import subprocess
import time


def free_port() -> int:
    with contextlib.closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Redis:
    def __init__(self):
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.started = False

    def start(self) -> "Redis":
        """Starts redis-server; a first start whose port another process took meanwhile (a probed
        free port is free only when probed: a copy of the suites beside this one may bind it)
        moves to another port. It is ready when the server on the port says it is this process."""
        for attempt in range(5):
            self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                                          "--save", "", "--appendonly", "no", "--daemonize", "no"],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.proc.poll() is None:
                if self._answering_pid() == self.proc.pid:
                    self.started = True
                    return self
                time.sleep(0.02)
            if self.proc.poll() is None or self.started:  # hung; or a restart, which keeps its port
                break
            self.port = free_port()
        self.stop()
        raise RuntimeError("redis-server did not start")

    def _answering_pid(self) -> int | None:
        """The process id of the Redis server answering on the port, if one answers."""
        with contextlib.suppress(OSError, ValueError), \
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
            sock.settimeout(0.5)
            sock.sendall(b"INFO server\r\n")
            reply = b""
            while b"process_id:" not in reply or not reply.split(b"process_id:", 1)[1].count(b"\r\n"):
                chunk = sock.recv(65536)
                if not chunk:
                    return None
                reply += chunk
            return int(reply.split(b"process_id:", 1)[1].split(b"\r\n", 1)[0])
        return None

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it hangs."""
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"
