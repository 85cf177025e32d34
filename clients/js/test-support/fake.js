// @ts-check
/**
 * A fake WebSocket and a fake clock, to drive the library's state machine by hand: the test
 * plays the server (opens sockets, sends messages, drops them) and moves time.
 */

/** Lets every pending promise continuation and immediate run. */
export async function settle(rounds = 5) {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Sockets made by the library, in order; `WebSocket` is the constructor to inject.
 */
export function fakeSockets() {
  /** @type {FakeWebSocket[]} */
  const sockets = [];

  class FakeWebSocket {
    /** @param {string} url */
    constructor(url) {
      this.url = url;
      this.readyState = 0;
      /** @type {any[]} messages the library sent (parsed JSON) */
      this.sent = [];
      /** @type {{[type: string]: Function[]}} */
      this.listeners = {};
      this.closedByClient = false;
      sockets.push(this);
    }

    /** @param {string} type @param {Function} fn */
    addEventListener(type, fn) {
      (this.listeners[type] ??= []).push(fn);
    }

    /** @param {string} type @param {any} event */
    fire(type, event) {
      for (const fn of this.listeners[type] ?? []) fn(event);
    }

    /** @param {string} data */
    send(data) {
      if (this.readyState !== 1) throw new Error("InvalidStateError: not open");
      this.sent.push(JSON.parse(data));
    }

    close() {
      if (this.readyState >= 2) return;
      this.closedByClient = true;
      this.readyState = 3;
      queueMicrotask(() => this.fire("close", { code: 1005 }));
    }

    // The server's side.

    open() {
      this.readyState = 1;
      this.fire("open", {});
    }

    /** @param {any} message an object (sent as JSON) or a string (a plain-text frame) */
    receive(message) {
      this.fire("message", { data: typeof message === "string" ? message : JSON.stringify(message) });
    }

    /** The connection drops (no close frame). */
    drop() {
      if (this.readyState === 3) return;
      this.readyState = 3;
      this.fire("error", {});
      this.fire("close", { code: 1006 });
    }

    /** @param {string} type @returns {any[]} */
    sentOf(type) {
      return this.sent.filter((m) => m.type === type);
    }

    /** @param {string} type the last message of this type sent */
    last(type) {
      const all = this.sentOf(type);
      return all[all.length - 1];
    }
  }

  return {
    WebSocket: FakeWebSocket,
    sockets,
    /** @returns {FakeWebSocket} */
    get current() {
      return sockets[sockets.length - 1];
    },
  };
}

/** Timers that run only when the test moves time. */
export class FakeClock {
  constructor() {
    this.time = 0;
    this.nextId = 1;
    /** @type {Map<number, {at: number, fn: () => void, ms: number}>} */
    this.timers = new Map();
    /** @type {number[]} every delay asked for, in order */
    this.asked = [];
    this.setTimeout = (/** @type {() => void} */ fn, /** @type {number} */ ms) => {
      const id = this.nextId++;
      this.asked.push(ms);
      this.timers.set(id, { at: this.time + ms, fn, ms });
      return id;
    };
    this.clearTimeout = (/** @type {any} */ id) => {
      this.timers.delete(id);
    };
    this.now = () => this.time;
  }

  /** The earliest timer, or undefined. */
  earliest() {
    let best;
    for (const [id, t] of this.timers) if (!best || t.at < best[1].at) best = [id, t];
    return best;
  }

  /** Runs timers due within `ms`, in order, settling promises after each. @param {number} ms */
  async advance(ms) {
    const target = this.time + ms;
    for (;;) {
      const e = this.earliest();
      if (!e || e[1].at > target) break;
      this.timers.delete(/** @type {number} */ (e[0]));
      this.time = e[1].at;
      e[1].fn();
      await settle();
    }
    this.time = target;
    await settle();
  }

  /** Runs the earliest timer; returns how far time moved. */
  async next() {
    const e = this.earliest();
    if (!e) throw new Error("no timer");
    const moved = e[1].at - this.time;
    await this.advance(moved);
    return moved;
  }
}
