"""The plain HTTP side of the one port: static client, health, metrics, lobby API."""
from __future__ import annotations

import datetime
import http.client
import re

import requests

from e2e_client import Client, eventually, run

LOBBY_KEYS = {"game", "kind", "status", "seq", "players", "spectators", "created", "updated"}


def http_session() -> requests.Session:
    session = requests.Session()
    session.trust_env = False  # never through a proxy: 127.0.0.1 only
    return session


def assert_utc_rfc3339(text: str) -> datetime.datetime:
    assert isinstance(text, str) and re.fullmatch(
        r"\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d+)?([Zz]|\+00:00)", text), f"not RFC 3339 UTC: {text!r}"
    moment = datetime.datetime.fromisoformat(text.replace("z", "Z").replace("t", "T"))
    assert moment.utcoffset() == datetime.timedelta(0)
    return moment


def metric_samples(text: str) -> dict[str, float]:
    """Prometheus text format: `name{labels} value` lines (comments skipped), checked line by line."""
    samples: dict[str, float] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            if line.startswith("#"):
                assert re.match(r"# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* ", line + " "), line
            continue
        match = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)(\s+\d+)?", line)
        assert match, f"not a Prometheus sample line: {line!r}"
        samples[match.group(1) + (match.group(2) or "")] = float(match.group(3))
    return samples


def total(samples: dict[str, float], word: str, suffix: str = "") -> float:
    return sum(v for k, v in samples.items()
               if word in k.split("{")[0].lower() and k.split("{")[0].endswith(suffix))


def test_root_serves_the_browser_client(server):
    response = http_session().get(server.http + "/", timeout=15)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/html")


def test_healthz(server):
    response = http_session().get(server.http + "/healthz", timeout=15)
    assert response.status_code == 200
    assert response.text.strip() == "ok"


def test_healthz_answers_head_without_a_body_and_refuses_other_methods(server):
    head = http_session().head(server.http + "/healthz", timeout=15)
    assert head.status_code == 200
    assert head.text == ""
    assert head.headers.get("content-length") == "3"  # the length of "ok\n", as a GET would send
    post = http_session().post(server.http + "/healthz", data=b"x", timeout=15)
    assert post.status_code == 405


def test_unknown_static_file_is_404(server):
    response = http_session().get(server.http + "/no-such-file-here.js", timeout=15)
    assert response.status_code == 404


