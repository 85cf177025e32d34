"""Bad input gets the right error and changes nothing, for anyone."""
from __future__ import annotations

import json

import pytest

from e2e_client import Client, fresh_snapshot, run

BAD = "bad-request"
UNKNOWN = "unknown-type"


# (frame as sent, expected code, id the error must carry or None for none).
# A frame sent as bytes goes out as a binary frame.
COMMON_CASES = [
    ("{not json", BAD, None),
    ('{"type":"show"', BAD, None),
    ('{"type":"show"} trailing', BAD, None),
    ('{"type":"show"}{"type":"show"}', BAD, None),
    ("[1,2]", BAD, None),
    ("[]", BAD, None),
    ("42", BAD, None),
    ("-7.5e3", BAD, None),
    ('"str"', BAD, None),
    ("null", BAD, None),
    ("true", BAD, None),
    ("", BAD, None),
    ("    ", BAD, None),
    ("{}", BAD, None),
    ('{"id":"no-type"}', BAD, "no-type"),
    ('{"type":5,"id":"type-int"}', BAD, "type-int"),
    ('{"type":null,"id":"type-null"}', BAD, "type-null"),
    ('{"type":["show"],"id":"type-array"}', BAD, "type-array"),
    ('{"type":"fly","id":"unknown"}', UNKNOWN, "unknown"),
    ('{"type":"SHOW","id":"upper"}', UNKNOWN, "upper"),
    ("fly away", UNKNOWN, None),
    ('{"type":"watch","id":"no-game"}', BAD, "no-game"),
    ('{"type":"watch","game":7,"id":"game-int"}', BAD, "game-int"),
    ('{"type":"watch","game":"GAME","since":-1,"id":"since-neg"}', BAD, "since-neg"),
    ('{"type":"watch","game":"GAME","since":"3","id":"since-str"}', BAD, "since-str"),
    ('{"type":"watch","game":"GAME","since":2.5,"id":"since-frac"}', BAD, "since-frac"),
    ('{"type":"join","game":"GAME","token":5,"id":"token-int"}', BAD, "token-int"),
    ('{"type":"list","follow":"yes","id":"follow-str"}', BAD, "follow-str"),
    ('{"type":"create","kind":"klondike","options":{"seed":-1},"id":"seed-neg"}', BAD, "seed-neg"),
    ('{"type":"create","kind":"klondike","options":{"seed":1e400},"id":"seed-huge"}', BAD, "seed-huge"),
    ('{"type":"create","kind":"klondike","options":{"seed":18446744073709551616},"id":"seed-2-64"}', BAD, "seed-2-64"),
    ('{"type":"create","kind":"klondike","options":{"draw":1e300},"id":"draw-huge"}', BAD, "draw-huge"),
    ('{"type":"create","kind":"plane","options":{"width":-5},"id":"width-neg"}', BAD, "width-neg"),
    ('{"type":"create","kind":"plane","options":"big","id":"options-str"}', BAD, "options-str"),
    ('{"type":"show","id":"' + "x" * 65 + '"}', BAD, "x" * 65),
    ('{"type":"show","id":1.5}', BAD, 1.5),
    ('{"type":"show","id":true}', BAD, True),
    ('{"type":"show","id":{"a":1}}', BAD, {"a": 1}),
    ('{"type":"show","id":["a"]}', BAD, ["a"]),
    (b'{"type":"show","id":"binary"}', BAD, "binary"),
]

