// @ts-check
/**
 * Four in a row (PROTOCOL section 16): two seats take turns dropping discs
 * into a board of 7 columns and 6 rows. The board draws the state's
 * `columns` (bottom first), lets a disc fall into place when a diff adds one,
 * draws the winning `line`, and turns a tap on a column (or a disc dragged
 * from the tray and dropped over one, or the keys 1 to 7) into
 * `{"type":"tap","target":"/columns/C"}`. It never changes the state itself:
 * the server does.
 */
import { el, svg, icon, toast, confirmDialog, roomBelow } from "./ui.js";
import { ClockView, clockLabel } from "./clocks.js";
import { botLevel, botTag, LEVELS } from "./bots.js";

export const COLUMNS = 7;
export const ROWS = 6;
/** The seats, in order. */
export const SEATS = ["p1", "p2"];
/** How each seat's discs look: a colour, and a mark for those who cannot tell the colours apart. */
export const LOOKS = /** @type {{[seat: string]: {color: string, mark: string}}} */ ({
  p1: { color: "red", mark: "cross" },
  p2: { color: "yellow", mark: "ring" },
});

const DRAG_THRESHOLD = 6;
const HINT_MS = 3500;

const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// ---- the game as data ----------------------------------------------------------

/** The other seat. @param {string} seat */
export function otherSeat(seat) {
  return seat === "p1" ? "p2" : "p1";
}

/** The column a target names ("/columns/3", "/columns/3/2", "columns/3"), or null. @param {any} target */
export function columnOf(target) {
  const m = /^\/?columns\/(\d+)(?:\/\d+)?$/.exec(String(target ?? ""));
  if (!m) return null;
  const c = Number(m[1]);
  return c >= 0 && c < COLUMNS ? c : null;
}

/** The discs of a column, bottom first (an empty list for a missing one). @param {any} state @param {number} c @returns {string[]} */
export function discsOf(state, c) {
  const col = state?.columns?.[c];
  return Array.isArray(col) ? col : [];
}

/** Rows of a state's board. @param {any} state */
export function rowsOf(state) {
  return Number.isInteger(state?.rows) && state.rows > 0 ? state.rows : ROWS;
}

/** Columns of a state's board. @param {any} state */
export function columnsOf(state) {
  return Array.isArray(state?.columns) && state.columns.length ? state.columns.length : COLUMNS;
}

/**
 * Discs a new state has that the previous one had not, bottom first per column.
 * @param {any} prev
 * @param {any} next
 * @returns {{c: number, r: number, seat: string}[]}
 */
export function addedDiscs(prev, next) {
  const out = [];
  for (let c = 0; c < columnsOf(next); c++) {
    const before = discsOf(prev, c), after = discsOf(next, c);
    // A column that shrank or changed below was cleared (a new game): nothing fell there.
    if (after.length <= before.length || before.some((d, r) => after[r] !== d)) continue;
    for (let r = before.length; r < after.length; r++) out.push({ c, r, seat: after[r] });
  }
  return out;
}

/** How a game that is over ended, as far as its state tells. @param {any} state @returns {"four" | "resign" | "time" | "drawn" | null} */
export function endOf(state) {
  if (!state) return null;
  if (state.status === "drawn") return "drawn";
  if (state.status !== "won") return null;
  if (Array.isArray(state.line) && state.line.length) return "four";
  const loser = state.winner ? otherSeat(state.winner) : null;
  if (loser && state.clocks && state.clocks[loser] === 0) return "time";
  return "resign";
}

/**
 * How a sentence names a seat: "You" for this page's, "Computer" for a bot's
 * (PROTOCOL section 18), the name of the signed-in user who holds it (section 19),
 * else the seat ("p2").
 * @param {string | null | undefined} seat
 * @param {string | undefined} you
 * @param {any} [bots] the seats bots play
 * @param {boolean} [start] at the start of a sentence
 * @param {{[seat: string]: string}} [names] the seats' signed-in users' names
 */
export function seatWord(seat, you, bots, start = true, names = {}) {
  if (seat && seat === you) return start ? "You" : "you";
  if (botLevel(bots, seat)) return start ? "Computer" : "the computer";
  if (seat && typeof names?.[seat] === "string" && names[seat]) return names[seat];
  return String(seat ?? "");
}

/**
 * The line that says whose turn it is (or how the game ended), for a page that
 * holds the seat `you` (undefined for a spectator).
 * @param {any} state
 * @param {string | undefined} you
 * @param {any} [bots] the seats bots play
 * @param {{[seat: string]: string}} [names] the seats' signed-in users' names
 */
export function turnText(state, you, bots, names = {}) {
  if (!state) return "";
  const who = (/** @type {string} */ seat, start = true) => seatWord(seat, you, bots, start, names);
  switch (state.status) {
    case "waiting":
      return you ? "Waiting for an opponent" : "Waiting for a second player";
    case "playing":
      return state.turn === you ? "Your turn" : `${who(state.turn)}'s turn`;
    case "won": {
      const how = endOf(state);
      const loser = otherSeat(state.winner);
      if (how === "four") return `${who(state.winner)} won with four in a row`;
      if (how === "time") return `${who(state.winner)} won: ${who(loser, false)} ran out of time`;
      return `${who(state.winner)} won: ${who(loser, false)} resigned`;
    }
    case "drawn":
      return "Drawn: the board is full";
    default:
      return "";
  }
}

// ---- the board ---------------------------------------------------------------

