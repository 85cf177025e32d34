// @ts-check
/**
 * Tic-tac-toe (PROTOCOL section 20) for Boardcast's page: the GameKind descriptor
 * (web-static/js/games.js) this package's server lists at /api/pages. The board draws
 * the state's `cells` (X for p1, O for p2), marks the last move and the winning
 * `line`, and turns a tap on a cell (or the keys 1 to 9) into
 * `{"type":"tap","target":"/cells/N"}`; the server alone changes the state.
 */
import { el, svg, icon, toast, confirmDialog, roomBelow } from "/js/ui.js";
import { ClockView, clockLabel } from "/js/clocks.js";

const SEATS = ["p1", "p2"];
const MARK = /** @type {{[seat: string]: string}} */ ({ p1: "X", p2: "O" });
const CLOCKS = [
  { value: "none", label: "No clock", clock: null },
  { value: "1+0", label: "1 min", clock: { initial: 60, increment: 0 } },
  { value: "3+2", label: "3 min + 2 s", clock: { initial: 180, increment: 2 } },
  { value: "5+0", label: "5 min", clock: { initial: 300, increment: 0 } },
];

// The page's Content-Security-Policy (style-src 'self') refuses a <style> element: the module's
// stylesheet is a file beside it, linked once, and the module is ready once it has loaded.
if (!document.getElementById("tictactoe-style")) {
  const link = el("link#tictactoe-style", { rel: "stylesheet", href: new URL("tictactoe.css", import.meta.url).href });
  await new Promise((done) => { link.addEventListener("load", done); link.addEventListener("error", done); document.head.append(link); });
}

// ---- the game as data -----------------------------------------------------------

/** @param {any} seat */
const other = (seat) => (seat === "p1" ? "p2" : "p1");
/** @param {any} state */
const isOver = (state) => state?.status === "won" || state?.status === "drawn";
/** @param {number} n "row 1, column 2" */
const where = (n) => `row ${Math.floor(n / 3) + 1}, column ${(n % 3) + 1}`;

/** The cell a target names ("/cells/4", "cells/1/2" = 5), or null. @param {any} target */
export function cellOf(target) {
  const m = /^\/?cells\/(\d+)(?:\/(\d+))?$/.exec(String(target ?? ""));
  if (!m) return null;
  const n = m[2] === undefined ? Number(m[1]) : Number(m[1]) < 3 && Number(m[2]) < 3 ? Number(m[1]) * 3 + Number(m[2]) : -1;
  return n >= 0 && n < 9 ? n : null;
}

/** @param {any} state @returns {(string | null)[]} */
const cellsOf = (state) => (Array.isArray(state?.cells) ? state.cells : Array(9).fill(null));

/** How a won game ended. @param {any} state @returns {"three" | "time" | "resign" | null} */
function endOf(state) {
  if (state?.status !== "won") return null;
  if (Array.isArray(state.line) && state.line.length) return "three";
  return state.clocks && state.clocks[other(state.winner)] === 0 ? "time" : "resign";
}

/** "You", a signed-in player's name, or the seat. @param {any} seat @param {string | undefined} you @param {any} names */
function seatWord(seat, you, names = {}, start = true) {
  if (seat && seat === you) return start ? "You" : "you";
  return (seat && names?.[seat]) || String(seat ?? "");
}

/** The line over the board. @param {any} s @param {string | undefined} you @param {any} names */
export function turnText(s, you, names = {}) {
  const who = (/** @type {any} */ seat, start = true) => seatWord(seat, you, names, start);
  switch (s?.status) {
    case "waiting": return you ? "Waiting for an opponent: send them the Invite link" : "Waiting for a second player";
    case "playing": return s.turn === you ? "Your turn" : `${who(s.turn)}'s turn`;
    case "drawn": return "Drawn: the board is full";
    case "won": {
      const how = endOf(s), loser = other(s.winner);
      if (how === "three") return `${who(s.winner)} won with three in a row`;
      return `${who(s.winner)} won: ${who(loser, false)} ${how === "time" ? "ran out of time" : "resigned"}`;
    }
    default: return "";
  }
}

