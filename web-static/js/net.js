// @ts-check
/**
 * One WebSocket to the server, kept open: reconnects with the client module's jittered
 * backoff (PROTOCOL section 21: the first try within 1 s, then at most 5 s apart), gives
 * every sent message a random `id` and settles its promise with the matching `ack` or `error`.
 */

/** @typedef {{[key: string]: any}} Message */
/** @typedef {"connecting" | "open" | "reconnecting"} ConnectionStatus */

import { randomId, backoffDelay, BoardcastError } from "./boardcast.js";

export { randomId, backoffDelay };

/** The error a message's promise rejects with when the server answers `error`: the client
 * module's, so that a page and any other client of the module catch the same thing. */
export class ServerError extends BoardcastError {
  /** @param {Message} reply */
  constructor(reply) {
    super(String(reply.code || "error"), reply.message || reply.code || "error", reply);
    this.reply = reply;
  }
}

export class Connection {
  /** @param {string} url */
  constructor(url) {
    this.url = url;
    /** @type {WebSocket | null} */
    this.socket = null;
    /** @type {ConnectionStatus} */
    this.status = "connecting";
    this.attempt = 0;
    /** @type {number} when the next attempt starts, for the status line */
    this.retryAt = 0;
    /** @type {Map<string, {message: Message, resolve: (m: Message) => void, reject: (e: Error) => void, resend: boolean}>} */
    this.pending = new Map();
    /** @type {Set<(m: Message) => void>} */
    this.messageListeners = new Set();
    /** @type {Set<(s: ConnectionStatus) => void>} */
    this.statusListeners = new Set();
    /** @type {Set<() => void>} called on every (re)open, before queued messages go out */
    this.openListeners = new Set();
    /** @type {Set<() => void>} called on every (re)open before the others: what must go first (signing in) */
    this.firstOpenListeners = new Set();
    /** @type {Message[]} */
    this.outbox = [];
    /** @type {number | undefined} */
    this.timer = undefined;
    this.connect();
  }

  connect() {
    clearTimeout(this.timer);
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch (e) {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.addEventListener("open", () => {
      if (this.socket !== socket) return;
      this.attempt = 0;
      this.setStatus("open");
      for (const listener of this.firstOpenListeners) listener();
      for (const listener of this.openListeners) listener();
      // Messages sent while disconnected, then un-acked game commands again with
      // their original ids: the server applies an id at most once.
      const queued = this.outbox.splice(0);
      for (const [, p] of this.pending) if (p.resend && !queued.includes(p.message)) queued.push(p.message);
      for (const m of queued) this.socket.send(JSON.stringify(m));
    });
    socket.addEventListener("message", (event) => {
      if (this.socket !== socket || typeof event.data !== "string") return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return; // plain-text frames (the answer to `show`) are for terminals
      }
      if (message === null || typeof message !== "object") return;
      this.dispatch(message);
    });
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      this.socket = null;
      // Requests that cannot be replayed safely fail now; game commands wait.
      for (const [id, p] of this.pending) {
        if (!p.resend) {
          this.pending.delete(id);
          const queued = this.outbox.indexOf(p.message);
          if (queued >= 0) this.outbox.splice(queued, 1);
          p.reject(new ServerError({ code: "disconnected", message: "connection lost" }));
        }
      }
      this.scheduleReconnect();
    });
  }

  scheduleReconnect() {
    const delay = backoffDelay(this.attempt++);
    this.retryAt = Date.now() + delay;
    this.setStatus("reconnecting");
    this.timer = window.setTimeout(() => this.connect(), delay);
  }

  /** Skip the wait and try now (the "retry" link, or the page becoming visible). */
  retryNow() {
    if (this.status === "reconnecting" && !this.socket) this.connect();
  }

  /** @param {ConnectionStatus} status */
  setStatus(status) {
    this.status = status;
    for (const listener of this.statusListeners) listener(status);
  }

  /** @param {Message} message */
  dispatch(message) {
    const id = message.id;
    if ((message.type === "ack" || message.type === "error") && id !== undefined && this.pending.has(String(id))) {
      const p = /** @type {any} */ (this.pending.get(String(id)));
      this.pending.delete(String(id));
      // Listeners see the reply first, so state from the same reply is in place.
      for (const listener of this.messageListeners) listener(message);
      if (message.type === "ack") p.resolve(message);
      else p.reject(new ServerError(message));
      return;
    }
    for (const listener of this.messageListeners) listener(message);
  }

  /**
   * Sends a message with a fresh id; resolves with its `ack`, rejects with a ServerError.
   * @param {Message} body
   * @param {{resend?: boolean}} [options] resend: replay after a reconnect (game commands)
   * @returns {Promise<Message>}
   */
  request(body, options = {}) {
    const message = { ...body, id: randomId() };
    return new Promise((resolve, reject) => {
      this.pending.set(message.id, { message, resolve, reject, resend: !!options.resend });
      this.sendRaw(message);
    });
  }

  /**
   * Sends without waiting for an answer (still with an id, so the ack is recognised).
   * @param {Message} body
   */
  send(body) {
    this.request(body).catch(() => {});
  }

  /** @param {Message} message */
  sendRaw(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
    else if (!this.pending.get(message.id)?.resend) this.outbox.push(message);
  }

  /** Forgets the game commands still waiting for an answer (their game was left). */
  dropGameCommands() {
    for (const [id, p] of this.pending) {
      if (p.resend) {
        this.pending.delete(id);
        p.reject(new ServerError({ code: "cancelled", message: "left the game" }));
      }
    }
  }

  /** @param {(m: Message) => void} listener @returns {() => void} unsubscribe */
  onMessage(listener) {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  /** @param {(s: ConnectionStatus) => void} listener @returns {() => void} */
  onStatus(listener) {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /**
   * @param {() => void} listener
   * @param {boolean} [first] before every other listener and queued message (what a connection must send first)
   * @returns {() => void}
   */
  onOpen(listener, first = false) {
    const set = first ? this.firstOpenListeners : this.openListeners;
    set.add(listener);
    return () => set.delete(listener);
  }
}

/** The WebSocket URL of the server that served this page. */
export function serverURL() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}
