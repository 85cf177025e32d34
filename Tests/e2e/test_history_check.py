"""The one-history checker (history_check.py) finds what it must, on made-up runs (no server)."""
from __future__ import annotations

from history_check import Recorder, check


def diff(game, seq, cause, ops=None):
    return {"type": "diff", "game": game, "seq": seq, "ops": ops or [{"op": "add", "path": f"/s{seq}", "value": seq}],
            "cause": cause}


def history(game, n):
    return [diff(game, s, {"type": "tap", "target": "/stock", "by": "p1"}) for s in range(1, n + 1)]


def player(game="g", since=None, you="p1", label="p1"):
    rec = Recorder(label)
    message = {"type": "join", "game": game, "token": "t", "id": "j"}
    if since is not None:
        message["since"] = since
    rec.sent(message)
    rec.received({"type": "joined", "game": game, "role": "player", "seq": 0, "you": you})
    if since is None:
        rec.received({"type": "snapshot", "game": game, "seq": 0, "state": {}})
    return rec


def move(rec, mid, seq, truth, deliver=True):
    rec.sent({"type": "tap", "target": "/stock", "id": mid})
    if deliver:
        rec.received(truth[seq - 1])
    rec.received({"type": "ack", "id": mid, "seq": seq})


def test_a_clean_run_has_no_findings():
    truth = {"g": history("g", 3)}
    rec = player()
    for seq in (1, 2, 3):
        move(rec, f"m{seq}", seq, truth["g"])
    found = check(truth, [rec])
    assert found.ok, found.describe()
    assert found.counts()["acked"] == 3


def test_lost_split_gap_identity_and_phantom_are_found():
    truth = {"g": history("g", 4)}
    rec = player()
    move(rec, "m1", 1, truth["g"])
    # acked at 2, but the history's 2 is another player's command
    truth["g"][1] = diff("g", 2, {"type": "add", "by": "p2"})
    rec.sent({"type": "tap", "target": "/stock", "id": "m2"})
    rec.received(truth["g"][1])
    rec.received({"type": "ack", "id": "m2", "seq": 2})
    # received a different diff at 3 than the history's, and skipped none
    rec.received(diff("g", 3, {"type": "tap", "target": "/stock", "by": "p1"}, ops=[{"op": "remove", "path": "/x"}]))
    # acked past the history's end
    rec.sent({"type": "tap", "target": "/stock", "id": "m9"})
    rec.received({"type": "ack", "id": "m9", "seq": 9})
    other = player(since=0, you="p7", label="p7")
    other.received(truth["g"][0])
    other.received(truth["g"][2])  # gap: 1 then 3
    # p7's command acked at 4 whose diff says by p1
    other.sent({"type": "tap", "target": "/stock", "id": "x4"})
    other.received({"type": "ack", "id": "x4", "seq": 4})
    rec.closed(), other.closed()
    found = check(truth, [rec, other])
    counts = found.counts()
    assert counts["lost"] == 2, found.describe()
    assert counts["split"] == 1 and counts["gaps"] == 1 and counts["identity"] == 1, found.describe()
    # seqs 2 (p2's add) and 3 (a tap by p1) are claimed by no ack: phantoms
    assert counts["phantoms"] == 2, found.describe()


def test_a_command_of_unknown_outcome_explains_one_unclaimed_diff_and_a_resend_keeps_its_seq():
    truth = {"g": history("g", 3)}
    rec = player()
    move(rec, "m1", 1, truth["g"])
    rec.sent({"type": "tap", "target": "/stock", "id": "m2"})  # never answered: the node died
    rec.closed()
    back = player(since=1, you="p3", label="p3")
    back.received(truth["g"][1])
    back.sent({"type": "tap", "target": "/stock", "id": "m1"})  # re-sent, acked with its seq
    back.received({"type": "ack", "id": "m1", "seq": 1})
    back.sent({"type": "tap", "target": "/stock", "id": "m3"})
    back.received({"type": "error", "id": "m3", "code": "unavailable"})
    found = check(truth, [rec, back])
    assert found.counts()["gaps"] == 1 and "behind" in found.describe(), "open at seq 2 of 3"
    back.received(truth["g"][2])
    found = check(truth, [rec, back])
    # seq 3 is unclaimed; m3 (unavailable, so refused for now) or m2 (unknown) may explain it;
    # a snapshot resets a stream without a gap
    assert found.ok, found.describe()
    back.received({"type": "snapshot", "game": "g", "seq": 3, "state": {"s1": 1, "s2": 2, "s3": 3}})
    back.received(diff("g", 4, {"type": "tap", "target": "/stock", "by": "p3"}))
    found = check(truth, [rec, back])
    assert found.counts()["split"] == 1 and found.counts()["gaps"] == 0, found.describe()


def test_a_snapshot_must_be_the_historys_state_at_its_seq():
    truth = {"g": history("g", 2)}
    rec = player()  # a snapshot of {} at seq 0
    rec.received({"type": "snapshot", "game": "g", "seq": 2, "state": {"s1": 1, "s2": 2}})
    rec.closed()
    assert check(truth, [rec], all_recorded=False).ok
    other = player(label="p2")
    other.received({"type": "snapshot", "game": "g", "seq": 2, "state": {"s1": 1, "s2": 3}})
    other.closed()
    found = check(truth, [rec, other], all_recorded=False)
    assert found.counts()["split"] == 1 and "snapshot" in found.describe(), found.describe()


def test_a_refused_resend_does_not_settle_a_frame_of_the_same_id_still_in_flight():
    """Seed 431827837's first phantom: a command left into a one-way cut, its connection was given
    up, its id sent again elsewhere by a new player and refused; the first frame, delivered once
    the cut healed, was applied. Applied once: of unknown outcome, not a phantom."""
    truth = {"g": history("g", 2)}
    rec = player()
    move(rec, "m1", 1, truth["g"])
    rec.sent({"type": "tap", "target": "/stock", "id": "m2"})  # into the cut: no answer
    rec.closed()
    back = player(since=1, you="p3", label="p3")
    back.received(truth["g"][1])  # the first frame, applied late
    back.sent({"type": "tap", "target": "/stock", "id": "m2"})
    back.received({"type": "error", "id": "m2", "code": "illegal-move"})
    found = check(truth, [rec, back])
    assert found.counts()["phantoms"] == 0, found.describe()
    # Refused on the only connection that sent it, an id settles: the diff is then a phantom.
    alone = player(label="alone")
    move(alone, "m1", 1, truth["g"])
    alone.received(truth["g"][1])
    alone.sent({"type": "tap", "target": "/stock", "id": "m2"})
    alone.received({"type": "error", "id": "m2", "code": "illegal-move"})
    assert check(truth, [alone]).counts()["phantoms"] == 1
