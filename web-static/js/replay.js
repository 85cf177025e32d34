// @ts-check
/**
 * Replay: `watch` with `replay: true` gives the state at seq 0 and every diff, each
 * followed by the chat said after it; the timeline rebuilds any state from them.
 * Step, play/pause, speed, and live diffs keep extending the end. The chat shows
 * the lines said up to the position shown.
 *
 * The steps are the game's moves, as a player counts them: what the server does on
 * its own without a move (the start once the seats are taken, a clock resumed after a
 * restart, a player's selection dropped as they leave) belongs to the step before it,
 * so a game of 7 moves has 7 steps after its start, and the start shows the game on.
 */
import { gameKind } from "./games.js";
import { Timeline, describeCause } from "./timeline.js";
import { el, icon, keepSideFitted } from "./ui.js";
import { ChatPanel } from "./chatpanel.js";
import { chatLine, mergeBacklog } from "./chat.js";
import { routeHash } from "./routes.js";
import { botsOf } from "./bots.js";

/** @typedef {import("./boardcast.js").Connection} Connection */

const SPEEDS = [0.5, 1, 2, 4, 8];
const STEP_MS = 800;

/** Causes that are no move of a player: their diff joins the step before it. */
const NOT_MOVES = new Set(["start", "resume", "leave", "join"]);

/** Whether a diff's cause is a step of its own. @param {any} cause */
export function isStep(cause) {
  return !(cause && typeof cause === "object" && NOT_MOVES.has(cause.type));
}

export class ReplayView {
  /**
   * @param {HTMLElement} host
   * @param {Connection} conn
   * @param {string} game
   * @param {string} [key] the watch key of a game watched by link (PROTOCOL section 19): every `watch` carries it
   */
  constructor(host, conn, game, key) {
    this.conn = conn;
    this.game = game;
    this.watchKey = key;
    /** @type {{[player: string]: string}} the players' signed-in users' names (from `joined`) */
    this.names = {};
    /** @type {string | null} */
    this.kind = null;
    /** @type {Timeline | null} */
    this.timeline = null;
    /** @type {any[]} diffs received before the history is complete */
    this.buffered = [];
    /** @type {any | null} */
    this.snapshot = null;
    /** the step shown: an index into `steps` */
    this.position = 0;
    /** @type {number[]} the seq each step shows */
    this.steps = [0];
    this.playing = false;
    this.speed = 1;
    this.timer = 0;
    this.loading = true;
    this.closed = false;
    /** @type {import("./games.js").Board | null} drawn as the game's kind says */
    this.board = null;
    /** @type {import("./games.js").GameKind | null} */
    this.gameKind = null;
    /** @type {import("./chat.js").ChatLine[]} every line so far, each with the seq it was said at */
    this.chatLines = [];
    /** the seq of the last snapshot or diff received: a chat line that follows was said there */
    this.lastSeen = 0;
    /** @type {{[seat: string]: number}} the seats bots play (from `joined`) */
    this.bots = {};
    /** @type {import("./chat.js").ChatLine[] | null} the lines a `watch` with `since` repeats */
    this.chatBacklog = null;

    this.title = el("h1.game-title", {}, "Replay");
    this.boardHost = el("div.board-host");
    this.caption = el("p.replay-caption", { "aria-live": "polite" }, "Loading the game\u2026");
    const b = (/** @type {string} */ label, /** @type {string} */ name, /** @type {string} */ cls, /** @type {() => void} */ fn) =>
      /** @type {HTMLButtonElement} */ (el(`button.btn.icon-btn.${cls}`, { type: "button", "aria-label": label, title: label, onclick: fn }, icon(name)));
    this.startButton = b("Back to the start", "first", "rp-first", () => this.seek(0));
    this.backButton = b("Step back", "prev", "rp-back", () => this.step(-1));
    this.playButton = b("Play", "play", "rp-play", () => this.toggle());
    this.forwardButton = b("Step forward", "next", "rp-forward", () => this.step(1));
    this.endButton = b("To the end", "last", "rp-last", () => this.seek(Infinity));
    this.scrubber = /** @type {HTMLInputElement} */ (el("input.rp-scrub", { type: "range", min: "0", max: "0", value: "0", step: "1", "aria-label": "Move" }));
    this.scrubber.addEventListener("input", () => this.seek(Number(this.scrubber.value)));
    this.counter = el("span.rp-counter", { title: "Move, of the moves so far" }, "0 / 0");
    this.speedSelect = /** @type {HTMLSelectElement} */ (el("select.rp-speed", { "aria-label": "Speed" }, ...SPEEDS.map((s) => el("option", { value: String(s), selected: s === 1 }, `${s}\u00d7`))));
    this.speedSelect.addEventListener("change", () => { this.speed = Number(this.speedSelect.value); if (this.playing) this.schedule(); });
    this.root = el("section.game.replay", { dataset: { game } },
      el("header.game-head", {},
        el("div.head-left", {}, el("a.btn.icon-btn.back", { href: "#/", "aria-label": "Back to the lobby", title: "Lobby" }, icon("back")), this.title, el("span.badge.role.replay-badge", {}, "Replay")),
        // A game still being played can be watched live; one that is over cannot be any more.
        el("div.head-right", {}, this.watchLive = el("a.btn.small.watch-live", { href: routeHash({ name: "watch", game, key }), hidden: true }, "Watch live"))),
      el("div.replay-bar", { role: "toolbar", "aria-label": "Replay controls" },
        el("div.rp-buttons", {}, this.startButton, this.backButton, this.playButton, this.forwardButton, this.endButton),
        this.scrubber, this.counter, this.speedSelect),
      this.caption,
      el("div.game-body", {}, el("div.board-wrap", {}, this.boardHost), this.side = el("div.game-side")));
    host.append(this.root);
    this.stopFitting = keepSideFitted(this.side, /** @type {HTMLElement} */ (this.root.querySelector(".board-wrap")),
      [...this.root.children].filter((e) => !e.classList.contains("game-body")));
    this.chat = new ChatPanel(this.side, { empty: "No messages up to here." });
    this.chat.setMember("spectators", false);
    this.chat.setNote("Messages show as the replay reaches them.");
    this.updateControls();

    this.offMessage = conn.on("message", (m) => this.handle(m));
    this.lost = false;
    this.offStatus = conn.on("status", (s) => { if (s === "reconnecting") this.lost = true; });
    this.offOpen = conn.onOpen(() => { if (this.lost) { this.lost = false; this.rewatch(); } });
    this.keyHandler = (/** @type {KeyboardEvent} */ e) => this.key(e);
    document.addEventListener("keydown", this.keyHandler);
    this.load();
  }