/**
 * @typedef {object} FourOptions
 * @property {boolean} interactive a seated player: taps and drags drop discs
 * @property {(message: {[key: string]: any}) => Promise<any>} send
 * @property {() => (string | undefined)} you this page's seat
 * @property {(() => number) | null} [now] the server's time (turn clocks count down from it); none in a replay
 * @property {() => {[seat: string]: number}} [bots] the seats bots play, with their levels
 * @property {() => {[seat: string]: string}} [names] the seats' signed-in users' names (PROTOCOL section 19)
 * @property {() => number} [below] what the page puts under the board (the result), for the board's size
 */

/** Whether this screen has keys to press: not a phone or a tablet, whose pointer is a finger. */
const hasKeys = () => !window.matchMedia("(pointer: coarse)").matches;

/** A disc element of a seat. @param {string} seat @param {string} [cls] */
function discNode(seat, cls = "") {
  return el(`div.four-disc${cls}`, { dataset: { seat }, "aria-hidden": "true" });
}

export class FourView {
  /**
   * @param {HTMLElement} host
   * @param {FourOptions} options
   */
  constructor(host, options) {
    this.host = host;
    this.options = options;
    /** @type {any} */
    this.state = null;
    this.columns = 0;
    this.rows = 0;
    /** @type {HTMLButtonElement[]} */
    this.colButtons = [];
    /** @type {HTMLElement[][]} cells[c][r], r = 0 at the bottom */
    this.cells = [];
    /** @type {number | null} the column under the pointer */
    this.hover = null;
    /** @type {any} a pointer gesture under way */
    this.gesture = null;
    this.hintTimer = 0;
    /** @type {(() => void) | null} shows and copies the play link (set by the page, for a player) */
    this.invite = null;
    /** @type {(() => (string | null)) | null} the play link to show while a seat is free (set by the page) */
    this.inviteURL = null;
    /** @type {string | null} "c,r" of the disc the last move dropped */
    this.last = null;
    /** @type {(() => void)[]} */
    this.off = [];

    this.turn = el("p.four-turn", { role: "status", "aria-live": "polite" });
    // A clock per seat (PROTOCOL section 17), next to its name, when the state has clocks.
    this.clocks = new ClockView({ now: options.now ?? null,
      label: (seat) => (seat === this.you ? "Your clock" : `${seatWord(seat, this.you, this.bots, true, this.names)}\u2019s clock`) });
    /** @type {Map<string, {item: HTMLElement, name: HTMLElement}>} the legend's seats */
    this.seatItems = new Map();
    this.legend = el("ul.four-seats", { "aria-label": "Seats" }, ...SEATS.map((seat) => {
      const name = el("span.four-seat-name");
      const item = el("li", { dataset: { seat } }, discNode(seat, ".chip"), name, this.clocks.element(seat));
      this.seatItems.set(seat, { item, name });
      return item;
    }));
    this.inviteSlot = el("div.four-invite", { hidden: true });
    this.board = el("div.four-board", { role: "group", "aria-label": "Four in a row board: 7 columns" });
    this.lineSvg = svg("svg", { class: "four-line", "aria-hidden": "true" });
    this.frame = el("div.four-frame", {}, this.board, this.lineSvg);
    this.trayDisc = el("div.four-disc.four-tray-disc", { "aria-hidden": "true" });
    this.trayText = el("span.four-tray-text", {}, "");
    this.tray = el("div.four-tray", { hidden: !options.interactive }, this.trayDisc, this.trayText);
    this.root = el("div.four", { dataset: { interactive: String(options.interactive) } },
      el("div.four-head", {}, this.turn, this.legend), this.inviteSlot, this.frame, this.tray);
    host.append(this.root);

    this.resizeObserver = new ResizeObserver(() => this.fit());
    this.resizeObserver.observe(host);
    const onWindowResize = () => this.fit();
    window.addEventListener("resize", onWindowResize);
    this.off.push(() => window.removeEventListener("resize", onWindowResize));
    if (options.interactive) this.bindGestures();
  }

  /** This page's seat, if it plays. */
  get you() {
    return this.options.interactive ? this.options.you() : undefined;
  }

  /** The seats bots play here, with their levels. @returns {{[seat: string]: number}} */
  get bots() {
    return this.options.bots?.() ?? {};
  }

  /** The seats' signed-in users' names. @returns {{[seat: string]: string}} */
  get names() {
    return this.options.names?.() ?? {};
  }

  /** The names changed: the seats and the turn line say them. */
  namesChanged() {
    if (this.state) this.paintHead();
  }

  /** Whether a disc dropped now is this page's move. */
  get myTurn() {
    const s = this.state;
    return !!s && s.status === "playing" && !!this.you && s.turn === this.you;
  }

  /** @param {number} columns @param {number} rows */
  build(columns, rows) {
    this.columns = columns;
    this.rows = rows;
    this.board.style.setProperty("--columns", String(columns));
    this.board.style.setProperty("--rows", String(rows));
    this.frame.style.setProperty("--ratio", String(columns / rows));
    this.colButtons = [];
    this.cells = [];
    const cols = [];
    for (let c = 0; c < columns; c++) {
      const cells = [];
      for (let r = 0; r < rows; r++) cells.push(el("div.four-cell", { dataset: { row: String(r) } }));
      const button = /** @type {HTMLButtonElement} */ (el("button.four-col", {
        type: "button",
        dataset: { col: String(c) },
        "aria-keyshortcuts": c < 9 ? String(c + 1) : undefined,
        disabled: !this.options.interactive,
      }, ...cells));
      // Keyboard activation (Enter, Space); pointers drop on release, below.
      button.addEventListener("click", (e) => { if (e.detail === 0) this.drop(c); });
      this.colButtons.push(button);
      this.cells.push(cells);
      cols.push(button);
    }
    this.board.replaceChildren(...cols);
  }