def raw_get(server, path: str) -> tuple[int, bytes]:
    """A GET with the path sent byte for byte (requests would normalise `..`)."""
    connection = http.client.HTTPConnection(server.host, server.port, timeout=15)
    try:
        connection.putrequest("GET", path, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_static_path_traversal_is_refused(server):
    # web-static/../Package.swift is the repository's manifest: it must never be served.
    for path in ["/../Package.swift", "/../../../../etc/passwd", "/%2e%2e/Package.swift",
                 "/%2E%2E/%2E%2E/etc/passwd", "/..%2fPackage.swift", "/.%2e/Package.swift",
                 "/x/../../Package.swift", "/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/..\\Package.swift"]:
        status, body = raw_get(server, path)
        assert 400 <= status < 500, f"GET {path} -> {status}"
        assert b"PackageDescription" not in body and b"root:" not in body, f"GET {path} leaked a file"
    assert http_session().get(server.http + "/healthz", timeout=15).text.strip() == "ok"


def test_api_games_lists_lobby_objects(server):
    async def scenario():
        player = await Client.connect(server.ws(), "p1")
        reply = await player.create("klondike", draw=1, seed=4242)
        game = reply.one("created")["game"]
        await player.move({"type": "tap", "target": "/stock"})
        plane = await Client.connect(server.ws(), "plane")
        plane_game = (await plane.create("plane", width=640, height=480, seed=99)).one("created")["game"]
        spectator = await Client.connect(server.ws(), "s1")
        await spectator.watch(game)
        await player.expect_type("presence", spectators=1)  # the lobby has caught up with the watcher

        def lobby_has_caught_up():
            response = http_session().get(server.http + "/api/games", timeout=15)
            assert response.status_code == 200
            entry = next(g for g in response.json() if g["game"] == game)
            assert (entry["seq"], entry["players"], entry["spectators"]) == (1, 1, 1), entry
            return response
        response = await eventually(lobby_has_caught_up)
        assert response.headers["Content-Type"].startswith("application/json")
        games = response.json()
        assert isinstance(games, list)
        for entry in games:
            # `seats` for a game with seats (section 13), `delay` for a delayed one (section 15).
            # `clock` and `bots` for games that have them (sections 17 and 18).
            assert LOBBY_KEYS <= set(entry) <= LOBBY_KEYS | {"seats", "delay", "clock", "bots"}, entry
            assert ("seats" in entry) == (entry["kind"] in ("race", "four")), entry
            created = assert_utc_rfc3339(entry["created"])
            assert assert_utc_rfc3339(entry["updated"]) >= created
        ours = {entry["game"]: entry for entry in games}
        assert ours[game]["kind"] == "klondike" and ours[game]["status"] == "playing"
        assert ours[game]["seq"] == 1 and ours[game]["players"] == 1 and ours[game]["spectators"] == 1
        assert ours[plane_game]["kind"] == "plane" and ours[plane_game]["status"] == "playing"
        assert ours[plane_game]["seq"] == 0
        assert '"seed"' not in response.text and '"deck"' not in response.text and '"token"' not in response.text
        for client in (player, plane, spectator):
            await client.close()
    run(scenario())


def test_metrics_exist_and_move_with_traffic(server):
    session = http_session()
    response = session.get(server.http + "/metrics", timeout=15)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain")
    before = metric_samples(response.text)
    names = {key.split("{")[0].lower() for key in before}
    for word in ("connection", "game", "message", "bytes", "error", "latency"):
        assert any(word in name for name in names), f"no metric about {word!r} in {sorted(names)}"
    # The pool of proven winnable deals, per draw, and what the server keeps ready.
    assert before.get("boardcast_winnable_pool_target", 0) > 0, sorted(names)
    for draw in (1, 3):
        assert before[f'boardcast_winnable_pool_seeds{{draw="{draw}"}}'] >= 0

    async def traffic():
        player = await Client.connect(server.ws(), "metrics")
        await player.create("klondike", seed=7)
        for _ in range(3):
            await player.move({"type": "tap", "target": "/stock"})
        bad = await player.request({"type": "tap", "target": "/tableau/9"})
        assert bad.ack["code"] == "bad-request"
        during = metric_samples(session.get(server.http + "/metrics", timeout=15).text)
        await player.close()
        return during
    after = run(traffic())

    assert total(after, "message") > total(before, "message")
    assert total(after, "bytes") > total(before, "bytes")
    assert total(after, "latency", "_count") >= total(before, "latency", "_count") + 3
    assert total(after, "game") >= 1, "a game was live while /metrics was read"
    assert total(after, "connection") >= 1, "a connection was open while /metrics was read"
    errors = {k: v for k, v in after.items() if "error" in k.split("{")[0].lower()}
    bad_request = [v for k, v in errors.items() if "bad-request" in k or "bad_request" in k]
    assert bad_request and max(bad_request) >= 1, f"no error counter labelled with its code: {errors}"


CONTENT_TYPES = {".html": "text/html", ".js": "javascript", ".css": "text/css", ".svg": "image/svg+xml"}


def test_static_files_under_root_are_served(server):
    from e2e_server import WEB_DIR
    files = sorted(p for p in WEB_DIR.rglob("*") if p.is_file() and p.suffix in CONTENT_TYPES)[:30]
    assert files, f"no files in {WEB_DIR}"
    session = http_session()
    for path in files:
        url = server.http + "/" + path.relative_to(WEB_DIR).as_posix()
        response = session.get(url, timeout=15)
        assert response.status_code == 200, url
        assert CONTENT_TYPES[path.suffix] in response.headers["Content-Type"], (url, response.headers["Content-Type"])
