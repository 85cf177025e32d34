// @ts-check
/**
 * Turn clocks (PROTOCOL section 17), for any game whose state has `clocks`:
 *
 *   "clocks": {"p1": 293500, "p2": 300000, "running": "p2", "since": "2026-11-25T21:40:07.250Z"}
 *
 * Times are milliseconds left as of `since`, the server's instant at which the
 * running seat's clock started. The state only changes by diffs, so between two
 * moves the page counts the running clock down itself:
 *
 *   left = clocks[running] - (serverNow - since)
 *
 * where serverNow is this page's time corrected by the offset learnt from
 * `joined`'s `now` (ServerClock). A ClockView draws one clock per seat (each
 * kind puts them next to its seats' names) and repaints the running one every
 * animation frame while it runs; stopped clocks show their stored value.
 */
import { el, icon } from "./ui.js";

/** Under this many ms a clock shows red. */
export const LOW_MS = 20_000;
/** Under this many ms a clock shows tenths of a second. */
export const TENTHS_MS = 10_000;

/** This page's time in ms since the epoch, monotonic within the page (no jumps when the system clock is set). */
export function clientNow() {
  return performance.timeOrigin + performance.now();
}

/** An RFC 3339 instant in ms since the epoch (NaN when it is not one). @param {any} iso */
export function parseInstant(iso) {
  return typeof iso === "string" ? Date.parse(iso) : NaN;
}

/**
 * The server's time as this page estimates it: the page's own time plus the
 * offset learnt from the last `joined` (`now` minus the page's time when it arrived).
 */
export class ServerClock {
  constructor() {
    /** server time minus page time, in ms */
    this.offset = 0;
    /** whether a `now` has been seen */
    this.synced = false;
  }

  /**
   * Learns the offset from a server instant received at `receivedAt` (page time).
   * @param {any} nowIso `joined`'s `now`
   * @param {number} [receivedAt]
   * @returns {boolean} whether it was an instant
   */
  sync(nowIso, receivedAt = clientNow()) {
    const t = parseInstant(nowIso);
    if (!Number.isFinite(t)) return false;
    this.offset = t - receivedAt;
    this.synced = true;
    return true;
  }

  /** The server's time now, in ms since the epoch. */
  now() {
    return clientNow() + this.offset;
  }
}

/** The seats a `clocks` object holds, in order (p1, p2, ..., p10). @param {any} clocks @returns {string[]} */
export function clockSeats(clocks) {
  if (!clocks || typeof clocks !== "object") return [];
  const number = (/** @type {string} */ s) => Number(/(\d+)$/.exec(s)?.[1] ?? Infinity);
  return Object.keys(clocks).filter((k) => k !== "running" && k !== "since" && typeof clocks[k] === "number")
    .sort((a, b) => number(a) - number(b) || a.localeCompare(b));
}

/**
 * The ms a seat has left at `serverNow`: the stored value for a stopped clock,
 * the stored value less the time since `since` for the running one (never below 0).
 * @param {any} clocks
 * @param {string} seat
 * @param {number | null} [serverNow] null: as stored (a replay, no time passes)
 */
export function timeLeft(clocks, seat, serverNow) {
  const stored = Number(clocks?.[seat]);
  if (!Number.isFinite(stored)) return 0;
  if (clocks.running !== seat || serverNow === null || serverNow === undefined) return Math.max(0, stored);
  const since = parseInstant(clocks.since);
  if (!Number.isFinite(since)) return Math.max(0, stored);
  return Math.max(0, stored - Math.max(0, serverNow - since));
}

/**
 * A clock's face: m:ss, h:mm:ss from an hour, and m:ss.t under 10 s. Rounds
 * down, as a clock counting down does: it reads 0:00 only when the time is up.
 * @param {number} ms
 */