  /**
   * Shows `state`; discs a diff added fall into place, and the disc of the last move is marked.
   * @param {any} state
   * @param {boolean} animate
   * @param {any} [before] the state before the last move (null: no move to mark)
   */
  setState(state, animate, before = null) {
    const prev = this.state;
    this.state = state;
    // The last move: the one disc the change added (a new game, or a resign, adds none).
    const discs = (/** @type {any} */ st) => Array.from({ length: columnsOf(st) }, (_, c) => discsOf(st, c).length).reduce((a, b) => a + b, 0);
    if (before && discs(state) < discs(before)) {
      this.last = null;
    } else if (before && addedDiscs(before, state).length === 1) {
      const [d] = addedDiscs(before, state);
      this.last = `${d.c},${d.r}`;
    } else if (this.last) {
      // A change that dropped no disc (a resign, a clock), or none given (a snapshot after a
      // reconnect): the last move stays marked while its disc is there.
      const [c, r] = this.last.split(",").map(Number);
      if (discsOf(state, c).length <= r || discsOf(prev, c)[r] !== discsOf(state, c)[r]) this.last = null;
    }
    const columns = columnsOf(state), rows = rowsOf(state);
    if (columns !== this.columns || rows !== this.rows) {
      this.build(columns, rows);
      animate = false;
    }
    const fell = new Set(animate && prev ? addedDiscs(prev, state).map((d) => `${d.c},${d.r}`) : []);
    const line = new Set(Array.isArray(state.line) ? state.line.map((/** @type {number[]} */ p) => `${p[0]},${p[1]}`) : []);
    const motion = !reducedMotion();
    const bots = this.bots;
    // The ghost goes first: it is no disc of the state (it comes back below, where it now lands).
    for (const ghost of this.board.querySelectorAll(".four-ghost")) ghost.remove();
    for (let c = 0; c < columns; c++) {
      const discs = discsOf(state, c);
      for (let r = 0; r < rows; r++) {
        const cell = this.cells[c][r];
        const seat = discs[r];
        let disc = /** @type {HTMLElement | null} */ (cell.querySelector(".four-disc:not(.four-ghost)"));
        if (!seat) {
          disc?.remove();
          cell.removeAttribute("data-seat");
          continue;
        }
        if (!disc || disc.dataset.seat !== seat) {
          disc?.remove();
          disc = discNode(seat);
          cell.append(disc);
        }
        cell.dataset.seat = seat;
        disc.classList.toggle("win", line.has(`${c},${r}`));
        disc.classList.toggle("last", this.last === `${c},${r}`);
        // A bot's discs are the computer's (PROTOCOL section 18).
        if (botLevel(bots, seat)) disc.dataset.bot = String(botLevel(bots, seat));
        else delete disc.dataset.bot;
        if (fell.has(`${c},${r}`) && motion) this.fall(disc, c, r);
      }
      const button = this.colButtons[c];
      button.dataset.count = String(discs.length);
      button.classList.toggle("full", discs.length >= rows);
      button.setAttribute("aria-label", this.columnLabel(c, discs, rows));
    }
    this.board.dataset.last = this.last ?? "";
    this.board.dataset.line = Array.isArray(state.line) ? state.line.map((/** @type {number[]} */ p) => p.join(",")).join(" ") : "";
    this.root.dataset.status = String(state.status);
    this.root.dataset.turn = state.turn ?? "";
    this.root.dataset.mine = String(this.myTurn);
    this.root.dataset.clocks = String(!!state.clocks);
    this.clocks.setClocks(state.clocks, endOf(state) === "time" ? otherSeat(state.winner) : null);
    this.legend.dataset.running = state.clocks?.running ?? "";
    if (!this.myTurn) this.setHover(null);
    else if (this.hover !== null) this.setHover(this.hover);
    this.paintHead();
    this.paintTray();
    this.fit();
  }

  /** What a screen reader says of a column. @param {number} c @param {string[]} discs @param {number} rows */
  columnLabel(c, discs, rows) {
    const bots = this.bots;
    const name = (/** @type {string} */ d) => `${d} ${LOOKS[d]?.color ?? ""}`.trim() + (botLevel(bots, d) ? " (computer)" : "");
    const what = discs.length ? `${discs.length} of ${rows}: ${discs.map(name).join(", ")} from the bottom` : "empty";
    return `Column ${c + 1}, ${what}${discs.length >= rows ? ", full" : ""}`;
  }

  /** A disc falls from above the board to its cell. @param {HTMLElement} disc @param {number} c @param {number} r */
  fall(disc, c, r) {
    const top = this.cells[c][this.rows - 1].getBoundingClientRect();
    const here = this.cells[c][r].getBoundingClientRect();
    const pitch = this.rows > 1 ? (this.cells[c][0].getBoundingClientRect().top - top.top) / (this.rows - 1) : here.height;
    const from = here.top - top.top + pitch;
    disc.style.setProperty("--from", `${-from.toFixed(1)}px`);
    disc.style.setProperty("--fall-ms", `${Math.round(220 + Math.sqrt(Math.max(0, this.rows - r)) * 90)}ms`);
    disc.classList.remove("falling");
    void disc.offsetWidth;
    disc.classList.add("falling");
    disc.addEventListener("animationend", () => disc.classList.remove("falling"), { once: true });
  }

