// The library's state machine against a fake WebSocket and a fake clock (PROTOCOL sections 2, 3,
// 4, 19, 21): the test plays the server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BoardcastClient, BoardcastError, Connection, applyPatch, backoffDelay, PatchError, SEND_BURST, SEND_RATE } from "../boardcast.js";
import { fakeSockets, FakeClock, settle } from "../test-support/fake.js";

const NOW = "2026-11-28T00:00:00.000Z";

/** @param {any} [options] */
function setup(options = {}) {
  const fake = fakeSockets();
  const clock = new FakeClock();
  /** @type {string[]} */
  const logs = [];
  const client = new BoardcastClient("ws://boardcast.test/ws", {
    WebSocket: fake.WebSocket,
    clock,
    random: () => 0.5,
    log: (level, message) => logs.push(`${level}: ${message}`),
    ...options,
  });
  return { fake, clock, client, logs };
}

function diff(seq, ops, cause = { type: "tap", by: "p2" }) {
  return { type: "diff", game: "g1", seq, ops, cause };
}
const push = (n) => [{ op: "add", path: "/n/-", value: n }];

/** Opens the current socket and answers its watch: joined, a snapshot at `seq`, the ack. */
async function openWatched(fake, { seq = 5, state = { n: [] } } = {}) {
  await settle();
  const ws = fake.current;
  ws.open();
  await settle();
  const watch = ws.last("watch");
  assert.ok(watch, "a watch is sent");
  ws.receive({ type: "joined", game: "g1", kind: "four", role: "spectator", seq, now: NOW });
  ws.receive({ type: "snapshot", game: "g1", kind: "four", seq, state });
  ws.receive({ type: "ack", id: watch.id, seq });
  await settle();
  return ws;
}

/** Opens the current socket and answers a player's join: joined as p1, a snapshot, the ack. */
async function openJoined(fake, { seq = 3, state = { n: [] }, auth = false } = {}) {
  await settle();
  const ws = fake.current;
  ws.open();
  await settle();
  if (auth) {
    const a = ws.last("auth");
    assert.ok(a, "auth goes first");
    ws.receive({ type: "authed", user: "u1", name: "Ada", expires: NOW });
    ws.receive({ type: "ack", id: a.id });
    await settle();
  }
  const join = ws.last("join");
  assert.ok(join, "a join is sent");
  ws.receive({ type: "joined", game: "g1", kind: "four", role: "player", seq, you: "p1", now: NOW });
  ws.receive({ type: "snapshot", game: "g1", kind: "four", seq, state });
  ws.receive({ type: "ack", id: join.id, seq });
  await settle();
  return ws;
}

test("applies a snapshot, then diffs strictly in seq order; a diff seen twice is applied once", async () => {
  const { fake, client } = setup();
  const pending = client.watch("g1");
  const ws = await openWatched(fake);
  const handle = await pending;
  assert.equal(handle.seq, 5);
  assert.equal(handle.role, "spectator");
  const seen = [];
  handle.on("state", (state, change) => seen.push([change.seq, change.via, state.n.length]));
  const states = handle.states();
  ws.receive(diff(6, push(6)));
  ws.receive(diff(6, push(6)));
  ws.receive(diff(7, push(7)));
  assert.deepEqual(handle.state, { n: [6, 7] });
  assert.equal(handle.seq, 7);
  assert.deepEqual(seen, [[6, "diff", 1], [7, "diff", 2]]);
  const first = [];
  for await (const s of states) {
    first.push(s);
    if (first.length === 3) break;
  }
  assert.deepEqual(first, [{ n: [] }, { n: [6] }, { n: [6, 7] }]);
  assert.equal(ws.sentOf("watch").length, 1, "no re-watch without a gap");
  client.close();
});

