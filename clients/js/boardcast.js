// @ts-check
/**
 * Boardcast's JavaScript client library (PROTOCOL section 21), for pages and for Node.
 *
 * One `GameHandle` per game, each on a WebSocket of its own (a connection is in at most one
 * game, PROTOCOL section 3), keeping the game's state from a snapshot and RFC 6902 diffs
 * applied strictly in seq order, and surviving the network: it reconnects by itself with
 * jittered backoff, signs in again, re-joins or re-watches with `since`, and sends the game
 * commands that were not answered again with their ids, so each is applied exactly once.
 *
 * No dependencies and no build step: a plain ES module. It uses the platform's `WebSocket`
 * (browsers, Node 22, Node 20 with `--experimental-websocket`), or the constructor given as
 * `options.WebSocket`.
 */

// ---------------------------------------------------------------------------------------------
// Types

/** @typedef {{[key: string]: any}} Message a JSON message, as sent or received */
/** @typedef {null | boolean | number | string | any[] | {[key: string]: any}} JSONValue */
/** @typedef {{op: string, path: string, value?: JSONValue, from?: string}} PatchOp */

/**
 * @typedef {object} Clock timers and time, injectable for tests
 * @property {(fn: () => void, ms: number) => any} setTimeout
 * @property {(handle: any) => void} clearTimeout
 * @property {() => number} now milliseconds
 */

/**
 * @typedef {object} BackoffOptions the wait before each reconnection try
 * @property {number} [initial] the cap of the first wait, ms (default 500; at most 1000)
 * @property {number} [max] the cap of every wait, ms (default 5000; at most 5000)
 * @property {number} [factor] growth of the cap per failed try (default 2)
 */

/**
 * @typedef {object} ClientOptions
 * @property {() => (string | null | undefined | Promise<string | null | undefined>)} [token]
 *   a JWT provider (PROTOCOL section 19): called on every (re)connection, whose token is sent
 *   as `auth` before anything else; null or undefined sends none
 * @property {BackoffOptions | ((attempt: number, random: () => number) => number)} [backoff]
 * @property {any} [WebSocket] a WebSocket constructor (default: the global one)
 * @property {Clock} [clock] default: the platform's timers and `Date.now`
 * @property {() => number} [random] in [0, 1), for the backoff's jitter (default `Math.random`)
 * @property {number} [connectTimeout] ms a connection may take to open before it is given up (default 5000)
 * @property {number} [rejoinTimeout] ms during which a re-join refused `forbidden` (the seat is
 *   still held by our dropped connection, which the server has not noticed yet) is tried again (default 120000)
 * @property {(level: "debug" | "info" | "warn", message: string) => void} [log]
 */

/**
 * @typedef {object} StateChange
 * @property {number} seq the seq of `state`
 * @property {any} state the state now (never changed afterwards: each change makes a new object)
 * @property {any} prev the state before (undefined for a first snapshot)
 * @property {"snapshot" | "diff"} via
 * @property {Message | null} cause the diff's cause (PROTOCOL section 4), null for a snapshot
 * @property {PatchOp[] | null} ops the diff's operations, null for a snapshot
 */

/**
 * @typedef {object} CommandOptions
 * @property {number} [basedOn] the seq of the state the command was chosen from (default: the
 *   handle's seq when `command` is called); a handle that has been shown a newer seq refuses it
 *   with code `stale`, before it is sent (and when it was queued while disconnected, at sending)
 * @property {string} [id] the message id (default: a fresh random one); giving the id of a
 *   command that was refused sends it again
 */

/** @typedef {{id: string, seq: number}} CommandResult */

/** @typedef {"connecting" | "joining" | "ready" | "reconnecting" | "closed"} Status */

// ---------------------------------------------------------------------------------------------
// Errors, ids

/** An error reply (its `code` is the protocol's, PROTOCOL section 8), or one of the library's own
 * codes: `disconnected` (the connection dropped before a request that may not be sent twice was
 * answered), `closed` (the handle or client was closed), `stale` (a command chosen from an old state). */
export class BoardcastError extends Error {
  /** @param {string} code @param {string} message @param {Message} [reply] */
  constructor(code, message, reply) {
    super(message || code);
    this.name = "BoardcastError";
    /** @type {string} */
    this.code = code;
    /** @type {Message | undefined} */
    this.reply = reply;
  }

  /** @param {Message} reply */
  static fromReply(reply) {
    return new BoardcastError(String(reply.code || "error"), String(reply.message || reply.code || "error"), reply);
  }
}

/** A random message id: 16 base-36 characters from the platform's CSPRNG. */
export function randomId() {
  const bytes = new Uint8Array(16);
  if (globalThis.crypto?.getRandomValues) globalThis.crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (b) => (b % 36).toString(36)).join("");
}

// ---------------------------------------------------------------------------------------------
// RFC 6902 JSON Patch (and RFC 6901 pointers), applied to a copy

export class PatchError extends Error {}

/** @param {string} pointer @returns {string[]} */
function parsePointer(pointer) {
  if (pointer === "") return [];
  if (pointer[0] !== "/") throw new PatchError(`bad pointer ${JSON.stringify(pointer)}`);
  return pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** @template T @param {T} value @returns {T} */
function clone(value) {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}

/** @param {any[]} array @param {string} token @param {boolean} forAdd */
function arrayIndex(array, token, forAdd) {
  if (token === "-" && forAdd) return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`bad array index ${token}`);
  const index = Number(token);
  if (index > array.length || (!forAdd && index === array.length)) throw new PatchError(`array index ${token} out of range`);
  return index;
}

/** @param {any} doc @param {string} pointer @returns {{parent: any, token: string}} */
function locate(doc, pointer) {
  const tokens = parsePointer(pointer);
  const token = /** @type {string} */ (tokens.pop());
  let parent = doc;
  for (const t of tokens) {
    if (Array.isArray(parent)) parent = parent[arrayIndex(parent, t, false)];
    else if (parent !== null && typeof parent === "object" && Object.prototype.hasOwnProperty.call(parent, t)) parent = parent[t];
    else throw new PatchError(`path ${pointer} does not exist`);
  }
  if (parent === null || typeof parent !== "object") throw new PatchError(`path ${pointer} does not exist`);
  return { parent, token };
}

/** @param {any} doc @param {string} pointer @returns {any} */
function getAt(doc, pointer) {
  let node = doc;
  for (const token of parsePointer(pointer)) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (node !== null && typeof node === "object" && Object.prototype.hasOwnProperty.call(node, token)) {
      node = node[token];
    } else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** @param {any} a @param {any} b @returns {boolean} */
function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  const ak = Object.keys(a), bk = Object.keys(b);
  return ak.length === bk.length && ak.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}

/** @param {any} doc @param {string} path @param {any} value @returns {any} */
function addAt(doc, path, value) {
  if (path === "") return value;
  const { parent, token } = locate(doc, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, token, true), 0, value);
  else parent[token] = value;
  return doc;
}

/** @param {any} doc @param {string} path @returns {any} the removed value */
function removeAt(doc, path) {
  if (path === "") throw new PatchError("cannot remove the whole document");
  const { parent, token } = locate(doc, path);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, token, false), 1)[0];
  if (!Object.prototype.hasOwnProperty.call(parent, token)) throw new PatchError(`path ${path} does not exist`);
  const removed = parent[token];
  delete parent[token];
  return removed;
}

/**
 * Applies an RFC 6902 patch and returns the new document; the input is left untouched, and a
 * patch that fails leaves nothing half-applied (it throws a PatchError).
 * @param {any} document
 * @param {PatchOp[]} ops
 * @returns {any}
 */