  /** A `watch` of this game, with its key when it has one. @param {any} extra */
  watchBody(extra) {
    return this.watchKey ? { type: "watch", game: this.game, key: this.watchKey, ...extra } : { type: "watch", game: this.game, ...extra };
  }

  load() {
    this.conn.request(this.watchBody({ replay: true })).then(
      () => this.loaded(),
      (error) => this.fail(error));
  }

  /** After a lost connection or a gap: everything after what we hold. */
  rewatch() {
    if (this.closed) return;
    if (!this.timeline) { this.buffered = []; this.snapshot = null; this.chatLines = []; this.load(); return; }
    // The answer repeats the last lines after the diffs: only what follows those held is new.
    this.chatBacklog = [];
    const done = () => {
      const backlog = this.chatBacklog || [];
      this.chatBacklog = null;
      const seq = this.timeline ? this.timeline.lastSeq : this.lastSeen;
      this.chatLines = mergeBacklog(this.chatLines, backlog).map((l) => (l.seq === undefined ? { ...l, seq } : l));
      this.paintChat();
    };
    this.conn.request(this.watchBody({ since: this.timeline.lastSeq })).then(done, done);
  }

  /** @param {any} m */
  handle(m) {
    if (this.closed || m.game !== this.game) return;
    if (m.type === "joined" || m.type === "presence") {
      if (m.names && typeof m.names === "object") {
        this.names = { ...m.names };
        this.board?.namesChanged?.();
      }
    }
    if (m.type === "joined") {
      this.bots = botsOf(m.bots);
      this.setKind(m.kind);
    } else if (m.type === "snapshot") {
      if (m.kind && !this.kind) this.setKind(m.kind);
      this.snapshot = m;
      this.lastSeen = m.seq;
    } else if (m.type === "chat") {
      const line = chatLine(m);
      if (!line) return;
      if (this.chatBacklog) { this.chatBacklog.push(line); return; }
      this.chatLines.push({ ...line, seq: this.lastSeen });
      this.paintChat();
    } else if (m.type === "diff") {
      if (typeof m.seq === "number") this.lastSeen = Math.max(this.lastSeen, m.seq);
      if (!this.timeline) {
        const last = this.buffered.length ? this.buffered[this.buffered.length - 1].seq : null;
        if (last === null || m.seq === last + 1) this.buffered.push(m);
        return;
      }
      if (m.seq <= this.timeline.lastSeq) return;
      const atEnd = this.position === this.steps.length - 1;
      if (!this.timeline.push(m)) { this.rewatch(); return; }
      const grew = this.addStep(m);
      if (atEnd && !this.playing) this.seek(grew ? this.position + 1 : this.position, true);
      else this.updateControls();
    }
  }

