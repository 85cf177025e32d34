// Figures for the client libraries (BENCHMARKS.md, "Clients"), against the real server on 127.0.0.1:
//
// 1. CPU per applied diff: W spectators of one Klondike game in this process, a player in a child
//    process tapping the stock as fast as the server's rate limit lets it; this process's CPU time
//    over the diffs its spectators applied.
// 2. Memory per watched game: G games, each watched by one GameHandle (a WebSocket each) in this
//    process; the growth of the JS heap and of the resident set, after a full GC, over G.
// 3. Reconnect to caught up: a spectator behind a proxy while a player makes 10 moves a second;
//    the proxy cuts it and refuses it for 5 s, then lets it through. Measured from the new
//    connection's open (the status "joining") to the first state at or past the seq the game had
//    reached by then, and from the proxy letting it through to that state.
//
// With --swift BIN (the Swift boardcast-client), parts 1 and 3 are measured for BIN's `watch`
// instead (CPU from /proc, states from its stdout lines), one process per spectator, and part 2
// for client-memory, built beside BIN, which watches every game in one process.
//
//   node --expose-gc [--experimental-websocket] Benchmarks/clients/run.mjs [--swift BIN] [--quick]
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { BoardcastClient } from "../../clients/js/boardcast.js";
import { CuttingProxy } from "../../clients/js/test-support/proxy.js";
import { startServer, tempDir } from "../../clients/js/test-support/server.js";

const args = process.argv.slice(2);
const swift = args.includes("--swift") ? args[args.indexOf("--swift") + 1] : null;
const quick = args.includes("--quick");
const SPECTATORS = quick ? 5 : 20;
const MOVES = quick ? 200 : 1000;
const GAMES = quick ? 50 : 200;
const OUTAGES = quick ? 2 : 5;
const TICK = 100; // USER_HZ, the unit of /proc/PID/stat's times, on Linux

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const nodeFlags = Number(process.versions.node.split(".")[0]) < 22 ? ["--experimental-websocket"] : [];

