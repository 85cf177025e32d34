// @ts-check
/**
 * The real server for end-to-end tests: BOARDCAST_SERVER (default the debug build), started on
 * a free port with a data directory, read for "listening on http://HOST:PORT".
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's debug build, three folders up from this file. */
const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const SERVER_BINARY = process.env.BOARDCAST_SERVER || path.join(REPOSITORY, ".build", "debug", "server");

/** A fresh temporary directory. @param {string} prefix */
export function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * @typedef {object} RunningServer
 * @property {number} port
 * @property {string} url the WebSocket address
 * @property {import("node:child_process").ChildProcess} proc
 * @property {() => string} log what it wrote, for a failure's message
 * @property {() => Promise<void>} kill9
 * @property {() => Promise<void>} stop SIGTERM, then SIGKILL if it lingers
 */

/**
 * @param {{data: string, extra?: string[], timeoutMs?: number}} options
 * @returns {Promise<RunningServer>}
 */
export function startServer(options) {
  const args = ["--host", "127.0.0.1", "--port", "0", "--data", options.data, "--create-rate", "100000", ...(options.extra ?? [])];
  const proc = spawn(SERVER_BINARY, args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (/** @type {Buffer} */ chunk) => {
    output = (output + chunk.toString()).slice(-20000);
  };
  proc.stderr?.on("data", keep);
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  return new Promise((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`the server did not say "listening on" within ${options.timeoutMs ?? 60000} ms:\n${output}`));
    }, options.timeoutMs ?? 60000);
    proc.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    proc.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before listening:\n${output}`));
    });
    proc.stdout?.on("data", (chunk) => {
      keep(chunk);
      stdout += chunk.toString();
      const m = /listening on http:\/\/([^:\s]+):(\d+)/.exec(stdout);
      if (!m) return;
      clearTimeout(timer);
      proc.stdout?.removeAllListeners("data");
      proc.stdout?.on("data", keep);
      const port = Number(m[2]);
      resolve({
        port,
        url: `ws://127.0.0.1:${port}/ws`,
        proc,
        log: () => output,
        kill9: async () => {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
          await exited;
        },
        stop: async () => {
          if (proc.exitCode !== null || proc.signalCode !== null) return;
          proc.kill("SIGTERM");
          const t = setTimeout(() => proc.kill("SIGKILL"), 10000);
          await exited;
          clearTimeout(t);
        },
      });
    });
  });
}