test("a gap asks again with since (once), and the missed diffs are applied in order", async () => {
  const { fake, client } = setup();
  const pending = client.watch("g1");
  const ws = await openWatched(fake);
  const handle = await pending;
  const seen = [];
  handle.on("state", (_s, change) => seen.push(change.seq));
  ws.receive(diff(6, push(6)));
  ws.receive(diff(8, push(8)));
  ws.receive(diff(9, push(9)));
  await settle();
  const watches = ws.sentOf("watch");
  assert.equal(watches.length, 2, "one re-watch for the gap, however many diffs follow it");
  assert.equal(watches[1].since, 6);
  assert.equal(handle.seq, 6, "nothing past the gap is applied");
  await assert.rejects(handle.command({ type: "tap", target: "/columns/0" }), (e) => e.code === "stale", "the server has shown seq 9: a choice from seq 6 is stale");
  ws.receive({ type: "joined", game: "g1", kind: "four", role: "spectator", seq: 9, now: NOW });
  ws.receive(diff(7, push(7)));
  ws.receive(diff(8, push(8)));
  ws.receive(diff(9, push(9)));
  ws.receive({ type: "ack", id: watches[1].id, seq: 9 });
  await settle();
  assert.deepEqual(handle.state, { n: [6, 7, 8, 9] });
  assert.deepEqual(seen, [6, 7, 8, 9]);
  client.close();
});

test("a diff that does not apply asks for a snapshot (no since)", async () => {
  const { fake, client } = setup();
  const pending = client.watch("g1");
  const ws = await openWatched(fake);
  const handle = await pending;
  ws.receive(diff(6, [{ op: "remove", path: "/missing" }]));
  await settle();
  const again = ws.last("watch");
  assert.equal(ws.sentOf("watch").length, 2);
  assert.equal(again.since, undefined);
  assert.equal(again.replay, undefined);
  ws.receive({ type: "joined", game: "g1", kind: "four", role: "spectator", seq: 6, now: NOW });
  ws.receive({ type: "snapshot", game: "g1", kind: "four", seq: 6, state: { n: ["x"] } });
  ws.receive({ type: "ack", id: again.id, seq: 6 });
  await settle();
  assert.deepEqual(handle.state, { n: ["x"] });
  assert.equal(handle.seq, 6);
  client.close();
});

test("after a drop: auth first, re-join with since and seat, then the unanswered command again with its id", async () => {
  let tokens = 0;
  const { fake, clock, client } = setup({ token: () => `jwt-${++tokens}` });
  const pending = client.join("g1", "TOKEN");
  await settle();
  const ws1 = await openJoined(fake, { seq: 3, auth: true });
  const handle = await pending;
  assert.equal(ws1.sent[0].type, "auth");
  assert.equal(ws1.sent[0].jwt, "jwt-1");
  assert.deepEqual({ ...ws1.sent[1], id: undefined }, { type: "join", game: "g1", token: "TOKEN", id: undefined });
  assert.equal(handle.you, "p1");

  const command = handle.tap("/columns/3");
  const tap = ws1.last("tap");
  assert.deepEqual({ ...tap, id: undefined }, { type: "tap", target: "/columns/3", id: undefined }, "basedOn is the library's, not sent");
  ws1.drop();
  await settle();
  const wait = await clock.next();
  assert.ok(wait <= 1000, `first try within 1 s (${wait} ms)`);
  const ws2 = fake.current;
  assert.notEqual(ws2, ws1);
  ws2.open();
  await settle();
  assert.deepEqual(ws2.sent.map((m) => m.type), ["auth"], "nothing before the sign-in's answer");
  assert.equal(ws2.sent[0].jwt, "jwt-2", "a fresh token from the provider");
  ws2.receive({ type: "authed", user: "u1", name: "Ada", expires: NOW });
  ws2.receive({ type: "ack", id: ws2.sent[0].id });
  await settle();
  assert.deepEqual(ws2.sent.map((m) => m.type), ["auth", "join"], "the command waits for the re-join");
  const join = ws2.sent[1];
  assert.equal(join.since, 3);
  assert.equal(join.seat, "p1");
  assert.equal(join.token, "TOKEN");
  // The server applied the tap before the drop: the re-join's catch-up has its diff.
  ws2.receive({ type: "joined", game: "g1", kind: "four", role: "player", seq: 4, you: "p1", now: NOW });
  ws2.receive(diff(4, push(4), { type: "tap", target: "/columns/3", by: "p1" }));
  ws2.receive({ type: "ack", id: join.id, seq: 4 });
  await settle();
  assert.deepEqual(ws2.sent.map((m) => m.type), ["auth", "join", "tap"]);
  assert.equal(ws2.sent[2].id, tap.id, "the same id");
  ws2.receive({ type: "ack", id: tap.id, seq: 4 });
  assert.deepEqual(await command, { id: tap.id, seq: 4 });
  assert.deepEqual(handle.state, { n: [4] });
  client.close();
});