  paintHead() {
    const s = this.state;
    const you = this.you;
    const bots = this.bots;
    const names = this.names;
    const text = turnText(s, you, bots, names);
    const chipSeat = s.status === "playing" ? s.turn : s.status === "won" ? s.winner : null;
    this.turn.replaceChildren(chipSeat ? discNode(chipSeat, ".chip") : "", el("span.four-turn-text", {}, text));
    this.turn.dataset.mine = String(this.myTurn);
    this.turn.dataset.bot = String(s.status === "playing" && !!botLevel(bots, s.turn));
    for (const [seat, { item, name }] of this.seatItems) {
      item.classList.toggle("to-move", s.turn === seat && s.status === "playing");
      const level = botLevel(bots, seat);
      // A signed-in user's seat shows their name (PROTOCOL section 19), else the seat.
      const called = names[seat] || seat;
      const key = level ? `bot:${level}` : seat === you ? `you:${called}` : `seat:${called}`;
      if (item.dataset.who !== key) {
        item.dataset.who = key;
        if (level) item.dataset.bot = String(level);
        else delete item.dataset.bot;
        if (names[seat]) item.dataset.name = names[seat];
        else delete item.dataset.name;
        item.title = names[seat] ? `${names[seat]} (${seat})` : "";
        // Where room is short (a phone, with clocks) the page's style shows "You" for "p1 (you)".
        name.replaceChildren(level ? botTag(level) : seat === you
          ? el("span.seat-you", {}, el("span.you-long", {}, `${called} (you)`), el("span.you-short", { "aria-hidden": "true" }, "You"))
          : called);
      }
    }
    const url = s.status === "waiting" && you ? this.inviteURL?.() ?? null : null;
    this.inviteSlot.hidden = !url;
    if (url && this.inviteSlot.dataset.url !== url) {
      this.inviteSlot.dataset.url = url;
      const field = /** @type {HTMLInputElement} */ (el("input.link-field.four-invite-link", { type: "text", readonly: true, value: url, "aria-label": "Play link", spellcheck: "false",
        onfocus: (/** @type {Event} */ e) => /** @type {HTMLInputElement} */ (e.target).select() }));
      this.inviteSlot.replaceChildren(
        el("span.four-invite-text", {}, "To invite a friend, send them this link: whoever opens it first plays the other seat."),
        el("span.four-invite-row", {}, field,
          el("button.btn.small.primary.four-invite-btn", { type: "button", onclick: () => this.invite?.() }, "Copy")));
    }
  }

  paintTray() {
    if (!this.options.interactive) return;
    const you = this.you;
    const mine = this.myTurn;
    const status = this.state?.status;
    // Once the game is over the result says what there is to say, under the board or beside it.
    this.tray.hidden = status === "won" || status === "drawn";
    this.trayDisc.dataset.seat = you ?? "";
    this.tray.dataset.active = String(mine);
    // The keys only where there are keys: a phone is told to tap.
    const keys = hasKeys();
    this.trayText.textContent = mine ? (keys ? "Click a column, drag this disc over one, or press 1\u20137" : "Tap a column, or drag this disc over one")
      : status === "playing" ? "Wait for your turn" : status === "waiting" ? "The game starts when both seats are taken" : "";
  }

  /** The page around the board changed (the result came or went): fit the board again. */
  relayout() {
    this.fit();
  }

  /** Sizes the board to the room under its top: a phone shows it whole. */
  fit() {
    const width = this.host.clientWidth;
    if (!width || !this.columns) return;
    const top = this.frame.getBoundingClientRect().top + window.scrollY;
    const tray = this.tray.hidden ? 0 : this.tray.offsetHeight + 10;
    const below = this.options.below?.() ?? 0;
    // What is left of the screen under the board's top, less what stands under it: the board never makes the page scroll.
    const room = window.innerHeight - top - tray - below - roomBelow() - 2;
    const ratio = this.columns / this.rows;
    let w = Math.max(240, Math.min(width, 720, room * ratio));
    this.frame.style.width = `${Math.floor(w)}px`;
    // The board's frame is a little taller than its cells' ratio says: take off what still sticks out.
    const over = this.frame.getBoundingClientRect().height - room;
    if (over > 0 && w > 240) {
      w = Math.max(240, w - over * ratio - 1);
      this.frame.style.width = `${Math.floor(w)}px`;
    }
    this.drawLine();
  }

  /** The winning line through the centres of its cells. */
  drawLine() {
    const s = this.state;
    const line = s && Array.isArray(s.line) && s.line.length >= 2 ? s.line : null;
    if (!line) {
      this.lineSvg.replaceChildren();
      return;
    }
    const box = this.frame.getBoundingClientRect();
    const centre = (/** @type {number[]} */ p) => {
      const cell = this.cells[p[0]]?.[p[1]];
      if (!cell) return null;
      const r = cell.getBoundingClientRect();
      return { x: r.left - box.left + r.width / 2, y: r.top - box.top + r.height / 2, size: r.width };
    };
    const a = centre(line[0]), b = centre(line[line.length - 1]);
    if (!a || !b) return;
    this.lineSvg.setAttribute("viewBox", `0 0 ${box.width.toFixed(1)} ${box.height.toFixed(1)}`);
    const width = Math.max(4, a.size * 0.16);
    const attrs = { x1: a.x.toFixed(1), y1: a.y.toFixed(1), x2: b.x.toFixed(1), y2: b.y.toFixed(1) };
    this.lineSvg.replaceChildren(
      svg("line", { ...attrs, class: "four-line-shadow", "stroke-width": (width + 4).toFixed(1) }),
      svg("line", { ...attrs, class: "four-line-stroke", "stroke-width": width.toFixed(1) }));
    this.lineSvg.dataset.from = line[0].join(",");
    this.lineSvg.dataset.to = line[line.length - 1].join(",");
  }

  // ---- gestures -------------------------------------------------------

