// @ts-check
/**
 * The commands of boardcast-client (PROTOCOL section 21). Kept apart from the entry point so
 * that the entry point can run itself again with `--experimental-websocket` on Node 20 before
 * anything here is loaded.
 */
import { BoardcastClient, BoardcastError } from "../boardcast.js";

/** @param {any} value */
function out(value) {
  process.stdout.write(JSON.stringify(value) + "\n");
}

let verbose = false;

/** @param {"debug" | "info" | "warn"} level @param {string} message */
function log(level, message) {
  if (level === "debug" && !verbose) return;
  process.stderr.write(`boardcast-client: ${level === "warn" ? "warning: " : ""}${message}\n`);
}

/**
 * SplitMix64 (the protocol's own generator, PROTOCOL section 5), for the column choice.
 * @param {bigint} seed
 */
export function splitmix64(seed) {
  const mask = (1n << 64n) - 1n;
  let state = seed & mask;
  return {
    /** @returns {bigint} */
    next() {
      state = (state + 0x9e3779b97f4a7c15n) & mask;
      let z = state;
      z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
      z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
      return z ^ (z >> 31n);
    },
    /** @param {number} n @returns {number} in [0, n) */
    below(n) {
      return Number(this.next() % BigInt(n));
    },
  };
}

/**
 * @param {string[]} args
 * @param {string[]} flags with a value
 * @returns {{positional: string[], values: {[flag: string]: string}, bad: string | null}}
 */
function parseArgs(args, flags) {
  /** @type {string[]} */
  const positional = [];
  /** @type {{[flag: string]: string}} */
  const values = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--verbose" || a === "-v") verbose = true;
    else if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq >= 0 ? a.slice(0, eq) : a;
      if (!flags.includes(name)) return { positional, values, bad: `unknown flag ${name}` };
      const value = eq >= 0 ? a.slice(eq + 1) : args[++i];
      if (value === undefined) return { positional, values, bad: `${name} needs a value` };
      values[name] = value;
    } else positional.push(a);
  }
  return { positional, values, bad: null };
}

/** @param {string | undefined} text @param {string} name @param {number} min */
function integer(text, name, min) {
  if (text === undefined) return undefined;
  if (!/^-?[0-9]+$/.test(text) || Number(text) < min) throw new UsageError(`${name} must be an integer of at least ${min}`);
  return Number(text);
}

class UsageError extends Error {}

/** @param {string} url */
function newClient(url) {
  return new BoardcastClient(url, { log });
}

/**
 * @param {import("../boardcast.js").GameHandle} handle
 */
function logStatus(handle) {
  handle.on("status", (/** @type {string} */ status, /** @type {any} */ detail) => {
    if (status === "reconnecting") log("info", `reconnecting: try ${detail?.attempt ?? "?"} in ${detail?.delay ?? "?"} ms`);
    else if (status === "ready") log("info", `in game ${handle.game} at seq ${handle.seq}`);
  });
}

/**
 * play: a four-in-a-row game against the server's bot, p1 dropping at random (seeded).
 * @param {string} url
 * @param {{seed: bigint, moves: number | undefined, bot: number}} o
 */
async function play(url, o) {
  const client = newClient(url);
  const rng = splitmix64(o.seed);
  try {
    const handle = await client.create("four", { bots: { p2: o.bot } });
    logStatus(handle);
    log("info", `created game ${handle.game} (four, bot level ${o.bot}); playing ${handle.you}`);
    const me = handle.you;
    let k = 0;
    for (;;) {
      const state = await handle.until((s) => ENDED(s) || (s.status === "playing" && s.turn === me));
      if (ENDED(state)) break;
      const seq = /** @type {number} */ (handle.seq);
      const open = [];
      for (let c = 0; c < state.columns.length; c++) if (state.columns[c].length < state.rows) open.push(c);
      if (!open.length) {
        await handle.until((s) => handle.seq !== seq || ENDED(s));
        continue;
      }
      const column = open[rng.below(open.length)];
      try {
        const ack = await handle.tap(`/columns/${column}`, { basedOn: seq });
        k += 1;
        out({ move: k, id: ack.id, seq: ack.seq, column });
        if (o.moves !== undefined && k >= o.moves) break;
      } catch (e) {
        const error = /** @type {BoardcastError} */ (e);
        if (!(error instanceof BoardcastError) || error.code === "closed") throw e;
        // stale: the server showed a newer state first; illegal-move, unavailable, rate-limited:
        // look again at the state, and choose again once it has moved or after a moment.
        log(error.code === "stale" ? "debug" : "info", `move refused (${error.code}: ${error.message}); choosing again`);
        if (error.code !== "stale") await Promise.race([handle.until(() => handle.seq !== seq), sleep(1000)]);
      }
    }
    out({ game: handle.game, seq: handle.seq, status: handle.state.status, state: handle.state });
    await handle.leave();
    return 0;
  } finally {
    client.close();
  }
}

