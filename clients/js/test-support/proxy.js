// @ts-check
/**
 * A TCP proxy between clients and the server that can cut connections abruptly (a TCP reset
 * both ways), and looks at each WebSocket message a client sends, so a test can cut a
 * connection exactly while a command is in flight: before the server got it, or after the
 * server answered it but before the client heard the answer.
 */
import net from "node:net";

/**
 * What to do with a client's message:
 * - "forward": pass it on;
 * - "cut-before": cut the connection instead (the server never gets it);
 * - "cut-on-reply": pass it on, then cut the connection as soon as the server answers it
 *   (its `ack` or `error`), the answer not passed on;
 * - "orphan-on-reply": the same, but only the client's side is cut: the server's side stays
 *   open and silent (a half-open connection), so the server goes on holding the client's seat
 *   until its pings find the connection dead.
 * @typedef {"forward" | "cut-before" | "cut-on-reply" | "orphan-on-reply"} Action
 */

/**
 * @typedef {object} Pair
 * @property {net.Socket} client
 * @property {net.Socket} up
 * @property {boolean} cut
 * @property {string | null} cutOnReplyTo the id whose answer cuts
 * @property {boolean} orphanOnReply cut the client's side only
 * @property {boolean} orphaned the client's side is gone, the server's kept open and silent
 */

export class CuttingProxy {
  constructor() {
    /** @type {number | null} */
    this.upstreamPort = null;
    /** @type {Set<Pair>} */
    this.pairs = new Set();
    /** @type {(message: any, text: string, pair: Pair) => Action} */
    this.onClientMessage = () => "forward";
    this.connections = 0;
    this.cuts = 0;
    /** connections refused while there was no upstream */
    this.refused = 0;
    /** @type {Set<() => void>} */
    this.refusalWaiters = new Set();
    this.server = net.createServer((client) => this.accept(client));
    this.port = 0;
  }

  /** @returns {Promise<number>} the proxy's port */
  async listen() {
    await new Promise((resolve) => this.server.listen(0, "127.0.0.1", () => resolve(undefined)));
    this.port = /** @type {net.AddressInfo} */ (this.server.address()).port;
    return this.port;
  }

  get url() {
    return `ws://127.0.0.1:${this.port}/ws`;
  }

  /** @param {number | null} port where new connections go (null: refuse them) */
  setUpstream(port) {
    this.upstreamPort = port;
  }