test("a token provider that fails, or a refused sign-in, is reported and the handle goes on unsigned", async () => {
  let calls = 0;
  const token = () => {
    if (++calls === 1) throw new Error("site down");
    return "jwt-bad";
  };
  const { fake, clock, client } = setup({ token });
  const errors = [];
  const pending = client.join("g1", "TOKEN", { on: { error: (e) => errors.push(e.code) } });
  const ws1 = await openJoined(fake);
  assert.deepEqual(ws1.sent.map((m) => m.type), ["join"], "no auth without a token");
  const handle = await pending;
  ws1.drop();
  await settle();
  await clock.next();
  const ws2 = fake.current;
  ws2.open();
  await settle();
  const auth = ws2.last("auth");
  assert.equal(auth.jwt, "jwt-bad");
  ws2.receive({ type: "error", id: auth.id, code: "forbidden", message: "bad token: bad signature" });
  await settle();
  const join = ws2.last("join");
  assert.ok(join, "joins all the same");
  ws2.receive({ type: "joined", game: "g1", kind: "four", role: "player", seq: 3, you: "p1", now: NOW });
  ws2.receive({ type: "ack", id: join.id, seq: 3 });
  await settle();
  assert.equal(handle.status, "ready");
  assert.deepEqual(errors, ["auth-provider", "forbidden"]);
  client.close();
});

test("a command refused by the server rejects with the protocol's code", async () => {
  const { fake, client } = setup();
  const pending = client.join("g1", "TOKEN");
  const ws = await openJoined(fake);
  const handle = await pending;
  const command = handle.tap("/columns/3");
  const tap = ws.last("tap");
  ws.receive({ type: "error", id: tap.id, code: "illegal-move", message: "it is p2's turn" });
  await assert.rejects(command, (e) => e instanceof BoardcastError && e.code === "illegal-move" && e.message === "it is p2's turn");
  client.close();
});

test("a stale choice is refused: basedOn an older seq, or queued while disconnected and overtaken by the catch-up", async () => {
  const { fake, clock, client } = setup();
  const pending = client.join("g1", "TOKEN");
  const ws1 = await openJoined(fake, { seq: 3 });
  const handle = await pending;
  ws1.receive(diff(4, push(4)));
  await assert.rejects(handle.command({ type: "tap", target: "/columns/1", basedOn: 3 }), (e) => e.code === "stale");
  await assert.rejects(handle.tap("/columns/1", { basedOn: 2 }), (e) => e.code === "stale");
  assert.equal(ws1.sentOf("tap").length, 0, "a stale command is never sent");

  ws1.drop();
  await settle();
  const staleChoice = handle.tap("/columns/2"); // chosen from seq 4, while disconnected
  staleChoice.catch(() => {}); // checked below
  await clock.next();
  const ws2 = fake.current;
  ws2.open();
  await settle();
  const join = ws2.last("join");
  assert.equal(join.since, 4);
  ws2.receive({ type: "joined", game: "g1", kind: "four", role: "player", seq: 5, you: "p1", now: NOW });
  ws2.receive(diff(5, push(5)));
  ws2.receive({ type: "ack", id: join.id, seq: 5 });
  await settle();
  await assert.rejects(staleChoice, (e) => e.code === "stale");
  assert.equal(ws2.sentOf("tap").length, 0, "the catch-up showed a newer state: not sent");

  // Queued while disconnected, and the catch-up brings nothing newer: sent after the re-join.
  ws2.drop();
  await settle();
  const goodChoice = handle.tap("/columns/6");
  await clock.next();
  const ws3 = fake.current;
  ws3.open();
  await settle();
  const join3 = ws3.last("join");
  assert.equal(join3.since, 5);
  assert.equal(ws3.sentOf("tap").length, 0);
  ws3.receive({ type: "joined", game: "g1", kind: "four", role: "player", seq: 5, you: "p1", now: NOW });
  ws3.receive({ type: "ack", id: join3.id, seq: 5 });
  await settle();
  const tap = ws3.last("tap");
  assert.equal(tap.target, "/columns/6");
  ws3.receive(diff(6, push(6)));
  ws3.receive({ type: "ack", id: tap.id, seq: 6 });
  assert.deepEqual(await goodChoice, { id: tap.id, seq: 6 });
  client.close();
});

