// End to end (PROTOCOL sections 16, 19, 21): a half-open drop, where the server goes on holding
// the player's seat until its pings find the old connection dead, and a signed-in player,
// who signs in again first on every connection and takes its seat back as who it is.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { BoardcastClient } from "../boardcast.js";
import { CuttingProxy } from "../test-support/proxy.js";
import { startServer, tempDir } from "../test-support/server.js";
import { readHistory, columnOf } from "../test-support/history.js";

/** @type {import("../test-support/server.js").RunningServer} */
let plain;
/** @type {import("../test-support/server.js").RunningServer} */
let signed;
const plainProxy = new CuttingProxy();
const signedProxy = new CuttingProxy();
let secret = "";
/** @type {string[]} */
const logs = [];

let dir = "";

before(async () => {
  dir = tempDir("boardcast-js-seats-");
  secret = crypto.randomBytes(32).toString("hex");
  const keyFile = path.join(dir, "hs256.key");
  fs.writeFileSync(keyFile, secret + "\n");
  [plain, signed] = await Promise.all([
    startServer({ data: path.join(dir, "plain"), extra: ["--ping-interval", "1"] }),
    startServer({ data: path.join(dir, "signed"), extra: ["--auth-hs256", keyFile, "--require-auth"] }),
  ]);
  await plainProxy.listen();
  plainProxy.setUpstream(plain.port);
  await signedProxy.listen();
  signedProxy.setUpstream(signed.port);
});

after(async () => {
  if (process.env.BOARDCAST_TEST_LOG) process.stderr.write(logs.join("\n") + "\n");
  await plainProxy.close();
  await signedProxy.close();
  await Promise.all([plain?.stop(), signed?.stop()]);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** An HS256 JWT (PROTOCOL section 19). @param {object} claims */
function mint(claims) {
  const part = (/** @type {object} */ v) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const unsigned = `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}`;
  return `${unsigned}.${crypto.createHmac("sha256", secret).update(unsigned).digest("base64url")}`;
}

/** @param {string} url @param {string} name @param {import("../boardcast.js").ClientOptions} [options] */
function newClient(url, name, options = {}) {
  return new BoardcastClient(url, { log: (level, message) => logs.push(`${name} ${level}: ${message}`), ...options });
}

/** Resolves at the handle's next `ready` (a re-join done). @param {import("../boardcast.js").GameHandle} handle */
function nextReady(handle) {
  return new Promise((resolve) => {
    const off = handle.on("status", (s) => {
      if (s === "ready") {
        off();
        resolve(undefined);
      }
    });
  });
}

test("a half-open drop with a move in flight: the re-join is refused while the server holds the seat, tried again, and the move applied once", { timeout: 120000 }, async () => {
  const p1Client = newClient(plainProxy.url, "p1");
  const p2Client = newClient(plain.url, "p2");
  const p1 = await p1Client.create("four");
  const p2 = await p2Client.join(p1.game, p1.token);
  assert.equal(p2.you, "p2");
  await p1.until((s) => s.status === "playing");

  let taps = 0;
  plainProxy.onClientMessage = (m) => (m?.type === "tap" && ++taps === 1 ? "orphan-on-reply" : "forward");
  const refusedBefore = logs.filter((l) => l.startsWith("p1 ") && /seat p1 is held by another connection/.test(l)).length;
  const move = await p1.tap("/columns/3");
  plainProxy.onClientMessage = () => "forward";
  assert.equal(taps, 2, "the move was sent again after the re-join");
  const refused = logs.filter((l) => l.startsWith("p1 ") && /seat p1 is held by another connection/.test(l)).length - refusedBefore;
  assert.ok(refused >= 1, "the server held the seat for a while: the re-join was refused and tried again");
  assert.equal(p1.you, "p1", "the same seat");

  await p2.until(() => p2.seq === move.seq);
  const answer = await p2.tap("/columns/4");
  await p1.until(() => p1.seq === answer.seq);
  const again = await p1.tap("/columns/3");
  await p2.until(() => p2.seq === again.seq);
  assert.deepEqual(p1.state, p2.state);

  const history = await readHistory(plain.url, p1.game);
  const mine = history.filter((d) => d.cause.by === "p1").map((d) => [d.seq, columnOf(d.cause.target)]);
  assert.deepEqual(mine, [[move.seq, 3], [again.seq, 3]], "each of p1's moves once");
  p1Client.close();
  p2Client.close();
});

test("signed in: auth goes first on every connection; after a cut and after a half-open drop the player is back in its seat", { timeout: 120000 }, async () => {
  let calls = 0;
  const token = () => {
    calls++;
    return mint({ sub: "u-ada", name: "Ada", exp: Math.floor(Date.now() / 1000) + 600 });
  };
  /** @type {Map<object, string[]>} what each connection sent, by type */
  const sent = new Map();
  signedProxy.onClientMessage = (m, _text, pair) => {
    if (!sent.has(pair)) sent.set(pair, []);
    sent.get(pair)?.push(m?.type);
    return "forward";
  };
  const client = newClient(signedProxy.url, "ada", { token });
  const handle = await client.create("four", { bots: { p2: 1 } });
  assert.deepEqual(handle.names, { p1: "Ada" }, "signed in: the seat carries the name");
  assert.equal(calls, 1);

  await handle.until((s) => s.turn === "p1");
  await handle.tap("/columns/0");

  let ready = nextReady(handle);
  signedProxy.cutAll();
  await ready;
  assert.equal(calls, 2, "a fresh token for the new connection");
  await handle.until((s) => s.turn === "p1");
  await handle.tap("/columns/1");

  // Half-open: the old connection still holds p1, but a signed-in user's join takes it back.
  ready = nextReady(handle);
  signedProxy.orphanAll();
  await ready;
  assert.equal(calls, 3);
  assert.equal(handle.you, "p1");
  await handle.until((s) => s.turn === "p1" || s.status !== "playing");
  if (handle.state.status === "playing") await handle.tap("/columns/2");
  signedProxy.onClientMessage = () => "forward";

  const connections = [...sent.values()];
  assert.ok(connections.length >= 3);
  for (const types of connections) assert.equal(types[0], "auth", `auth goes first: ${types.join(", ")}`);
  assert.deepEqual(connections.map((types) => types[1]), ["create", "join", "join"]);
  assert.ok(!logs.some((l) => l.startsWith("ada ") && /held by another connection/.test(l)), "no wait for the seat");

  // Without a token this server refuses to create (--require-auth).
  const anonymous = newClient(signedProxy.url, "anonymous");
  await assert.rejects(anonymous.create("four"), (e) => e.code === "forbidden");
  anonymous.close();
  client.close();
});