/** An X or an O, drawn. @param {string} seat @param {string} [cls] */
function markNode(seat, cls = "") {
  const shape = seat === "p1"
    ? [svg("line", { x1: 18, y1: 18, x2: 82, y2: 82, pathLength: 100 }), svg("line", { x1: 82, y1: 18, x2: 18, y2: 82, pathLength: 100 })]
    : [svg("circle", { cx: 50, cy: 50, r: 33, pathLength: 100 })];
  return svg("svg", { class: `ttt-mark ${cls}`.trim(), viewBox: "0 0 100 100", "data-seat": seat, "aria-hidden": "true" }, ...shape);
}

// ---- the board ------------------------------------------------------------------

class TicTacToeView {
  /** @param {HTMLElement} host @param {import("/js/games.js").BoardOptions} options */
  constructor(host, options) {
    this.host = host;
    this.options = options;
    /** @type {any} */
    this.state = null;
    /** @type {number | null} the cell the last move marked */
    this.last = null;
    this.turn = el("p.ttt-turn", { role: "status", "aria-live": "polite" });
    this.clocks = new ClockView({ now: options.now ?? null, label: (seat) => (seat === this.you ? "Your clock" : `${seat}\u2019s clock`) });
    this.seatItems = SEATS.map((seat) => el("li", { dataset: { seat } }, el("span.ttt-chip", {}, markNode(seat)), el("span.ttt-seat-name"), this.clocks.element(seat)));
    this.cells = [...Array(9).keys()].map((n) => /** @type {HTMLButtonElement} */ (el("button.ttt-cell", {
      type: "button", dataset: { cell: String(n) }, disabled: !options.interactive, "aria-keyshortcuts": options.interactive ? String(n + 1) : undefined,
      onclick: () => this.mark(n),
    })));
    this.lineSvg = svg("svg", { class: "ttt-line", viewBox: "0 0 300 300", "aria-hidden": "true" });
    this.board = el("div.ttt-board", { role: "group", "aria-label": "Tic-tac-toe board: 3 rows of 3 cells" }, ...this.cells, this.lineSvg);
    this.frame = el("div.ttt-frame", {}, this.board);
    this.root = el("div.ttt", { dataset: { interactive: String(options.interactive) } },
      el("div.ttt-head", {}, this.turn, el("ul.ttt-seats", { "aria-label": "Seats" }, ...this.seatItems)), this.frame);
    host.append(this.root);
    this.resizeObserver = new ResizeObserver(() => this.fit());
    this.resizeObserver.observe(host);
    this.onResize = () => this.fit();
    window.addEventListener("resize", this.onResize);
  }

  /** This page's seat, if it plays. */
  get you() { return this.options.interactive ? this.options.you() : undefined; }

  get myTurn() { return this.state?.status === "playing" && !!this.you && this.state.turn === this.you; }

  /** @param {any} state @param {boolean} animate @param {any} [before] the state before the last move */
  setState(state, animate, before = null) {
    const prev = this.state;
    this.state = state;
    const cells = cellsOf(state);
    if (before) {
      const added = cells.map((c, n) => (c && !cellsOf(before)[n] ? n : -1)).filter((n) => n >= 0);
      this.last = added.length === 1 ? added[0] : null;
    } else if (this.last !== null && (!cells[this.last] || cellsOf(prev)[this.last] !== cells[this.last])) {
      this.last = null;
    }
    const line = new Set(Array.isArray(state.line) ? state.line : []);
    const names = this.options.names?.() ?? {};
    cells.forEach((seat, n) => {
      const cell = this.cells[n];
      const had = cell.dataset.seat;
      if ((seat ?? undefined) !== had) {
        cell.replaceChildren(...(seat ? [markNode(seat, animate && prev ? "fresh" : "")] : []));
        if (seat) cell.dataset.seat = seat;
        else delete cell.dataset.seat;
      }
      cell.classList.toggle("win", line.has(n));
      cell.classList.toggle("last", this.last === n);
      const who = seat ? `${MARK[seat] ?? seat} (${seatWord(seat, this.you, names, false)})` : "empty";
      cell.setAttribute("aria-label", `${where(n)}, ${who}${line.has(n) ? ", winning line" : ""}${this.last === n ? ", last move" : ""}`);
    });
    this.board.dataset.line = Array.isArray(state.line) ? state.line.join(" ") : "";
    this.board.dataset.last = this.last === null ? "" : String(this.last);
    Object.assign(this.root.dataset, { status: String(state.status), turn: state.turn ?? "", mine: String(this.myTurn) });
    this.clocks.setClocks(state.clocks, endOf(state) === "time" ? other(state.winner) : null);
    this.drawLine();
    this.paintHead(names);
    this.fit();
  }