/** @param {any} s */
function ENDED(s) {
  return s && (s.status === "won" || s.status === "drawn" || s.status === "finished");
}

/** @param {number} ms */
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

/**
 * watch: every state of the game, once each and in order, until it ends or reaches a seq.
 * @param {string} url
 * @param {string} game
 * @param {{untilSeq: number | undefined}} o
 */
async function watch(url, game, o) {
  const client = newClient(url);
  try {
    let last = -1;
    let finished = false;
    /** @type {() => void} */
    let done = () => {};
    const over = new Promise((resolve) => (done = () => resolve(undefined)));
    // Printed from the state listener, attached before the first snapshot: no state is missed.
    const handle = await client.watch(game, {
      on: {
        state: (/** @type {any} */ state, /** @type {import("../boardcast.js").StateChange} */ change) => {
          if (finished || change.seq <= last) return; // the same seq again (a snapshot after a resync)
          if (last >= 0 && change.seq !== last + 1) log("warn", `seq ${last + 1} to ${change.seq - 1} were never shown`);
          last = change.seq;
          out({ seq: change.seq, state });
          if (ENDED(state) || (o.untilSeq !== undefined && change.seq >= o.untilSeq)) {
            finished = true;
            done();
          }
        },
        closed: () => done(),
      },
    });
    logStatus(handle);
    log("info", `watching game ${game} from seq ${handle.seq}`);
    await over;
    if (!finished && handle.closed) throw new BoardcastError("closed", "the game could not be watched any more");
    await handle.leave();
    return 0;
  } finally {
    client.close();
  }
}

/**
 * @param {string[]} argv
 * @param {string} usage
 */
export async function main(argv, usage) {
  const [command, ...rest] = argv;
  try {
    let code;
    if (command === "play") {
      const { positional, values, bad } = parseArgs(rest, ["--seed", "--moves", "--bot"]);
      if (bad) throw new UsageError(bad);
      if (positional.length !== 1) throw new UsageError("play takes one URL");
      const seedText = values["--seed"];
      if (seedText !== undefined && !/^[0-9]+$/.test(seedText)) throw new UsageError("--seed must be a non-negative integer");
      const seed = seedText !== undefined ? BigInt(seedText) : BigInt(Math.floor(Math.random() * 2 ** 53));
      const bot = integer(values["--bot"], "--bot", 1) ?? 1;
      code = await play(positional[0], { seed, moves: integer(values["--moves"], "--moves", 1), bot });
    } else if (command === "watch") {
      const { positional, values, bad } = parseArgs(rest, ["--until-seq"]);
      if (bad) throw new UsageError(bad);
      if (positional.length !== 2) throw new UsageError("watch takes a URL and a GAME");
      code = await watch(positional[0], positional[1], { untilSeq: integer(values["--until-seq"], "--until-seq", 0) });
    } else if (command === "--help" || command === "-h" || command === "help") {
      process.stderr.write(usage + "\n");
      code = 0;
    } else {
      throw new UsageError(command ? `unknown command ${command}` : "no command");
    }
    process.exitCode = code;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`boardcast-client: ${e.message}\n${usage}\n`);
      process.exitCode = 2;
    } else if (e instanceof BoardcastError) {
      log("warn", `${e.code}: ${e.message}`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`boardcast-client: ${/** @type {Error} */ (e)?.stack ?? e}\n`);
      process.exitCode = 1;
    }
  }
}
