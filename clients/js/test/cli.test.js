// boardcast-client (PROTOCOL section 21) as child processes against the real server, through a
// proxy that cuts connections (also with a move in flight) and across a kill -9 and restart.
// The same scenarios run for each implementation of the command: the JavaScript one always, and
// the Swift one (clients/swift) when BOARDCAST_SWIFT_CLIENT names its binary. The JavaScript
// children are started with plain `node`, so on Node 20 they run themselves again with
// --experimental-websocket.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { BoardcastClient } from "../boardcast.js";
import { CuttingProxy } from "../test-support/proxy.js";
import { startServer, tempDir } from "../test-support/server.js";
import { readHistory, replayStates, columnOf, ended, runChild } from "../test-support/history.js";

const BIN = fileURLToPath(new URL("../bin/boardcast-client.js", import.meta.url));

/** Each implementation of boardcast-client under test: its name and the command that runs it. */
/** @type {[string, string[]][]} */
const CLIENTS = [["js", [process.execPath, BIN]]];
if (process.env.BOARDCAST_SWIFT_CLIENT) CLIENTS.push(["swift", [process.env.BOARDCAST_SWIFT_CLIENT]]);

/** @type {import("../test-support/server.js").RunningServer} */
let server;
let data = "";
const proxy = new CuttingProxy();
/** @type {ReturnType<typeof runChild>[]} */
const children = [];

before(async () => {
  data = tempDir("boardcast-js-cli-");
  server = await startServer({ data });
  await proxy.listen();
  proxy.setUpstream(server.port);
});

after(async () => {
  for (const child of children) child.kill();
  proxy.onClientMessage = () => "forward";
  await proxy.close();
  await server?.stop();
  if (data) fs.rmSync(data, { recursive: true, force: true });
});

async function killAndRestart() {
  proxy.setUpstream(null);
  await server.kill9();
  // Down until the clients have been refused twice: they keep trying while it is.
  await proxy.waitForRefusals(2, 20000);
  server = await startServer({ data });
  proxy.setUpstream(server.port);
}

/**
 * A child running `command` (the first element is the program) with `args`.
 * @param {string[]} command
 * @param {string[]} args
 */
function cli(command, args) {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const [program, ...programArgs] = command;
  const child = runChild([...programArgs, ...args], { env, program });
  children.push(child);
  return child;
}

/** Every stdout line is one JSON value. @param {string[]} lines */
function parseLines(lines) {
  return lines.map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      assert.fail(`stdout has a line that is not JSON: ${JSON.stringify(line)}`);
    }
  });
}

/** @param {ReturnType<typeof runChild>} child @param {number} timeoutMs */
async function exitOf(child, timeoutMs) {
  const timeout = new Promise((_, reject) => {
    const t = setTimeout(() => reject(new Error(`still running after ${timeoutMs} ms; stderr:\n${child.stderr}`)), timeoutMs);
    child.exited.finally(() => clearTimeout(t));
  });
  return Promise.race([child.exited, timeout]);
}