test("chat whose answer was lost is not sent again; lines shown again after a re-join are not repeated", async () => {
  const { fake, clock, client } = setup();
  const pending = client.join("g1", "TOKEN");
  const ws1 = await openJoined(fake);
  const handle = await pending;
  const lines = [];
  handle.on("chat", (m) => lines.push(m.n));
  const chatLine = (n) => ({ type: "chat", game: "g1", room: "players", by: "p1", text: `line ${n}`, at: NOW, n });
  ws1.receive(chatLine(1));
  ws1.receive(chatLine(2));
  const said = handle.say("good luck");
  assert.equal(ws1.last("say").text, "good luck");
  ws1.drop();
  await assert.rejects(said, (e) => e.code === "disconnected");
  await clock.next();
  const ws2 = fake.current;
  ws2.open();
  await settle();
  const join = ws2.last("join");
  ws2.receive({ type: "joined", game: "g1", kind: "four", role: "player", seq: 3, you: "p1", now: NOW });
  ws2.receive(chatLine(1));
  ws2.receive(chatLine(2));
  ws2.receive(chatLine(3));
  ws2.receive({ type: "ack", id: join.id, seq: 3 });
  await settle();
  assert.equal(ws2.sentOf("say").length, 0, "say is never sent twice");
  assert.deepEqual(lines, [1, 2, 3]);
  client.close();
});

test("backoff: the first try within 1 s, then at most 5 s apart, jittered, forever", async () => {
  for (const [random, expectFirst] of [[() => 0, 250], [() => 0.999999, 500]]) {
    const { fake, clock, client } = setup({ random });
    client.watch("g1").catch(() => {});
    const waits = [];
    for (let i = 0; i < 60; i++) {
      await settle();
      fake.current.drop(); // refused: the server is down
      await settle();
      waits.push(await clock.next());
    }
    assert.equal(fake.sockets.length, 61, "it keeps trying");
    assert.equal(waits[0], expectFirst);
    assert.ok(waits.every((w) => w <= 5000), `all within 5 s: ${waits}`);
    assert.ok(waits.slice(5).every((w) => w >= 2500), "and not hammering either");
    client.close();
    assert.equal(clock.timers.size, 0, "close() leaves no timer");
  }
  // Bounds hold whatever the options ask for; the jitter spreads clients.
  assert.ok(backoffDelay(0, { initial: 60000, max: 60000 }, () => 0.9) <= 1000);
  assert.ok(backoffDelay(7, { initial: 60000, max: 60000 }, () => 0.9) <= 5000);
  assert.ok(backoffDelay(3, () => 1e9) <= 5000);
  const spread = new Set(Array.from({ length: 50 }, () => backoffDelay(4)));
  assert.ok(spread.size > 10, "jittered");
});

test("a connection that never opens is given up after connectTimeout and tried again at once", async () => {
  const { fake, clock, client } = setup({ connectTimeout: 4000 });
  client.watch("g1").catch(() => {});
  await settle();
  assert.equal(fake.sockets.length, 1);
  const moved = await clock.next(); // the connect timeout, and the next try at once
  assert.equal(moved, 4000);
  assert.equal(fake.sockets.length, 2, "tried again at once");
  assert.ok(fake.sockets[0].closedByClient, "the hung socket is closed");
  // A success resets the backoff: the next drop is retried within 1 s again.
  const ws = await openWatched(fake);
  ws.drop();
  await settle();
  assert.ok((await clock.next()) <= 1000);
  client.close();
});

test("a re-join refused because our dropped connection still holds the seat is tried again, until rejoinTimeout", async () => {
  const { fake, clock, client } = setup({ rejoinTimeout: 20000 });
  const pending = client.join("g1", "TOKEN");
  const ws1 = await openJoined(fake);
  const handle = await pending;
  const closed = [];
  handle.on("closed", (e) => closed.push(e));
  ws1.drop();
  await settle();
  await clock.next();
  const ws2 = fake.current;
  ws2.open();
  await settle();
  const join2 = ws2.last("join");
  assert.equal(join2.seat, "p1");
  ws2.receive({ type: "error", id: join2.id, code: "forbidden", message: "seat p1 is held by another connection" });
  await settle();
  assert.ok(ws2.closedByClient, "dropped, to try again on a new connection");
  await clock.next();
  const ws3 = await openJoined(fake);
  assert.notEqual(ws3, ws2);
  assert.equal(handle.status, "ready");
  assert.equal(closed.length, 0);

  // Held for longer than rejoinTimeout: the handle gives up and says why.
  ws3.drop();
  await settle();
  for (let i = 0; i < 20 && !closed.length; i++) {
    await clock.next();
    const ws = fake.current;
    ws.open();
    await settle();
    const join = ws.last("join");
    ws.receive({ type: "error", id: join.id, code: "forbidden", message: "seat p1 is held by another connection" });
    await settle();
  }
  assert.equal(closed.length, 1);
  assert.equal(closed[0].reason, "error");
  assert.equal(closed[0].error.code, "forbidden");
  assert.equal(clock.timers.size, 0);
});

