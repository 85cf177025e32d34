"""PROTOCOL section 19 from outside (with docs/AUTH-DESIGN.md where the section is silent): users
signed in by an operator's JSON Web Tokens (HS256, RS256, ES256 keys, key rotation, issuer and
audience), every bad token refused with its reason, `Authorization: Bearer` at the upgrade,
`names` and chat names, a user's seat theirs from any connection (after a kill -9 on SQLite and
PostgreSQL, after a takeover on a shared store, across a cluster), `--require-auth`, a token's
expiry, and who may watch (`anyone`, `link`, `players`). Real server processes, real clients;
tokens minted here with `cryptography` alone (auth_tokens.py); no token may reach a log."""
from __future__ import annotations

import asyncio
import hmac
import json
import pathlib
import re
import subprocess
import time

import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from auth_tokens import (ADA, EVE, GRACE, LEEWAY, OMIT, HS256Key, Keyring, User, b64url_decode, bad_tokens,
                         flip_signature, self_check, write_unusable_keys)
from e2e_client import DEFAULT_TIMEOUT, Client, Reply, eventually, fresh_snapshot, run
from e2e_server import ServerProcess
from rawws import refused_upgrade
from test_cluster import redis  # noqa: F401 - the redis fixture
from test_http import assert_utc_rfc3339, http_session

ISSUER = "https://accounts.example"
AUDIENCE = "boardcast-e2e"
DEBUG = ("--log-level", "debug")  # the most a log says: still no token in it
WATCH_KEY = re.compile(r"[A-Za-z0-9_-]{22}")


# -- helpers --------------------------------------------------------------------------------------

def keyring(tmp_path: pathlib.Path, issuer: bool = True, folder: str = "keys") -> Keyring:
    return Keyring(tmp_path / folder, ISSUER if issuer else None, AUDIENCE if issuer else None)


def keyed(start_server, keys: Keyring, *key_objects, extra: tuple[str, ...] = (), data=":memory:") -> ServerProcess:
    """A server given `key_objects` (default: the secret, the first RSA key, the EC key) and the
    keyring's issuer and audience."""
    return start_server(data=data, extra_args=(*keys.flags(*key_objects), *DEBUG, *extra))


async def connect(url: str, name: str, bearer: str | None = None) -> Client:
    headers = {"Authorization": f"Bearer {bearer}"} if bearer is not None else None
    ws = await ws_connect(url, additional_headers=headers, proxy=None, open_timeout=DEFAULT_TIMEOUT,
                          ping_interval=None, close_timeout=3, max_size=4 * 1024 * 1024, max_queue=None)
    return Client(ws, name)


def claims_of(jwt: str) -> dict:
    return json.loads(b64url_decode(jwt.split(".")[1]))


def display_name(user: User) -> str:
    return user.name if user.name is not None else user.sub[:40]


def line_said(reply: Reply, text: str) -> dict:
    """The chat line a `say` of `text` made, in its reply (other members' lines said just before
    may arrive inside the same reply)."""
    lines = [m for m in reply.of("chat") if m.get("text") == text]
    assert len(lines) == 1, f"expected one line {text!r} in {reply!r}"
    return lines[0]


async def sign_in(client: Client, jwt: str, user: User = ADA, name: str | None = None) -> Reply:
    """`auth`: `authed` {user, name, expires} then the ack."""
    reply = await client.request({"type": "auth", "jwt": jwt})
    assert reply.ok, f"{client.name}: auth as {user.sub} -> {reply.ack}"
    authed = reply.one("authed")
    assert authed["user"] == user.sub, authed
    assert authed["name"] == (name if name is not None else display_name(user)), authed
    assert set(authed) <= {"type", "user", "name", "expires", "id"}, authed
    expires = assert_utc_rfc3339(authed["expires"])
    assert abs(expires.timestamp() - claims_of(jwt)["exp"]) <= 1, (authed["expires"], claims_of(jwt)["exp"])
    assert reply.types().index("authed") < len(reply) - 1 and reply.types()[-1] == "ack", reply.types()
    return reply


async def refused_auth(client: Client, jwt: str, reasons: tuple[str, ...] | None) -> str | None:
    """`auth` with a bad token: `forbidden` "bad token: REASON", no `authed`. Returns what is wrong
    with the answer (None if it is right), so a test can list every mismatch at once."""
    reply = await client.request({"type": "auth", "jwt": jwt})
    error = reply.ack
    if reply.of("authed") or error.get("type") != "error":
        return f"signed in: {reply!r}"
    message = error.get("message", "")
    if error.get("code") != "forbidden" or not message.startswith("bad token: "):
        return f"answered {error}"
    if reasons is not None and message[len("bad token: "):] not in reasons:
        return f"reason {message!r}, expected one of {reasons}"
    return None


async def join(client: Client, game: str, token: str | None = None, seat: str | None = None, **extra) -> Reply:
    message: dict = {"type": "join", "game": game}
    if token is not None:
        message["token"] = token
    if seat is not None:
        message["seat"] = seat
    message.update(extra)
    return await client.request(message)


async def ask(client: Client, message: dict) -> Reply:
    """A request sent as is (the client's tracking of `since` left alone): for refused watches."""
    message = dict(message, id=f"ask-{time.monotonic_ns()}")
    return await client.request_raw(json.dumps(message), message["id"])


def is_forbidden(reply: Reply, *words: str) -> None:
    error = reply.ack
    assert error.get("type") == "error" and error.get("code") == "forbidden", reply
    assert not reply.of("joined") and not reply.of("authed"), reply
    for word in words:
        assert word in error.get("message", ""), f"{error} should say {word!r}"


def joined_as(reply: Reply, you: str | None) -> dict:
    assert reply.ok, reply
    joined = reply.one("joined")
    if you is None:
        assert joined["role"] == "spectator" and "you" not in joined, joined
    else:
        assert joined["role"] == "player" and joined["you"] == you, joined
    return joined


async def served(client: Client, message: dict, by: float) -> Reply:
    """Sent again (a fresh id each time) while it is `unavailable`, until it is applied; one refused
    that left at or after `by` (a time.monotonic() instant) is a failure. Judged by when each
    request left, so a slow answer on a busy machine cannot fail it."""
    while True:
        sent = time.monotonic()
        reply = await client.request(dict(message))
        if reply.ok:
            return reply
        assert reply.ack.get("code") == "unavailable", reply
        assert sent < by, f"still unavailable {sent - by:.1f}s after it had to be served"
        await asyncio.sleep(0.2)


async def tap(client: Client, column: int) -> Reply:
    return await client.move({"type": "tap", "target": f"/columns/{column}"})


def is_presence(**fields):
    return lambda m: (isinstance(m, dict) and m.get("type") == "presence"
                      and all(m.get(k) == v for k, v in fields.items()))


def is_diff(seq: int):
    return lambda m: isinstance(m, dict) and m.get("type") == "diff" and m.get("seq") == seq


async def lobby(client: Client) -> dict[str, dict]:
    return {g["game"]: g for g in (await client.request({"type": "list"})).one("lobby")["games"]}