  /** The kind of game, from `joined` (or `snapshot`): it says how to draw it. @param {string} kind */
  setKind(kind) {
    this.kind = kind;
    this.gameKind = gameKind(kind);
    this.root.dataset.kind = kind;
    this.title.replaceChildren(document.createTextNode(this.gameKind ? this.gameKind.name : String(kind)), el("code.game-id", {}, this.game));
    document.title = `Replay ${this.game} \u00b7 Boardcast`;
  }

  /** The first answer is complete: find the state the diffs start from. */
  loaded() {
    if (this.closed || this.timeline) return;
    const first = this.buffered[0];
    const snap = this.snapshot;
    if (snap && (!first || first.seq === snap.seq + 1)) {
      this.begin(snap.state, snap.seq, this.buffered);
      return;
    }
    if (snap) this.begin(snap.state, snap.seq, []);
    else this.fail({ code: "error", message: "the server sent no history" });
  }


  /** @param {any} base @param {number} baseSeq @param {any[]} diffs */
  begin(base, baseSeq, diffs) {
    const game = this.gameKind;
    if (!game) {
      this.buffered = [];
      this.fail({ code: "error", message: this.kind ? `this page does not know games of kind \u201c${this.kind}\u201d` : "the server did not say what kind of game this is" });
      return;
    }
    this.timeline = new Timeline(base, baseSeq);
    this.steps = [baseSeq];
    for (const d of diffs) if (this.timeline.push(d)) this.addStep(d);
    this.buffered = [];
    this.loading = false;
    const send = () => Promise.reject(new Error("replay"));
    // No `now`: a replay's clocks show what each state stored, and do not run.
    this.board = game.board(this.boardHost, { interactive: false, send, you: () => undefined, bots: () => this.bots, names: () => this.names, replay: true });
    this.position = 0;
    this.board.setState(this.timeline.stateAt(this.steps[0]), false, null);
    this.updateControls();
  }

  /**
   * A diff the timeline took: a step of its own, or part of the step before (returns false).
   * @param {any} diff
   */
  addStep(diff) {
    if (isStep(diff.cause)) {
      this.steps.push(diff.seq);
      return true;
    }
    this.steps[this.steps.length - 1] = diff.seq;
    return false;
  }

  /** @param {any} error */
  fail(error) {
    if (this.closed) return;
    this.loading = false;
    this.caption.textContent = "";
    this.chat.root.hidden = true;
    this.side.hidden = true;
    this.root.querySelector(".game-body")?.classList.add("no-chat");
    this.boardHost.replaceChildren(el("div.notice", { role: "alert" },
      el("h2", {}, error.code === "not-found" ? "No such game" : error.code === "forbidden" ? "You may not replay this game" : "Cannot replay this game"),
      el("p", {}, error.code === "not-found" ? `There is no game ${this.game} on this server.` : String(error.message || error.code)),
      el("div.notice-actions", {}, el("a.btn.primary", { href: "#/" }, "Back to the lobby"))));
  }

  /**
   * Shows a step: its state, with the move that made it marked.
   * @param {number} step @param {boolean} [redraw] draw it again even if it is the step shown
   */
  seek(step, redraw = false) {
    const t = this.timeline;
    if (!t) return;
    const last = this.steps.length - 1;
    const target = Math.max(0, Math.min(last, Number.isFinite(step) ? step : last));
    const small = Math.abs(target - this.position) === 1;
    if (target !== this.position || redraw) {
      this.position = target;
      const at = (/** @type {number} */ i) => (i >= 0 ? t.stateAt(this.steps[i]) : null);
      // A jump shows the step before first, so a step that moves nothing (a resign) keeps that move marked.
      if (!small && target >= 1) this.board?.setState(at(target - 1), false, at(target - 2));
      this.board?.setState(at(target), small, at(target - 1));
    }
    if (target >= last && this.playing) this.pause();
    this.updateControls();
  }