test("a game gone on re-join (not-found) closes the handle and refuses its waiting commands", async () => {
  const { fake, clock, client } = setup();
  const pending = client.join("g1", "TOKEN");
  const ws1 = await openJoined(fake);
  const handle = await pending;
  const command = handle.tap("/columns/0");
  ws1.drop();
  await settle();
  await clock.next();
  const ws2 = fake.current;
  ws2.open();
  await settle();
  const join = ws2.last("join");
  const closed = new Promise((resolve) => handle.on("closed", resolve));
  ws2.receive({ type: "error", id: join.id, code: "not-found", message: "no game g1" });
  const event = await closed;
  assert.equal(event.reason, "error");
  await assert.rejects(command, (e) => e.code === "not-found");
  await assert.rejects(handle.tap("/columns/1"), (e) => e.code === "closed");
  assert.equal(clock.timers.size, 0, "no more tries");
});

test("create: sent again if the connection drops before created; after created, joins with the token", async () => {
  const { fake, clock, client } = setup();
  const pending = client.create("four", { bots: { p2: 1 } });
  await settle();
  const ws1 = fake.current;
  ws1.open();
  await settle();
  assert.deepEqual({ ...ws1.last("create"), id: undefined }, { type: "create", kind: "four", options: { bots: { p2: 1 } }, id: undefined });
  ws1.drop();
  await settle();
  await clock.next();
  const ws2 = fake.current;
  ws2.open();
  await settle();
  assert.ok(ws2.last("create"), "create again: no game was heard of");
  ws2.receive({ type: "created", game: "g1", token: "TOKEN" });
  ws2.drop();
  await settle();
  await clock.next();
  const ws3 = fake.current;
  ws3.open();
  await settle();
  assert.equal(ws3.sentOf("create").length, 0);
  const join = ws3.last("join");
  assert.deepEqual({ ...join, id: undefined }, { type: "join", game: "g1", token: "TOKEN", seat: "p1", id: undefined }, "the creator's seat");
  ws3.receive({ type: "joined", game: "g1", kind: "four", role: "player", seq: 1, you: "p1", bots: { p2: 1 }, now: NOW });
  ws3.receive({ type: "snapshot", game: "g1", kind: "four", seq: 1, state: { n: [] } });
  ws3.receive({ type: "ack", id: join.id, seq: 1 });
  const handle = await pending;
  assert.equal(handle.game, "g1");
  assert.equal(handle.token, "TOKEN");
  assert.equal(handle.you, "p1");
  assert.deepEqual(handle.bots, { p2: 1 });
  client.close();
});

test("watch with since 0 and no state is a replay from the deal; since with a state catches up from it", async () => {
  const { fake, client } = setup();
  client.watch("g1", { since: 0 }).catch(() => {});
  await settle();
  fake.current.open();
  await settle();
  const w = fake.current.last("watch");
  assert.equal(w.replay, true);
  assert.equal(w.since, undefined);
  client.watch("g1", { since: 7, state: { n: [1] } }).catch(() => {});
  await settle();
  fake.current.open();
  await settle();
  assert.equal(fake.current.last("watch").since, 7);
  await assert.rejects(client.watch("g1", { since: 7 }), TypeError);
  client.close();
});

test("close(): no reconnection, waiting commands refused closed, iterators end", async () => {
  const { fake, clock, client } = setup();
  const pending = client.join("g1", "TOKEN");
  const ws = await openJoined(fake);
  const handle = await pending;
  const states = handle.states();
  assert.deepEqual((await states.next()).value, { n: [] });
  const command = handle.tap("/columns/0");
  const closed = new Promise((resolve) => handle.on("closed", resolve));
  client.close();
  await assert.rejects(command, (e) => e.code === "closed");
  assert.equal((await closed).reason, "closed");
  assert.equal((await states.next()).done, true);
  assert.ok(ws.closedByClient);
  await settle();
  assert.equal(clock.timers.size, 0);
  assert.equal(fake.sockets.length, 1);
});