  /** @param {any} names */
  paintHead(names) {
    const s = this.state, you = this.you;
    const chip = s.status === "playing" ? s.turn : s.status === "won" ? s.winner : null;
    this.turn.replaceChildren(...(chip ? [el("span.ttt-chip", {}, markNode(chip))] : []), el("span.ttt-turn-text", {}, turnText(s, you, names)));
    this.turn.dataset.mine = String(this.myTurn);
    this.seatItems.forEach((item, i) => {
      const seat = SEATS[i], name = names[seat] || seat;
      item.classList.toggle("to-move", s.status === "playing" && s.turn === seat);
      /** @type {HTMLElement} */ (item.querySelector(".ttt-seat-name")).textContent = seat === you ? `${name} (you)` : name;
    });
  }

  /** The winning line through its three cells' centres. */
  drawLine() {
    const line = this.state?.line;
    if (!Array.isArray(line) || line.length < 2) return this.lineSvg.replaceChildren();
    const at = (/** @type {number} */ n) => [(n % 3) * 100 + 50, Math.floor(n / 3) * 100 + 50];
    const [a, b] = [at(line[0]), at(line[line.length - 1])];
    const dx = Math.sign(b[0] - a[0]) * 28, dy = Math.sign(b[1] - a[1]) * 28;
    this.lineSvg.replaceChildren(svg("line", { x1: a[0] - dx, y1: a[1] - dy, x2: b[0] + dx, y2: b[1] + dy }));
  }

  /** Sizes the board to the room under its top: never wider than the host, never making the page scroll. */
  fit() {
    const width = this.host.clientWidth;
    if (!width) return;
    const top = this.frame.getBoundingClientRect().top + window.scrollY;
    const room = window.innerHeight - top - (this.options.below?.() ?? 0) - roomBelow() - 4;
    this.frame.style.width = `${Math.floor(Math.max(180, Math.min(width, 520, room)))}px`;
  }

  relayout() { this.fit(); }

  namesChanged() { if (this.state) this.setState(this.state, false); }

  /** Marks cell n for this page's seat: the server says whether it may. @param {number} n */
  mark(n) {
    if (!this.options.interactive || !this.state) return;
    this.options.send({ type: "tap", target: `/cells/${n}` }).catch((error) => {
      if (error?.code !== "illegal-move") return;
      const why = String(error.message || "That move is not allowed");
      toast(why[0].toUpperCase() + why.slice(1), "error");
    });
  }

  destroy() {
    this.clocks.destroy();
    this.resizeObserver.disconnect();
    window.removeEventListener("resize", this.onResize);
    this.root.remove();
  }
}

// ---- the game around the board ---------------------------------------------------

class TicTacToePlay {
  /** @param {import("/js/games.js").Shell} shell @param {TicTacToeView} board */
  constructor(shell, board) {
    this.shell = shell;
    this.board = board;
    /** @type {HTMLElement | null} */
    this.resignButton = null;
    /** @type {HTMLElement | null} */
    this.newButton = null;
  }

  get state() { return this.shell.session.state; }

  get you() { return this.shell.isPlayer ? this.shell.session.you : undefined; }

  /** @param {any} seat */
  who(seat, start = true) { return seatWord(seat, this.you, this.shell.session.names ?? {}, start); }

  tools() {
    const s = this.shell;
    this.resignButton = this.newButton = null;
    if (!s.isPlayer) return [];
    this.resignButton = s.tool("Resign", "resign", "", () => this.resign(), "resign");
    this.newButton = s.tool("New game", "deal", "N", () => s.newDeal(false), "new-game");
    return [this.resignButton, this.newButton];
  }