  bindGestures() {
    /** @param {EventTarget} target @param {string} type @param {(e: any) => void} fn */
    const on = (target, type, fn) => { target.addEventListener(type, fn); this.off.push(() => target.removeEventListener(type, fn)); };
    on(this.board, "pointerdown", (/** @type {PointerEvent} */ e) => this.pointerDown(e, false));
    on(this.trayDisc, "pointerdown", (/** @type {PointerEvent} */ e) => this.pointerDown(e, true));
    for (const node of [this.board, this.trayDisc]) {
      on(node, "pointermove", (/** @type {PointerEvent} */ e) => this.pointerMove(e));
      on(node, "pointerup", (/** @type {PointerEvent} */ e) => this.pointerUp(e));
      on(node, "pointercancel", (/** @type {PointerEvent} */ e) => this.cancel(e));
      on(node, "lostpointercapture", (/** @type {PointerEvent} */ e) => this.cancel(e));
    }
    on(this.board, "pointerleave", (/** @type {PointerEvent} */ e) => { if (!this.gesture && e.pointerType === "mouse") this.setHover(null); });
    on(this.board, "contextmenu", (/** @type {Event} */ e) => e.preventDefault());
  }

  /**
   * The column under a point: over the board, or just above it (where a disc is held).
   * @param {number} x @param {number} y
   * @returns {number | null}
   */
  columnAt(x, y) {
    const b = this.board.getBoundingClientRect();
    const pitch = b.height / Math.max(1, this.rows);
    if (y < b.top - pitch * 1.5 || y > b.bottom + pitch * 0.25) return null;
    for (let c = 0; c < this.colButtons.length; c++) {
      const r = this.colButtons[c].getBoundingClientRect();
      if (x >= r.left && x < r.right) return c;
    }
    return null;
  }

  /** @param {PointerEvent} e @param {boolean} fromTray */
  pointerDown(e, fromTray) {
    if (e.button !== 0 || this.gesture || !this.state) return;
    if (fromTray && !this.myTurn) return;
    const target = /** @type {HTMLElement} */ (e.currentTarget);
    this.gesture = { pointerId: e.pointerId, fromTray, x: e.clientX, y: e.clientY, moved: false, target, float: null };
    try { target.setPointerCapture(e.pointerId); } catch { /* a synthetic pointer may not be capturable */ }
    if (fromTray) e.preventDefault();
    if (this.myTurn) this.setHover(fromTray ? null : this.columnAt(e.clientX, e.clientY));
  }

  /** @param {PointerEvent} e */
  pointerMove(e) {
    const g = this.gesture;
    if (!g) {
      // A mouse over the board: the column it points at, on our turn.
      if (e.pointerType === "mouse" && e.currentTarget === this.board) this.setHover(this.myTurn ? this.columnAt(e.clientX, e.clientY) : null);
      return;
    }
    if (g.pointerId !== e.pointerId) return;
    if (!g.moved && Math.hypot(e.clientX - g.x, e.clientY - g.y) < DRAG_THRESHOLD) return;
    if (!g.moved) {
      g.moved = true;
      if (g.fromTray) {
        g.float = discNode(this.you ?? "p1", ".four-float");
        const size = this.cells[0]?.[0]?.getBoundingClientRect().width ?? 48;
        g.float.style.width = g.float.style.height = `${Math.round(size * 0.84)}px`;
        document.body.append(g.float);
        this.trayDisc.classList.add("lifted");
      }
    }
    e.preventDefault();
    if (g.float) g.float.style.transform = `translate(${e.clientX}px, ${e.clientY}px) translate(-50%, -50%)`;
    this.setHover(this.myTurn ? this.columnAt(e.clientX, e.clientY) : null);
  }

  /** @param {PointerEvent} e */
  pointerUp(e) {
    const g = this.gesture;
    if (!g || g.pointerId !== e.pointerId) return;
    this.endGesture();
    const c = this.columnAt(e.clientX, e.clientY);
    if (e.pointerType !== "mouse" || !this.myTurn) this.setHover(null);
    if (c === null) return;
    // From the tray only a drop counts; on the board a tap or a slide drops where it is let go.
    if (g.fromTray && !g.moved) return;
    this.drop(c);
  }

  /** @param {PointerEvent} e */
  cancel(e) {
    const g = this.gesture;
    if (!g || g.pointerId !== e.pointerId) return;
    this.endGesture();
    this.setHover(null);
  }

  endGesture() {
    const g = this.gesture;
    this.gesture = null;
    if (!g) return;
    g.float?.remove();
    this.trayDisc.classList.remove("lifted");
    try { g.target.releasePointerCapture(g.pointerId); } catch { /* already released */ }
  }

  /** Marks the column a disc would go into, with a ghost disc where it would land. @param {number | null} c */
  setHover(c) {
    this.hover = c;
    for (const ghost of this.board.querySelectorAll(".four-ghost")) ghost.remove();
    this.colButtons.forEach((b, i) => b.classList.toggle("hover", i === c));
    if (c === null || !this.state || !this.you) return;
    const r = discsOf(this.state, c).length;
    if (r < this.rows) this.cells[c][r].append(discNode(this.you, ".four-ghost"));
  }

  /** Drops this page's disc into column c: the server says whether it may. @param {number} c */
  drop(c) {
    if (!this.options.interactive || !this.state || c < 0 || c >= this.columns) return;
    this.options.send({ type: "tap", target: `/columns/${c}` }).catch((error) => {
      if (error?.code !== "illegal-move") return;
      const why = String(error.message || "That move is not allowed");
      toast(why[0].toUpperCase() + why.slice(1), "error");
      this.nudge(c);
    });
  }