test("leave() sends leave and closes the handle", async () => {
  const { fake, client } = setup();
  const pending = client.join("g1", "TOKEN");
  const ws = await openJoined(fake);
  const handle = await pending;
  const left = handle.leave();
  await settle();
  const leave = ws.last("leave");
  ws.receive({ type: "left", game: "g1" });
  ws.receive({ type: "ack", id: leave.id });
  await left;
  assert.equal(handle.closed, true);
  assert.ok(ws.closedByClient);
  client.close();
});

test("show collects the plain-text lines; hint resolves with the hint", async () => {
  const { fake, client } = setup();
  const pending = client.join("g1", "TOKEN");
  const ws = await openJoined(fake);
  const handle = await pending;
  const shown = handle.show();
  const show = ws.last("show");
  ws.receive(". . . X . . .");
  ws.receive("0 1 2 3 4 5 6");
  ws.receive({ type: "ack", id: show.id, seq: 3 });
  assert.deepEqual(await shown, [". . . X . . .", "0 1 2 3 4 5 6"]);
  const hinted = handle.hint();
  const hint = ws.last("hint");
  ws.receive({ type: "hint", from: null, to: "/columns/3" });
  ws.receive({ type: "ack", id: hint.id, seq: 3 });
  assert.equal((await hinted).to, "/columns/3");
  client.close();
});

test("the lobby: list once, and a followed list kept across a reconnection", async () => {
  const { fake, clock, client } = setup();
  const once = client.list();
  await settle();
  const ws1 = fake.current;
  ws1.open();
  await settle();
  const list = ws1.last("list");
  ws1.receive({ type: "lobby", games: [{ game: "a" }] });
  ws1.receive({ type: "ack", id: list.id });
  assert.deepEqual(await once, [{ game: "a" }]);
  const following = client.list({ follow: true });
  await settle();
  const follow = ws1.last("list");
  assert.equal(follow.follow, true);
  ws1.receive({ type: "lobby", games: [{ game: "a" }, { game: "b" }] });
  ws1.receive({ type: "ack", id: follow.id });
  const feed = await following;
  assert.deepEqual(feed.games.map((g) => g.game), ["a", "b"]);
  const updates = [];
  feed.on("lobby", (games) => updates.push(games.map((g) => g.game)));
  ws1.drop();
  await settle();
  await clock.next();
  const ws2 = fake.current;
  ws2.open();
  await settle();
  const again = ws2.last("list");
  assert.equal(again.follow, true, "following again after the reconnection");
  ws2.receive({ type: "lobby", games: [{ game: "b" }] });
  ws2.receive({ type: "ack", id: again.id });
  await settle();
  assert.deepEqual(updates, [["b"]]);
  feed.close();
  await settle();
  assert.equal(ws2.last("list").follow, false);
  client.close();
});

test("applyPatch: RFC 6902 operations, on a copy; a failing patch changes nothing", () => {
  const doc = { a: [1, 2, 3], b: { c: "x" }, "k/~": 1 };
  const out = applyPatch(doc, [
    { op: "add", path: "/a/1", value: 9 },
    { op: "remove", path: "/a/0" },
    { op: "replace", path: "/b/c", value: "y" },
    { op: "move", from: "/b/c", path: "/d" },
    { op: "copy", from: "/a", path: "/e" },
    { op: "test", path: "/k~1~0", value: 1 },
    { op: "add", path: "/a/-", value: 4 },
  ]);
  assert.deepEqual(out, { a: [9, 2, 3, 4], b: {}, "k/~": 1, d: "y", e: [9, 2, 3] });
  assert.deepEqual(doc, { a: [1, 2, 3], b: { c: "x" }, "k/~": 1 }, "the input is untouched");
  assert.throws(() => applyPatch(doc, [{ op: "add", path: "/a/0", value: 0 }, { op: "replace", path: "/zz", value: 1 }]), PatchError);
  assert.throws(() => applyPatch(doc, [{ op: "test", path: "/a/0", value: 2 }]), PatchError);
  assert.throws(() => applyPatch(doc, [{ op: "add", path: "/a/7", value: 0 }]), PatchError);
  assert.deepEqual(doc, { a: [1, 2, 3], b: { c: "x" }, "k/~": 1 });
  assert.deepEqual(applyPatch({ x: 1 }, [{ op: "replace", path: "", value: [1] }]), [1]);
});