KLONDIKE_CASES = [
    ('{"type":"tap","target":"/tableau/9","id":"tab9"}', BAD, "tab9"),
    ('{"type":"tap","target":"/waste/0","id":"waste0"}', BAD, "waste0"),
    ('{"type":"tap","target":"/foo","id":"foo"}', BAD, "foo"),
    ('{"type":"tap","target":"/foundations/4","id":"found4"}', BAD, "found4"),
    ('{"type":"tap","target":"/tableau/-1","id":"tab-neg"}', BAD, "tab-neg"),
    ('{"type":"tap","target":"/tableau/1/x","id":"tab-x"}', BAD, "tab-x"),
    ('{"type":"tap","target":5,"id":"target-int"}', BAD, "target-int"),
    ('{"type":"tap","id":"no-target"}', BAD, "no-target"),
    ('{"type":"double-tap","target":"/stock/0","id":"dt-stock0"}', BAD, "dt-stock0"),
    ('{"type":"drag","from":"/foo","to":"/foundations/0","id":"drag-foo"}', BAD, "drag-foo"),
    ('{"type":"drag","from":"/tableau/6/6","to":"/tableau/7","id":"drag-to7"}', BAD, "drag-to7"),
    ('{"type":"drag","from":"/tableau/6/6","id":"drag-no-to"}', BAD, "drag-no-to"),
    ('{"type":"reset","options":{"draw":4},"id":"reset-draw4"}', BAD, "reset-draw4"),
    ('{"type":"alpha","step":1,"id":"alpha-klondike"}', UNKNOWN, "alpha-klondike"),
    ('{"type":"add","id":"add-klondike"}', UNKNOWN, "add-klondike"),
    ("tap nowhere", BAD, None),
    ("drag stock", BAD, None),
    ('{"type":"tap","target":"/waste","id":"tap-waste"}', "illegal-move", "tap-waste"),
    ('{"type":"drag","from":"/tableau/6/0","to":"/foundations/0","id":"face-down"}', "illegal-move", "face-down"),
    ('{"type":"drag","from":"/tableau/6/7","to":"/foundations/0","id":"past-top"}', "illegal-move", "past-top"),
    ('{"type":"drag","from":"/tableau/6/6","to":"/stock","id":"to-stock"}', "illegal-move", "to-stock"),
    ('{"type":"drag","from":"/tableau/6/6","to":"/tableau/6","id":"same-pile"}', "illegal-move", "same-pile"),
    ('{"type":"drag","from":"/tableau/6/6","to":"/waste","id":"to-waste"}', "illegal-move", "to-waste"),
    ('{"type":"drag","from":"/waste","to":"/tableau/0","id":"from-empty-waste"}', "illegal-move", "from-empty-waste"),
    ('{"type":"double-tap","target":"/stock","id":"dt-stock"}', "illegal-move", "dt-stock"),
    ('{"type":"undo","id":"undo-at-deal"}', "illegal-move", "undo-at-deal"),
]

PLANE_CASES = [
    ('{"type":"add","alpha":11,"id":"alpha11"}', BAD, "alpha11"),
    ('{"type":"add","alpha":0,"id":"alpha0"}', BAD, "alpha0"),
    ('{"type":"add","alpha":5.5,"id":"alpha-frac"}', BAD, "alpha-frac"),
    ('{"type":"add","r":256,"id":"r256"}', BAD, "r256"),
    ('{"type":"add","g":-1,"id":"g-neg"}', BAD, "g-neg"),
    ('{"type":"add","x":"10","id":"x-str"}', BAD, "x-str"),
    ('{"type":"add","x":1e400,"id":"x-inf"}', BAD, "x-inf"),
    ('{"type":"alpha","step":2,"id":"step2"}', BAD, "step2"),
    ('{"type":"alpha","step":0,"id":"step0"}', BAD, "step0"),
    ('{"type":"alpha","step":"+1","id":"step-str"}', BAD, "step-str"),
    ('{"type":"alpha","id":"step-missing"}', BAD, "step-missing"),
    ('{"type":"tap","x":1,"id":"tap-no-y"}', BAD, "tap-no-y"),
    ('{"type":"drag","from":{"x":1},"to":{"x":2,"y":2},"id":"drag-no-y"}', BAD, "drag-no-y"),
    ('{"type":"tap","target":"/stock","id":"tap-target"}', BAD, "tap-target"),
    ('{"type":"color","r":300,"g":0,"b":0,"id":"color300"}', BAD, "color300"),
    ('{"type":"undo","id":"undo-plane"}', UNKNOWN, "undo-plane"),
    ("alpha +2", BAD, None),
    ("tap 120", BAD, None),
    ('{"type":"alpha","step":1,"id":"alpha-no-sel"}', "illegal-move", "alpha-no-sel"),
    ('{"type":"color","id":"color-no-sel"}', "illegal-move", "color-no-sel"),
    ('{"type":"reset","id":"reset-empty"}', "illegal-move", "reset-empty"),
]


