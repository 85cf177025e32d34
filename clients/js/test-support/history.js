// @ts-check
/**
 * A game's history, read straight from the server on a plain WebSocket of its own (no proxy,
 * none of the library's connection logic): `watch` with `since: 0` (every diff from seq 1,
 * PROTOCOL section 9) and `watch` with `replay: true` (the state at seq 0, then every diff).
 */
import { applyPatch } from "../boardcast.js";
import { spawn } from "node:child_process";

/**
 * Sends one request on a fresh connection and collects every message up to its answer.
 * @param {string} url
 * @param {any} request
 * @param {number} [timeoutMs]
 * @returns {Promise<any[]>}
 */
export function exchange(url, request, timeoutMs = 30000) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    /** @type {any[]} */
    const got = [];
    const timer = setTimeout(() => {
      ws.close();
      reject(new Error(`no answer to ${JSON.stringify(request)} within ${timeoutMs} ms`));
    }, timeoutMs);
    ws.addEventListener("open", () => ws.send(JSON.stringify({ ...request, id: "history" })));
    ws.addEventListener("error", () => {
      clearTimeout(timer);
      reject(new Error(`cannot connect to ${url}`));
    });
    ws.addEventListener("message", (event) => {
      if (typeof event.data !== "string" || !event.data.startsWith("{")) return;
      const m = JSON.parse(event.data);
      got.push(m);
      if (m.id !== "history") return;
      clearTimeout(timer);
      ws.close();
      if (m.type === "error") reject(new Error(`${m.code}: ${m.message}`));
      else resolve(got);
    });
  });
}

/**
 * Every diff of the game from seq 1, in order (a fresh `watch` with `since: 0`).
 * @param {string} url @param {string} game
 * @returns {Promise<any[]>}
 */
export async function readHistory(url, game) {
  const messages = await exchange(url, { type: "watch", game, since: 0 });
  return messages.filter((m) => m.type === "diff");
}

/**
 * The game's state at every seq: `states[seq]`, from the replay's snapshot at 0 and its diffs.
 * @param {string} url @param {string} game
 * @returns {Promise<any[]>}
 */
export async function replayStates(url, game) {
  const messages = await exchange(url, { type: "watch", game, replay: true });
  const snapshot = messages.find((m) => m.type === "snapshot");
  if (!snapshot || snapshot.seq !== 0) throw new Error("a replay starts with the snapshot at seq 0");
  const states = [snapshot.state];
  for (const m of messages) {
    if (m.type !== "diff") continue;
    if (m.seq !== states.length) throw new Error(`replay: diff ${m.seq} after ${states.length - 1}`);
    states.push(applyPatch(states[states.length - 1], m.ops));
  }
  return states;
}

/** The column of a four-in-a-row tap's target (`/columns/C` or `/columns/C/R`). @param {string} target */
export function columnOf(target) {
  const m = /^\/columns\/(\d+)/.exec(target);
  return m ? Number(m[1]) : NaN;
}

/** @param {any} state */
export function ended(state) {
  return !!state && (state.status === "won" || state.status === "drawn" || state.status === "finished");
}

/**
 * Waits for a condition checked on each event, with a deadline (no fixed sleeps).
 * @param {() => boolean} condition
 * @param {string} what
 * @param {number} [timeoutMs]
 * @param {number} [everyMs]
 */
export async function eventually(condition, what, timeoutMs = 60000, everyMs = 50) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * A child process whose standard output is read as lines as they come: `node ARGS`, or
 * `options.program ARGS` (the Swift boardcast-client, say).
 * @param {string[]} args
 * @param {{env?: NodeJS.ProcessEnv, program?: string}} [options]
 */
export function runChild(args, options = {}) {
  const program = options.program ?? process.execPath;
  const proc = spawn(program, args, { stdio: ["ignore", "pipe", "pipe"], env: options.env ?? process.env });
  /** @type {string[]} */
  const lines = [];
  let partial = "";
  let stderr = "";
  /** @type {Set<() => void>} */
  const wakers = new Set();
  const wake = () => wakers.forEach((w) => w());
  proc.stdout?.on("data", (chunk) => {
    partial += chunk.toString();
    const parts = partial.split("\n");
    partial = /** @type {string} */ (parts.pop());
    lines.push(...parts);
    wake();
  });
  proc.stderr?.on("data", (chunk) => {
    stderr += chunk.toString();
    wake();
  });
  proc.on("error", (e) => {
    stderr += `cannot run ${program}: ${e.message}\n`;
  });
  /** @type {Promise<{code: number | null, signal: string | null}>} */
  const exited = new Promise((resolve) => proc.on("close", (code, signal) => { wake(); resolve({ code, signal }); }));
  return {
    proc,
    lines,
    get stderr() {
      return stderr;
    },
    /** The trailing output that did not end with a newline. */
    get partial() {
      return partial;
    },
    exited,
    /**
     * Resolves when `test` (given stdout lines and stderr) returns a value other than undefined.
     * @template T
     * @param {(lines: string[], stderr: string) => T | undefined} test
     * @param {string} what
     * @param {number} [timeoutMs]
     * @returns {Promise<T>}
     */
    waitFor(test, what, timeoutMs = 60000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const v = test(lines, stderr);
          if (v === undefined) return false;
          wakers.delete(check);
          clearTimeout(timer);
          resolve(v);
          return true;
        };
        const timer = setTimeout(() => {
          wakers.delete(check);
          reject(new Error(`timed out waiting for ${what}; stderr:\n${stderr}`));
        }, timeoutMs);
        wakers.add(check);
        check();
      });
    },
    kill() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    },
  };
}