/** Calls `onLine` with each whole line `stream` gives. */
function eachLine(stream, onLine) {
  let buffer = "";
  stream.on("data", (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      onLine(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
  });
}

/** A player in a child process: creates a Klondike game, prints `game ID`, waits for a line on
 * its standard input, then taps the stock `moves` times (every `everyMs`, or as fast as acks
 * come with 0), printing `seq N` per ack. */
function player(url, moves, everyMs) {
  const code = `
    import { BoardcastClient } from ${JSON.stringify(new URL("../../clients/js/boardcast.js", import.meta.url).href)};
    const client = new BoardcastClient(${JSON.stringify(url)});
    const game = await client.create("klondike", { seed: 7 });
    console.log("game " + game.game);
    await new Promise((r) => process.stdin.once("data", r));
    process.stdin.pause();
    for (let i = 0; i < ${moves}; i++) {
      const started = Date.now();
      for (;;) {
        try { const ack = await game.tap("/stock"); console.log("seq " + ack.seq); break; }
        catch (e) { if (e.code !== "rate-limited") throw e; await new Promise((r) => setTimeout(r, 50)); }
      }
      const wait = ${everyMs} - (Date.now() - started);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    console.log("done");
    client.close();
    process.exit(0); // standard input, still open, would keep the process alive
  `;
  const child = spawn(process.execPath, [...nodeFlags, "--input-type=module", "-e", code], { stdio: ["pipe", "pipe", "inherit"] });
  const state = { game: null, seq: 0, done: false, child, go: () => child.stdin.write("go\n") };
  const gameKnown = new Promise((resolve, reject) => {
    child.once("exit", (code, signal) => { if (!state.game) reject(new Error(`the player exited (${code ?? signal}) before its game`)); });
    eachLine(child.stdout, (line) => {
      if (line.startsWith("game ")) { state.game = line.slice(5); resolve(state); }
      else if (line.startsWith("seq ")) state.seq = Number(line.slice(4));
      else if (line === "done") state.done = true;
    });
  });
  state.finished = new Promise((resolve) => child.once("exit", resolve));
  return { state, gameKnown };
}

/** A Swift `watch` process: its states as they come (seq and arrival time), its CPU from /proc. */
function swiftWatch(url, game) {
  const child = spawn(swift, ["watch", url, game], { stdio: ["ignore", "pipe", "pipe"] });
  const seen = { seq: null, lines: 0, arrivals: [], child, stderr: "" };
  eachLine(child.stdout, (line) => {
    const m = /"seq":(\d+)/.exec(line);
    if (m) { seen.seq = Number(m[1]); seen.lines += 1; seen.arrivals.push([seen.seq, performance.now()]); }
  });
  child.stderr.on("data", (chunk) => { seen.stderr = (seen.stderr + chunk).slice(-4000); });
  return seen;
}

function cpuSecondsOf(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICK; // utime + stime, from field 14
}

async function until(check, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await sleep(5);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(0)} ms`;

async function main() {
  const data = tempDir("boardcast-client-bench-");
  // The Swift probe watches GAMES + 1 games from one address: over the default per-address limit.
  const server = await startServer({ data, extra: ["--max-connections-per-address", "1000"] });
  const load = os.loadavg().map((x) => x.toFixed(1)).join(" ");
  console.log(`clients benchmark: ${swift ? `Swift boardcast-client (${swift})` : `JavaScript module on Node ${process.version}`}; load ${load}`);
  try {
    // ---- 1. CPU per applied diff
    {
      const mover = player(server.url, MOVES, 0);
      await mover.gameKnown;
      const game = mover.state.game;
      const client = new BoardcastClient(server.url);
      let applied = 0;
      const watchers = [];
      if (swift) {
        for (let i = 0; i < SPECTATORS; i++) watchers.push(swiftWatch(server.url, game));
      } else {
        const watching = [], statuses = [];
        for (let i = 0; i < SPECTATORS; i++) {
          watching.push(client.watch(game, { on: {
            state: (_s, change) => { if (change.via === "diff") applied += 1; },
            status: (status) => { statuses[i] = status; },
          } }));
        }
        let timer;
        const stalled = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`spectators not ready after 60 s: ${JSON.stringify(statuses)}`)), 60000);
        });
        watchers.push(...(await Promise.race([Promise.all(watching), stalled])));
        clearTimeout(timer);
      }
      if (swift) await until(() => watchers.every((w) => w.seq !== null), 60000, "the Swift watchers' first states");
      const cpuBefore = swift ? watchers.map((w) => cpuSecondsOf(w.child.pid)) : process.cpuUsage();
      mover.state.go();
      await mover.state.finished;
      const last = mover.state.seq;
      if (swift) {
        await until(() => watchers.every((w) => w.seq === last), 120000, "the Swift watchers to reach the last seq");
        const cpu = watchers.reduce((sum, w, i) => sum + cpuSecondsOf(w.child.pid) - cpuBefore[i], 0);
        const lines = watchers.reduce((sum, w) => sum + w.lines - 1, 0);
        console.log(`1. CPU per applied diff: ${(cpu * 1e6 / lines).toFixed(1)} µs (${SPECTATORS} watch processes x ${last} seqs, ${lines} states printed as JSON lines, ${cpu.toFixed(2)} s CPU)`);
        for (const w of watchers) w.child.kill();
      } else {
        await until(() => watchers.every((h) => h.seq === last), 120000, "the spectators to reach the last seq");
        const used = process.cpuUsage(cpuBefore);
        const cpu = (used.user + used.system) / 1e6;
        console.log(`1. CPU per applied diff: ${(cpu * 1e6 / applied).toFixed(1)} µs (${SPECTATORS} spectators x ${last} seqs, ${applied} diffs applied, ${cpu.toFixed(2)} s CPU, frames and JSON included)`);
      }
      client.close();
    }

    // ---- 2. Memory per watched game (the JavaScript module only)
    if (!swift && typeof global.gc === "function") {
      const games = [];
      const creators = new BoardcastClient(server.url);
      for (let i = 0; i < GAMES; i++) {
        const handle = await creators.create("klondike", { seed: i });
        games.push(handle.game);
      }
      creators.close();
      await sleep(200);
      global.gc();
      const heap0 = process.memoryUsage().heapUsed, rss0 = process.memoryUsage().rss;
      const client = new BoardcastClient(server.url);
      const handles = await Promise.all(games.map((g) => client.watch(g)));
      await until(() => handles.every((h) => h.seq !== null), 60000, "every watched game's snapshot");
      global.gc();
      const heap = process.memoryUsage().heapUsed - heap0, rss = process.memoryUsage().rss - rss0;
      console.log(`2. Memory per watched game: ${(heap / GAMES / 1024).toFixed(1)} KiB of JS heap, ${(rss / GAMES / 1024).toFixed(1)} KiB resident (${GAMES} Klondike games, one WebSocket each)`);
      client.close();
    } else if (!swift) {
      console.log("2. Memory per watched game: not measured (run node with --expose-gc)");
    } else {
      // The Swift client: client-memory, built beside BIN, watches every game in one process.
      const probe = new URL(`file://${fs.realpathSync(swift)}`).pathname.replace(/[^/]*$/, "client-memory");
      if (!fs.existsSync(probe)) {
        console.log(`2. Memory per watched game: not measured (no ${probe}: swift build -c release --package-path clients/swift)`);
      } else {
        const games = [];
        const creators = new BoardcastClient(server.url);
        // One more than GAMES: the probe's first game pays for the runtime and is not counted.
        for (let i = 0; i <= GAMES; i++) games.push((await creators.create("klondike", { seed: i })).game);
        creators.close();
        const child = spawn(probe, [server.url, ...games], { stdio: ["ignore", "pipe", "inherit"] });
        let output = "";
        child.stdout.on("data", (chunk) => (output += chunk));
        const code = await new Promise((resolve) => child.on("exit", resolve));
        if (code !== 0) throw new Error(`client-memory exited ${code}`);
        const figures = JSON.parse(output.trim().split("\n").pop());
        console.log(`2. Memory per watched game: ${(figures.residentPerGame / 1024).toFixed(1)} KiB resident (${figures.games} Klondike games, one session and WebSocket each, one process)`);
      }
    }

    // ---- 3. Reconnect to caught up after a 5 s outage at 10 moves/s
    {
      const proxy = new CuttingProxy();
      await proxy.listen();
      proxy.setUpstream(server.port);
      const moves = 10 * (8 + OUTAGES * 12);
      const mover = player(server.url, moves, 100);
      await mover.gameKnown;
      const game = mover.state.game;
      const proxyURL = `ws://127.0.0.1:${proxy.port}/ws`;
      let handle = null, watcher = null, client = null;
      const statuses = []; // [status, time]
      const arrivals = []; // [seq, time] of the JavaScript spectator's states
      if (swift) {
        watcher = swiftWatch(proxyURL, game);
        await until(() => watcher.seq !== null, 60000, "the Swift watcher's first state");
      } else {
        client = new BoardcastClient(proxyURL);
        handle = await client.watch(game, { on: {
          status: (status) => statuses.push([status, performance.now()]),
          state: (_state, change) => arrivals.push([change.seq, performance.now()]),
        } });
      }
      mover.state.go();
      const seqNow = () => (swift ? watcher.seq : handle.seq) ?? -1;
      const sinceOpen = [], sinceRestored = [];
      for (let outage = 0; outage < OUTAGES; outage++) {
        await sleep(3000);
        proxy.setUpstream(null);
        proxy.cutAll();
        await sleep(5000);
        const target = mover.state.seq;
        const restored = performance.now();
        proxy.setUpstream(server.port);
        await until(() => seqNow() >= target, 30000, "the spectator to catch up");
        const caughtAt = (swift ? watcher.arrivals : arrivals).find(([s, t]) => s >= target && t >= restored)[1];
        sinceRestored.push(caughtAt - restored);
        const opened = statuses.filter(([s, t]) => s === "joining" && t >= restored).pop();
        if (opened) sinceOpen.push(caughtAt - opened[1]);
      }
      const behind = 50; // 5 s at 10 moves/s
      console.log(`3. Reconnect to caught up after a 5 s outage at 10 moves/s (~${behind} diffs behind), ${OUTAGES} outages:` +
        (sinceOpen.length ? ` from the new connection's open, median ${ms(median(sinceOpen))}, max ${ms(Math.max(...sinceOpen))};` : "") +
        ` from the proxy letting it through (backoff wait included), median ${ms(median(sinceRestored))}, max ${ms(Math.max(...sinceRestored))}`);
      mover.state.child.kill();
      if (watcher) watcher.child.kill();
      client?.close();
      await proxy.close();
    }
  } finally {
    await server.stop();
    fs.rmSync(data, { recursive: true, force: true });
  }
  console.log(`load after: ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
}

await main();