class Room:
    """A player and a spectator in one fresh game."""

    async def open(self, server, kind: str):
        self.server = server
        self.player = await Client.connect(server.ws(), "player")
        options = {"seed": 17} if kind == "klondike" else {"seed": 17, "width": 500, "height": 400}
        created = (await self.player.create(kind, **options)).one("created")
        self.game = created["game"]
        self.spectator = await Client.connect(server.ws(), "spectator")
        await self.spectator.watch(self.game)
        await self.player.expect_type("presence", spectators=1)
        await self.baseline()
        return self

    async def baseline(self):
        """From here on, nothing may change."""
        self.before = await fresh_snapshot(self.server.ws(), self.game)
        self.marks = {id(c): c.mark() for c in (self.player, self.spectator)}

    async def assert_untouched(self):
        """Same seq, same state, no diff to anyone, both connections still answering."""
        for client in (self.player, self.spectator):
            probe = await client.request({"type": "show"})
            assert probe.ok and probe.ack["seq"] == self.before["seq"], probe
            assert client.is_open
            diffs = client.received("diff", self.marks[id(client)])
            assert not diffs, f"{client.name} got a diff: {diffs}"
        after = await fresh_snapshot(self.server.ws(), self.game)
        assert after == self.before

    async def close(self):
        await self.player.close()
        await self.spectator.close()


async def send_and_expect_error(client: Client, frame, code: str, expected_id):
    mark = client.mark()
    if isinstance(frame, str):
        frame = frame.replace("GAME", client.game or "nogame")
    await client.send_raw(frame)
    error = await client.next_error(mark)
    assert error["code"] == code, f"{frame!r}: expected {code}, got {error}"
    assert isinstance(error.get("message"), str) and error["message"], error
    if expected_id is None:
        assert "id" not in error, f"{frame!r}: no id was sent, got {error}"
    elif isinstance(expected_id, str) and len(expected_id) <= 64 and expected_id != "binary":
        assert error.get("id") == expected_id, f"{frame!r}: the error must carry the id: {error}"
    elif "id" in error:
        # An id the server could not accept may be echoed, never altered.
        assert error["id"] == expected_id, error
    replies_to_frame = [m for m in client.messages[mark:] if isinstance(m, dict) and m.get("type") in ("ack", "error")]
    assert len(replies_to_frame) == 1, f"{frame!r}: answered exactly once: {client.messages[mark:]}"
    return error


def case_id(case) -> str:
    frame = case[0]
    return (frame.decode() if isinstance(frame, bytes) else frame)[:40] or "<empty>"


@pytest.mark.parametrize("case", COMMON_CASES + KLONDIKE_CASES, ids=case_id)
def test_bad_input_in_klondike(server, case):
    async def scenario():
        room = await Room().open(server, "klondike")
        await send_and_expect_error(room.player, *case)
        await room.assert_untouched()
        await room.close()
    run(scenario())


@pytest.mark.parametrize("case", PLANE_CASES, ids=case_id)
def test_bad_input_in_plane(server, case):
    async def scenario():
        room = await Room().open(server, "plane")
        await send_and_expect_error(room.player, *case)
        await room.assert_untouched()
        await room.close()
    run(scenario())


def test_ids_of_64_characters_and_integers_are_fine(server):
    """64 characters, not bytes: accented letters and emoji count one each."""
    async def scenario():
        room = await Room().open(server, "klondike")
        for long_id in ("y" * 64, "\u00e9" * 64, "\U0001F600" * 64, 0, -1, 2**53):
            reply = await room.player.request({"type": "show", "id": long_id})
            assert reply.ok and reply.ack["id"] == long_id, reply.ack
        for too_long in ("\u00e9" * 65, "\U0001F600" * 65):
            await send_and_expect_error(room.player, json.dumps({"type": "show", "id": too_long}), BAD, too_long)
        await room.assert_untouched()
        await room.close()
    run(scenario())


def test_a_message_may_start_with_spaces(server):
    async def scenario():
        room = await Room().open(server, "klondike")
        reply = await room.player.request_raw('   \t {"type":"list","id":"spaced"}', "spaced")
        assert reply.ok and reply.types()[-2:] == ["lobby", "ack"] and reply.ack["seq"] == 0
        await room.close()
    run(scenario())


def test_invalid_utf8_text_frame(server):
    """Not a valid text frame: a bad-request, or the RFC 6455 close 1007; never a change or a crash."""
    async def scenario():
        room = await Room().open(server, "klondike")
        mark = room.player.mark()
        await room.player.send_raw(b'{"type":"tap","target":"/stock","id":"\xff\xfe"}', text=True)
        try:
            error = await room.player.next_error(mark)
            assert error["code"] == BAD
        except AssertionError:
            if room.player.is_open:
                raise
            assert room.player.close_code == 1007, room.player.close_code
        reply = await room.spectator.request({"type": "show"})
        assert reply.ok and reply.ack["seq"] == 0 and not room.spectator.received("diff")
        assert await fresh_snapshot(server.ws(), room.game) == room.before
        await room.close()
    run(scenario())