  /**
   * Waits until `count` more connections were refused (the server being down), or `timeoutMs`.
   * @param {number} count @param {number} timeoutMs
   * @returns {Promise<boolean>} whether they came
   */
  waitForRefusals(count, timeoutMs) {
    const target = this.refused + count;
    return new Promise((resolve) => {
      const check = () => {
        if (this.refused < target) return;
        this.refusalWaiters.delete(check);
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.refusalWaiters.delete(check);
        resolve(false);
      }, timeoutMs);
      this.refusalWaiters.add(check);
    });
  }

  /**
   * Cuts the client's side only: the server's side stays open, and whatever the server sends is
   * dropped (its pings go unanswered), as when a client's network vanishes without a word.
   * @param {Pair} pair
   */
  orphan(pair) {
    if (pair.cut || pair.orphaned) return;
    pair.orphaned = true;
    this.cuts++;
    try {
      pair.client.resetAndDestroy();
    } catch {
      pair.client.destroy();
    }
  }

  /** Every connection's client side now (see orphan). */
  orphanAll() {
    for (const pair of [...this.pairs]) this.orphan(pair);
  }

  /** Cuts every connection now. */
  cutAll() {
    for (const pair of [...this.pairs]) this.cut(pair);
  }

  /** @param {Pair} pair @param {boolean} [counted] a cut of the test's (not a close passed on) */
  cut(pair, counted = true) {
    if (pair.cut) return;
    pair.cut = true;
    if (counted) this.cuts++;
    this.pairs.delete(pair);
    for (const s of [pair.client, pair.up]) {
      try {
        if (typeof s.resetAndDestroy === "function" && s.readyState !== "opening") s.resetAndDestroy();
        else s.destroy();
      } catch {
        s.destroy();
      }
    }
  }

  /** @param {net.Socket} client */
  accept(client) {
    this.connections++;
    client.on("error", () => {});
    if (this.upstreamPort === null) {
      this.refused++;
      this.refusalWaiters.forEach((w) => w());
      if (typeof client.resetAndDestroy === "function") client.resetAndDestroy();
      else client.destroy();
      return;
    }
    const up = net.connect(this.upstreamPort, "127.0.0.1");
    /** @type {Pair} */
    const pair = { client, up, cut: false, cutOnReplyTo: null, orphanOnReply: false, orphaned: false };
    this.pairs.add(pair);
    up.on("error", () => this.cut(pair, false));
    client.on("close", () => { if (!pair.orphaned) this.cut(pair, false); });
    up.on("close", () => this.cut(pair, false));
    let head = Buffer.alloc(0);
    let upgraded = false;
    let frames = Buffer.alloc(0);
    client.on("data", (chunk) => {
      if (pair.cut || pair.orphaned) return;
      if (!upgraded) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) return;
        upgraded = true;
        up.write(head.subarray(0, end + 4));
        frames = head.subarray(end + 4);
      } else {
        frames = Buffer.concat([frames, chunk]);
      }
      // Whole client frames only: each decided on, then passed on as it came.
      for (;;) {
        const frame = parseFrame(frames);
        if (!frame) break;
        frames = frames.subarray(frame.length);
        const raw = frame.raw;
        if (frame.opcode === 1) {
          let message = null;
          try {
            message = JSON.parse(frame.text);
          } catch {
            // a command line, not JSON
          }
          const action = this.onClientMessage(message, frame.text, pair);
          if (action === "cut-before") {
            this.cut(pair);
            return;
          }
          if (action === "cut-on-reply" || action === "orphan-on-reply") {
            pair.cutOnReplyTo = message && message.id !== undefined ? String(message.id) : "";
            pair.orphanOnReply = action === "orphan-on-reply";
          }
        }
        up.write(raw);
      }
    });
    let replyText = "";
    up.on("data", (chunk) => {
      if (pair.cut || pair.orphaned) return;
      if (pair.cutOnReplyTo !== null) {
        // Server frames are not masked: the answer's id can be read off the bytes.
        replyText = (replyText + chunk.toString("latin1")).slice(-4096);
        const id = JSON.stringify(pair.cutOnReplyTo);
        if (replyText.includes(`"id":${id}`)) {
          if (pair.orphanOnReply) this.orphan(pair);
          else this.cut(pair);
          return;
        }
      }
      client.write(chunk);
    });
  }

  async close() {
    this.cutAll();
    await new Promise((resolve) => this.server.close(() => resolve(undefined)));
  }
}

/**
 * One whole (masked) client frame at the start of `buffer`, or null if it is not all there.
 * @param {Buffer} buffer
 * @returns {{length: number, opcode: number, text: string, raw: Buffer} | null}
 */
export function parseFrame(buffer) {
  if (buffer.length < 2) return null;
  const opcode = buffer[0] & 0x0f;
  const masked = (buffer[1] & 0x80) !== 0;
  let length = buffer[1] & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return null;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return null;
    length = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  const maskOffset = offset;
  if (masked) offset += 4;
  if (buffer.length < offset + length) return null;
  const payload = Buffer.from(buffer.subarray(offset, offset + length));
  if (masked) for (let i = 0; i < payload.length; i++) payload[i] ^= buffer[maskOffset + (i % 4)];
  return { length: offset + length, opcode, text: payload.toString("utf8"), raw: Buffer.from(buffer.subarray(0, offset + length)) };
}