test("sends are paced under the server's frame limit: a burst, then SEND_RATE a second, in order", async () => {
  const { fake, clock, client } = setup();
  const pending = client.join("g1", "t");
  const ws = await openJoined(fake);
  const handle = await pending;
  // 100 commands at once: the server would read 100 frames a second at most, and answer one over
  // that with an error that has no id, which no command could ever be settled by.
  const taps = Array.from({ length: 100 }, (_, i) => handle.tap("/stock", { basedOn: null, id: `t${i}` }).catch((e) => e));
  await settle();
  assert.equal(ws.sent.length, SEND_BURST, "a burst of SEND_BURST frames (the join's among them) goes at once");
  await clock.advance(500);
  const afterHalf = ws.sent.length;
  assert.ok(afterHalf >= SEND_BURST + SEND_RATE / 2 - 1 && afterHalf <= SEND_BURST + SEND_RATE / 2 + 1, `${afterHalf} after 0.5 s`);
  await clock.advance(1000);
  const ids = ws.sentOf("tap").map((m) => m.id);
  assert.deepEqual(ids, Array.from({ length: 100 }, (_, i) => `t${i}`), "every command once, in the order made");
  for (const [i, id] of ids.entries()) ws.receive({ type: "ack", id, seq: 4 + i });
  await settle();
  assert.ok((await Promise.all(taps)).every((r) => !(r instanceof Error)));
});

test("Connection (one socket shared): sign-in first, then the open hooks in order, a hook added while syncing included; re-sent commands after them", async () => {
  const fake = fakeSockets();
  const clock = new FakeClock();
  const conn = new Connection("ws://boardcast.test/ws", { WebSocket: fake.WebSocket, clock, random: () => 0.5, token: () => "a.b.c" });
  const order = [];
  conn.onOpen(async (c) => {
    order.push("game");
    await c.exchange({ type: "join", game: "g1", token: "t" });
  });
  conn.onOpen(() => { order.push("auth-hook"); }, { first: true });
  const command = conn.request({ type: "tap", target: "/stock" }, { resend: true });
  await settle();
  let ws = fake.current;
  ws.open();
  await settle();
  // Signed in before any hook; nothing else goes out until the sign-in is answered.
  assert.deepEqual(ws.sent.map((m) => m.type), ["auth"]);
  assert.equal(conn.status, "syncing");
  // A view shown during the sign-in adds its hook: it runs in this open too.
  conn.onOpen((c) => { order.push("late"); c.request({ type: "list", follow: true }).catch(() => {}); });
  ws.receive({ type: "ack", id: ws.last("auth").id });
  await settle();
  assert.deepEqual(order, ["auth-hook", "game"]);
  assert.deepEqual(ws.sent.map((m) => m.type), ["auth", "join"], "the command waits for the hooks");
  ws.receive({ type: "ack", id: ws.last("join").id });
  await settle();
  assert.deepEqual(order, ["auth-hook", "game", "late"]);
  assert.equal(conn.status, "ready");
  assert.deepEqual(ws.sent.map((m) => m.type), ["auth", "join", "tap", "list"]);
  const tapID = ws.last("tap").id;

  // Dropped before the tap is answered: on the next connection, sign-in, the re-join, then the tap with its id.
  ws.drop();
  await settle();
  assert.equal(conn.status, "reconnecting");
  clock.advance(1000);
  await settle();
  ws = fake.current;
  ws.open();
  await settle();
  ws.receive({ type: "ack", id: ws.last("auth").id });
  await settle();
  ws.receive({ type: "ack", id: ws.last("join").id });
  await settle();
  assert.deepEqual(ws.sent.map((m) => m.type), ["auth", "join", "tap", "list"]);
  assert.equal(ws.last("tap").id, tapID, "the same id");
  ws.receive({ type: "ack", id: tapID, seq: 3 });
  assert.equal((await command).seq, 3);

  // cancel() refuses the waiting game commands it picks.
  const waiting = conn.request({ type: "tap", target: "/stock" }, { resend: true });
  conn.cancel((_, resend) => resend, new BoardcastError("cancelled", "left the game"));
  await assert.rejects(waiting, (e) => e.code === "cancelled");
  conn.close();
});
