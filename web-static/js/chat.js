// @ts-check
/**
 * A game's chat as data (PROTOCOL section 15): the lines this page may read, in
 * the order they came, kept apart from the DOM. After every `join`/`watch` the
 * server sends the last 50 lines again; they are laid over the lines already
 * held, so a reconnect shows nothing twice and loses nothing.
 */

/**
 * @typedef {object} ChatLine
 * @property {"players" | "spectators"} room
 * @property {string} by `p1`... for players, `s1`... for spectators
 * @property {string} [name] the signed-in user's name who said it (PROTOCOL section 19)
 * @property {string} text shown as text, never as HTML
 * @property {string} at RFC 3339 UTC
 * @property {number} [seq] in a replay: the game's seq when it was said
 */

/** Lines kept per game: older ones scroll away. */
export const CHAT_KEEP = 200;
/** The server's longest line, in characters after trimming. */
export const CHAT_MAX = 280;

/** What makes two lines the same line: lines carry no id. @param {ChatLine} line */
export function chatKey(line) {
  return JSON.stringify([line.room, line.by, line.text, line.at]);
}

/** A `chat` message as a line, or null when it is not one. @param {any} m @returns {ChatLine | null} */
export function chatLine(m) {
  if (!m || (m.room !== "players" && m.room !== "spectators") || typeof m.by !== "string" || typeof m.text !== "string") return null;
  /** @type {ChatLine} */
  const line = { room: m.room, by: m.by, text: m.text, at: typeof m.at === "string" ? m.at : "" };
  if (typeof m.name === "string" && m.name) line.name = m.name;
  return line;
}

/**
 * The lines held, with a join's backlog laid over them: where the backlog
 * starts inside what is held, only what follows is new (the held lines keep
 * their identity, so a view drawn from them redraws nothing). A backlog that
 * does not continue what is held (the rooms one may read changed, or more
 * than it holds was missed) replaces it.
 * @param {ChatLine[]} held
 * @param {ChatLine[]} backlog
 * @returns {ChatLine[]}
 */
export function mergeBacklog(held, backlog) {
  if (!backlog.length) return held;
  if (!held.length) return backlog.slice();
  const heldKeys = held.map(chatKey), backKeys = backlog.map(chatKey);
  for (let start = Math.max(0, held.length - backlog.length); start < held.length; start++) {
    let same = true;
    for (let i = start; i < held.length && same; i++) same = heldKeys[i] === backKeys[i - start];
    if (same) return held.concat(backlog.slice(held.length - start));
  }
  return backlog.slice();
}

/**
 * How long a line is as the server counts it (characters as a reader sees
 * them), after trimming.
 * @param {string} text
 */
export function textLength(text) {
  const t = text.trim();
  const Segmenter = /** @type {any} */ (Intl).Segmenter;
  if (Segmenter) return [...new Segmenter(undefined, { granularity: "grapheme" }).segment(t)].length;
  return [...t].length;
}

/** "10 s", "2 min", "1 min 30 s" for a spectator delay. @param {number} seconds */
export function formatDelay(seconds) {
  const s = Math.round(seconds * 10) / 10;
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60), r = Math.round((s - m * 60) * 10) / 10;
  return r ? `${m} min ${r} s` : `${m} min`;
}

/** The delay a `joined` or lobby object gives, 0 for none. @param {any} m */
export function delayOf(m) {
  const d = Number(m?.delay);
  return Number.isFinite(d) && d > 0 ? d : 0;
}

/** A line's time as the reader's clock shows it ("14:05"). @param {string} at */
export function chatTime(at) {
  const t = Date.parse(at);
  if (Number.isNaN(t)) return "";
  return new Date(t).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/**
 * The chat of one game as one member reads it: the lines, the names this page
 * has spoken under, and the spectators it muted.
 */
export class ChatLog {
  constructor(keep = CHAT_KEEP) {
    this.keep = keep;
    /** @type {ChatLine[]} */
    this.lines = [];
    /** @type {ChatLine[] | null} a join's backlog while it arrives */
    this.backlog = null;
    /** @type {Set<string>} names this page spoke under (a spectator gets a new one per connection) */
    this.mine = new Set();
    /** @type {{room: string, text: string}[]} lines sent and not yet seen back: their echo names a spectator */
    this.expected = [];
    /** @type {Set<string>} spectators this page muted */
    this.muted = new Set();
  }

  /** A join's reply starts: the lines until `end` are the server's backlog. */
  begin() {
    this.backlog = [];
  }

  /** The join's reply is complete. */
  end() {
    if (!this.backlog) return;
    this.lines = this.trim(mergeBacklog(this.lines, this.backlog));
    this.backlog = null;
  }

  /** @param {ChatLine} line */
  add(line) {
    if (this.backlog) {
      this.backlog.push(line);
      return;
    }
    const echo = this.expected.findIndex((e) => e.room === line.room && e.text === line.text.trim());
    if (echo >= 0) {
      this.expected.splice(echo, 1);
      this.mine.add(line.by);
    }
    this.lines = this.trim(this.lines.concat([line]));
  }

  /**
   * A line this page is sending: the server's echo of it tells a spectator its
   * name, which `joined` does not.
   * @param {string} room @param {string} text
   */
  expect(room, text) {
    this.expected.push({ room, text: text.trim() });
  }

  /** The send failed: no echo will come. @param {string} room @param {string} text */
  forget(room, text) {
    const i = this.expected.findIndex((e) => e.room === room && e.text === text.trim());
    if (i >= 0) this.expected.splice(i, 1);
  }

  /** @param {ChatLine[]} lines */
  trim(lines) {
    return lines.length > this.keep ? lines.slice(lines.length - this.keep) : lines;
  }
}