async def lobby_with(client: Client, game: str, within: float = DEFAULT_TIMEOUT,
                     check=lambda entry: True) -> dict[str, dict]:
    """The lobby (the `list` answer) once it lists `game` as `check` wants it (the lobby is
    recomputed at most once a second, and across nodes it goes through Redis)."""
    deadline = time.monotonic() + within
    while True:
        games = await lobby(client)
        if game in games and check(games[game]):
            return games
        assert time.monotonic() < deadline, f"{client.name}: lobby never showed {game} as wanted: {games.get(game)}"
        await asyncio.sleep(0.2)


def api(process: ServerProcess, path: str):
    return http_session().get(process.http + path, timeout=15)


def api_games(process: ServerProcess, query: str = "") -> dict[str, dict]:
    response = api(process, "/api/games" + query)
    assert response.status_code == 200, response.text
    return {g["game"]: g for g in response.json()}


def all_text(process: ServerProcess) -> str:
    return "".join(process.stdout_lines + process.stderr_lines)


def stop_and_check_logs(keys: Keyring | None, *processes: ServerProcess, secrets: tuple[str, ...] = ()) -> None:
    """SIGTERM (exit 0) to each process still running, then: no JWT minted in the test (nor its
    claims or signature part), no watch key, no game token in anything it printed."""
    for process in processes:
        if process.running:
            code = process.terminate()
            assert code == 0, f"exit {code} on SIGTERM:\n{process.output()}"
    for process in processes:
        text = all_text(process)
        assert "listening on" in text, "the process output was captured"
        if keys is not None:
            leaks = keys.leaks(text)
            assert not leaks, f"JWTs in the log of {' '.join(process.args[-6:])}: {leaks}"
        for secret in secrets:
            assert secret not in text, f"a secret ({secret[:6]}...) in the log of {' '.join(process.args[-6:])}"


def no_names_anywhere(*clients: Client) -> None:
    for client in clients:
        for m in client.messages:
            if not isinstance(m, dict):
                continue
            assert "names" not in m, f"{client.name}: `names` with no key configured: {m}"
            if m.get("type") == "lobby":
                for entry in m["games"]:
                    assert "names" not in entry, entry
            if m.get("type") == "chat":
                assert "name" not in m, m


def never_seen(secret: str, *clients: Client) -> None:
    for client in clients:
        assert secret not in json.dumps(client.messages, default=str), f"{client.name} was shown {secret}"


async def close_all(*clients: Client) -> None:
    for client in clients:
        await client.close()


async def start_four(url_p1: str, url_p2: str, p1_jwt: str | None, p2_jwt: str | None, bearer: bool = False,
                     **options):
    """p1 (signed in with `p1_jwt`, by `auth` or by Bearer) creates four in a row; p2 joins with its
    token, which starts it. Returns p1, p2, game, token, created."""
    if bearer:
        p1 = await connect(url_p1, "p1", bearer=p1_jwt)
        p2 = await connect(url_p2, "p2", bearer=p2_jwt)
    else:
        p1, p2 = await Client.connect(url_p1, "p1"), await Client.connect(url_p2, "p2")
        if p1_jwt is not None:
            await sign_in(p1, p1_jwt, ADA)
        if p2_jwt is not None:
            await sign_in(p2, p2_jwt, GRACE)
    created_reply = await p1.create("four", **options)
    created = created_reply.one("created")
    reply = await join(p2, created["game"], created["token"])
    joined_as(reply, "p2")
    await p1.expect_type("event", event="start")
    return p1, p2, created["game"], created["token"], created_reply


# -- the tokens themselves ------------------------------------------------------------------------

def test_tokens_minted_here_are_well_formed(tmp_path):
    """Not the server: the HS256/RS256/ES256 tokens of auth_tokens.py verify with `cryptography`
    alone, so a token a server refuses here is refused by the server's fault."""
    keys = keyring(tmp_path)
    self_check(keys)
    assert len(keys.hs.path.read_bytes()) >= 33 and keys.hs.path.read_bytes().endswith(b"\n")
    for bad in bad_tokens(keys):
        assert bad.jwt, bad.label
    # The log check finds a token whole, or its claims or signature part alone.
    jwt = keys.token(keys.rsa, ADA)
    head, body, signature = jwt.split(".")
    assert keys.leaks(f"auth {jwt} ok") and keys.leaks(f"claims={body}") and keys.leaks(f"sig {signature}")
    assert not keys.leaks(f"header {head} only")


def test_key_files_at_their_limits_and_unusable_ones_that_stop_the_server(start_server, tmp_path):
    wrong = []
    for label, (flag, path) in write_unusable_keys(tmp_path / "unusable").items():
        process = ServerProcess(extra_args=(flag, str(path)))
        try:
            code = process.start_expecting_failure()
        except AssertionError as started:
            wrong.append(f"{label}: the server started anyway ({str(started)[:120]})")
            continue
        if code == 0:
            wrong.append(f"{label}: exit 0 without listening")
    assert wrong == [], "\n".join(wrong)

    # A secret of exactly 32 bytes (a newline after it, stripped) is enough; the newline is not part of it.
    secret = HS256Key(tmp_path / "exact.txt", secret=b"0123456789abcdef0123456789ABCDEF")
    assert len(secret.secret) == 32 and (tmp_path / "exact.txt").read_bytes().endswith(b"\n")
    keys = keyring(tmp_path, issuer=False)
    server = start_server(extra_args=("--auth-hs256", str(secret.path), *DEBUG))

    async def scenario():
        client = await Client.connect(server.ws(), "exact")
        await sign_in(client, keys.token(secret, ADA))
        with_newline = HS256Key(None, secret=secret.secret + b"\n")
        assert await refused_auth(client, keys.token(with_newline, GRACE, kid=secret.kid), ("bad signature",)) is None
        await client.close()

    run(scenario())
    stop_and_check_logs(keys, server)


# -- signing in -----------------------------------------------------------------------------------

def test_each_kind_of_key_signs_in_then_the_ack_follows(start_server, tmp_path):
    keys = keyring(tmp_path)
    server = keyed(start_server, keys)

    async def scenario():
        client = await Client.connect(server.ws(), "signing-in")
        for key in (keys.hs, keys.rsa, keys.ec):
            reply = await sign_in(client, keys.token(key, ADA))  # a kid naming the file's stem
            assert "seq" not in reply.ack, f"outside a game the ack has no seq: {reply.ack}"
            await sign_in(client, keys.token(key, GRACE, kid=OMIT), GRACE)  # no kid: each key of that alg
        now = int(time.time())
        # Claims at their edges: no name (the sub is the name, cut to 40), 40 characters,
        # an audience list holding ours, exp and nbf within the 30 s leeway.
        await sign_in(client, keys.token(keys.rsa, User("u-no-name", None)), User("u-no-name", None))
        long_sub = "user-" + "x" * 60
        await sign_in(client, keys.token(keys.ec, User(long_sub, None)), User(long_sub, None), name=long_sub[:40])
        longest = User("u" * 128, None)  # a sub of 128 bytes, the most there may be
        await sign_in(client, keys.token(keys.rsa, longest), longest, name="u" * 40)
        await sign_in(client, keys.token(keys.hs, User("u-40", "N" * 40)), User("u-40", "N" * 40))
        await sign_in(client, keys.token(keys.hs, User("u-e", "é" * 40)), User("u-e", "é" * 40))
        await sign_in(client, keys.token(keys.rsa, ADA, aud=["other", AUDIENCE]))
        await sign_in(client, keys.token(keys.rsa, ADA, exp=now - 10))
        await sign_in(client, keys.token(keys.ec, ADA, nbf=now + 10))
        # A fresh `auth` replaces who the connection is; in a game the ack carries the seq.
        await sign_in(client, keys.token(keys.rsa, ADA))
        await sign_in(client, keys.token(keys.rsa, GRACE), GRACE)
        created = await client.create("four")
        assert created.one("joined")["names"] == {"p1": GRACE.name}, created.one("joined")
        renewed = await sign_in(client, keys.token(keys.ec, GRACE), GRACE)
        assert renewed.ack.get("seq") == 0, f"in a game the ack carries its seq: {renewed.ack}"
        # A malformed `auth` message is a bad request, not a bad token.
        for message in ({"type": "auth"}, {"type": "auth", "jwt": 5}):
            reply = await client.request(message)
            assert reply.ack.get("code") == "bad-request", (message, reply.ack)
        await client.close()

    run(scenario())
    stop_and_check_logs(keys, server)