export function applyPatch(document, ops) {
  if (!Array.isArray(ops)) throw new PatchError("a patch is an array of operations");
  let doc = clone(document);
  for (const op of ops) {
    if (op === null || typeof op !== "object" || typeof op.path !== "string") throw new PatchError("bad operation");
    switch (op.op) {
      case "add":
        if (!("value" in op)) throw new PatchError("add needs a value");
        doc = addAt(doc, op.path, clone(op.value));
        break;
      case "remove":
        removeAt(doc, op.path);
        break;
      case "replace":
        if (!("value" in op)) throw new PatchError("replace needs a value");
        if (op.path === "") { doc = clone(op.value); break; }
        {
          const { parent, token } = locate(doc, op.path);
          if (Array.isArray(parent)) parent[arrayIndex(parent, token, false)] = clone(op.value);
          else if (Object.prototype.hasOwnProperty.call(parent, token)) parent[token] = clone(op.value);
          else throw new PatchError(`path ${op.path} does not exist`);
        }
        break;
      case "move": {
        if (typeof op.from !== "string") throw new PatchError("move needs from");
        if (op.path === op.from) break;
        if (op.path.startsWith(op.from + "/")) throw new PatchError("cannot move a value into itself");
        doc = addAt(doc, op.path, removeAt(doc, op.from));
        break;
      }
      case "copy": {
        if (typeof op.from !== "string") throw new PatchError("copy needs from");
        const value = getAt(doc, op.from);
        if (value === undefined) throw new PatchError(`path ${op.from} does not exist`);
        doc = addAt(doc, op.path, clone(value));
        break;
      }
      case "test": {
        const value = getAt(doc, op.path);
        if (value === undefined || !deepEqual(value, op.value)) throw new PatchError(`test failed at ${op.path}`);
        break;
      }
      default:
        throw new PatchError(`unknown op ${op.op}`);
    }
  }
  return doc;
}

// ---------------------------------------------------------------------------------------------
// Backoff

/** The first try comes within this many ms of a drop, whatever the options say. */
export const FIRST_TRY_WITHIN = 1000;
/** Later tries come at most this many ms apart, whatever the options say. */
export const TRIES_AT_MOST_APART = 5000;

/**
 * The wait before reconnection try `attempt` (0 for the first after a drop): a cap that starts
 * at `initial` and grows by `factor` up to `max`, of which a random half to whole is waited
 * ("equal jitter"), so clients that dropped together do not come back together. Bounded by
 * FIRST_TRY_WITHIN for the first try and TRIES_AT_MOST_APART after, whatever the options.
 * @param {number} attempt
 * @param {ClientOptions["backoff"]} [backoff]
 * @param {() => number} [random]
 * @returns {number} ms
 */
export function backoffDelay(attempt, backoff = {}, random = Math.random) {
  let delay;
  if (typeof backoff === "function") delay = backoff(attempt, random);
  else {
    const initial = backoff.initial ?? 500, max = backoff.max ?? TRIES_AT_MOST_APART, factor = backoff.factor ?? 2;
    const cap = Math.min(max, initial * factor ** Math.min(attempt, 40));
    delay = cap * (0.5 + 0.5 * random());
  }
  if (!Number.isFinite(delay) || delay < 0) delay = 0;
  return Math.round(Math.min(delay, attempt === 0 ? FIRST_TRY_WITHIN : TRIES_AT_MOST_APART));
}

/** @type {Clock} */
const platformClock = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle),
  now: () => Date.now(),
};

// ---------------------------------------------------------------------------------------------
// Link: one WebSocket, kept open

/**
 * @typedef {object} Pending a request waiting for its `ack` or `error`
 * @property {string} id
 * @property {Message} body the message with its id
 * @property {"resend" | "once" | "exchange"} kind resend: sent again with the same id after a
 *   reconnection (game commands, reads); once: refused `disconnected` if the connection drops
 *   after it was sent (chat); exchange: the link's own set-up requests (auth, join, watch, create)
 * @property {boolean} sent
 * @property {(reply: Message) => void} resolve
 * @property {(error: Error) => void} reject
 * @property {(() => Error | null)} [check] run before a queued request is first sent: an error refuses it
 */

/**
 * @typedef {object} LinkOwner
 * @property {(m: Message) => void} message every JSON message, replies included (before their promise settles)
 * @property {(line: string) => void} text a plain-text frame (the lines of `show`)
 * @property {(link: Link) => Promise<void>} prepare after each open and sign-in: join, watch or create;
 *   throws a BoardcastError: with `retry` set, the connection is dropped and tried again later; else fatal
 * @property {(error: BoardcastError) => void} fatal
 * @property {(status: "connecting" | "syncing" | "ready" | "reconnecting", detail?: any) => void} status
 * @property {(error: BoardcastError) => void} authRefused
 * @property {() => string} [label] what the log lines start with
 */

/** Frames a second this client sends on a connection at most, and its burst: under the server's
 * 100 a second and bucket of 100 (PROTOCOL section 14), with room for pongs. */
export const SEND_RATE = 80;
export const SEND_BURST = 40;

/** A retryable failure of a connection's set-up: the link drops the socket and tries again. */
class RetryLater extends BoardcastError {}

class Link {
  /**
   * @param {string} url
   * @param {Required<Pick<ClientOptions, "backoff" | "clock" | "random" | "connectTimeout" | "log">> & ClientOptions} options
   * @param {LinkOwner} owner
   */
  constructor(url, options, owner) {
    this.url = url;
    this.options = options;
    this.owner = owner;
    /** @type {any} */
    this.ws = null;
    /** @type {"connecting" | "syncing" | "ready" | "reconnecting" | "closed"} */
    this.status = "connecting";
    /** failed tries since the last connection that got ready */
    this.attempt = 0;
    /** @type {Map<string, Pending>} in the order the requests were made */
    this.pending = new Map();
    /** @type {any} */
    this.timer = null;
    /** @type {any} */
    this.connectTimer = null;
    /** when the connection that was ready was lost (for `rejoinTimeout`), or null */
    /** @type {number | null} */
    this.lostAt = null;
    this.connections = 0;
    /** @type {{ws: any, text: string}[]} frames waiting for the send pace (see `write`) */
    this.outbox = [];
    this.sendTokens = SEND_BURST;
    this.tokensAt = options.clock.now();
    /** @type {any} */
    this.paceTimer = null;
  }

  start() {
    this.connect();
  }

  /** @param {"debug" | "info" | "warn"} level @param {string} message */
  log(level, message) {
    const label = this.owner.label?.();
    this.options.log(level, label ? `${label}: ${message}` : message);
  }

