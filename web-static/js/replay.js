// @ts-check
/**
 * Replay: `watch` with `replay: true` gives the state at seq 0 and every diff, each
 * followed by the chat said after it; the timeline rebuilds any state from them.
 * Step, play/pause, speed, and live diffs keep extending the end. The chat shows
 * the lines said up to the position shown.
 */
import { gameKind } from "./games.js";
import { Timeline, describeCause } from "./timeline.js";
import { el, icon } from "./ui.js";
import { ChatPanel } from "./chatpanel.js";
import { chatLine, mergeBacklog } from "./chat.js";
import { routeHash } from "./routes.js";
import { botsOf } from "./bots.js";

/** @typedef {import("./net.js").Connection} Connection */

const SPEEDS = [0.5, 1, 2, 4, 8];
const STEP_MS = 800;

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
    this.position = 0;
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
    this.startButton = b("Back to the start", "first", "rp-first", () => this.seek(this.timeline ? this.timeline.baseSeq : 0));
    this.backButton = b("Step back", "prev", "rp-back", () => this.step(-1));
    this.playButton = b("Play", "play", "rp-play", () => this.toggle());
    this.forwardButton = b("Step forward", "next", "rp-forward", () => this.step(1));
    this.endButton = b("To the end", "last", "rp-last", () => this.seek(this.timeline ? this.timeline.lastSeq : 0));
    this.scrubber = /** @type {HTMLInputElement} */ (el("input.rp-scrub", { type: "range", min: "0", max: "0", value: "0", step: "1", "aria-label": "Position in the game" }));
    this.scrubber.addEventListener("input", () => this.seek(Number(this.scrubber.value)));
    this.counter = el("span.rp-counter", {}, "0 / 0");
    this.speedSelect = /** @type {HTMLSelectElement} */ (el("select.rp-speed", { "aria-label": "Speed" }, ...SPEEDS.map((s) => el("option", { value: String(s), selected: s === 1 }, `${s}\u00d7`))));
    this.speedSelect.addEventListener("change", () => { this.speed = Number(this.speedSelect.value); if (this.playing) this.schedule(); });
    this.root = el("section.game.replay", { dataset: { game } },
      el("header.game-head", {},
        el("div.head-left", {}, el("a.btn.icon-btn.back", { href: "#/", "aria-label": "Back to the lobby", title: "Lobby" }, icon("back")), this.title, el("span.badge.role.replay-badge", {}, "Replay")),
        el("div.head-right", {}, el("a.btn.small.watch-live", { href: routeHash({ name: "watch", game, key }) }, "Watch live"))),
      el("div.replay-bar", { role: "toolbar", "aria-label": "Replay controls" },
        el("div.rp-buttons", {}, this.startButton, this.backButton, this.playButton, this.forwardButton, this.endButton),
        this.scrubber, this.counter, this.speedSelect),
      this.caption,
      el("div.game-body", {}, el("div.board-wrap", {}, this.boardHost)));
    host.append(this.root);
    this.chat = new ChatPanel(/** @type {HTMLElement} */ (this.root.querySelector(".game-body")), { empty: "No messages up to here." });
    this.chat.setMember("spectators", false);
    this.chat.setNote("Messages show as the replay reaches them.");
    this.updateControls();

    this.offMessage = conn.onMessage((m) => this.handle(m));
    this.lost = false;
    this.offStatus = conn.onStatus((s) => { if (s === "reconnecting") this.lost = true; });
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
      if (!this.timeline.push(m)) { this.rewatch(); return; }
      const atEnd = this.position === this.timeline.lastSeq - 1;
      if (atEnd && !this.playing) this.seek(this.timeline.lastSeq);
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
    for (const d of diffs) this.timeline.push(d);
    this.buffered = [];
    this.loading = false;
    const send = () => Promise.reject(new Error("replay"));
    // No `now`: a replay's clocks show what each state stored, and do not run.
    this.board = game.board(this.boardHost, { interactive: false, send, you: () => undefined, bots: () => this.bots, names: () => this.names, replay: true });
    this.position = baseSeq;
    this.board.setState(this.timeline.stateAt(baseSeq), false);
    this.updateControls();
  }

  /** @param {any} error */
  fail(error) {
    if (this.closed) return;
    this.loading = false;
    this.caption.textContent = "";
    this.chat.root.hidden = true;
    this.chat.root.parentElement?.classList.add("no-chat");
    this.boardHost.replaceChildren(el("div.notice", { role: "alert" },
      el("h2", {}, error.code === "not-found" ? "No such game" : error.code === "forbidden" ? "You may not replay this game" : "Cannot replay this game"),
      el("p", {}, error.code === "not-found" ? `There is no game ${this.game} on this server.` : String(error.message || error.code)),
      el("div.notice-actions", {}, el("a.btn.primary", { href: "#/" }, "Back to the lobby"))));
  }

  /** @param {number} seq */
  seek(seq) {
    const t = this.timeline;
    if (!t) return;
    const target = Math.max(t.baseSeq, Math.min(t.lastSeq, seq));
    const small = Math.abs(target - this.position) === 1;
    this.position = target;
    this.board?.setState(t.stateAt(target), small);
    if (target >= t.lastSeq && this.playing) this.pause();
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
    if (this.position >= t.lastSeq) this.seek(t.baseSeq);
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
    const base = t ? t.baseSeq : 0, last = t ? t.lastSeq : 0;
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
    const cause = pos === base ? null : t.diffAt(pos)?.cause;
    this.caption.textContent = pos === base
      ? (base === 0 ? this.gameKind?.replayStart ?? "The start" : `Start of the history (move ${base})`)
      : this.gameKind?.describe?.(cause) ?? describeCause(cause);
  }

  /** The lines said up to the position shown (they come in the order of their seq). */
  paintChat() {
    const pos = this.timeline ? this.position : -1;
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
    this.closed = true;
    clearTimeout(this.timer);
    this.offMessage();
    this.offStatus();
    this.offOpen();
    document.removeEventListener("keydown", this.keyHandler);
    this.board?.destroy();
    this.chat.destroy();
    if (this.conn.status === "open") this.conn.request({ type: "leave" }).catch(() => {});
    this.root.remove();
  }
}