def test_every_bad_token_is_forbidden_with_its_reason_and_changes_nothing(start_server, tmp_path):
    keys = keyring(tmp_path)
    server = keyed(start_server, keys)

    async def scenario():
        wrong: list[str] = []
        # `auth` has a limit of its own (20 in 20 s a connection): a fresh connection per few tokens.
        per_connection = 8
        # A connection signed in as no one stays so.
        bads = bad_tokens(keys, ADA)
        for start in range(0, len(bads), per_connection):
            nobody = await Client.connect(server.ws(), "nobody")
            for bad in bads[start:start + per_connection]:
                problem = await refused_auth(nobody, bad.jwt, bad.reasons)
                if problem:
                    wrong.append(f"not signed in, {bad.label}: {problem}")
            created = await nobody.create("four")
            assert created.one("joined").get("names") == {}, f"still signed in as no one: {created.one('joined')}"
            await close_all(nobody)

        # A connection signed in as Ada, in a game, stays Ada.
        bads = bad_tokens(keys, EVE)
        for start in range(0, len(bads), per_connection):
            ada = await Client.connect(server.ws(), "ada")
            await sign_in(ada, keys.token(keys.rsa, ADA))
            game = (await ada.create("four")).one("created")["game"]
            for bad in bads[start:start + per_connection]:
                problem = await refused_auth(ada, bad.jwt, bad.reasons)
                if problem:
                    wrong.append(f"signed in as Ada, {bad.label}: {problem}")
            said = await ada.request({"type": "say", "text": "still Ada"})
            assert said.ok and said.one("chat").get("name") == ADA.name, said
            watcher = await Client.connect(server.ws(), "watcher")
            watched = await watcher.watch(game)
            assert watched.one("joined")["names"] == {"p1": ADA.name}, watched.one("joined")
            await close_all(ada, watcher)
        assert wrong == [], "\n".join(wrong)

        # The 21st auth in twenty seconds on one connection is limited, and changes nothing.
        busy = await Client.connect(server.ws(), "busy")
        for _ in range(20):
            await sign_in(busy, keys.token(keys.rsa, ADA))
        over = await busy.request({"type": "auth", "jwt": keys.token(keys.rsa, EVE)})
        assert over.ack.get("code") == "limited", over.ack
        created = await busy.create("four")
        assert created.one("joined")["names"] == {"p1": ADA.name}, "still Ada after the refused 21st"
        await close_all(busy)

    run(scenario(), timeout=120)
    stop_and_check_logs(keys, server)


def test_mixed_secret_and_public_keys_the_confusion_attack_is_a_bad_signature(start_server, tmp_path):
    """HS256 signed with the RSA public key's PEM bytes as the HMAC secret: with a secret
    configured it is checked against the secret (and fails), never against the RSA key file."""
    keys = keyring(tmp_path)
    server = keyed(start_server, keys)

    async def scenario():
        client = await Client.connect(server.ws(), "attacker")
        bad = {b.label: b for b in bad_tokens(keys)}
        for label in ("HS256 signed with the RSA public key PEM as its secret (mixed keys: the secret is tried)",
                      "HS256 with the RSA public key PEM as its secret, naming the RSA key"):
            problem = await refused_auth(client, bad[label].jwt, bad[label].reasons)
            assert problem is None, f"{label}: {problem}"
        await client.close()

    run(scenario())
    stop_and_check_logs(keys, server)


def test_key_rotation_two_public_keys_each_kid_and_none(start_server, tmp_path):
    keys = keyring(tmp_path, issuer=False)
    server = keyed(start_server, keys, keys.rsa, keys.rsa_next)
    old, new = keys.rsa, keys.rsa_next

    async def scenario():
        client = await Client.connect(server.ws(), "rotating")
        await sign_in(client, keys.token(old, ADA))  # kid rsa-2026-11
        await sign_in(client, keys.token(new, GRACE), GRACE)  # kid rsa-2026-12
        await sign_in(client, keys.token(old, ADA, kid=OMIT))  # no kid: either key
        await sign_in(client, keys.token(new, GRACE, kid=OMIT), GRACE)
        # No issuer or audience configured: whatever the token says is not checked.
        await sign_in(client, keys.token(new, ADA, iss="anyone", aud="anything"))
        wrong = []
        cases = [
            ("old kid, signed by the new key", keys.token(old, ADA, signer=new.sign), ("bad signature",)),
            ("new kid, signed by the old key", keys.token(new, ADA, signer=old.sign), ("bad signature",)),
            ("no kid, a key the server lacks", keys.token(keys.stranger_rsa, ADA, kid=OMIT), ("bad signature",)),
            ("an unknown kid", keys.token(old, ADA, kid="rsa-2027-01"), ("unknown key id",)),
            ("the kid of a key file not given", keys.token(keys.hs, ADA), ("unknown key id",)),
            ("HS256 with only public keys", keys.token(keys.hs, ADA, kid=OMIT), ("no key for algorithm HS256",)),
            ("HS256 signed with the RSA public key PEM bytes",
             keys.token(keys.stranger_hs, ADA, kid=OMIT, signer=lambda d: hmac.new(
                 old.public_pem, d, "sha256").digest()), ("no key for algorithm HS256",)),
            ("HS256 signed with the RSA public key PEM bytes, naming the RSA key",
             keys.token(keys.stranger_hs, ADA, kid=old.kid, alg="HS256", signer=lambda d: hmac.new(
                 old.public_pem, d, "sha256").digest()), ("no key for algorithm HS256", "bad signature")),
            ("ES256 with no EC key", keys.token(keys.ec, ADA, kid=OMIT), ("no key for algorithm ES256",)),
            ("alg none", keys.token(old, ADA, alg="none", kid=OMIT, signer=lambda d: b""),
             ("no key for algorithm none",)),
            ("wrong signature", flip_signature(keys.token(new, ADA)), ("bad signature",)),
        ]
        for label, jwt, reasons in cases:
            problem = await refused_auth(client, jwt, reasons)
            if problem:
                wrong.append(f"{label}: {problem}")
        assert wrong == [], "\n".join(wrong)
        await client.close()

    run(scenario())

    # The old key retired: only the new one is given.
    retired = keyed(start_server, keys, new)

    async def after_rotation():
        client = await Client.connect(retired.ws(), "after")
        await sign_in(client, keys.token(new, GRACE), GRACE)
        assert await refused_auth(client, keys.token(old, ADA), ("unknown key id",)) is None
        assert await refused_auth(client, keys.token(old, ADA, kid=OMIT), ("bad signature",)) is None
        await client.close()

    run(after_rotation())
    stop_and_check_logs(keys, server, retired)