  connect() {
    if (this.status === "closed") return;
    this.timer = null;
    const Ctor = this.options.WebSocket ?? globalThis.WebSocket;
    /** @type {any} */
    let ws;
    try {
      ws = new Ctor(this.url);
    } catch (e) {
      this.log("warn", `cannot open ${this.url}: ${/** @type {Error} */ (e).message}`);
      this.ws = null;
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    this.connections++;
    this.connectTimer = this.options.clock.setTimeout(() => {
      this.connectTimer = null;
      if (this.ws === ws) {
        this.log("info", `no connection after ${this.options.connectTimeout} ms; trying again`);
        // The try itself took the wait: the next one starts at once, so tries stay at most
        // `connectTimeout` (5 s) apart even when connections hang.
        this.lost(ws, "connect timeout", true);
      }
    }, this.options.connectTimeout);
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      this.options.clock.clearTimeout(this.connectTimer);
      this.connectTimer = null;
      this.setStatus("syncing");
      void this.prepare(ws);
    });
    ws.addEventListener("message", (/** @type {any} */ event) => {
      if (this.ws !== ws) return;
      const data = event.data;
      if (typeof data !== "string") return;
      const first = data.trimStart()[0];
      if (first !== "{") {
        this.owner.text(data);
        return;
      }
      let message;
      try {
        message = JSON.parse(data);
      } catch {
        this.owner.text(data);
        return;
      }
      if (message !== null && typeof message === "object" && !Array.isArray(message)) this.dispatch(message);
    });
    ws.addEventListener("close", (/** @type {any} */ event) => this.lost(ws, `closed${event && event.code ? ` (${event.code}${event.reason ? ` ${event.reason}` : ""})` : ""}`));
    ws.addEventListener("error", () => this.lost(ws, "error"));
  }

  /** @param {"connecting" | "syncing" | "ready" | "reconnecting"} status @param {any} [detail] */
  setStatus(status, detail) {
    if (this.status === "closed") return;
    this.status = status;
    this.owner.status(status, detail);
  }

  /**
   * Signs in, lets the owner join, then sends what waits: queued requests, and the unanswered
   * ones to send again with their ids.
   * @param {any} ws
   */
  async prepare(ws) {
    try {
      const provider = this.options.token;
      if (provider) {
        let jwt = null;
        try {
          jwt = await provider();
        } catch (e) {
          // The app's provider failed: go on unsigned (a join that needs it is refused and tried again).
          this.owner.authRefused(new BoardcastError("auth-provider", `the token provider failed: ${/** @type {Error} */ (e)?.message ?? e}`));
        }
        if (this.ws !== ws) return;
        if (jwt) {
          try {
            await this.exchange({ type: "auth", jwt });
          } catch (e) {
            if (this.ws !== ws) return;
            this.owner.authRefused(/** @type {BoardcastError} */ (e));
          }
        }
      }
      if (this.ws !== ws) return;
      await this.owner.prepare(this);
      if (this.ws !== ws) return;
      this.attempt = 0;
      this.lostAt = null;
      this.setStatus("ready");
      this.flush();
    } catch (e) {
      if (this.ws !== ws || this.status === "closed") return;
      const error = e instanceof BoardcastError ? e : new BoardcastError("error", String(/** @type {any} */ (e)?.message ?? e));
      if (error instanceof RetryLater) {
        this.log("info", `${error.message}; trying again`);
        this.drop(ws, error.message);
      } else {
        this.owner.fatal(error);
      }
    }
  }

  /** Sends every request that waits, in the order they were made. */
  flush() {
    for (const p of [...this.pending.values()]) {
      if (p.kind === "exchange" || this.status !== "ready") continue;
      if (!p.sent && p.check) {
        const error = p.check();
        if (error) {
          this.pending.delete(p.id);
          p.reject(error);
          continue;
        }
      }
      if (p.sent) this.log("debug", `sending ${p.body.type} ${p.id} again`);
      p.sent = true;
      this.write(p.body);
    }
  }

  /**
   * Sends a message, paced: the server reads at most 100 frames a second from a connection and
   * answers a frame over that with an error that has no `id` (section 8's `rate-limited`), so a
   * command sent over it would never be answered. A bucket of SEND_BURST frames refilled at
   * SEND_RATE a second keeps this connection under the server's, pongs included; a frame over it
   * waits its turn, in order.
   * @param {Message} message
   */
  write(message) {
    const ws = this.ws;
    if (!ws || ws.readyState !== 1) return false;
    this.outbox.push({ ws, text: JSON.stringify(message) });
    this.drain();
    return true;
  }

  /** Sends what the bucket allows now, and comes back when the next frame may go. */
  drain() {
    const now = this.options.clock.now();
    this.sendTokens = Math.min(SEND_BURST, this.sendTokens + ((now - this.tokensAt) * SEND_RATE) / 1000);
    this.tokensAt = now;
    while (this.outbox.length && this.sendTokens >= 1) {
      const { ws, text } = /** @type {{ws: any, text: string}} */ (this.outbox.shift());
      if (ws !== this.ws || ws.readyState !== 1) continue; // its connection is gone: flush() sends it again
      this.sendTokens -= 1;
      try {
        ws.send(text);
      } catch (e) {
        this.log("warn", `send failed: ${/** @type {Error} */ (e).message}`);
      }
    }
    if (this.outbox.length && this.paceTimer === null) {
      const wait = Math.ceil(((1 - this.sendTokens) * 1000) / SEND_RATE);
      this.paceTimer = this.options.clock.setTimeout(() => {
        this.paceTimer = null;
        this.drain();
      }, wait);
    }
  }

  /** @param {Message} message */
  dispatch(message) {
    const id = message.id;
    if ((message.type === "ack" || message.type === "error") && id !== undefined && id !== null) {
      const p = this.pending.get(String(id));
      if (p && p.sent) {
        this.pending.delete(p.id);
        this.owner.message(message);
        if (message.type === "ack") p.resolve(message);
        else p.reject(BoardcastError.fromReply(message));
        return;
      }
    }
    this.owner.message(message);
  }

  /**
   * A request of the app's: sent now when the link is ready, else when it is.
   * @param {Message} body
   * @param {"resend" | "once"} kind
   * @param {{id?: string, check?: () => Error | null}} [extra]
   * @returns {Promise<Message>} the ack
   */
  request(body, kind, extra = {}) {
    if (this.status === "closed") return Promise.reject(new BoardcastError("closed", "closed"));
    const id = extra.id ?? randomId();
    if (this.pending.has(id)) return Promise.reject(new BoardcastError("bad-request", `a request with id ${id} is already waiting`));
    const message = { ...body, id };
    return new Promise((resolve, reject) => {
      /** @type {Pending} */
      const p = { id, body: message, kind, sent: false, resolve, reject, check: extra.check };
      this.pending.set(id, p);
      if (this.status === "ready") {
        p.sent = true;
        this.write(message);
      }
    });
  }

  /**
   * A set-up request on the open connection (auth, join, watch, create, list): sent at once,
   * refused `disconnected` if the connection drops first.
   * @param {Message} body
   * @returns {Promise<Message>}
   */
  exchange(body) {
    if (!this.ws || this.ws.readyState !== 1) return Promise.reject(new BoardcastError("disconnected", "not connected"));
    const id = randomId();
    const message = { ...body, id };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { id, body: message, kind: "exchange", sent: true, resolve, reject });
      this.write(message);
    });
  }

  /**
   * The socket is gone: fail what may not be sent twice, keep the rest, and try again.
   * @param {any} ws
   * @param {string} why
   * @param {boolean} [now] try again at once (the try timed out: its wait was the timeout)
   */
  lost(ws, why, now = false) {
    if (ws !== this.ws || !ws) return;
    this.ws = null;
    this.options.clock.clearTimeout(this.connectTimer);
    this.connectTimer = null;
    try {
      ws.close();
    } catch {
      // already closing
    }
    const wasReady = this.status === "ready";
    if (wasReady || this.lostAt === null) this.lostAt = this.options.clock.now();
    for (const p of [...this.pending.values()]) {
      if (p.kind === "exchange" || (p.kind === "once" && p.sent)) {
        this.pending.delete(p.id);
        p.reject(new BoardcastError("disconnected", `the connection dropped before ${p.body.type} was answered`));
      }
    }
    if (this.status === "closed") return;
    this.log(wasReady ? "info" : "debug", `connection lost: ${why}`);
    this.scheduleReconnect(now);
  }

  /**
   * Drops the socket on purpose (a set-up that must be tried again).
   * @param {any} ws
   * @param {string} why
   */
  drop(ws, why) {
    this.lost(ws, why);
  }

  /** @param {boolean} [now] */
  scheduleReconnect(now = false) {
    if (this.status === "closed" || this.timer !== null) return;
    const delay = now ? 0 : backoffDelay(this.attempt, this.options.backoff, this.options.random);
    this.attempt++;
    this.setStatus("reconnecting", { attempt: this.attempt, delay });
    this.timer = this.options.clock.setTimeout(() => this.connect(), delay);
  }

  /** @param {BoardcastError} [error] what waiting requests are refused with */
  close(error = new BoardcastError("closed", "closed")) {
    if (this.status === "closed") return;
    this.status = "closed";
    this.options.clock.clearTimeout(this.timer);
    this.options.clock.clearTimeout(this.connectTimer);
    this.options.clock.clearTimeout(this.paceTimer);
    this.timer = this.connectTimer = this.paceTimer = null;
    this.outbox = [];
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      try {
        ws.close(1000);
      } catch {
        // already closing
      }
    }
    for (const p of [...this.pending.values()]) p.reject(error);
    this.pending.clear();
  }
}