for (const [name, command] of CLIENTS) {
  test(`${name}: play and watch ride out cuts before and after the server answered a move, and a kill -9 with a move in flight`, { timeout: 240000 }, async () => {
    /** @type {Map<string, number>} */
    const frames = new Map();
    const plan = ["cut-on-reply", "cut-before", "kill", "cut-all"];
    /** @type {Promise<void> | null} */
    let restarting = null;
    proxy.onClientMessage = (m) => {
      if (!m || m.type !== "tap") return "forward";
      const n = frames.get(m.id) ?? 0;
      frames.set(m.id, n + 1);
      if (n > 0) return "forward";
      const action = plan[frames.size - 1] ?? "forward";
      if (action === "kill") {
        setImmediate(() => { restarting = killAndRestart(); });
        return "forward";
      }
      if (action === "cut-all") {
        setImmediate(() => proxy.cutAll()); // the watcher too, the move just passed on
        return "forward";
      }
      return action;
    };
    const play = cli(command, ["play", proxy.url, "--seed", "20261128", "--bot", "1"]);
    const game = await play.waitFor((_lines, stderr) => /created game ([a-z0-9]+)/.exec(stderr)?.[1], "play to create its game");
    const watch = cli(command, ["watch", proxy.url, game]);
    const played = await exitOf(play, 180000);
    await restarting;
    const watched = await exitOf(watch, 60000);
    proxy.onClientMessage = () => "forward";
    if (process.env.BOARDCAST_TEST_LOG) process.stderr.write(`${name} play:\n${play.stderr}\nwatch:\n${watch.stderr}\n`);
    assert.deepEqual(played, { code: 0, signal: null }, `play exits 0; stderr:\n${play.stderr}`);
    assert.deepEqual(watched, { code: 0, signal: null }, `watch exits 0; stderr:\n${watch.stderr}`);
    assert.equal(play.partial, "", "every stdout line ends with a newline");

    const out = parseLines(play.lines);
    const final = out.pop();
    const moves = out;
    assert.ok(moves.length >= 4, "at least four moves of p1 in a game of four in a row");
    moves.forEach((m, i) => {
      assert.deepEqual(Object.keys(m), ["move", "id", "seq", "column"]);
      assert.equal(m.move, i + 1);
    });
    assert.deepEqual(Object.keys(final), ["game", "seq", "status", "state"]);
    assert.equal(final.game, game);
    assert.ok(ended(final.state) && final.status === final.state.status, "played until the game ended");
    assert.equal(frames.get(moves[0].id), 2, "move 1 was sent again with its id (its answer was cut off)");
    assert.equal(frames.get(moves[1].id), 2, "move 2 was sent again with its id (cut before the server got it)");

    const history = await readHistory(server.url, game);
    history.forEach((d, i) => assert.equal(d.seq, i + 1));
    const taps = history.filter((d) => d.cause.by === "p1" && d.cause.type === "tap").map((d) => [d.seq, columnOf(d.cause.target)]);
    assert.deepEqual(taps, moves.map((m) => [m.seq, m.column]), "the history holds each of play's moves exactly once, in the order it printed them");
    const states = await replayStates(server.url, game);
    assert.equal(final.seq, states.length - 1, "the game's last seq");
    assert.deepEqual(final.state, states[final.seq], "play's copy of the state is the server's");

    const shown = parseLines(watch.lines);
    assert.ok(shown.length >= 1);
    shown.forEach((s, i) => {
      assert.deepEqual(Object.keys(s), ["seq", "state"]);
      assert.equal(s.seq, shown[0].seq + i, "every seq once, in order");
      assert.deepEqual(s.state, states[s.seq], `watch's state at seq ${s.seq}`);
    });
    assert.equal(shown[shown.length - 1].seq, final.seq, "watched until the game ended");
  });

  test(`${name}: play --moves N stops after N moves; watch --until-seq N stops at N`, { timeout: 120000 }, async () => {
    const play = cli(command, ["play", proxy.url, "--seed", "5", "--moves", "2", "--bot", "2"]);
    assert.deepEqual(await exitOf(play, 60000), { code: 0, signal: null }, play.stderr);
    const out = parseLines(play.lines);
    assert.equal(out.length, 3);
    const final = out[2];
    assert.equal(final.seq, out[1].seq, "the state at its last move's seq");
    assert.equal(final.state.moves, 3, "p1, the bot, p1");
    assert.equal(final.status, "playing");

    // A game the test plays itself, watched from its start by the CLI.
    const client = new BoardcastClient(server.url.replace(String(server.port), String(proxy.port)));
    const handle = await client.create("four", { bots: { p2: 1 } });
    const watch = cli(command, ["watch", proxy.url, handle.game, "--until-seq", "5"]);
    await watch.waitFor((lines) => (lines.length ? true : undefined), "watch's first state");
    for (const column of [0, 1]) {
      await handle.until((s) => s.turn === "p1" || ended(s));
      if (ended(handle.state)) break;
      await handle.tap(`/columns/${column}`);
    }
    assert.deepEqual(await exitOf(watch, 60000), { code: 0, signal: null }, watch.stderr);
    const shown = parseLines(watch.lines);
    assert.deepEqual(shown.map((s) => s.seq), [1, 2, 3, 4, 5]);
    client.close();
  });

  test(`${name}: usage errors exit 2 with nothing on stdout; an unknown game exits 1`, { timeout: 60000 }, async () => {
    for (const args of [[], ["dance"], ["play"], ["watch", proxy.url], ["play", proxy.url, "--moves", "x"], ["play", proxy.url, "--speed", "3"]]) {
      const child = cli(command, args);
      assert.deepEqual(await exitOf(child, 30000), { code: 2, signal: null }, `${args.join(" ")}: ${child.stderr}`);
      assert.deepEqual(child.lines, []);
      assert.match(child.stderr, /usage: boardcast-client play URL/);
    }
    const missing = cli(command, ["watch", proxy.url, "nosuchgm"]);
    assert.deepEqual(await exitOf(missing, 30000), { code: 1, signal: null });
    assert.deepEqual(missing.lines, []);
    assert.match(missing.stderr, /not-found/);
  });
}