export function formatClock(ms) {
  const left = Math.max(0, Number.isFinite(ms) ? ms : 0);
  const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
  if (left < TENTHS_MS) {
    const tenths = Math.floor(left / 100);
    return `0:${two(Math.floor(tenths / 10))}.${tenths % 10}`;
  }
  const s = Math.floor(left / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return h > 0 ? `${h}:${two(m)}:${two(r)}` : `${m}:${two(r)}`;
}

/** "5+5", "1+0": a clock option as players say it (minutes + seconds a move). @param {any} clock `{initial, increment}` */
export function clockLabel(clock) {
  if (!clock || typeof clock !== "object") return "";
  const initial = Number(clock.initial), inc = Number(clock.increment) || 0;
  if (!Number.isFinite(initial)) return "";
  // Whole minutes as players say them ("5+5"); a part of a minute in seconds ("10s+0", "90s+2").
  return initial % 60 === 0 ? `${initial / 60}+${inc}` : `${initial}s+${inc}`;
}

/**
 * One clock per seat, drawn where a kind puts `element(seat)`.
 *
 * @typedef {object} ClockOptions
 * @property {(() => number) | null} [now] the server's time; without it (a replay) clocks show what is stored
 * @property {(seat: string) => string} [label] what a screen reader calls a seat's clock ("Your clock", "p2's clock")
 */
export class ClockView {
  /** @param {ClockOptions} [options] */
  constructor(options = {}) {
    this.options = options;
    /** @type {any} */
    this.clocks = null;
    /** @type {string | null} the seat whose clock ran out */
    this.flagged = null;
    /** @type {Map<string, {node: HTMLElement, face: HTMLElement, shown: string}>} */
    this.faces = new Map();
    this.frame = 0;
    this.tick = () => {
      this.frame = 0;
      this.paint();
      if (this.running) this.frame = requestAnimationFrame(this.tick);
    };
  }

  /** The seat whose clock runs, if one does and time passes here. */
  get running() {
    const r = this.clocks?.running;
    return typeof r === "string" && this.options.now && !this.flagged ? r : null;
  }

  /** The clock element of a seat (made on first use, the same one after). @param {string} seat */
  element(seat) {
    let f = this.faces.get(seat);
    if (!f) {
      const face = el("span.clock-face", {}, "");
      const node = el("span.clock", { dataset: { seat }, role: "timer", "aria-live": "off" },
        el("span.clock-flag", { title: "Out of time", "aria-hidden": "true" }, icon("flag")), face);
      f = { node, face, shown: "" };
      this.faces.set(seat, f);
      if (this.clocks) this.paintSeat(seat, f);
    }
    return f.node;
  }

  /**
   * A new state's clocks (null or undefined: none).
   * @param {any} clocks
   * @param {string | null} [flagged] the seat that ran out of time, once the game ended so
   */
  setClocks(clocks, flagged = null) {
    this.clocks = clocks && typeof clocks === "object" ? clocks : null;
    this.flagged = this.clocks ? flagged : null;
    for (const [seat, f] of this.faces) {
      f.shown = "";
      f.node.hidden = !this.clocks || typeof this.clocks[seat] !== "number";
      f.node.classList.toggle("running", !!this.clocks && this.clocks.running === seat);
      f.node.classList.toggle("flagged", seat === this.flagged);
      f.node.dataset.running = String(!!this.clocks && this.clocks.running === seat);
    }
    this.paint();
    cancelAnimationFrame(this.frame);
    this.frame = this.running ? requestAnimationFrame(this.tick) : 0;
  }

  /** Every clock, as of now. */
  paint() {
    if (!this.clocks) return;
    for (const [seat, f] of this.faces) this.paintSeat(seat, f);
  }

  /** @param {string} seat @param {{node: HTMLElement, face: HTMLElement, shown: string}} f */
  paintSeat(seat, f) {
    if (typeof this.clocks?.[seat] !== "number") return;
    const now = this.options.now && this.running === seat ? this.options.now() : null;
    const left = seat === this.flagged ? 0 : timeLeft(this.clocks, seat, now);
    const text = formatClock(left);
    // Only a change of what shows touches the page (tenths: ten times a second; else once).
    if (text === f.shown) return;
    f.shown = text;
    f.face.textContent = text;
    f.node.dataset.left = String(Math.floor(left));
    f.node.classList.toggle("low", left < LOW_MS);
    f.node.classList.toggle("tenths", left < TENTHS_MS);
    const who = this.options.label?.(seat) ?? `${seat}\u2019s clock`;
    f.node.setAttribute("aria-label", `${who}: ${text}${seat === this.flagged ? ", out of time" : ""}`);
  }

  destroy() {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.faces.clear();
  }
}