/**
 * `ws(s)://` for `http(s)://`, once it is known there is a WebSocket to open it with.
 * @param {string} url @param {ClientOptions} options
 */
function webSocketURL(url, options) {
  if (!options.WebSocket && typeof globalThis.WebSocket !== "function") {
    throw new TypeError("no WebSocket here: pass options.WebSocket, or run Node 22, or Node 20 with --experimental-websocket");
  }
  return url.replace(/^http(s?):\/\//, "ws$1://");
}

/**
 * @param {ClientOptions} options
 * @returns {Required<Pick<ClientOptions, "backoff" | "clock" | "random" | "connectTimeout" | "rejoinTimeout" | "log">> & ClientOptions}
 */
function withDefaults(options) {
  return {
    ...options,
    backoff: options.backoff ?? {},
    clock: options.clock ?? platformClock,
    random: options.random ?? Math.random,
    connectTimeout: options.connectTimeout ?? 5000,
    rejoinTimeout: options.rejoinTimeout ?? 120000,
    log: options.log ?? (() => {}),
  };
}

/**
 * One WebSocket shared by the parts of an app that each want a say on it: a page's lobby, its
 * sign-in and the game it shows (PROTOCOL section 3: a connection is in at most one game, so a
 * page that shows one game at a time needs no more). It is the link a `GameHandle` keeps, opened
 * to every listener: the same reconnection (section 21's backoff), pacing and re-sent ids.
 *
 * On every (re)connection it signs in (`options.token`), then runs the `onOpen` hooks in the order
 * they were added (`first` ones before the rest), awaiting each: a hook re-joins its game there
 * with `exchange`, so the commands sent again after it go to a connection already in the game.
 * Then it is `ready` and sends what waits. A hook's failure is its own: the others still run.
 */
export class Connection {
  /**
   * @param {string} url the server's WebSocket address, `ws://HOST:PORT/ws`
   * @param {ClientOptions} [options]
   */
  constructor(url, options = {}) {
    this.url = webSocketURL(url, options);
    this.options = withDefaults(options);
    this.emitter = new Emitter();
    /** @type {{hook: (conn: Connection) => (void | Promise<void>), first: boolean}[]} */
    this.hooks = [];
    /** @type {number} when the next try starts (ms, the clock's), while reconnecting */
    this.retryAt = 0;
    /** the hooks run on the connection open now (or being prepared) */
    this.ranThisOpen = new Set();
    this.link = new Link(this.url, this.options, {
      message: (m) => this.emitter.emit("message", m),
      text: (line) => this.emitter.emit("text", line),
      prepare: () => this.prepare(),
      fatal: (error) => this.options.log("warn", `connection: ${error.message}`),
      status: (status, detail) => {
        if (status === "reconnecting") this.retryAt = this.options.clock.now() + (detail?.delay ?? 0);
        // Added between the last hook and now: not missed (what it sends goes after the flush).
        if (status === "ready") for (const entry of this.hooks.filter((h) => !this.ranThisOpen.has(h))) void this.runHook(entry);
        this.emitter.emit("status", status, detail);
      },
      authRefused: (error) => this.emitter.emit("auth-refused", error),
      label: () => "connection",
    });
    this.link.start();
  }

  /** @type {"connecting" | "syncing" | "ready" | "reconnecting" | "closed"} `syncing`: open, the hooks running */
  get status() {
    return this.link.status;
  }

  async prepare() {
    // A hook added while this runs (a view shown during the sign-in) runs in this one too.
    const ran = (this.ranThisOpen = new Set());
    for (;;) {
      const next = this.hooks.find((h) => h.first && !ran.has(h)) ?? this.hooks.find((h) => !ran.has(h));
      if (!next) return;
      await this.runHook(next);
    }
  }

  /** @param {{hook: (conn: Connection) => (void | Promise<void>), first: boolean}} entry */
  async runHook(entry) {
    this.ranThisOpen.add(entry);
    try {
      await entry.hook(this);
    } catch (e) {
      this.options.log("warn", `an open hook failed: ${/** @type {Error} */ (e)?.message ?? e}`);
    }
  }

  /**
   * Runs `hook` on every (re)connection, before anything waiting is sent; added while the
   * connection is `syncing`, in this one too (not when it is `ready`: a hook added then acts on
   * it by itself if it must).
   * @param {(conn: Connection) => (void | Promise<void>)} hook
   * @param {{first?: boolean}} [options] first: before the hooks without it (what must come first: signing in)
   * @returns {() => void} removes it
   */
  onOpen(hook, options = {}) {
    const entry = { hook, first: !!options.first };
    this.hooks.push(entry);
    return () => {
      const i = this.hooks.indexOf(entry);
      if (i >= 0) this.hooks.splice(i, 1);
    };
  }

  /**
   * `message` (every JSON message, replies included, before their promise settles), `text` (a
   * plain-text frame), `status` (status, detail), `auth-refused` (the sign-in of `options.token`).
   * @param {"message" | "text" | "status" | "auth-refused"} name
   * @param {(...args: any[]) => void} fn
   * @returns {() => void} unsubscribe
   */
  on(name, fn) {
    return this.emitter.on(name, fn);
  }

  /**
   * A request: sent when the connection is ready (now, or after the next re-join). `resend`: a
   * game command, sent again with its id after a reconnection until answered (exactly once);
   * else refused `disconnected` if the connection drops after sending it.
   * @param {Message} body
   * @param {{resend?: boolean, check?: () => Error | null}} [options] check: a last look before
   *   each sending (a command chosen from a state the server has since moved past: `staleness`)
   * @returns {Promise<Message>} the ack
   */
  request(body, options = {}) {
    return this.link.request(body, options.resend ? "resend" : "once", { check: options.check });
  }

  /**
   * A request on the open connection now, hooks included (a re-join): refused `disconnected`
   * when the connection is not open or drops first.
   * @param {Message} body
   * @returns {Promise<Message>}
   */
  exchange(body) {
    return this.link.exchange(body);
  }

  /**
   * Refuses the requests still waiting that `which` picks (a game left: its commands), with `error`.
   * @param {(body: Message, resend: boolean) => boolean} which resend: sent with `resend`
   * @param {BoardcastError} error
   */
  cancel(which, error) {
    for (const p of [...this.link.pending.values()]) {
      if (p.kind === "exchange" || !which(p.body, p.kind === "resend")) continue;
      this.link.pending.delete(p.id);
      p.reject(error);
    }
  }

  /** Tries again now instead of after the backoff's wait (the page became visible, the network came back). */
  retryNow() {
    if (this.link.status !== "reconnecting" || this.link.timer === null) return;
    this.options.clock.clearTimeout(this.link.timer);
    this.link.timer = null;
    this.link.connect();
  }

  /** Closes it for good: waiting requests are refused `closed`. */
  close() {
    this.link.close();
    this.emitter.emit("status", "closed");
  }
}

// ---------------------------------------------------------------------------------------------
// Listeners and async iteration

/** @template T */
class Feed {
  constructor() {
    /** @type {T[]} */
    this.queue = [];
    /** @type {((r: IteratorResult<T>) => void)[]} */
    this.waiting = [];
    this.done = false;
    /** @type {() => void} */
    this.onReturn = () => {};
  }

  /** @param {T} value */
  push(value) {
    if (this.done) return;
    const w = this.waiting.shift();
    if (w) w({ value, done: false });
    else this.queue.push(value);
  }

  end() {
    if (this.done) return;
    this.done = true;
    for (const w of this.waiting.splice(0)) w({ value: undefined, done: true });
  }

  /** @returns {AsyncIterableIterator<T>} */
  iterator() {
    return {
      next: () => {
        if (this.queue.length) return Promise.resolve({ value: /** @type {T} */ (this.queue.shift()), done: false });
        if (this.done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => this.waiting.push(resolve));
      },
      return: () => {
        this.queue = [];
        this.end();
        this.onReturn();
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }
}

class Emitter {
  constructor() {
    /** @type {Map<string, Set<Function>>} */
    this.listeners = new Map();
  }

  /**
   * @param {string} name
   * @param {Function} fn
   * @returns {() => void} unsubscribe
   */
  on(name, fn) {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(fn);
    return () => {
      set?.delete(fn);
    };
  }

  /** @param {string} name @param {...any} args */
  emit(name, ...args) {
    const set = this.listeners.get(name);
    if (!set) return;
    for (const fn of [...set]) {
      try {
        fn(...args);
      } catch (e) {
        // A listener's bug is the app's, reported as the platform reports one; the state stays right.
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The state a client holds of a game

/**
 * What a diff did to a held state: applied (with the change), or not: `wait` (no state held yet:
 * the snapshot on its way covers it), `stale` (a seq already held: a re-join's overlap), `gap`
 * (a seq missed: ask again with `since`), `broken` (its ops do not apply: ask for a snapshot).
 * @typedef {{outcome: "applied", change: StateChange} | {outcome: "wait" | "stale" | "gap"} | {outcome: "broken", error: Error}} DiffOutcome
 */

/**
 * A game's state as a client holds it (PROTOCOL sections 4 and 21): a snapshot, then diffs applied
 * strictly in seq order, and the newest seq the server has shown, which a command chosen from an
 * older state must not ignore. Pure: no connection, no timers. `GameHandle` keeps one; so does a
 * page that runs its own connection (web-static's game session).
 */
export class HeldState {
  constructor() {
    /** @type {number | null} the seq of `state`; null before the first state */
    this.seq = null;
    /** @type {number | null} the newest seq the server has shown (a diff past a gap, not applied yet, included) */
    this.shownSeq = null;
    /** @type {any} the current state: a new object at each change, never changed in place */
    this.state = undefined;
  }

  /** A state the app already holds at `seq`, to catch up from. @param {number} seq @param {any} state */
  hold(seq, state) {
    this.seq = seq;
    this.state = state;
  }

  /** Nothing held can be trusted any more: the next snapshot starts again (its state stays shown until then). */
  forget() {
    this.seq = null;
  }

  /** @param {Message} m a `snapshot` @returns {StateChange} */
  snapshot(m) {
    const prev = this.state;
    this.state = m.state;
    this.seq = m.seq;
    this.shownSeq = m.seq;
    return { seq: m.seq, state: m.state, prev, via: "snapshot", cause: null, ops: null };
  }

  /** @param {Message} m a `diff` @returns {DiffOutcome} */
  diff(m) {
    if (this.seq === null) return { outcome: "wait" };
    if (m.seq <= this.seq) return { outcome: "stale" };
    if (typeof m.seq === "number" && (this.shownSeq === null || m.seq > this.shownSeq)) this.shownSeq = m.seq;
    if (m.seq !== this.seq + 1) return { outcome: "gap" };
    const prev = this.state;
    let state;
    try {
      state = applyPatch(prev, m.ops);
    } catch (e) {
      return { outcome: "broken", error: /** @type {Error} */ (e) };
    }
    this.state = state;
    this.seq = m.seq;
    return { outcome: "applied", change: { seq: m.seq, state, prev, via: "diff", cause: m.cause ?? null, ops: m.ops } };
  }

  /**
   * Why a command chosen from the state at `basedOn` must not be sent: the server has shown a
   * newer one (section 21: nothing chosen from a stale state). Null when it may go.
   * @param {number | null | undefined} basedOn
   * @returns {BoardcastError | null}
   */
  staleness(basedOn) {
    const shown = Math.max(this.seq ?? -1, this.shownSeq ?? -1);
    return typeof basedOn === "number" && shown > basedOn
      ? new BoardcastError("stale", `chosen from seq ${basedOn}, but the server has shown seq ${shown}: choose again`)
      : null;
  }
}

// ---------------------------------------------------------------------------------------------
// GameHandle

const RETRY_CODES = new Set(["unavailable", "rate-limited"]);
const ENDED = new Set(["won", "drawn", "finished"]);

/**
 * @typedef {object} HandleStart
 * @property {"create" | "join" | "watch"} mode
 * @property {string} [kind] create
 * @property {Message} [options] create
 * @property {string} [game] join, watch
 * @property {string | null} [token] join
 * @property {string} [seat] join
 * @property {string} [key] watch
 * @property {number} [since] join, watch: the seq of `state`
 * @property {any} [state] join, watch: the state the app holds at `since`
 * @property {boolean} [replay] watch
 * @property {HandleListeners} [on] listeners attached before anything arrives
 */

/**
 * @typedef {object} HandleListeners listeners a handle has from its start, so that none of its
 *   states is missed (`state` sees the first snapshot, and with a replay every state from seq 0)
 * @property {(state: any, change: StateChange) => void} [state]
 * @property {(message: Message) => void} [event]
 * @property {(message: Message) => void} [chat]
 * @property {(message: Message) => void} [presence]
 * @property {(info: {reason: string, error?: BoardcastError}) => void} [closed]
 * @property {(status: Status, detail?: any) => void} [status]
 * @property {(message: Message) => void} [joined]
 * @property {(error: BoardcastError) => void} [error]
 */

/**
 * One game joined, watched or created: its state, kept from the server's snapshot and diffs
 * (PROTOCOL section 4), and its commands. Made by `BoardcastClient`'s `create`, `join`, `watch`.
 */
export class GameHandle {
  /**
   * @param {BoardcastClient} client
   * @param {HandleStart} start
   */
  constructor(client, start) {
    this.client = client;
    /** @type {HandleStart} */
    this.start = start;
    /** @type {string | undefined} the game id (set once `created` arrives for a handle from `create`) */
    this.game = start.game;
    /** @type {string | null | undefined} the game token (players; from `created`, or as joined with) */
    this.token = start.token;
    /** @type {string | undefined} the watch key (PROTOCOL section 19): given, or from `created` / a player's `joined` */
    this.key = start.key;
    /** @type {string | undefined} */
    this.kind = start.kind;
    /** @type {"player" | "spectator" | undefined} */
    this.role = start.mode === "watch" ? "spectator" : "player";
    /** @type {string | undefined} this connection's player id or seat (players only) */
    this.you = start.seat;
    /** the state held: `seq`, `state` and `shownSeq` below read it */
    this.held = new HeldState();
    /** spectator delay in seconds, 0 for none (PROTOCOL section 15) */
    this.delay = 0;
    /** @type {{[seat: string]: number}} */
    this.bots = {};
    /** @type {{initial: number, increment: number} | null} */
    this.clock = null;
    /** @type {{[player: string]: string}} */
    this.names = {};
    /** @type {string} who may watch: anyone, link or players */
    this.watchMode = "anyone";
    this.players = 0;
    this.spectators = 0;
    /** server time minus local time, ms, from `joined`'s `now` */
    this.serverOffset = 0;
    /** @type {Status} */
    this.status = "connecting";
    this.closed = false;
    /** a join or watch of ours has succeeded: later ones are re-joins */
    this.joinedOnce = false;
    /** ask for a snapshot at the next (re)join: the held state cannot be trusted */
    this.fresh = false;
    /** a re-join on the open connection is on its way (a gap) */
    this.resyncing = false;
    /** the highest chat line number `n` seen (PROTOCOL section 15) */
    this.chatN = -1;
    /** @type {string[]} plain-text lines, for `show` */
    this.textLines = [];
    /** @type {Message | null} */
    this.lastHint = null;
    this.leaving = false;
    this.emitter = new Emitter();
    for (const [name, fn] of Object.entries(start.on ?? {})) if (typeof fn === "function") this.emitter.on(name, fn);
    /** @type {Set<Feed<StateChange>>} */
    this.feeds = new Set();
    /** @type {(h: GameHandle) => void} */
    let resolveReady = () => {};
    /** @type {(e: Error) => void} */
    let rejectReady = () => {};
    /** @type {Promise<GameHandle>} settles with the first join, watch or create */
    this.ready = new Promise((resolve, reject) => {
      resolveReady = resolve;
      rejectReady = reject;
    });
    this.ready.catch(() => {});
    this.resolveReady = resolveReady;
    this.rejectReady = rejectReady;
    if (start.since !== undefined) {
      if (start.state !== undefined) {
        this.held.hold(start.since, start.state);
      } else if (start.since !== 0) {
        throw new TypeError("since needs the state held at that seq (state), except since 0: a replay from the deal");
      }
    }
    this.link = new Link(client.url, client.options, {
      message: (m) => this.handleMessage(m),
      text: (line) => this.textLines.push(line),
      prepare: (link) => this.prepare(link),
      fatal: (error) => this.close("error", error),
      status: (s, detail) => this.linkStatus(s, detail),
      authRefused: (error) => {
        this.log("warn", `sign-in refused: ${error.message}`);
        this.emitter.emit("error", error);
      },
      label: () => this.game ?? `new ${this.start.kind ?? "game"}`,
    });
    this.link.start();
  }

  /** @type {number | null} the seq of `state`; null before the first state */
  get seq() {
    return this.held.seq;
  }

  /** @type {number | null} the newest seq the server has shown (a diff past a gap, not applied yet, included) */
  get shownSeq() {
    return this.held.shownSeq;
  }

  /** @type {any} the current state: a new object at each change, never changed in place */
  get state() {
    return this.held.state;
  }

  /** @param {"debug" | "info" | "warn"} level @param {string} message */
  log(level, message) {
    this.client.options.log(level, `${this.game ?? `new ${this.start.kind ?? "game"}`}: ${message}`);
  }

  /** @param {"connecting" | "syncing" | "ready" | "reconnecting"} s @param {any} detail */
  linkStatus(s, detail) {
    /** @type {Status} */
    const status = s === "syncing" ? "joining" : s;
    this.status = status;
    if (s === "reconnecting") this.resyncing = false;
    this.emitter.emit("status", status, detail);
  }

  /**
   * What a (re)join sends: a player's `join` (with `since` and its seat), a spectator's `watch`
   * (with `since`), or, for a handle made by `create` that has not heard `created` yet, `create`.
   * @returns {Message}
   */
  joinBody() {
    const s = this.start;
    /** @type {Message} */
    let body;
    if (s.mode === "create" && this.game === undefined) return { type: "create", kind: s.kind, options: s.options ?? {} };
    if (this.role === "player") {
      body = { type: "join", game: this.game };
      if (this.token) body.token = this.token;
      // Our seat or player id; a creator whose `joined` was lost with the connection is p1.
      const seat = this.you ?? (s.mode === "create" ? "p1" : undefined);
      if (seat) body.seat = seat;
    } else {
      body = { type: "watch", game: this.game };
      if (this.key) body.key = this.key;
    }
    if (!this.fresh) {
      if (this.seq !== null) body.since = this.seq;
      else if (s.mode === "watch" && s.since === 0) body.replay = true;
      else if (s.mode === "watch" && s.replay) body.replay = true;
    }
    return body;
  }

  /**
   * Runs on every (re)connection, after signing in.
   * @param {Link} link
   */
  async prepare(link) {
    if (this.closed) throw new BoardcastError("closed", "closed");
    this.textLines = [];
    const body = this.joinBody();
    try {
      await link.exchange(body);
    } catch (e) {
      throw this.joinFailure(/** @type {BoardcastError} */ (e), body);
    }
    this.afterJoin();
  }

  afterJoin() {
    this.fresh = false;
    if (!this.joinedOnce) {
      this.joinedOnce = true;
      this.resolveReady(this);
    }
  }

  /**
   * Whether a failed join is tried again later (RetryLater) or ends the handle.
   * @param {BoardcastError} error
   * @param {Message} body
   * @returns {BoardcastError}
   */
  joinFailure(error, body) {
    if (error.code === "disconnected" || error.code === "closed") return error;
    if (RETRY_CODES.has(error.code)) return new RetryLater(error.code, `${body.type} refused ${error.code} (${error.message})`, error.reply);
    if ((this.joinedOnce || this.start.mode === "create") && body.type === "join" && error.code === "forbidden") {
      // Most likely our own dropped connection still holds the seat: the server frees it when it
      // sees the drop (at once for a closed socket, within two ping intervals for a silent one).
      const since = this.link.lostAt ?? this.client.options.clock.now();
      if (this.client.options.clock.now() - since < this.client.options.rejoinTimeout) {
        return new RetryLater(error.code, `join refused: ${error.message}`, error.reply);
      }
    }
    this.log("warn", `${body.type} refused: ${error.code}: ${error.message}`);
    return error;
  }

  /**
   * Asks again on the open connection, from the state held (a gap), or for a snapshot (a diff
   * that did not apply).
   */
  resync() {
    if (this.resyncing || this.closed || this.link.status !== "ready") return;
    this.resyncing = true;
    const body = this.joinBody();
    this.log("info", `resync: ${body.type} since ${body.since ?? "(snapshot)"}`);
    const ws = this.link.ws;
    this.link.exchange(body).then(
      () => {
        this.resyncing = false;
        this.afterJoin();
      },
      (/** @type {BoardcastError} */ e) => {
        this.resyncing = false;
        if (this.closed || this.link.ws !== ws) return; // the reconnection joins again
        const failure = this.joinFailure(e, body);
        if (failure instanceof RetryLater) this.link.drop(ws, failure.message);
        else this.close("error", failure);
      },
    );
  }

  /** @param {Message} m */
  handleMessage(m) {
    if (this.closed) return;
    if (m.type === "created") {
      this.game = m.game;
      this.token = m.token;
      if (typeof m.key === "string") this.key = m.key;
      this.emitter.emit("created", m);
      return;
    }
    if (m.type === "error") {
      if (m.id === undefined) this.emitter.emit("error", BoardcastError.fromReply(m));
      return;
    }
    if (m.type === "ack") return;
    if (m.game !== undefined && m.game !== this.game) {
      if (m.type === "hint") this.lastHint = m;
      return;
    }
    switch (m.type) {
      case "joined":
        this.kind = m.kind;
        this.role = m.role;
        if (m.you !== undefined) this.you = m.you;
        this.delay = typeof m.delay === "number" ? m.delay : 0;
        this.bots = m.bots && typeof m.bots === "object" ? m.bots : {};
        this.clock = m.clock && typeof m.clock === "object" ? m.clock : null;
        if (m.names && typeof m.names === "object") this.names = m.names;
        this.watchMode = typeof m.watch === "string" ? m.watch : "anyone";
        if (typeof m.key === "string" && m.key) this.key = m.key;
        if (typeof m.now === "string") {
          const t = Date.parse(m.now);
          if (Number.isFinite(t)) this.serverOffset = t - Date.now();
        }
        this.emitter.emit("joined", m);
        break;
      case "snapshot":
        this.kind = m.kind ?? this.kind;
        this.publish(this.held.snapshot(m));
        break;
      case "diff":
        this.applyDiff(m);
        break;
      case "event":
        this.emitter.emit("event", m);
        break;
      case "presence":
        this.players = m.players ?? this.players;
        this.spectators = m.spectators ?? this.spectators;
        if (m.names && typeof m.names === "object") this.names = m.names;
        this.emitter.emit("presence", m);
        break;
      case "chat":
        // A join's reply carries the last lines again: drop those already had (`n`, PROTOCOL 15).
        if (typeof m.n === "number") {
          if (m.n <= this.chatN) break;
          this.chatN = m.n;
        }
        this.emitter.emit("chat", m);
        break;
      case "hint":
        this.lastHint = m;
        break;
      case "left":
        if (!this.leaving) this.close("replaced", new BoardcastError("left", "another connection of the same user took this place in the game", m));
        break;
      default:
        this.emitter.emit("message", m);
    }
  }

  /** @param {Message} m */
  applyDiff(m) {
    const result = this.held.diff(m);
    switch (result.outcome) {
      case "applied":
        this.publish(result.change);
        return;
      case "gap":
        this.log("info", `gap: diff ${m.seq} after ${this.seq}`);
        this.resync();
        return;
      case "broken":
        this.log("warn", `diff ${m.seq} did not apply (${result.error.message}); asking for a snapshot`);
        this.fresh = true;
        this.resync();
        return;
      default:
        // wait: no state yet, the snapshot on its way covers it; stale: a re-join's overlap
        return;
    }
  }

  /** @param {StateChange} change */
  publish(change) {
    for (const feed of this.feeds) feed.push(change);
    this.emitter.emit("state", change.state, change);
  }

  /**
   * Listens: `state` (state, change), `event`, `chat`, `presence` (the messages), `closed`
   * ({reason, error}), `status` (status, detail), `joined`, `created`, `error` (an error the
   * server sent without an id, or a refused sign-in).
   * @param {"state" | "event" | "chat" | "presence" | "closed" | "status" | "joined" | "created" | "error" | "message"} name
   * @param {(...args: any[]) => void} fn
   * @returns {() => void} unsubscribe
   */
  on(name, fn) {
    return this.emitter.on(name, fn);
  }

  /**
   * Every change from now on, starting with the current state (if any), until the handle closes.
   * @returns {AsyncIterableIterator<StateChange>}
   */
  changes() {
    /** @type {Feed<StateChange>} */
    const feed = new Feed();
    if (this.seq !== null) feed.push({ seq: this.seq, state: this.state, prev: undefined, via: "snapshot", cause: null, ops: null });
    if (this.closed) feed.end();
    else {
      this.feeds.add(feed);
      feed.onReturn = () => this.feeds.delete(feed);
    }
    return feed.iterator();
  }

  /**
   * Every state from now on, starting with the current one (if any), until the handle closes:
   * `for await (const state of handle.states())`.
   * @returns {AsyncIterableIterator<any>}
   */
  states() {
    const changes = this.changes();
    return {
      next: async () => {
        const r = await changes.next();
        return r.done ? r : { value: r.value.state, done: false };
      },
      return: async () => {
        await changes.return?.();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  /**
   * Waits for a state for which `predicate` holds (checked on the current one first).
   * @param {(state: any, handle: GameHandle) => boolean} predicate
   * @returns {Promise<any>}
   */
  until(predicate) {
    return new Promise((resolve, reject) => {
      if (this.seq !== null && predicate(this.state, this)) return resolve(this.state);
      if (this.closed) return reject(new BoardcastError("closed", "the handle is closed"));
      const offs = [
        this.on("state", (/** @type {any} */ state) => {
          if (!predicate(state, this)) return;
          offs.forEach((off) => off());
          resolve(state);
        }),
        this.on("closed", () => {
          offs.forEach((off) => off());
          reject(new BoardcastError("closed", "the handle is closed"));
        }),
      ];
    });
  }

  /** Whether the state's `status` says the game has ended (won, drawn, a race finished). */
  get ended() {
    return !!this.state && typeof this.state === "object" && ENDED.has(this.state.status);
  }

  /** The server's time now, ms since the epoch (turn clocks, PROTOCOL section 17). */
  serverNow() {
    return Date.now() + this.serverOffset;
  }

  /**
   * A game command (PROTOCOL sections 5, 6, 13, 16): resolves with its id and the seq of the diff
   * it caused once acknowledged, rejects with a BoardcastError carrying the server's `code`. If
   * the connection drops before the answer, it is sent again with the same id after the re-join,
   * and applied at most once. A command chosen from a state older than the newest the handle was
   * shown is refused with code `stale` (see `basedOn`).
   * @param {Message} command e.g. `{type: "tap", target: "/columns/3"}`; a `basedOn` key is read as the option
   * @param {CommandOptions} [options]
   * @returns {Promise<CommandResult>}
   */
  command(command, options = {}) {
    if (this.closed) return Promise.reject(new BoardcastError("closed", "the handle is closed"));
    const { basedOn: inBody, id: bodyId, ...body } = command;
    if (typeof body.type !== "string") return Promise.reject(new TypeError("a command needs a type"));
    const basedOn = options.basedOn ?? inBody ?? this.seq;
    const stale = () => this.held.staleness(basedOn);
    const refused = stale();
    if (refused) return Promise.reject(refused);
    const id = options.id ?? (typeof bodyId === "string" || typeof bodyId === "number" ? String(bodyId) : undefined);
    return this.link.request(body, "resend", { id, check: stale }).then((ack) => ({ id: String(ack.id), seq: ack.seq }));
  }

  /** @param {string | {x: number, y: number}} target a pointer (`/columns/3`, `/stock`) or a plane point @param {CommandOptions} [o] */
  tap(target, o) {
    return this.command(typeof target === "string" ? { type: "tap", target } : { type: "tap", ...target }, o);
  }

  /** @param {string | {x: number, y: number}} target @param {CommandOptions} [o] */
  doubleTap(target, o) {
    return this.command(typeof target === "string" ? { type: "double-tap", target } : { type: "double-tap", ...target }, o);
  }

  /** @param {string | {x: number, y: number}} from @param {string | {x: number, y: number}} to @param {CommandOptions} [o] */
  drag(from, to, o) {
    return this.command({ type: "drag", from, to }, o);
  }

  /** @param {Message} [options] the reset's options (PROTOCOL sections 5, 18) @param {CommandOptions} [o] */
  reset(options, o) {
    return this.command(options ? { type: "reset", options } : { type: "reset" }, o);
  }

  /** @param {CommandOptions} [o] */
  undo(o) {
    return this.command({ type: "undo" }, o);
  }

  /** @param {CommandOptions} [o] */
  resign(o) {
    return this.command({ type: "resign" }, o);
  }

  /**
   * Chat (PROTOCOL section 15). Not sent twice: a line whose answer was lost with the connection
   * is refused `disconnected` (the server would post it again); one said while disconnected is
   * sent after the re-join.
   * @param {string} text
   * @param {{to?: "players" | "spectators"}} [options]
   * @returns {Promise<{seq: number | undefined}>}
   */
  say(text, options = {}) {
    if (this.closed) return Promise.reject(new BoardcastError("closed", "the handle is closed"));
    /** @type {Message} */
    const body = { type: "say", text };
    if (options.to) body.to = options.to;
    return this.link.request(body, "once").then((ack) => ({ seq: ack.seq }));
  }

  /** @param {string} who a spectator's name (`s3`) */
  mute(who) {
    if (this.closed) return Promise.reject(new BoardcastError("closed", "the handle is closed"));
    return this.link.request({ type: "mute", who }, "resend").then(() => undefined);
  }

  /** @returns {Promise<Message>} the `hint` message (`from`, `to`, maybe `winnable`) */
  hint() {
    if (this.closed) return Promise.reject(new BoardcastError("closed", "the handle is closed"));
    this.lastHint = null;
    return this.link.request({ type: "hint" }, "resend").then(() => /** @type {Message} */ (this.lastHint));
  }

  /** @returns {Promise<string[]>} the lines of `show` (the board as plain text) */
  show() {
    if (this.closed) return Promise.reject(new BoardcastError("closed", "the handle is closed"));
    this.textLines = [];
    return this.link.request({ type: "show" }, "resend").then(() => {
      const lines = this.textLines;
      this.textLines = [];
      return lines;
    });
  }

  /**
   * Leaves the game (a `leave`, when connected) and closes the handle: its connection closes,
   * unanswered commands are refused `closed`.
   * @returns {Promise<void>}
   */
  async leave() {
    if (this.closed) return;
    this.leaving = true;
    if (this.link.status === "ready") {
      const timeout = new Promise((resolve) => {
        const t = this.client.options.clock.setTimeout(() => resolve(undefined), 2000);
        void this.link.exchange({ type: "leave" }).then(
          () => { this.client.options.clock.clearTimeout(t); resolve(undefined); },
          () => { this.client.options.clock.clearTimeout(t); resolve(undefined); },
        );
      });
      await timeout;
    }
    this.close("left");
  }

  /**
   * @param {"left" | "closed" | "replaced" | "error"} reason
   * @param {BoardcastError} [error]
   */
  close(reason, error) {
    if (this.closed) return;
    this.closed = true;
    this.status = "closed";
    this.link.close(error && reason === "error" ? error : new BoardcastError("closed", `the handle is closed (${reason})`));
    this.client.handles.delete(this);
    this.rejectReady(error ?? new BoardcastError("closed", `the handle is closed (${reason})`));
    for (const feed of this.feeds) feed.end();
    this.feeds.clear();
    this.emitter.emit("status", "closed");
    this.emitter.emit("closed", { reason, error });
  }
}

// ---------------------------------------------------------------------------------------------
// The lobby

/** A followed lobby (`list` with `follow`, PROTOCOL section 3): `games` is the latest list. */
export class LobbyFeed {
  /** @param {BoardcastClient} client */
  constructor(client) {
    this.client = client;
    /** @type {Message[]} */
    this.games = [];
    this.closed = false;
    this.emitter = new Emitter();
    /** @type {Set<Feed<Message[]>>} */
    this.feeds = new Set();
  }

  /** @param {Message[]} games */
  update(games) {
    this.games = games;
    for (const feed of this.feeds) feed.push(games);
    this.emitter.emit("lobby", games);
  }

  /**
   * @param {"lobby" | "closed"} name
   * @param {(...args: any[]) => void} fn
   * @returns {() => void}
   */
  on(name, fn) {
    return this.emitter.on(name, fn);
  }

  /** Each list from now on, starting with the current one. @returns {AsyncIterableIterator<Message[]>} */
  [Symbol.asyncIterator]() {
    /** @type {Feed<Message[]>} */
    const feed = new Feed();
    feed.push(this.games);
    if (this.closed) feed.end();
    else {
      this.feeds.add(feed);
      feed.onReturn = () => this.feeds.delete(feed);
    }
    return feed.iterator();
  }

  /** Stops following. */
  close() {
    if (this.closed) return;
    this.closed = true;
    for (const feed of this.feeds) feed.end();
    this.feeds.clear();
    this.client.unfollow(this);
    this.emitter.emit("closed", {});
  }
}

// ---------------------------------------------------------------------------------------------
// BoardcastClient

/** A client of one Boardcast server. */
export class BoardcastClient {
  /**
   * @param {string} url the server's WebSocket address, `ws://HOST:PORT/ws` (`http(s)://` is read as `ws(s)://`)
   * @param {ClientOptions} [options]
   */
  constructor(url, options = {}) {
    this.url = webSocketURL(url, options);
    this.options = withDefaults(options);
    /** @type {Set<GameHandle>} */
    this.handles = new Set();
    /** @type {Link | null} the connection of the lobby */
    this.lobbyLink = null;
    /** @type {Set<LobbyFeed>} */
    this.lobbies = new Set();
    /** @type {Message | null} */
    this.lastLobby = null;
    this.closed = false;
  }

  /** @param {HandleStart} start */
  open(start) {
    if (this.closed) return Promise.reject(new BoardcastError("closed", "the client is closed"));
    let handle;
    try {
      handle = new GameHandle(this, start);
    } catch (e) {
      return Promise.reject(e);
    }
    this.handles.add(handle);
    return handle.ready;
  }

  /**
   * Creates a game and joins it as its first player. If the connection drops before `created`
   * arrives, `create` is sent again on the next connection (the first may have left an empty
   * game behind); after it, the handle joins the game it was given.
   * @param {string} kind `klondike`, `plane`, `race`, `four`, ...
   * @param {Message} [options] the kind's options (PROTOCOL sections 5, 6, 13, 15 to 19)
   * @param {{on?: HandleListeners}} [extra] on: listeners from the start
   * @returns {Promise<GameHandle>}
   */
  create(kind, options = {}, extra = {}) {
    return this.open({ mode: "create", kind, options, on: extra.on });
  }

  /**
   * Joins a game as a player.
   * @param {string} game
   * @param {string | null | undefined} token the game token (none: a signed-in user taking their place back)
   * @param {{seat?: string, since?: number, state?: any, on?: HandleListeners}} [options] seat: the seat or
   *   player id to ask for; since and state: a state the app holds, to catch up from; on: listeners from the start
   * @returns {Promise<GameHandle>}
   */
  join(game, token, options = {}) {
    return this.open({ mode: "join", game, token, seat: options.seat, since: options.since, state: options.state, on: options.on });
  }

  /**
   * Watches a game as a spectator.
   * @param {string} game
   * @param {{key?: string, since?: number, state?: any, replay?: boolean, on?: HandleListeners}} [options]
   *   key: the watch key of a game watched by link; since and state: a state the app holds, to
   *   catch up from; `since: 0` without a state, or `replay: true`: the game from its deal, every
   *   state in order (give `on.state` to see each); on: listeners from the start
   * @returns {Promise<GameHandle>}
   */
  watch(game, options = {}) {
    return this.open({ mode: "watch", game, key: options.key, since: options.since, state: options.state, replay: options.replay, on: options.on });
  }

  /** The connection of the lobby, opened on first use. @returns {Link} */
  lobby() {
    if (this.lobbyLink) return this.lobbyLink;
    const link = new Link(this.url, this.options, {
      message: (m) => {
        if (m.type !== "lobby" || !Array.isArray(m.games)) return;
        this.lastLobby = m;
        for (const feed of this.lobbies) feed.update(m.games);
      },
      text: () => {},
      prepare: async (l) => {
        if (this.lobbies.size) await l.exchange({ type: "list", follow: true });
      },
      fatal: (error) => this.options.log("warn", `lobby: ${error.message}`),
      status: () => {},
      authRefused: (error) => this.options.log("warn", `lobby: sign-in refused: ${error.message}`),
      label: () => "lobby",
    });
    this.lobbyLink = link;
    link.start();
    return link;
  }

  /**
   * The lobby (PROTOCOL sections 3, 10): with `follow`, a LobbyFeed kept up to date (also
   * across reconnections) until its `close()`; else the list of live games once.
   * @overload
   * @param {{follow: true}} options
   * @returns {Promise<LobbyFeed>}
   */
  /**
   * @overload
   * @param {{follow?: false}} [options]
   * @returns {Promise<Message[]>}
   */
  /**
   * @param {{follow?: boolean}} [options]
   * @returns {Promise<LobbyFeed | Message[]>}
   */
  async list(options = {}) {
    if (this.closed) throw new BoardcastError("closed", "the client is closed");
    const link = this.lobby();
    if (!options.follow) {
      await link.request({ type: "list" }, "resend");
      return this.lastLobby?.games ?? [];
    }
    const feed = new LobbyFeed(this);
    this.lobbies.add(feed);
    try {
      await link.request({ type: "list", follow: true }, "resend");
    } catch (e) {
      this.lobbies.delete(feed);
      throw e;
    }
    if (this.lastLobby) feed.games = this.lastLobby.games;
    return feed;
  }

  /** @param {LobbyFeed} feed */
  unfollow(feed) {
    this.lobbies.delete(feed);
    if (!this.lobbies.size && this.lobbyLink && !this.closed) this.lobbyLink.request({ type: "list", follow: false }, "once").catch(() => {});
  }

  /** Closes every handle and the lobby: nothing reconnects after this. */
  close() {
    if (this.closed) return;
    this.closed = true;
    for (const handle of [...this.handles]) handle.close("closed");
    for (const feed of [...this.lobbies]) {
      feed.closed = true;
      for (const f of feed.feeds) f.end();
      feed.emitter.emit("closed", {});
    }
    this.lobbies.clear();
    this.lobbyLink?.close();
    this.lobbyLink = null;
  }
}

export default BoardcastClient;