  /** @param {number} delta */
  step(delta) {
    if (this.playing) this.pause();
    this.seek(this.position + delta);
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  play() {
    const t = this.timeline;
    if (!t) return;
    if (this.position >= this.steps.length - 1) this.seek(0);
    this.playing = true;
    this.schedule();
    this.updateControls();
  }

  pause() {
    this.playing = false;
    clearTimeout(this.timer);
    this.updateControls();
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = window.setTimeout(() => {
      if (!this.playing) return;
      this.seek(this.position + 1);
      if (this.playing) this.schedule();
    }, STEP_MS / this.speed);
  }

  updateControls() {
    const t = this.timeline;
    const ready = !!t;
    const pos = this.position;
    const base = 0, last = t ? this.steps.length - 1 : 0;
    this.scrubber.min = String(base);
    this.scrubber.max = String(last);
    this.scrubber.value = String(pos);
    this.scrubber.disabled = !ready || last === base;
    this.counter.textContent = `${pos} / ${last}`;
    this.startButton.disabled = this.backButton.disabled = !ready || pos <= base;
    this.endButton.disabled = this.forwardButton.disabled = !ready || pos >= last;
    this.playButton.disabled = !ready || last === base;
    this.playButton.replaceChildren(icon(this.playing ? "pause" : "play"));
    this.playButton.setAttribute("aria-label", this.playing ? "Pause" : "Play");
    this.playButton.title = this.playing ? "Pause" : "Play";
    this.root.dataset.position = String(pos);
    this.paintChat();
    if (!t) return;
    // Over at its end: nothing more to watch live.
    const over = !!this.gameKind?.over?.(t.stateAt(t.lastSeq));
    this.watchLive.hidden = over;
    this.root.dataset.over = String(over);
    const seq = this.steps[pos];
    // A step is its first diff (a move); diffs folded into it came after and say less.
    const first = pos === 0 ? null : t.diffAt(this.steps[pos - 1] + 1);
    const cause = first?.cause ?? null;
    const who = { bots: this.bots, names: this.names };
    this.caption.textContent = pos === 0
      ? (t.baseSeq === 0 ? this.gameKind?.replayStart ?? "The start" : `Start of the history (move ${t.baseSeq})`)
      : this.gameKind?.describe?.(cause, who) ?? describeCause(cause);
    this.caption.dataset.seq = String(seq);
  }

  /** The lines said up to the position shown (they come in the order of their seq). */
  paintChat() {
    const pos = this.timeline ? this.steps[this.position] ?? -1 : -1;
    let n = 0;
    while (n < this.chatLines.length && /** @type {number} */ (this.chatLines[n].seq) <= pos) n++;
    this.chat.setLines(n === this.chatLines.length ? this.chatLines : this.chatLines.slice(0, n));
  }

  /** @param {KeyboardEvent} e */
  key(e) {
    const target = /** @type {HTMLElement} */ (e.target);
    if (target.closest("input, textarea, select, dialog") && target !== this.scrubber) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "ArrowLeft" && target !== this.scrubber) { e.preventDefault(); this.step(-1); }
    else if (e.key === "ArrowRight" && target !== this.scrubber) { e.preventDefault(); this.step(1); }
    else if (e.key === " " && !target.closest("button, a")) { e.preventDefault(); this.toggle(); }
    else if (e.key === "Home" && target !== this.scrubber) { e.preventDefault(); this.seek(0); }
    else if (e.key === "End" && target !== this.scrubber) { e.preventDefault(); this.seek(Infinity); }
  }

  destroy() {
    this.stopFitting();
    this.closed = true;
    clearTimeout(this.timer);
    this.offMessage();
    this.offStatus();
    this.offOpen();
    document.removeEventListener("keydown", this.keyHandler);
    this.board?.destroy();
    this.chat.destroy();
    if (this.conn.status === "ready") this.conn.request({ type: "leave" }).catch(() => {});
    this.root.remove();
  }
}