def test_deeply_nested_json_does_not_crash(server):
    async def scenario():
        room = await Room().open(server, "klondike")
        depth = 20000
        frame = '{"type":"show","id":"deep","x":' + "[" * depth + "]" * depth + "}"
        assert len(frame) < 65536
        mark = room.player.mark()
        await room.player.send_raw(frame)
        # Answered once: read (the ack), or refused as too deep (bad-request, the id perhaps unread).
        answer = await room.player.expect(lambda m: isinstance(m, dict) and m.get("type") in ("ack", "error"), mark)
        assert answer["type"] == "ack" and answer["id"] == "deep" or answer["code"] == BAD, answer
        await room.assert_untouched()
        await room.close()
    run(scenario())


def test_check_order(server):
    """bad-request > unknown-type > not-joined > forbidden > illegal-move."""
    async def scenario():
        room = await Room().open(server, "klondike")
        loose = await Client.connect(server.ws(), "loose")
        spectator, player = room.spectator, room.player
        cases = [
            # Both bad-request and unknown-type: bad-request.
            (loose, '{"type":"fly","id":true}', BAD),
            (loose, '{"type":"fly","id":"' + "z" * 65 + '"}', BAD),
            # unknown-type before not-joined.
            (loose, '{"type":"fly","id":"o1"}', UNKNOWN),
            # bad-request before not-joined.
            (loose, '{"type":"tap","target":"/stock","id":2.5}', BAD),
            # not-joined: game commands, show and leave included.
            (loose, '{"type":"tap","target":"/stock","id":"o2"}', "not-joined"),
            (loose, '{"type":"show","id":"o3"}', "not-joined"),
            (loose, '{"type":"leave","id":"o4"}', "not-joined"),
            (loose, '{"type":"hint","id":"o5"}', "not-joined"),
            (loose, '{"type":"undo","id":"o6"}', "not-joined"),
            # A spectator: bad-request, then unknown-type, before forbidden.
            (spectator, '{"type":"tap","target":"/tableau/9","id":"s1"}', BAD),
            (spectator, '{"type":"alpha","step":1,"id":"s2"}', UNKNOWN),
            # forbidden before illegal-move.
            (spectator, '{"type":"tap","target":"/waste","id":"s3"}', "forbidden"),
            (spectator, '{"type":"double-tap","target":"/waste","id":"s4"}', "forbidden"),
            (spectator, '{"type":"undo","id":"s5"}', "forbidden"),
            # A player: bad-request before illegal-move.
            (player, '{"type":"drag","from":"/tableau/6/0","to":"/foo","id":"p1"}', BAD),
            (player, '{"type":"tap","target":"/waste","id":"p2"}', "illegal-move"),
        ]
        for client, frame, code in cases:
            await send_and_expect_error(client, frame, code, json.loads(frame)["id"])
        await room.assert_untouched()
        await loose.close()
        await room.close()
    run(scenario())


@pytest.mark.parametrize("kind,gestures", [
    ("klondike", [{"type": "tap", "target": "/stock"}, {"type": "double-tap", "target": "/tableau/6"},
                  {"type": "drag", "from": "/tableau/6/6", "to": "/tableau/0"}, {"type": "reset"},
                  {"type": "undo"}]),
    ("plane", [{"type": "add"}, {"type": "double-tap", "x": 10, "y": 10}, {"type": "tap", "x": 10, "y": 10},
               {"type": "drag", "from": {"x": 1, "y": 1}, "to": {"x": 5, "y": 5}}, {"type": "color"},
               {"type": "alpha", "step": 1}, {"type": "reset"}]),
])
def test_spectator_gestures_are_forbidden(server, kind, gestures):
    async def scenario():
        room = await Room().open(server, kind)
        if kind == "plane":
            await room.player.move({"type": "add", "x": 0, "y": 0, "width": 50, "height": 50})
            await room.spectator.expect_type("diff", seq=1)
            await room.baseline()
        for gesture in gestures:
            reply = await room.spectator.request(gesture)
            assert reply.ack["type"] == "error" and reply.ack["code"] == "forbidden", (gesture, reply)
        shown = await room.spectator.request({"type": "show"})
        assert shown.ok and [m for m in shown if isinstance(m, str)]
        if kind == "klondike":
            hint = await room.spectator.request({"type": "hint"})
            assert hint.ok and hint.one("hint")["type"] == "hint"
        await room.assert_untouched()
        await room.close()
    run(scenario())
