"""Storage faults against the real server on a real small filesystem: a full disk and a
read-only one. A command that could not be stored is refused with a clear error, no diff
of it is sent, nothing is half-applied, and the server recovers when the fault goes."""
from __future__ import annotations

import contextlib
import os
import pathlib
import subprocess

import pytest
import requests

from e2e_client import Client, eventually, fresh_snapshot, run
from e2e_server import ServerProcess


@contextlib.contextmanager
def small_filesystem(path: pathlib.Path, size: str = "4m"):
    """A tmpfs of `size` at `path`: its own full disk, its own read-only switch."""
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.fail(f"these tests mount a small tmpfs and need root (CI runs as root): {mounted.stderr}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def fill(path: pathlib.Path) -> pathlib.Path:
    """Writes a file until the filesystem is full."""
    filler = path / "filler"
    with open(filler, "wb") as out:
        block = b"\0" * 65536
        try:
            while True:
                out.write(block)
                out.flush()
        except OSError:
            pass
    return filler


def healthz(server) -> tuple[int, str]:
    response = requests.get(server.http + "/healthz", timeout=15)
    return response.status_code, response.text


def test_a_full_disk_refuses_moves_cleanly_and_play_resumes_when_space_returns(tmp_path):
    with small_filesystem(tmp_path / "fs") as fs:
        server = ServerProcess(data=fs / "data").start()
        try:
            async def scenario():
                player = await Client.connect(server.ws(), "player")
                created = (await player.create("klondike", seed=5)).one("created")
                game = created["game"]
                spectator = await Client.connect(server.ws(), "spectator")
                assert (await spectator.watch(game)).ok
                for _ in range(3):
                    await player.move({"type": "tap", "target": "/stock"})
                before = await fresh_snapshot(server.ws(), game)

                filler = fill(fs)
                mark = spectator.mark()
                refused = await player.request({"type": "tap", "target": "/stock"})
                assert refused.ack["type"] == "error" and refused.ack["code"] == "unavailable", refused
                assert "storage" in refused.ack["message"]
                assert spectator.received("diff", mark) == [], "no diff for a command that was not stored"
                status, text = healthz(server)
                assert status == 503 and "storage" in text
                assert (await fresh_snapshot(server.ws(), game)) == before, "nothing half-applied"
                def logged():
                    assert any("storage write failed" in line for line in server.stderr_lines)
                await eventually(logged)

                os.remove(filler)
                moved = await player.move({"type": "tap", "target": "/stock"})
                assert moved.one("diff")["seq"] == 4
                await eventually(lambda: healthz(server) == (200, "ok\n"))
                for client in (player, spectator):
                    assert client.problems == [], client.problems
                await spectator.expect(lambda m: isinstance(m, dict) and m.get("type") == "diff" and m["seq"] == 4)
                fresh = (await fresh_snapshot(server.ws(), game))["state"]
                assert spectator.state == fresh
                await player.close()
                await spectator.close()
                return game, spectator.state

            game, state = run(scenario())
            assert server.terminate() == 0
            restarted = ServerProcess(data=fs / "data").start()
            try:
                assert run(fresh_snapshot(restarted.ws(), game))["state"] == state
            finally:
                assert restarted.terminate() == 0
        finally:
            if server.running:
                server.kill()


def test_a_read_only_data_directory_is_refused_at_start_with_a_clear_message(tmp_path):
    """A filesystem cannot be made read-only under a running server that has its files open
    for writing (the kernel refuses the remount), and open files stay writable; so the
    read-only case is a server started on one: it must stop with a message that says what to
    do, change nothing, and start normally once the directory is writable again."""
    with small_filesystem(tmp_path / "fs") as fs:
        data = fs / "data"
        server = ServerProcess(data=data).start()

        async def make():
            player = await Client.connect(server.ws(), "player")
            game = (await player.create("klondike", seed=1)).one("created")["game"]
            await player.move({"type": "tap", "target": "/stock"})
            await player.close()
            return game

        game = run(make())
        assert server.terminate() == 0
        before = {p.name: p.read_bytes() for p in data.iterdir() if p.is_file()}
        subprocess.run(["mount", "-o", "remount,ro", str(fs)], check=True)
        try:
            refused = ServerProcess(data=data)
            code = refused.start_expecting_failure(timeout=20)
            assert code != 0
            assert "read-only file system" in refused.output().lower(), refused.output()
        finally:
            subprocess.run(["mount", "-o", "remount,rw", str(fs)], check=True)
        after = {p.name: p.read_bytes() for p in data.iterdir() if p.is_file() and p.name in before}
        assert after == before, "a refused start changes nothing"
        again = ServerProcess(data=data).start()
        try:
            assert run(fresh_snapshot(again.ws(), game))["seq"] == 1
        finally:
            assert again.terminate() == 0