  /** A small shake of a column: "that did not work". @param {number} c */
  nudge(c) {
    if (reducedMotion()) return;
    this.colButtons[c]?.animate([{ transform: "none" }, { transform: "translateX(-4px)" }, { transform: "translateX(4px)" }, { transform: "none" }], { duration: 240, easing: "ease-in-out" });
  }

  /** A hint: the column the server would play, marked for a moment. @param {number} c */
  showHint(c) {
    this.clearHint();
    const button = this.colButtons[c];
    if (!button) return;
    button.classList.add("hinted");
    this.board.dataset.hint = String(c);
    this.hintTimer = window.setTimeout(() => this.clearHint(), HINT_MS);
  }

  clearHint() {
    clearTimeout(this.hintTimer);
    for (const b of this.colButtons) b.classList.remove("hinted");
    delete this.board.dataset.hint;
  }

  destroy() {
    this.endGesture();
    this.clocks.destroy();
    this.resizeObserver.disconnect();
    for (const off of this.off) off();
    clearTimeout(this.hintTimer);
    this.root.remove();
  }
}

// ---- the game: what the page does around the board -----------------------------

/** Four in a row being played or watched: turns, resigning, a new game, hints for spectators. */
export class FourPlay {
  /** @param {import("./games.js").Shell} shell @param {FourView} board */
  constructor(shell, board) {
    this.shell = shell;
    this.board = board;
    /** @type {HTMLButtonElement | null} */
    this.resignButton = null;
    /** @type {HTMLButtonElement | null} */
    this.newButton = null;
    /** @type {HTMLButtonElement | null} */
    this.hintButton = null;
    board.invite = () => {
      const url = shell.playURL();
      if (url) shell.copyLink(url, "play");
    };
    board.inviteURL = () => shell.playURL();
  }

  get state() {
    return this.shell.session.state;
  }

  /** The seats bots play in this game. */
  get bots() {
    return this.shell.session.bots ?? {};
  }

  /** The seats' signed-in users' names. */
  get names() {
    return this.shell.session.names ?? {};
  }

  get over() {
    const s = this.state;
    return !!s && (s.status === "won" || s.status === "drawn");
  }

  tools() {
    const s = this.shell;
    const tools = [];
    this.resignButton = this.newButton = this.hintButton = null;
    if (s.isPlayer) {
      tools.push(this.resignButton = /** @type {HTMLButtonElement} */ (s.tool("Resign", "resign", "", () => this.resign(), "resign")));
      tools.push(this.newButton = /** @type {HTMLButtonElement} */ (s.tool("Rematch", "deal", "N", () => s.newDeal(false), "new-game")));
    } else {
      // A player's hint would play for them (forbidden); a spectator may ask.
      tools.push(this.hintButton = /** @type {HTMLButtonElement} */ (s.tool("Hint", "hint", "H", () => s.askHint(), "hint")));
    }
    return tools;
  }

  /** @param {any} st */
  stats(st) {
    const playing = st.status === "playing";
    if (this.resignButton) this.resignButton.hidden = !playing;
    if (this.newButton) this.newButton.hidden = !this.over;
    if (this.hintButton) this.hintButton.disabled = !playing;
    const you = this.shell.isPlayer ? this.shell.session.you : undefined;
    // The result as this page's player lives it (lichess: "You won", "You lost"); a spectator's says who.
    const won = st.status === "won" ? (you ? (st.winner === you ? "You won" : "You lost") : `${seatWord(st.winner, you, this.bots, true, this.names)} won`) : null;
    const label = won ?? { waiting: "Waiting", playing: "Playing", drawn: "Drawn" }[String(st.status)] ?? String(st.status);
    const result = st.status === "won" && you ? (st.winner === you ? "won" : "lost") : String(st.status);
    const clock = clockLabel(this.shell.session.clockOption);
    return [this.shell.stat("Moves", st.moves ?? 0, "moves"),
      ...(clock ? [this.shell.stat("Clock", clock, "clock-option")] : []),
      el(`span.badge.status.${st.status}`, { dataset: { result } }, label)];
  }

  /** @param {import("./session.js").StateChange} change */
  changed(change) {
    const s = change.state, overlay = this.shell.overlay;
    if (this.over && change.via === "snapshot" && overlay.hidden) {
      // A late joiner or a reload: the event was before our time; show what the state says,
      // with the time the event gave if this browser saw it.
      const seen = this.shell.knownEnd(s);
      this.showEnd({ event: s.status, by: s.winner, reason: endOf(s), moves: s.moves, seconds: seen?.seconds });
    } else if (!this.over && overlay.dataset.kind === "four-end" && !overlay.hidden) {
      this.shell.hideWon();
    }
  }

  /** @param {any} e */
  event(e) {
    const you = this.shell.isPlayer ? this.shell.session.you : undefined;
    if (e.event === "start") {
      const first = this.state?.turn;
      const bot = botLevel(this.bots, you ? otherSeat(you) : null);
      const starts = first === you ? "you start" : `${seatWord(first, you, this.bots, true, this.names)} starts`;
      // The page whose join took the last seat is the one that arrived: its opponent was here first.
      const arrived = this.shell.session.resyncing;
      if (bot) toast(`You play the computer (${LEVELS[bot]?.toLowerCase() ?? `level ${bot}`}): ${first === you ? "you start" : "it starts"}`);
      else if (you && arrived) toast(`You play ${you} (${LOOKS[you]?.color ?? you}): ${starts}`);
      else toast(you ? `Your opponent is here: ${starts}!` : "Both seats are taken: the game is on");
    } else if (e.event === "won" || e.event === "drawn") {
      this.showEnd(e);
    } else if (e.event === "reset") {
      this.shell.hideWon();
      this.board.clearHint();
      const first = this.state?.turn;
      toast(`A new game: ${first === you ? "you start" : `${seatWord(first, you, this.bots, false, this.names)} starts`}`);
    }
  }