  /** @param {any} st */
  stats(st) {
    if (this.resignButton) this.resignButton.hidden = st.status !== "playing";
    if (this.newButton) this.newButton.hidden = !isOver(st);
    const you = this.you;
    const label = st.status === "won" ? (you ? (st.winner === you ? "You won" : "You lost") : `${this.who(st.winner)} won`)
      : ({ waiting: "Waiting", playing: "Playing", drawn: "Drawn" })[String(st.status)] ?? String(st.status);
    const result = st.status === "won" && you ? (st.winner === you ? "won" : "lost") : String(st.status);
    const clock = clockLabel(this.shell.session.clockOption);
    return [this.shell.stat("Moves", st.moves ?? 0, "moves"), ...(clock ? [this.shell.stat("Clock", clock, "clock-option")] : []),
      el(`span.badge.status.${st.status}`, { dataset: { result } }, label)];
  }

  /** @param {import("/js/session.js").StateChange} change */
  changed(change) {
    const s = change.state, overlay = this.shell.overlay;
    if (isOver(s) && change.via === "snapshot" && overlay.hidden) {
      const seen = this.shell.knownEnd(s);
      this.showEnd({ event: s.status, by: s.winner, reason: endOf(s), moves: s.moves, seconds: seen?.seconds });
    } else if (!isOver(s) && overlay.dataset.kind === "ttt-end" && !overlay.hidden) {
      this.shell.hideWon();
    }
  }

  /** @param {any} e */
  event(e) {
    const first = this.state?.turn, you = this.you;
    const starts = first === you ? "you start" : `${this.who(first)} starts`;
    if (e.event === "start") toast(you ? `You play ${MARK[you]}: ${starts}` : "Both seats are taken: the game is on");
    else if (e.event === "won" || e.event === "drawn") this.showEnd(e);
    else if (e.event === "reset") {
      this.shell.hideWon();
      toast(`A new game: ${starts}`);
    }
  }

  /** The result, beside or under the board (never over it). @param {any} info an event, or the same from a state */
  showEnd(info) {
    const s = this.shell, you = this.you, drawn = info.event === "drawn";
    const winner = drawn ? null : String(info.by ?? this.state?.winner ?? "");
    const title = drawn ? "It\u2019s a draw" : you ? (winner === you ? "You won!" : "You lost") : `${this.who(winner)} wins!`;
    const why = drawn ? "The board is full" : info.reason === "resign" ? `${this.who(other(winner))} resigned`
      : info.reason === "time" ? `${this.who(other(winner))} ran out of time` : `Three in a row for ${this.who(winner, false)}`;
    const actions = [s.isPlayer ? el("button.btn.primary.won-new", { type: "button", onclick: () => s.newDeal(false) }, "New game") : null,
      s.replayButton(), el("button.btn.ghost.won-close", { type: "button", onclick: () => s.hideWon() }, "Hide")];
    const art = el("span.ttt-end-art", { "aria-hidden": "true" }, ...(winner ? [winner] : SEATS).map((seat) => el("span.ttt-chip", {}, markNode(seat))));
    s.showOverlay("ttt-end", title, [el("p.won-sub.ttt-why", {}, why), s.figures({ moves: info.moves, seconds: info.seconds })], actions, art);
    s.overlay.dataset.result = drawn ? "drawn" : you ? (winner === you ? "won" : "lost") : "won";
    s.overlay.dataset.reason = drawn ? "drawn" : String(info.reason ?? "");
  }

  async resign() {
    if (this.state?.status !== "playing" || document.querySelector("dialog[open]")) return;
    if (!(await confirmDialog("Resign?", "Your opponent wins this game.", "Resign"))) return;
    this.shell.command({ type: "resign" }).catch((e) => { if (e.code === "illegal-move") toast(e.message, "error"); });
  }

  /** @param {boolean} fromShake */
  newGame(fromShake) {
    if (isOver(this.state)) this.shell.command({ type: "reset" }).catch((e) => { if (e.code === "illegal-move") toast(e.message, "error"); });
    else if (!fromShake) toast("A new game can start once this one is over");
  }

