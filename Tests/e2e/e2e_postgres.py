"""A private PostgreSQL 15 on a free loopback port, for the tests and benchmarks that need a
shared store (PROTOCOL 11.1). As root (CI), initdb and postgres run as the `postgres` user, in
a temporary directory that user can reach; stopped with SIGINT (a fast shutdown), started again
on the same directory to restart it with its data."""
from __future__ import annotations

import contextlib
import glob
import itertools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

_databases = itertools.count(1)


def _bin(name: str) -> str:
    for directory in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.path.exists(os.path.join(directory, name)):
            return os.path.join(directory, name)
    raise AssertionError(f"PostgreSQL's {name} is not installed (apt-get install -y postgresql)")


def _free_port() -> int:
    with contextlib.closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Postgres:
    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="boardcast-pg-")
        os.chmod(self.root, 0o755)
        self.data = os.path.join(self.root, "data")
        self.port = _free_port()
        self.proc: subprocess.Popen | None = None
        self.started = False
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")

    def _run_as(self, command: list[str]) -> list[str]:
        return ["runuser", "-u", "postgres", "--"] + command if self.as_root else command

    def init(self) -> "Postgres":
        subprocess.run(self._run_as([_bin("initdb"), "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync",
                                     "-E", "UTF8"]), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return self

    def start(self) -> "Postgres":
        """Starts the server; a first start whose port another process took meanwhile (a probed
        free port is free only when probed: a copy of the suites beside this one may bind it)
        moves to another port. Readiness is asked over this server's own Unix socket, so another
        server on the port cannot pass for it."""
        for attempt in range(5):
            self.proc = subprocess.Popen(
                self._run_as([_bin("postgres"), "-D", self.data, "-p", str(self.port), "-k", self.root,
                              "-c", "listen_addresses=127.0.0.1", "-c", "fsync=on", "-c", "max_connections=200"]),
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                ready = subprocess.run([_bin("pg_isready"), "-h", self.root, "-p", str(self.port), "-q"])
                if ready.returncode == 0 and self.proc.poll() is None:
                    self.started = True
                    return self
                if self.proc.poll() is not None:
                    break
                time.sleep(0.1)
            else:
                raise AssertionError("postgres did not become ready in 30 s")
            if self.started:  # a restart keeps its port: the URLs handed out name it
                raise AssertionError("postgres exited at start")
            self.port = _free_port()
        raise AssertionError("postgres exited at start, on five ports")

    def _postmaster(self) -> int | None:
        """The postmaster's pid (runuser, in front of it, does not pass signals on)."""
        try:
            with open(os.path.join(self.data, "postmaster.pid")) as f:
                return int(f.readline())
        except (OSError, ValueError):
            return None

    def stop(self) -> None:
        """A fast shutdown: SIGINT to the postmaster."""
        if self.proc and self.proc.poll() is None:
            pid = self._postmaster()
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.proc = None

    def kill(self) -> None:
        """As if the machine lost it: SIGKILL to its whole process group."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        self.proc = None

    def _processes(self) -> list[int]:
        """The postmaster and its children (backends leave its process group: setsid)."""
        postmaster = self._postmaster()
        assert postmaster is not None
        children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True).stdout.split()
        return [postmaster, *map(int, children)]

    def freeze(self) -> None:
        """As if the network to it were cut: every process of the server stops (SIGSTOP), its
        sockets stay open, and nothing answers."""
        assert self.proc and self.proc.poll() is None
        for pid in self._processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)

    def thaw(self) -> None:
        # runuser stops itself when its child stops (as su does): it is woken too.
        assert self.proc
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.proc.pid, signal.SIGCONT)
        for pid in self._processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)

    def restart(self) -> None:
        self.stop()
        self.start()

    def create_database(self) -> str:
        name = f"boardcast{next(_databases)}"
        subprocess.run([_bin("createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name], check=True)
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