def test_bearer_at_the_upgrade_signs_in_and_a_bad_one_is_refused_with_401(start_server, tmp_path):
    keys = keyring(tmp_path)
    server = keyed(start_server, keys)

    async def scenario():
        ada = await connect(server.ws(), "ada", bearer=keys.token(keys.rsa, ADA))
        created = await ada.create("four")
        assert created.one("joined")["names"] == {"p1": ADA.name}, "signed in without sending auth"
        game, token = created.one("created")["game"], created.one("created")["token"]
        grace = await connect(server.ws(), "grace", bearer=keys.token(keys.ec, GRACE))
        joined = joined_as(await join(grace, game, token), "p2")
        assert joined["names"] == {"p1": ADA.name, "p2": GRACE.name}, joined
        assert not ada.received("authed") and not grace.received("authed"), "a Bearer sign-in sends nothing"
        # Bearer then `auth`: the fresh token replaces the first.
        await sign_in(grace, keys.token(keys.hs, GRACE), GRACE)

        now = int(time.time())
        refused = [
            (keys.token(keys.rsa, ADA, exp=now - LEEWAY - 60), "expired"),
            (flip_signature(keys.token(keys.ec, ADA)), "bad signature"),
            ("not-a-token", "malformed"),
            (keys.token(keys.hs, ADA, iss="https://elsewhere.example"), "wrong issuer"),
            (keys.token(keys.rsa, ADA, kid="nobody"), "unknown key id"),
        ]
        for jwt, reason in refused:
            status, _, body = await refused_upgrade(server.host, server.port,
                                                    headers={"Authorization": f"Bearer {jwt}"})
            assert status.split(" ")[1] == "401", (reason, status, body)
            assert reason.encode() in body, f"the body names why: {reason!r} not in {body!r}"
            assert jwt.encode() not in body or len(jwt) < 20
        assert api(server, "/healthz").status_code == 200
        await close_all(ada, grace)

    run(scenario())
    stop_and_check_logs(keys, server)


def test_with_no_key_auth_is_forbidden_bearer_ignored_and_no_names_anywhere(start_server, tmp_path):
    keys = keyring(tmp_path)  # tokens the server has no key for
    server = start_server(extra_args=DEBUG)

    async def scenario():
        ada = await connect(server.ws(), "ada", bearer=keys.token(keys.rsa, ADA))  # ignored, not refused
        reply = await ada.request({"type": "auth", "jwt": keys.token(keys.hs, ADA)})
        is_forbidden(reply, "signs no one in")
        garbage = await connect(server.ws(), "garbage-bearer", bearer="garbage")
        assert (await garbage.request({"type": "list"})).ok

        created = await ada.create("four")
        game, token = created.one("created")["game"], created.one("created")["token"]
        grace = await Client.connect(server.ws(), "grace")
        joined_as(await join(grace, game, token), "p2")
        without = await join(garbage, game)
        assert without.ack.get("code") == "bad-request" and "token" in without.ack.get("message", ""), without
        spectator = await Client.connect(server.ws(), "spectator")
        assert (await spectator.watch(game)).ok
        await ada.expect(is_presence(players=2, spectators=1))
        assert (await ada.request({"type": "say", "text": "hello"})).ok
        assert (await spectator.request({"type": "say", "text": "hi"})).ok
        await spectator.expect_type("chat", by="p1")
        klondike = await Client.connect(server.ws(), "klondike")
        await klondike.create("klondike", seed=3)
        await lobby_with(garbage, game)
        no_names_anywhere(ada, grace, garbage, spectator, klondike)

        def api_has_no_names():
            games = api_games(server)
            assert game in games and "names" not in games[game], games.get(game)
        await eventually(api_has_no_names)
        one = api(server, f"/api/games/{game}")
        assert one.status_code == 200 and "names" not in one.json(), one.text
        await close_all(ada, garbage, grace, spectator, klondike)

    run(scenario())
    stop_and_check_logs(keys, server)


# -- names ----------------------------------------------------------------------------------------

def test_names_in_joined_presence_lobby_objects_and_chat_lines(start_server, tmp_path):
    keys = keyring(tmp_path)
    server = keyed(start_server, keys)

    async def scenario():
        ada = await Client.connect(server.ws(), "ada")
        await sign_in(ada, keys.token(keys.rsa, ADA))
        created = await ada.create("four")
        game, token = created.one("created")["game"], created.one("created")["token"]
        assert created.one("joined")["names"] == {"p1": "Ada"}, created.one("joined")
        entry = (await lobby_with(ada, game))[game]
        assert entry["names"] == {"p1": "Ada"}, entry

        spectator = await Client.connect(server.ws(), "anonymous spectator")
        assert joined_as(await spectator.watch(game), None)["names"] == {"p1": "Ada"}
        grace = await connect(server.ws(), "grace", bearer=keys.token(keys.ec, GRACE))
        both = {"p1": "Ada", "p2": "Grace Hopper"}
        assert joined_as(await join(grace, game, token), "p2")["names"] == both
        for client in (ada, spectator):
            presence = await client.expect(is_presence(players=2))
            assert presence.get("names") == both, presence
        eve = await Client.connect(server.ws(), "eve watching")
        await sign_in(eve, keys.token(keys.hs, EVE), EVE)
        assert joined_as(await eve.watch(game), None)["names"] == both, "a signed-in spectator takes no seat"
        await ada.expect(is_presence(spectators=2))

        # Chat: a signed-in player's line carries its name, and so does a signed-in spectator's.
        line = line_said(await ada.request({"type": "say", "text": "good luck"}), "good luck")
        assert line["by"] == "p1" and line["name"] == "Ada", line
        seen = await spectator.expect_type("chat", text="good luck")
        assert seen["name"] == "Ada" and seen["by"] == "p1", seen
        line = line_said(await grace.request({"type": "say", "text": "you too"}), "you too")
        assert line["by"] == "p2" and line["name"] == "Grace Hopper", line
        assert (await ada.expect_type("chat", text="you too"))["name"] == "Grace Hopper"
        line = line_said(await spectator.request({"type": "say", "text": "anonymous fan"}), "anonymous fan")
        assert "name" not in line and line["by"].startswith("s"), line
        line = line_said(await eve.request({"type": "say", "text": "signed-in fan"}), "signed-in fan")
        assert line["name"] == "Eve" and line["by"].startswith("s"), line

        # Lobby objects: `list`, /api/games, /api/games/GAME.
        await lobby_with(spectator, game, check=lambda e: e.get("names") == both)

        def api_names():
            games = api_games(server)
            assert games[game]["names"] == both, games.get(game)
        await eventually(api_names)
        assert api(server, f"/api/games/{game}").json()["names"] == both

        # A name stays with its seat when its player is not connected.
        mark = ada.mark()
        await grace.close()
        presence = await ada.expect(is_presence(players=1), after=mark)
        assert presence["names"] == both, presence
        latecomer = await Client.connect(server.ws(), "latecomer")
        assert joined_as(await latecomer.watch(game), None)["names"] == both

        # Seats held by signed-in users only: an anonymous creator's seat has no name.
        anonymous = await Client.connect(server.ws(), "anonymous creator")
        other = await anonymous.create("four")
        assert other.one("joined")["names"] == {}, other.one("joined")
        other_game, other_token = other.one("created")["game"], other.one("created")["token"]
        grace_again = await Client.connect(server.ws(), "grace again")
        await sign_in(grace_again, keys.token(keys.rsa, GRACE), GRACE)
        assert joined_as(await join(grace_again, other_game, other_token), "p2")["names"] == {"p2": "Grace Hopper"}
        presence = await anonymous.expect(is_presence(players=2))
        assert presence["names"] == {"p2": "Grace Hopper"}, presence
        klondike = await Client.connect(server.ws(), "anonymous klondike")
        assert (await klondike.create("klondike", seed=4)).one("joined")["names"] == {}

        # A client cannot claim to be signed in by sending what nodes send each other.
        forged = await Client.connect(server.ws(), "forger")
        reply = await join(forged, game, signedIn={"user": ADA.sub, "name": ADA.name, "exp": int(time.time()) + 600})
        is_forbidden(reply)
        await close_all(ada, spectator, eve, latecomer, anonymous, grace_again, klondike, forged)

    run(scenario(), timeout=60)
    stop_and_check_logs(keys, server)