  /** The won or drawn message. @param {any} info an event, or the same figures from a state */
  showEnd(info) {
    const s = this.shell;
    const you = s.isPlayer ? s.session.you : undefined;
    const drawn = info.event === "drawn";
    const winner = drawn ? null : String(info.by ?? this.state?.winner ?? "");
    const loser = winner ? otherSeat(winner) : null;
    const bots = this.bots;
    const names = this.names;
    const title = drawn ? "It\u2019s a draw" : you ? (winner === you ? "You won!" : "You lost") : `${seatWord(winner, you, bots, true, names)} wins!`;
    const who = (/** @type {string | null} */ seat, start = true) => seatWord(seat, you, bots, start, names);
    const why = drawn ? "The board is full"
      : info.reason === "resign" ? `${who(loser)} resigned`
      : info.reason === "time" ? `${who(loser)} ran out of time`
      : `Four in a row for ${who(winner, false)}`;
    const actions = [];
    // A rematch for both players (the other seat moves first: the protocol's reset), and against the computer.
    if (s.isPlayer) actions.push(el("button.btn.primary.won-new", { type: "button", onclick: () => s.newDeal(false) }, "Rematch"));
    actions.push(s.replayButton());
    actions.push(el("button.btn.ghost.won-close", { type: "button", onclick: () => s.hideWon() }, "Hide"));
    const art = el("div.four-end-art", { "aria-hidden": "true" }, ...(winner ? [discNode(winner, ".chip")] : SEATS.map((seat) => discNode(seat, ".chip"))));
    s.showOverlay("four-end", title, [el("p.won-sub.four-why", {}, why), s.figures({ moves: info.moves, seconds: info.seconds })], actions, art);
    s.overlay.dataset.result = drawn ? "drawn" : you ? (winner === you ? "won" : "lost") : "won";
    s.overlay.dataset.reason = drawn ? "drawn" : String(info.reason ?? "");
  }

  async resign() {
    if (this.state?.status !== "playing" || document.querySelector("dialog[open]")) return;
    if (!(await confirmDialog("Resign?", "Your opponent wins this game.", "Resign"))) return;
    this.shell.command({ type: "resign" }).catch((e) => { if (e.code === "illegal-move") toast(e.message, "error"); });
  }

  /** N, the New game button, a shake: a new game, once this one is over. @param {boolean} fromShake */
  newGame(fromShake) {
    if (this.over) this.shell.command({ type: "reset" }).catch((e) => { if (e.code === "illegal-move") toast(e.message, "error"); });
    else if (!fromShake) toast("A new game can start once this one is over");
  }

  /** @param {any} h */
  hint(h) {
    const c = columnOf(h.to);
    if (c === null) toast("No hint: the game is not being played");
    else this.board.showHint(c);
  }

  /** @param {KeyboardEvent} e */
  key(e) {
    if (e.ctrlKey || e.metaKey) return;
    const s = this.shell;
    if (/^[1-9]$/.test(e.key)) {
      const c = Number(e.key) - 1;
      if (!s.isPlayer || c >= this.board.columns) return;
      e.preventDefault();
      this.board.drop(c);
    } else if (e.key.toLowerCase() === "h" && !s.isPlayer) {
      s.askHint();
    } else if (e.key.toLowerCase() === "n" && s.isPlayer) {
      s.newDeal(false);
    }
  }

  destroy() {
    this.board.invite = null;
  }
}

/**
 * A diff's cause, for the replay's caption: the seats named as the board names them
 * ("p1", "Computer", a signed-in user's name, "You").
 * @param {any} cause
 * @param {{bots?: any, names?: {[seat: string]: string}, you?: string}} [who]
 */
function describe(cause, who = {}) {
  if (!cause || typeof cause !== "object") return null;
  const name = (/** @type {any} */ seat) => seatWord(seat, who.you, cause.bot ? { ...(who.bots ?? {}), [seat]: 1 } : who.bots, true, who.names ?? {});
  const by = cause.by ? name(cause.by) : "";
  switch (cause.type) {
    case "tap":
    case "double-tap": {
      const c = columnOf(cause.target);
      return c === null ? null : `${by}: a disc in column ${c + 1}`;
    }
    case "resign":
      return by === "You" ? "You resign" : `${by} resigns`;
    case "reset":
      return "A new game";
    case "timeout":
      return `${name(cause.seat)} ran out of time`;
    case "resume":
      return "The clock goes on after a restart";
    case "join":
      return `${by} sits down`;
    case "start":
      return "The game starts";
    default:
      return null;
  }
}

/**
 * The lobby's tile: who moves first, the clock (none by default), then Start.
 * @param {import("./games.js").LobbyContext} lobby
 */
