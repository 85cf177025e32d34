"""Fixtures: the real server process, shared or one per test."""
from __future__ import annotations

import resource

import pytest

from e2e_server import ServerProcess

# Crowd tests open thousands of sockets here and in the servers started from here.
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if _soft < _hard:
    resource.setrlimit(resource.RLIMIT_NOFILE, (_hard, _hard))


@pytest.fixture(scope="session")
def server():
    """One server (in-memory store) shared by the tests that need nothing special.

    Tests on it only look at games they created themselves. They are many clients on one
    address (127.0.0.1) creating well over 30 games a minute together, so --create-rate is
    raised for it; test_limits.py shows the limits at their defaults."""
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


@pytest.fixture(scope="session")
def postgres_server():
    """One private PostgreSQL for the session; each test takes a database of its own."""
    from e2e_postgres import Postgres
    server = Postgres().init().start()
    yield server
    server.remove()


@pytest.fixture
def store(postgres_server):
    """A fresh database on the session's PostgreSQL: its `--store` URL."""
    return postgres_server.create_database()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request):
    """The durability suite runs on both stores: the server's extra arguments for each."""
    if request.param == "sqlite":
        return ()
    return ("--store", request.getfixturevalue("postgres_server").create_database())
