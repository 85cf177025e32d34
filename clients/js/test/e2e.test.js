// The library end to end against the real server (BOARDCAST_SERVER), through a TCP proxy that
// cuts connections abruptly, also while a command is in flight, and across a kill -9 of the
// server and its restart on the same data directory (PROTOCOL sections 2, 3, 4, 9, 21).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { BoardcastClient } from "../boardcast.js";
import { CuttingProxy } from "../test-support/proxy.js";
import { startServer, tempDir } from "../test-support/server.js";
import { readHistory, replayStates, columnOf, ended } from "../test-support/history.js";

/** @type {import("../test-support/server.js").RunningServer} */
let server;
let data = "";
const proxy = new CuttingProxy();
/** @type {string[]} */
const logs = [];
let restarts = 0;

before(async () => {
  data = tempDir("boardcast-js-e2e-");
  server = await startServer({ data });
  await proxy.listen();
  proxy.setUpstream(server.port);
});

after(async () => {
  if (process.env.BOARDCAST_TEST_LOG) process.stderr.write(logs.join("\n") + "\n");
  proxy.onClientMessage = () => "forward";
  await proxy.close();
  await server?.stop();
  if (data) fs.rmSync(data, { recursive: true, force: true });
});

/** kill -9, then the server again on the same data directory (on a new port the proxy follows). */
async function killAndRestart() {
  proxy.setUpstream(null);
  await server.kill9();
  // Down until the clients have been refused twice: they keep trying while it is.
  await proxy.waitForRefusals(2, 20000);
  server = await startServer({ data });
  proxy.setUpstream(server.port);
  restarts++;
}

function newClient(name) {
  return new BoardcastClient(proxy.url, { log: (level, message) => logs.push(`${name} ${level}: ${message}`) });
}

/** A column chosen from a small seeded generator (xorshift), among those not full. */
function chooser(seed) {
  let x = seed >>> 0 || 1;
  return (state) => {
    const open = state.columns.map((c, i) => (c.length < state.rows ? i : -1)).filter((i) => i >= 0);
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return open[x % open.length];
  };
}

/**
 * Plays p1 until the game ends or `maxMoves` moves were acked; `beforeMove(k)` runs before move k.
 * @returns {Promise<{id: string, seq: number, column: number}[]>}
 */
async function playP1(handle, { seed, maxMoves = 40, beforeMove = async () => {} }) {
  const choose = chooser(seed);
  const moves = [];
  while (moves.length < maxMoves) {
    const state = await handle.until((s) => ended(s) || (s.status === "playing" && s.turn === handle.you));
    if (ended(state)) break;
    await beforeMove(moves.length + 1);
    if (handle.seq === null || ended(handle.state) || handle.state.turn !== handle.you) continue;
    const seq = handle.seq;
    const column = choose(handle.state);
    try {
      const ack = await handle.tap(`/columns/${column}`, { basedOn: seq });
      moves.push({ id: ack.id, seq: ack.seq, column });
    } catch (e) {
      if (e.code !== "stale") throw e;
    }
  }
  return moves;
}

/** The p1 taps of the game's history, as [seq, column]. */
async function p1Taps(game) {
  const history = await readHistory(server.url, game);
  history.forEach((d, i) => assert.equal(d.seq, i + 1, "the history has every seq once, in order"));
  return { history, taps: history.filter((d) => d.cause.by === "p1" && d.cause.type === "tap").map((d) => [d.seq, columnOf(d.cause.target)]) };
}

test("a player through cuts before and after the server answered, and a kill -9 while a move is in flight: each move once, in order", { timeout: 180000 }, async () => {
  const client = newClient("player");
  const handle = await client.create("four", { bots: { p2: 1 } });
  assert.equal(handle.you, "p1");
  assert.equal(handle.seq, 1, "created, joined and started (the bot holds p2)");
  const drops = [];
  handle.on("status", (s) => { if (s === "reconnecting") drops.push(s); });

  // The taps as the server is sent them, by id: how often each id came, and what was done.
  /** @type {Map<string, number>} */
  const frames = new Map();
  const plan = ["cut-on-reply", "cut-before", "kill", "cut-on-reply"];
  /** @type {Promise<void> | null} */
  let restarting = null;
  proxy.onClientMessage = (m) => {
    if (!m || m.type !== "tap") return "forward";
    const n = frames.get(m.id) ?? 0;
    frames.set(m.id, n + 1);
    if (n > 0) return "forward"; // sent again after a re-join
    const action = plan[frames.size - 1] ?? "forward";
    if (action === "kill") {
      // Killed right after the move was passed on: it may or may not have been stored.
      setImmediate(() => { restarting = killAndRestart(); });
      return "forward";
    }
    return action;
  };
  let moves;
  try {
    moves = await playP1(handle, { seed: 7 });
  } finally {
    proxy.onClientMessage = () => "forward";
  }
  await restarting;
  assert.ok(moves.length >= 4, "a game of four in a row has at least four moves of p1");
  assert.ok(drops.length >= 3, `the connection dropped at least three times (${drops.length})`);
  assert.equal(frames.get(moves[0].id), 2, "move 1 (answered, the answer cut off) was sent again with its id");
  assert.equal(frames.get(moves[1].id), 2, "move 2 (cut before the server got it) was sent again with its id");
  assert.ok(frames.get(moves[2].id) >= 1);
  assert.equal(new Set(moves.map((m) => m.id)).size, moves.length, "one id per move");

  const { history, taps } = await p1Taps(handle.game);
  assert.deepEqual(taps, moves.map((m) => [m.seq, m.column]), "each acked move once in the history, at its ack's seq, in order");
  const last = history[history.length - 1].seq;
  await handle.until(() => handle.seq === last);
  const states = await replayStates(server.url, handle.game);
  assert.deepEqual(handle.state, states[last], "the handle's copy is the server's state");
  assert.ok(ended(handle.state));
  client.close();
});