function fourTile(lobby) {
  const choices = lobby.choices;
  choices.fourFirst ??= "p1";
  choices.fourClock ??= "none";
  const first = /** @type {HTMLSelectElement} */ (el("select#four-first.four-first", { "aria-label": "Who moves first" },
    el("option", { value: "p1", selected: choices.fourFirst === "p1" }, "You start"),
    el("option", { value: "p2", selected: choices.fourFirst === "p2" }, "Friend starts")));
  first.addEventListener("change", () => { choices.fourFirst = first.value; });
  // A clock, as against the computer (PROTOCOL section 17): minutes, plus seconds a move.
  const clock = /** @type {HTMLSelectElement} */ (el("select#four-clock.four-clock", { "aria-label": "Clock: minutes, plus seconds a move", title: "Clock: minutes, plus seconds a move" },
    ...BOT_CLOCKS.map((k) => el("option", { value: k.value, selected: k.value === choices.fourClock }, k.label))));
  clock.addEventListener("change", () => { choices.fourClock = clock.value; });
  const button = /** @type {HTMLButtonElement} */ (el("button.btn.primary.start-four", { type: "submit", "aria-label": "Start four in a row" }, "Start"));
  return el("form.create-tile.tile-four", {
    dataset: { create: "four" },
    "aria-label": "Four in a row",
    onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      /** @type {any} */
      const options = { first: choices.fourFirst };
      const c = BOT_CLOCKS.find((k) => k.value === choices.fourClock)?.clock;
      if (c) options.clock = { ...c };
      lobby.start(button, "four", lobby.withDelay(options));
    },
  },
    el("span.tile-art", { "aria-hidden": "true" }, icon("four")),
    el("span.tile-text", {}, el("strong", {}, "Four in a row"), el("span", {}, "Two players, one disc a turn")),
    el("span.tile-controls", {}, first, clock, button));
}

/** The clocks a game against the computer may have: minutes + seconds a move (PROTOCOL section 17). */
export const BOT_CLOCKS = [
  { value: "none", label: "No clock", clock: null },
  { value: "1+0", label: "1 min", clock: { initial: 60, increment: 0 } },
  { value: "3+2", label: "3 min + 2 s", clock: { initial: 180, increment: 2 } },
  { value: "5+5", label: "5 min + 5 s", clock: { initial: 300, increment: 5 } },
  { value: "10+0", label: "10 min", clock: { initial: 600, increment: 0 } },
];

/**
 * The create options of a game against the computer: the person is always p1
 * (a bot never is), the computer p2 at `level`; "the computer starts" is `first` p2.
 * @param {number} level 1 to 3
 * @param {"you" | "computer"} starts
 * @param {string} clock a value of BOT_CLOCKS
 */
export function botGameOptions(level, starts, clock) {
  /** @type {any} */
  const options = { bots: { p2: level }, first: starts === "computer" ? "p2" : "p1" };
  const c = BOT_CLOCKS.find((k) => k.value === clock)?.clock;
  if (c) options.clock = { ...c };
  return options;
}

/**
 * The lobby's tile for a game against the computer: its level, who starts, the clock, then Play.
 * @param {import("./games.js").LobbyContext} lobby
 */
function fourBotTile(lobby) {
  const choices = lobby.choices;
  choices.fourBotLevel ??= 1;
  choices.fourBotStarts ??= "you";
  choices.fourBotClock ??= "none";
  const select = (/** @type {string} */ id, /** @type {string} */ label, /** @type {[string, string][]} */ options, /** @type {string} */ value, /** @type {(v: string) => void} */ set) => {
    const node = /** @type {HTMLSelectElement} */ (el(`select#${id}.${id}`, { "aria-label": label, title: label },
      ...options.map(([v, text]) => el("option", { value: v, selected: v === value }, text))));
    node.addEventListener("change", () => set(node.value));
    return node;
  };
  const level = select("four-bot-level", "The computer's level", Object.entries(LEVELS).map(([n, name]) => [n, name]), String(choices.fourBotLevel),
    (v) => { choices.fourBotLevel = Number(v); });
  const starts = select("four-bot-first", "Who moves first", [["you", "You start"], ["computer", "Computer starts"]], choices.fourBotStarts,
    (v) => { choices.fourBotStarts = v; });
  const clock = select("four-bot-clock", "Clock: minutes, plus seconds a move", BOT_CLOCKS.map((k) => [k.value, k.label]), choices.fourBotClock,
    (v) => { choices.fourBotClock = v; });
  const button = /** @type {HTMLButtonElement} */ (el("button.btn.primary.start-four-bot", { type: "submit", "aria-label": "Play four in a row against the computer" }, "Play"));
  return el("form.create-tile.tile-four-bot.tile-computer", {
    dataset: { create: "four-bot" },
    "aria-label": "Four in a row against the computer",
    onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      lobby.start(button, "four", lobby.withDelay(botGameOptions(choices.fourBotLevel, choices.fourBotStarts, choices.fourBotClock)));
    },
  },
    el("span.tile-art", { "aria-hidden": "true" }, icon("four"), el("span.tile-art-bot", {}, icon("bot"))),
    el("span.tile-text", {}, el("strong", {}, "Four in a row"), el("span", {}, "You against the computer, with a clock if you like")),
    el("span.tile-controls", {}, level, starts, clock, button));
}

/** @type {import("./games.js").GameKind} */
export const fourGame = {
  kind: "four",
  name: "Four in a row",
  noun: "game",
  icon: "four",
  seats: true,
  seatCount: 2,
  playersReadSpectatorsAfter: true,
  over: (state) => state?.status === "won" || state?.status === "drawn",
  shakeOver: "for a rematch",
  // The other seat is free for a person until someone (or a bot) takes it.
  invites: (state, bots) => state?.status === "waiting" && !Object.keys(bots ?? {}).length,
  inviteText: "Whoever opens this link first plays the other seat, and the game starts. Once both seats are taken it no longer lets anyone in.",
  title: () => ({ name: "Four in a row" }),
  board: (host, options) => new FourView(host, {
    interactive: options.interactive, send: options.send, you: options.you, now: options.now ?? null, bots: options.bots, names: options.names,
    below: options.below,
  }),
  play: (shell, board) => new FourPlay(shell, board),
  replayStart: "An empty board",
  describe,
  tiles: (lobby) => [fourTile(lobby)],
  computerTiles: (lobby) => [fourBotTile(lobby)],
};
