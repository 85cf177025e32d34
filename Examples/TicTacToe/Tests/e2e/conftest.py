"""Fixtures: the package's own `tictactoe-server`, started by Boardcast's end-to-end harness
(Tests/e2e/e2e_server.py) exactly as Boardcast's tests start `server`: the same flags, port 0,
its listening line, SIGTERM at the end (exit 0), SIGKILL when a test asks for kill -9.

The binary: $TICTACTOE_SERVER, else Examples/TicTacToe/.build/debug/tictactoe-server
(`swift build --package-path Examples/TicTacToe --product tictactoe-server`).

Run from anywhere: python3 -m pytest -q Examples/TicTacToe/Tests/e2e
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve()
PACKAGE = HERE.parents[2]  # Examples/TicTacToe
BOARDCAST = HERE.parents[4]  # the Boardcast checkout the package depends on by path
BOARDCAST_E2E = BOARDCAST / "Tests" / "e2e"
if str(BOARDCAST_E2E) not in sys.path:
    sys.path.insert(0, str(BOARDCAST_E2E))

TICTACTOE_SERVER = os.environ.get("TICTACTOE_SERVER", str(PACKAGE / ".build" / "debug" / "tictactoe-server"))
# The harness reads BOARDCAST_SERVER when it is first imported; a process running only these
# tests points it at this package's binary (ServerProcess below sets it per process anyway, so
# Boardcast's own tests in the same session would keep theirs).
if "e2e_server" not in sys.modules:
    os.environ.setdefault("BOARDCAST_SERVER", TICTACTOE_SERVER)

import e2e_server  # noqa: E402 - after the path above


class ServerProcess(e2e_server.ServerProcess):
    """Boardcast's ServerProcess, running this package's binary (every flag of `server` holds)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.args[0] = TICTACTOE_SERVER

    def _spawn(self):
        assert Path(TICTACTOE_SERVER).exists(), (
            f"no tictactoe-server at {TICTACTOE_SERVER}: build it with "
            "`swift build --package-path Examples/TicTacToe --product tictactoe-server` or set TICTACTOE_SERVER")
        return super()._spawn()


@pytest.fixture(scope="session")
def server():
    """One server (in-memory store) shared by the tests that need nothing special; they look only
    at games they created, many from one address, so --create-rate is raised as in Boardcast's."""
    process = ServerProcess(data=":memory:", ping_interval=30, extra_args=("--create-rate", "100000")).start()
    yield process
    code = process.terminate()
    assert code == 0, f"shared server exited with {code} on SIGTERM:\n{process.output()}"


@pytest.fixture
def start_server():
    """Starts servers with given options; any still running at the end get SIGTERM and must exit 0."""
    started: list[ServerProcess] = []

    def start(**options) -> ServerProcess:
        process = ServerProcess(**options).start()
        started.append(process)
        return process

    yield start
    failures = []
    for process in started:
        if process.running:
            code = process.terminate()
            if code != 0:
                failures.append(f"exit {code}:\n{process.output()}")
    assert not failures, failures