# -- a user's seat is theirs ----------------------------------------------------------------------

def test_a_signed_in_user_takes_their_seat_back_without_the_token(start_server, tmp_path):
    keys = keyring(tmp_path)
    server = keyed(start_server, keys)
    url = server.ws()

    async def scenario():
        ada1, grace1, game, token, _ = await start_four(url, url, keys.token(keys.rsa, ADA),
                                                        keys.token(keys.ec, GRACE))
        await tap(ada1, 3)
        both = {"p1": "Ada", "p2": "Grace Hopper"}

        # Grace, from another connection, without the token: her seat, and the old connection is sent `left`.
        grace2 = await connect(url, "grace-2", bearer=keys.token(keys.hs, GRACE))
        reply = await join(grace2, game)
        assert joined_as(reply, "p2")["names"] == both
        assert reply.one("snapshot")["seq"] == 2 and reply.one("snapshot")["state"]["turn"] == "p2"
        assert (await grace1.expect_type("left", game=game)) == {"type": "left", "game": game}
        assert (await grace1.request({"type": "tap", "target": "/columns/0"})).ack["code"] == "not-joined"
        await tap(grace2, 3)

        # Ada, from another connection, with the token (no seat named): p1 back, not a new seat.
        ada2 = await Client.connect(url, "ada-2")
        await sign_in(ada2, keys.token(keys.ec, ADA))
        assert joined_as(await join(ada2, game, token), "p1")["names"] == both
        await ada1.expect_type("left", game=game)
        await tap(ada2, 4)

        # Others: another signed-in user without the token, no one signed in without it.
        eve = await Client.connect(url, "eve")
        await sign_in(eve, keys.token(keys.rsa, EVE), EVE)
        is_forbidden(await join(eve, game), "token")
        nobody = await Client.connect(url, "nobody")
        is_forbidden(await join(nobody, game), "token")
        # With the token, while both seats are held: as in v1.2, forbidden.
        is_forbidden(await join(eve, game, token))

        # Grace drops: her seat is hers still, to no one else, token or not.
        mark = ada2.mark()
        await grace2.close()
        await ada2.expect(is_presence(players=1), after=mark)
        is_forbidden(await join(eve, game, token, seat="p2"), "p2")
        is_forbidden(await join(eve, game, token))
        is_forbidden(await join(nobody, game, token, seat="p2"), "p2")
        is_forbidden(await join(nobody, game, token))
        assert (await nobody.request({"type": "show"})).ack["code"] == "not-joined", "a failed join changes nothing"

        grace3 = await Client.connect(url, "grace-3")
        await sign_in(grace3, keys.token(keys.rsa, GRACE), GRACE)
        assert joined_as(await join(grace3, game), "p2")["names"] == both
        await tap(grace3, 4)
        # Another user's token on Ada's connection: it is Eve now, and its seat stays its own.
        await sign_in(ada2, keys.token(keys.rsa, EVE), EVE)
        await tap(ada2, 5)
        watcher = await Client.connect(url, "watcher")
        assert joined_as(await watcher.watch(game), None)["names"] == both, "p1 was Ada's and stays so"
        await watcher.close()
        snapshot = await fresh_snapshot(url, game)
        for client in (ada2, grace3):
            await client.expect(is_diff(snapshot["seq"]))
            assert client.problems == [] and client.state == snapshot["state"], client.name
        await close_all(ada1, grace1, ada2, eve, nobody, grace3)

    run(scenario(), timeout=60)
    stop_and_check_logs(keys, server)


def test_a_signed_in_user_takes_their_player_id_back_in_klondike(start_server, tmp_path):
    """Klondike has no seats: a user's player id is theirs all the same."""
    keys = keyring(tmp_path)
    server = keyed(start_server, keys)
    url = server.ws()

    async def scenario():
        ada1 = await Client.connect(url, "ada-1")
        await sign_in(ada1, keys.token(keys.rsa, ADA))
        created = await ada1.create("klondike", seed=7)
        game, token = created.one("created")["game"], created.one("created")["token"]
        assert created.one("joined")["names"] == {"p1": "Ada"}
        grace1 = await connect(url, "grace-1", bearer=keys.token(keys.ec, GRACE))
        reply = await join(grace1, game, token)
        assert reply.ok, reply
        grace_id = reply.one("joined")["you"]
        assert grace_id != "p1" and reply.one("joined")["names"] == {"p1": "Ada", grace_id: "Grace Hopper"}
        await ada1.move({"type": "tap", "target": "/stock"})

        ada2 = await connect(url, "ada-2", bearer=keys.token(keys.hs, ADA))
        joined_as(await join(ada2, game), "p1")
        await ada1.expect_type("left", game=game)
        moved = await ada2.move({"type": "tap", "target": "/stock"})
        assert moved.one("diff")["cause"]["by"] == "p1"

        grace2 = await Client.connect(url, "grace-2")
        await sign_in(grace2, keys.token(keys.rsa, GRACE), GRACE)
        joined_as(await join(grace2, game), grace_id)
        await grace1.expect_type("left", game=game)

        eve = await Client.connect(url, "eve")
        await sign_in(eve, keys.token(keys.ec, EVE), EVE)
        is_forbidden(await join(eve, game), "token")
        nobody = await Client.connect(url, "nobody")
        is_forbidden(await join(nobody, game), "token")
        # With the token anyone plays, as in v1.2, under a player id of their own.
        reply = await join(nobody, game, token)
        assert reply.ok and reply.one("joined")["you"] not in ("p1", grace_id), reply
        assert reply.one("joined")["names"] == {"p1": "Ada", grace_id: "Grace Hopper"}, "no name for no one"
        reply = await join(eve, game, token)
        eve_id = reply.one("joined")["you"]
        assert eve_id not in ("p1", grace_id) and reply.one("joined")["names"].get(eve_id) == "Eve", reply
        eve2 = await connect(url, "eve-2", bearer=keys.token(keys.rsa, EVE))
        joined_as(await join(eve2, game), eve_id)
        await eve.expect_type("left", game=game)
        await close_all(ada1, grace1, ada2, grace2, eve, nobody, eve2)

    run(scenario(), timeout=60)
    stop_and_check_logs(keys, server)