  /** Keys 1 to 9 mark the cells row by row; N starts a new game. @param {KeyboardEvent} e */
  key(e) {
    if (e.ctrlKey || e.metaKey || !this.shell.isPlayer) return;
    if (/^[1-9]$/.test(e.key)) this.board.mark(Number(e.key) - 1), e.preventDefault();
    else if (e.key.toLowerCase() === "n") this.shell.newDeal(false);
  }
}

/** The replay's caption for a diff's cause. @param {any} cause @param {{names?: any, you?: string}} [who] */
function describe(cause, who = {}) {
  if (!cause || typeof cause !== "object") return null;
  const name = (/** @type {any} */ seat) => seatWord(seat, who.you, who.names ?? {});
  switch (cause.type) {
    case "tap": case "double-tap": {
      const n = cellOf(cause.target);
      return n === null ? null : `${name(cause.by)}: ${MARK[cause.by] ?? "a mark"} in ${where(n)}`;
    }
    case "resign": return `${name(cause.by)} resign${name(cause.by) === "You" ? "" : "s"}`;
    case "reset": return "A new game";
    case "timeout": return `${name(cause.seat)} ran out of time`;
    case "resume": return "The clock goes on after a restart";
    case "join": return `${name(cause.by)} sits down`;
    case "start": return "The game starts";
    default: return null;
  }
}

/** The lobby's tile: a clock, then Start. @param {import("/js/games.js").LobbyContext} lobby */
function tile(lobby) {
  const choices = lobby.choices;
  choices.tttClock ??= "none";
  const clock = /** @type {HTMLSelectElement} */ (el("select#ttt-clock.ttt-clock", { "aria-label": "Clock: minutes, plus seconds a move", title: "Clock: minutes, plus seconds a move" },
    ...CLOCKS.map((k) => el("option", { value: k.value, selected: k.value === choices.tttClock }, k.label))));
  clock.addEventListener("change", () => { choices.tttClock = clock.value; });
  const button = /** @type {HTMLButtonElement} */ (el("button.btn.primary.start-tictactoe", { type: "submit", "aria-label": "Start tic-tac-toe" }, "Start"));
  return el("form.create-tile.tile-tictactoe", {
    dataset: { create: "tictactoe" }, "aria-label": "Tic-tac-toe",
    onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      const c = CLOCKS.find((k) => k.value === choices.tttClock)?.clock;
      lobby.start(button, "tictactoe", lobby.withDelay(c ? { clock: { ...c } } : {}));
    },
  },
    el("span.tile-art", { "aria-hidden": "true" }, icon("tictactoe")),
    el("span.tile-text", {}, el("strong", {}, "Tic-tac-toe"), el("span", {}, "Two players, X and O, three in a row")),
    el("span.tile-controls", {}, clock, button));
}

/** @type {import("/js/games.js").GameKind & {iconPath: string}} */
export default {
  kind: "tictactoe", name: "Tic-tac-toe", noun: "game", icon: "tictactoe",
  // A # grid, an X in the middle, an O in the top right corner (filled shapes, as the page's icons are).
  iconPath: "M7.2 1h1.6v22H7.2zm8 0h1.6v22h-1.6zM1 7.2h22v1.6H1zm0 8h22v1.6H1z"
    + "M9.6 10.5l.9-.9 3.9 3.9-.9.9zm3.9-.9.9.9-3.9 3.9-.9-.9zM19.9 1.6a2.5 2.5 0 1 1 0 5a2.5 2.5 0 1 1 0-5zm0 1.3a1.2 1.2 0 1 0 0 2.4a1.2 1.2 0 1 0 0-2.4z",
  seats: true, seatCount: 2, playersReadSpectatorsAfter: true,
  over: isOver, shakeOver: "for a new game",
  invites: (state) => state?.status === "waiting",
  inviteText: "Whoever opens this link first plays O, and the game starts. Once both seats are taken it no longer lets anyone in.",
  title: () => ({ name: "Tic-tac-toe" }),
  board: (host, options) => new TicTacToeView(host, options),
  play: (shell, board) => new TicTacToePlay(shell, board),
  replayStart: "An empty board", describe,
  tiles: (lobby) => [tile(lobby)],
  lobbyLabel: () => "Tic-tac-toe",
};
