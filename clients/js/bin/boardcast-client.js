#!/usr/bin/env node
// @ts-check
/**
 * boardcast-client: the reference command-line client of PROTOCOL section 21, built on
 * ../boardcast.js. JSON lines on standard output and nothing else there; its log goes to
 * standard error; exit 0 when done (1 when the game cannot be played or watched, 2 for usage).
 *
 *   boardcast-client play URL [--seed S] [--moves N] [--bot LEVEL]
 *   boardcast-client watch URL GAME [--until-seq N]
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const USAGE = `usage: boardcast-client play URL [--seed S] [--moves N] [--bot LEVEL]
       boardcast-client watch URL GAME [--until-seq N]
       (--verbose for a detailed log on standard error)`;

if (typeof globalThis.WebSocket !== "function") {
  // Node 20 has WebSocket behind a flag: run again with it (once).
  if (process.env.BOARDCAST_CLIENT_REEXEC) {
    process.stderr.write("boardcast-client: this Node has no WebSocket (Node 22, or Node 20 with --experimental-websocket)\n");
    process.exit(1);
  }
  const child = spawn(process.execPath, ["--experimental-websocket", ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, BOARDCAST_CLIENT_REEXEC: "1" },
  });
  for (const signal of /** @type {NodeJS.Signals[]} */ (["SIGINT", "SIGTERM", "SIGHUP"])) {
    process.on(signal, () => child.kill(signal));
  }
  child.on("exit", (code, signal) => {
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
} else {
  const { main } = await import("./cli.js");
  main(process.argv.slice(2), USAGE);
}