def test_a_users_seat_survives_kill_9(start_server, tmp_path, backend):
    keys = keyring(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    first = keyed(start_server, keys, extra=backend, data=data)
    ada_jwt, grace_jwt = keys.token(keys.rsa, ADA), keys.token(keys.ec, GRACE)

    async def before():
        ada, grace, game, token, _ = await start_four(first.ws(), first.ws(), ada_jwt, grace_jwt, bearer=True)
        await tap(ada, 3)
        first.kill()
        for client in (ada, grace):
            await client.wait_closed()
        return game, token

    game, token = run(before())
    again = keyed(start_server, keys, extra=backend, data=data)
    both = {"p1": "Ada", "p2": "Grace Hopper"}

    async def after():
        grace = await Client.connect(again.ws(), "grace-back")
        await sign_in(grace, keys.token(keys.hs, GRACE), GRACE)
        reply = await join(grace, game)
        assert joined_as(reply, "p2")["names"] == both
        assert reply.one("snapshot")["seq"] == 2
        eve = await connect(again.ws(), "eve", bearer=keys.token(keys.rsa, EVE))
        is_forbidden(await join(eve, game), "token")
        is_forbidden(await join(eve, game, token, seat="p1"), "p1")
        is_forbidden(await join(eve, game, token))
        ada = await connect(again.ws(), "ada-back", bearer=keys.token(keys.ec, ADA))
        assert joined_as(await join(ada, game), "p1")["names"] == both
        await tap(grace, 3)
        await tap(ada, 4)
        spectator = await Client.connect(again.ws(), "spectator")
        assert joined_as(await spectator.watch(game), None)["names"] == both
        await close_all(grace, eve, ada, spectator)

    run(after(), timeout=60)
    stop_and_check_logs(keys, first, again)

    # The users are stored with the game; no token is.
    if backend:
        from e2e_postgres import _bin
        dump = subprocess.run([_bin("pg_dump"), "--data-only", "-d", backend[1]], capture_output=True, check=True)
        stored = dump.stdout.decode("utf-8", "replace")
    else:
        stored = "".join(path.read_bytes().decode("latin-1") for path in data.rglob("*") if path.is_file())
    assert GRACE.sub in stored, "the user is stored with the game"
    leaks = keys.leaks(stored)
    assert not leaks, f"tokens in the store: {leaks}"


def test_takeover_on_a_shared_store_keeps_users_seats(start_server, tmp_path, redis, store):  # noqa: F811
    keys = keyring(tmp_path)
    lease = 2

    def node(name: str) -> ServerProcess:
        return keyed(start_server, keys, data=tmp_path / name, extra=(
            "--store", store, "--redis", redis.url, "--node", name, "--lease", str(lease)))

    a, b, c = node("node-a"), node("node-b"), node("node-c")

    async def scenario():
        ada, grace, game, token, _ = await start_four(a.ws(), c.ws(), keys.token(keys.rsa, ADA),
                                                      keys.token(keys.ec, GRACE))
        await tap(ada, 3)
        await grace.expect(is_diff(2))
        a.kill()
        dead_by = time.monotonic()  # kill() returns once the process is gone
        await ada.wait_closed()

        # Section 11.1: served again within --lease + 5 s of the owner's death (3 s more allowed
        # here), judged by when each request left.
        back = await connect(b.ws(), "ada@b", bearer=keys.token(keys.hs, ADA))
        while True:
            asked = time.monotonic()
            reply = await join(back, game)
            if reply.ok:
                break
            assert reply.ack.get("code") == "unavailable", reply
            assert asked < dead_by + lease + 8, \
                f"a join sent {asked - dead_by:.1f}s after the owner's death was refused"
            await asyncio.sleep(0.2)
        assert joined_as(reply, "p1")["names"] == {"p1": "Ada", "p2": "Grace Hopper"}
        assert reply.one("snapshot")["seq"] == 2
        await served(grace, {"type": "tap", "target": "/columns/3"}, by=dead_by + lease + 8)
        await back.expect(is_diff(3))
        await tap(back, 4)
        eve = await Client.connect(b.ws(), "eve@b")
        await sign_in(eve, keys.token(keys.rsa, EVE), EVE)
        is_forbidden(await join(eve, game), "token")
        is_forbidden(await join(eve, game, token))
        await grace.expect(is_diff(4))
        assert grace.problems == [] and back.problems == []
        await close_all(back, grace, eve)

    try:
        run(scenario(), timeout=90)
    except BaseException:
        for process in (a, b, c):
            print(process.args[-5:], "".join(process.stderr_lines)[-3000:])
        raise
    stop_and_check_logs(keys, a, b, c)


# -- --require-auth -------------------------------------------------------------------------------

def test_require_auth_refuses_create_join_and_say_but_not_watch(start_server, tmp_path):
    keys = keyring(tmp_path)
    server = keyed(start_server, keys, extra=("--require-auth",))

    async def scenario():
        nobody = await Client.connect(server.ws(), "nobody")
        reply = await nobody.request({"type": "create", "kind": "four", "options": {}})
        is_forbidden(reply)
        assert not reply.of("created"), reply
        assert (await nobody.request({"type": "list"})).ok, "list needs no one"
        assert await refused_auth(nobody, keys.token(keys.rsa, ADA, exp=int(time.time()) - 100), ("expired",)) is None
        is_forbidden(await nobody.request({"type": "create", "kind": "klondike", "options": {}}))

        ada = await connect(server.ws(), "ada", bearer=keys.token(keys.rsa, ADA))
        created = await ada.create("four")
        game, token = created.one("created")["game"], created.one("created")["token"]
        is_forbidden(await join(nobody, game, token))
        watched = await nobody.watch(game)
        joined_as(watched, None)
        said = await nobody.request({"type": "say", "text": "may I?"})
        is_forbidden(said)
        assert (await nobody.request({"type": "show"})).ok, "still watching after the refusals"

        grace = await Client.connect(server.ws(), "grace")
        is_forbidden(await join(grace, game, token))
        await sign_in(grace, keys.token(keys.ec, GRACE), GRACE)
        joined_as(await join(grace, game, token), "p2")
        line = line_said(await grace.request({"type": "say", "text": "signed in"}), "signed in")
        assert line["name"] == "Grace Hopper", line
        klondike = await ada.create("klondike", seed=2)
        assert klondike.ok
        await close_all(nobody, ada, grace)

    run(scenario())
    stop_and_check_logs(keys, server)


# -- expiry ---------------------------------------------------------------------------------------

def test_after_exp_the_connection_is_signed_out_but_keeps_its_seat(start_server, tmp_path):
    keys = keyring(tmp_path)
    server = keyed(start_server, keys, extra=("--require-auth",))

    async def scenario():
        # Within the leeway for 9 to 10 more seconds: long enough to sign in, create and join on a
        # busy machine (the token must not run out before), short enough to wait out.
        exp = int(time.time()) - (LEEWAY - 10)
        short = keys.token(keys.rsa, ADA, exp=exp)
        ada, grace, game, token, _ = await start_four(server.ws(), server.ws(), short, keys.token(keys.ec, GRACE))
        both = {"p1": "Ada", "p2": "Grace Hopper"}
        # The server says nothing when a token runs out: nothing to await but the clock.
        await asyncio.sleep(max(0.0, exp + LEEWAY + 0.7 - time.time()))

        is_forbidden(await join(ada, game), "token")
        await tap(ada, 3)  # its seat stays held, and playable
        is_forbidden(await ada.request({"type": "say", "text": "am I still here?"}))  # --require-auth: signed out
        is_forbidden(await ada.request({"type": "create", "kind": "four", "options": {}}))
        await tap(grace, 3)
        ada_elsewhere = await connect(server.ws(), "ada-elsewhere", bearer=None)
        assert await refused_auth(ada_elsewhere, short, ("expired",)) is None
        is_forbidden(await join(ada_elsewhere, game), "token")
        watcher = await Client.connect(server.ws(), "watcher")
        assert joined_as(await watcher.watch(game), None)["names"] == both, "the seat is still Ada's"

        # A fresh token: signed in again, the seat comes back from any connection.
        await sign_in(ada_elsewhere, keys.token(keys.hs, ADA))
        joined_as(await join(ada_elsewhere, game), "p1")
        await ada.expect_type("left", game=game)
        await tap(ada_elsewhere, 4)
        await close_all(ada, grace, ada_elsewhere, watcher)

    run(scenario(), timeout=60)
    stop_and_check_logs(keys, server)


# -- who may watch --------------------------------------------------------------------------------

async def check_watch_options(process: ServerProcess, player1: Client, player2: Client) -> list[str]:
    """`anyone`, `link` and `players` games made by `player1` and joined by `player2`; returns the
    watch keys handed out."""
    url = process.ws()
    anyone = await player1.create("klondike", seed=11)
    assert "key" not in anyone.one("created") and "key" not in anyone.one("joined"), anyone
    assert anyone.one("joined").get("watch", "anyone") == "anyone", anyone.one("joined")
    anyone_game = anyone.one("created")["game"]

    link = await player1.create("klondike", seed=12, watch="link")
    created = link.one("created")
    link_game, link_token, key = created["game"], created["token"], created.get("key")
    assert isinstance(key, str) and WATCH_KEY.fullmatch(key), created
    assert link.one("joined").get("key") == key and link.one("joined").get("watch") == "link", link.one("joined")
    await player1.move({"type": "tap", "target": "/stock"})
    reply = await player2.join(link_game, link_token)
    assert reply.ok and reply.one("joined")["role"] == "player" and reply.one("joined")["you"] != "p1", reply
    assert reply.one("joined").get("key") == key, "every player's joined carries the key"

    players = await player1.create("four", watch="players")
    players_game, players_token = players.one("created")["game"], players.one("created")["token"]
    players_key = players.one("created").get("key")
    assert isinstance(players_key, str) and WATCH_KEY.fullmatch(players_key), players.one("created")
    assert players_key != key and players.one("joined").get("key") == players_key
    joined = joined_as(await player2.join(players_game, players_token), "p2")
    assert joined.get("key") == players_key and joined.get("watch") == "players", joined

    # link: watch needs the key, replay and `since` included.
    spectator = await Client.connect(url, "spectator")
    other_key = key[:-1] + ("A" if key[-1] != "A" else "B")
    for message in ({"type": "watch", "game": link_game},
                    {"type": "watch", "game": link_game, "key": "A" * 22},
                    {"type": "watch", "game": link_game, "key": players_key},
                    {"type": "watch", "game": link_game, "since": 0},
                    {"type": "watch", "game": link_game, "since": 0, "key": other_key},
                    {"type": "watch", "game": link_game, "replay": True},
                    {"type": "watch", "game": link_game, "replay": True, "key": "wrong"}):
        reply = await ask(spectator, message)
        is_forbidden(reply, "key")
    assert (await spectator.request({"type": "show"})).ack["code"] == "not-joined", "refused watches leave it out"
    watched = await spectator.request({"type": "watch", "game": link_game, "key": key})
    joined = joined_as(watched, None)
    assert "key" not in joined and watched.one("snapshot")["seq"] == 1, watched
    replay = await Client.connect(url, "replay")
    reply = await replay.request({"type": "watch", "game": link_game, "key": key, "replay": True})
    assert reply.ok and reply.one("snapshot")["seq"] == 0 and [d["seq"] for d in reply.of("diff")] == [1], reply
    since = await Client.connect(url, "since")
    reply = await since.request({"type": "watch", "game": link_game, "key": key, "since": 0})
    assert reply.ok and [d["seq"] for d in reply.of("diff")] == [1], reply

    # players: no spectators at all, key or not.
    for message in ({"type": "watch", "game": players_game},
                    {"type": "watch", "game": players_game, "key": players_key},
                    {"type": "watch", "game": players_game, "key": players_key, "replay": True},
                    {"type": "watch", "game": players_game, "key": players_key, "since": 0}):
        is_forbidden(await ask(spectator, message), "no spectators")
    assert spectator.game == link_game, "a refused watch leaves the spectator where it was"

    # Neither is in a lobby or a list; a page's fetch of one needs its key.
    games = await lobby_with(spectator, anyone_game)
    assert link_game not in games and players_game not in games, sorted(games)
    listed = api_games(process)
    assert anyone_game in listed and link_game not in listed and players_game not in listed
    listed = api_games(process, "?limit=1000")
    assert link_game not in listed and players_game not in listed
    assert "watch" not in listed[anyone_game], listed[anyone_game]
    for game, right in ((link_game, key), (players_game, players_key)):
        assert api(process, f"/api/games/{game}").status_code == 404
        assert api(process, f"/api/games/{game}?key=").status_code == 404
        assert api(process, f"/api/games/{game}?key={'B' * 22}").status_code == 404
        one = api(process, f"/api/games/{game}?key={right}")
        assert one.status_code == 200, (one.status_code, one.text)
        assert one.json()["game"] == game and one.json().get("watch") == ("link" if game == link_game else "players")
        assert right not in one.text, "the lobby object does not repeat the key"
    assert api(process, f"/api/games/{anyone_game}").status_code == 200

    # /ws?watch=GAME (section 1) is a watch too: not into these games without their key.
    for game in (link_game, players_game):
        try:
            direct = await Client.connect(process.ws(f"/ws?watch={game}"), "direct")
        except InvalidStatus:
            continue  # refused at the upgrade: fine
        assert (await direct.request({"type": "list"})).ok
        shown = await direct.request({"type": "show"})
        assert shown.ack.get("code") == "not-joined", f"/ws?watch={game} let a spectator in: {direct.messages}"
        assert not direct.received("joined") and not direct.received("snapshot"), direct.messages
        never_seen(key, direct)
        never_seen(players_key, direct)
        await direct.close()
    never_seen(key, spectator, replay, since)
    never_seen(players_key, spectator, replay, since)
    await close_all(spectator, replay, since)
    return [key, players_key]


def test_who_may_watch_anyone_link_players_with_no_key_configured(start_server):
    server = start_server(extra_args=DEBUG)

    async def scenario():
        p1, p2 = await Client.connect(server.ws(), "p1"), await Client.connect(server.ws(), "p2")
        secrets = await check_watch_options(server, p1, p2)
        await close_all(p1, p2)
        return secrets, (p1, p2)

    secrets, players = run(scenario(), timeout=60)
    stop_and_check_logs(None, server, secrets=tuple(secrets))
    no_names_anywhere(*players)


def test_who_may_watch_with_signed_in_players(start_server, tmp_path):
    keys = keyring(tmp_path)
    server = keyed(start_server, keys)

    async def scenario():
        ada = await connect(server.ws(), "ada", bearer=keys.token(keys.rsa, ADA))
        grace = await Client.connect(server.ws(), "grace")
        await sign_in(grace, keys.token(keys.ec, GRACE), GRACE)
        secrets = await check_watch_options(server, ada, grace)

        # A signed-in player coming back without the token gets the key in its joined too;
        # a signed-in spectator needs the key like anyone.
        created = await ada.create("four", watch="link")
        game, token, key = (created.one("created")[field] for field in ("game", "token", "key"))
        joined_as(await join(grace, game, token), "p2")
        grace2 = await connect(server.ws(), "grace-2", bearer=keys.token(keys.hs, GRACE))
        joined = joined_as(await join(grace2, game), "p2")
        assert joined.get("key") == key and joined["names"] == {"p1": "Ada", "p2": "Grace Hopper"}, joined
        eve = await connect(server.ws(), "eve", bearer=keys.token(keys.rsa, EVE))
        is_forbidden(await ask(eve, {"type": "watch", "game": game}), "key")
        watched = joined_as(await eve.request({"type": "watch", "game": game, "key": key}), None)
        assert "key" not in watched and watched["names"] == {"p1": "Ada", "p2": "Grace Hopper"}, watched
        assert watched.get("watch") == "link", watched
        one = api(server, f"/api/games/{game}?key={key}").json()
        assert one["names"] == {"p1": "Ada", "p2": "Grace Hopper"} and one["watch"] == "link", one
        never_seen(key, eve)
        await close_all(ada, grace, grace2, eve)
        return secrets + [key, token]

    secrets = run(scenario(), timeout=60)
    stop_and_check_logs(keys, server, secrets=tuple(secrets))


@pytest.mark.parametrize("value", ["everyone", "", "Link", 1, True, None, ["link"]])
def test_a_bad_watch_option_is_bad_request(server, value):
    async def scenario():
        client = await Client.connect(server.ws(), "creator")
        for kind in ("klondike", "four"):
            reply = await client.request({"type": "create", "kind": kind, "options": {"watch": value}})
            if value is None and reply.ok:
                continue  # a JSON null may mean "not given"
            assert reply.ack.get("code") == "bad-request" and not reply.of("created"), (kind, value, reply)
        await client.close()

    run(scenario())


# -- across a cluster -----------------------------------------------------------------------------

def test_users_names_and_watch_keys_across_three_nodes(start_server, tmp_path, redis):  # noqa: F811
    keys = keyring(tmp_path)

    def node(name: str) -> ServerProcess:
        return keyed(start_server, keys, data=tmp_path / name, extra=(
            "--redis", redis.url, "--node", name, "--lease", "3"))

    a, b, c = node("node-a"), node("node-b"), node("node-c")
    both = {"p1": "Ada", "p2": "Grace Hopper"}

    async def scenario():
        # Ada on a owns the game; Grace plays from c with the token.
        ada, grace_c, game, token, _ = await start_four(a.ws(), c.ws(), keys.token(keys.rsa, ADA),
                                                        keys.token(keys.ec, GRACE))
        spectator = await Client.connect(c.ws(), "spectator@c")
        assert joined_as(await spectator.watch(game), None)["names"] == both
        await tap(ada, 3)

        # Grace, signed in on b, joins without the token: the owner on a gives her seat back.
        grace_b = await connect(b.ws(), "grace@b", bearer=keys.token(keys.hs, GRACE))
        reply = await join(grace_b, game)
        assert joined_as(reply, "p2")["names"] == both
        await grace_c.expect_type("left", game=game)
        await tap(grace_b, 3)
        await spectator.expect(is_diff(3))
        line = line_said(await grace_b.request({"type": "say", "text": "from b"}), "from b")
        assert line["name"] == "Grace Hopper", line
        seen = await spectator.expect_type("chat", text="from b")
        assert seen["name"] == "Grace Hopper" and seen["by"] == "p2", seen

        # Others on b: refused by the owner, and no client can pass itself off as signed in.
        eve = await Client.connect(b.ws(), "eve@b")
        await sign_in(eve, keys.token(keys.rsa, EVE), EVE)
        is_forbidden(await join(eve, game), "token")
        nobody = await Client.connect(b.ws(), "nobody@b")
        is_forbidden(await join(nobody, game), "token")
        forged = {"user": GRACE.sub, "name": GRACE.name, "exp": int(time.time()) + 600}
        is_forbidden(await join(nobody, game, signedIn=forged))
        owner_side = await Client.connect(a.ws(), "nobody@a")
        is_forbidden(await join(owner_side, game, signedIn=forged))
        assert joined_as(await eve.watch(game), None)["names"] == both
        presence = await spectator.expect(is_presence(spectators=2))
        assert presence["names"] == both, presence
        for process in (a, b, c):
            def api_names(p=process):
                entry = api_games(p).get(game)
                assert entry is not None and entry.get("names") == both, entry
            await eventually(api_names)

        # A link game on a: its key checked for watchers on other nodes, in no node's lobby.
        link = await ada.create("klondike", seed=21, watch="link")
        link_game, key = link.one("created")["game"], link.one("created")["key"]
        await ada.move({"type": "tap", "target": "/stock"})
        watcher = await Client.connect(c.ws(), "watcher@c")
        is_forbidden(await ask(watcher, {"type": "watch", "game": link_game}), "key")
        is_forbidden(await ask(watcher, {"type": "watch", "game": link_game, "key": "C" * 22}), "key")
        is_forbidden(await ask(watcher, {"type": "watch", "game": link_game, "since": 0}), "key")
        is_forbidden(await ask(watcher, {"type": "watch", "game": link_game, "replay": True}), "key")
        watched = await watcher.request({"type": "watch", "game": link_game, "key": key})
        assert "key" not in joined_as(watched, None) and watched.one("snapshot")["seq"] == 1
        replay = await Client.connect(b.ws(), "replay@b")
        reply = await replay.request({"type": "watch", "game": link_game, "key": key, "replay": True})
        assert reply.ok and [d["seq"] for d in reply.of("diff")] == [1], reply
        for name, process, client in (("a", a, ada), ("b", b, eve), ("c", c, spectator)):
            games = await lobby_with(client, game)
            assert link_game not in games, f"node {name}: a link game in the lobby"
            assert link_game not in api_games(process) and game in api_games(process), name
        assert api(b, f"/api/games/{link_game}").status_code == 404
        assert api(b, f"/api/games/{link_game}?key={'D' * 22}").status_code == 404
        one = api(b, f"/api/games/{link_game}?key={key}")
        assert one.status_code == 200 and one.json()["seq"] == 1, one.text
        never_seen(key, watcher, replay, spectator, eve)
        never_seen(token, watcher, replay, spectator, eve, nobody, owner_side)
        # A fresh token for a connection in a game another node owns: the ack carries that game's seq.
        renewed = await sign_in(grace_b, keys.token(keys.rsa, GRACE), GRACE)
        assert renewed.ack.get("seq") == 3, f"the ack carries the game's seq: {renewed.ack}"
        await close_all(ada, grace_c, grace_b, spectator, eve, nobody, owner_side, watcher, replay)
        return [key, token]

    secrets = run(scenario(), timeout=90)
    stop_and_check_logs(keys, a, b, c, secrets=tuple(secrets))