test("a spectator through cuts and a kill -9 sees every seq once, in order, and the server's states", { timeout: 180000 }, async () => {
  const playerClient = newClient("player");
  const watcherClient = newClient("watcher");
  const handle = await playerClient.create("four", { bots: { p2: 1 } });
  const watcher = await watcherClient.watch(handle.game);
  /** @type {[number, any][]} */
  const seen = [[watcher.seq, watcher.state]];
  watcher.on("state", (state, change) => seen.push([change.seq, state]));
  const restartsBefore = restarts;
  const moves = await playP1(handle, {
    seed: 99,
    beforeMove: async (k) => {
      if (k === 2 || k === 4) proxy.cutAll(); // both connections, with nothing in flight
      if (k === 3) await killAndRestart();
    },
  });
  assert.ok(moves.length >= 4);
  assert.equal(restarts, restartsBefore + 1);
  const { history, taps } = await p1Taps(handle.game);
  assert.deepEqual(taps, moves.map((m) => [m.seq, m.column]));
  const last = history[history.length - 1].seq;
  await watcher.until(() => watcher.seq === last);
  const seqs = seen.map(([seq]) => seq);
  assert.deepEqual(seqs, Array.from({ length: last - seqs[0] + 1 }, (_, i) => seqs[0] + i), "every seq once, in order");
  const states = await replayStates(server.url, handle.game);
  for (const [seq, state] of seen) assert.deepEqual(state, states[seq], `the state at seq ${seq}`);
  playerClient.close();
  watcherClient.close();
});

test("a watch with since 0 replays the game from the deal; async iteration yields each state", { timeout: 60000 }, async () => {
  const client = newClient("replay");
  const player = await client.create("four", { bots: { p2: 1 } });
  await playP1(player, { seed: 3, maxMoves: 3 });
  await player.until((s) => s.turn === "p1"); // the bot has answered: the game waits for p1
  const seq = player.seq;
  /** @type {number[]} */
  const seqs = [];
  const replay = await client.watch(player.game, { since: 0, on: { state: (_s, change) => seqs.push(change.seq) } });
  assert.deepEqual(seqs, Array.from({ length: seq + 1 }, (_, i) => i), "every state from seq 0, in order");
  const states = await replayStates(server.url, player.game);
  assert.deepEqual(replay.state, states[seq]);
  // Async iteration: the current state, then each change.
  const iterated = [];
  const iterating = (async () => {
    for await (const state of replay.states()) {
      iterated.push(state.moves);
      if (iterated.length === 3) break;
    }
  })();
  await playP1(player, { seed: 4, maxMoves: 1 });
  await iterating;
  assert.deepEqual(iterated, [states[seq].moves, states[seq].moves + 1, states[seq].moves + 2], "p1's move, then the bot's");
  client.close();
});

test("errors carry the protocol's code: a wrong token, an unknown game, an unknown kind, an illegal move", { timeout: 60000 }, async () => {
  const client = newClient("errors");
  const handle = await client.create("four", {});
  assert.equal(handle.state.status, "waiting");
  await assert.rejects(client.join(handle.game, "not-the-token"), (e) => e.code === "forbidden");
  await assert.rejects(client.watch("nosuchgm"), (e) => e.code === "not-found");
  await assert.rejects(client.create("chess"), (e) => e.code === "bad-request" && /unknown kind chess/.test(e.message));
  await assert.rejects(handle.tap("/columns/3"), (e) => e.code === "illegal-move");
  await assert.rejects(handle.tap("/columns/9"), (e) => e.code === "bad-request");
  // A second player with the token takes p2 and starts the game.
  const second = await client.join(handle.game, handle.token);
  assert.equal(second.you, "p2");
  await handle.until((s) => s.status === "playing");
  await assert.rejects(second.tap("/columns/3"), (e) => e.code === "illegal-move" && /p1's turn/.test(e.message));
  const ack = await handle.tap("/columns/3");
  await second.until(() => second.seq === ack.seq);
  assert.deepEqual(second.state, handle.state);
  client.close();
});

test("chat and presence reach players and spectators; the lobby lists and follows", { timeout: 60000 }, async () => {
  const client = newClient("chat");
  const feed = await client.list({ follow: true });
  const handle = await client.create("four", { bots: { p2: 2 } });
  const listed = await new Promise((resolve) => {
    const check = (games) => { if (games.some((g) => g.game === handle.game)) resolve(games); };
    check(feed.games);
    feed.on("lobby", check);
  });
  assert.ok(listed.find((g) => g.game === handle.game).bots);
  assert.ok((await client.list()).some((g) => g.game === handle.game));
  const watcher = await client.watch(handle.game);
  const heard = new Promise((resolve) => watcher.on("chat", (m) => { if (m.room === "spectators") resolve(m); }));
  const presence = new Promise((resolve) => handle.on("presence", (p) => { if (p.spectators >= 1) resolve(p); }));
  await handle.say("good luck");
  await watcher.say("hello from the stands");
  assert.equal((await presence).spectators, 1);
  const line = await heard;
  assert.equal(line.room, "spectators");
  assert.equal(line.text, "hello from the stands");
  feed.close();
  client.close();
});
