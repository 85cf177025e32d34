// @ts-check
/**
 * A game being played or watched: the session (state from the server), the
 * board (Klondike table, race tables or Plane), the toolbar, sharing,
 * presence, the chat, and the won message (a podium in a race).
 */
import { GameSession } from "./session.js";
import { KlondikeView } from "./klondike.js";
import { PlaneView } from "./plane.js";
import { RaceView, ordinal, podium, seatName, seatsOf } from "./race.js";
import { ShakeDetector } from "./motion.js";
import { ChatPanel } from "./chatpanel.js";
import { formatDelay } from "./chat.js";
import { el, icon, toast, copyText, formatDuration, confirmDialog, plural } from "./ui.js";
import { routeHash, routeURL, rememberToken, forgetToken, knownSeat, rememberSeat } from "./routes.js";

/** What the page says when the solver finds the position lost (PROTOCOL section 12). */
export const LOST_DEAL_TEXT = "This deal can no longer be won";

/** @typedef {import("./net.js").Connection} Connection */

export class GameView {
  /**
   * @param {HTMLElement} host
   * @param {Connection} conn
   * @param {{game: string, token?: string, role: "player" | "spectator", adopt?: boolean, kind?: string}} options
   */
  constructor(host, conn, options) {
    this.conn = conn;
    this.game = options.game;
    this.token = options.token;
    this.role = options.role;
    /** @type {string | null} */
    this.kind = options.kind || null;
    /** @type {KlondikeView | PlaneView | RaceView | null} */
    this.board = null;
    if (this.token) rememberToken(this.game, this.token);
    /** @type {number | null} the own table's move count when the solver said the deal was lost */
    this.lostAt = null;

    this.title = el("h1.game-title", {}, "Loading\u2026");
    this.stats = el("div.stats", { "aria-live": "polite" });
    this.presence = el("span.presence", {}, "");
    this.delayNote = el("span.delay-note", { hidden: true });
    this.roleBadge = el("span.badge.role.watching", { hidden: this.role === "player" }, "Watching", this.delayNote);
    this.tools = el("div.tools", { role: "toolbar", "aria-label": "Game" });
    this.note = el("p.hint-note", { role: "status", hidden: true });
    this.share = el("div.share");
    this.boardHost = el("div.board-host");
    this.overlay = el("div.won-overlay", { hidden: true, role: "dialog", "aria-modal": "false", "aria-labelledby": "won-title" });
    this.body = el("div.game-body", {}, el("div.board-wrap", {}, this.boardHost, this.overlay));
    this.root = el("section.game", { dataset: { game: this.game } },
      el("header.game-head", {},
        el("div.head-left", {}, el("a.btn.icon-btn.back", { href: "#/", "aria-label": "Back to the lobby", title: "Lobby" }, icon("back")), this.title, this.roleBadge),
        el("div.head-right", {}, this.presence, this.share)),
      el("div.game-bar", {}, this.stats, this.tools),
      this.note,
      this.body);
    host.append(this.root);
    this.chat = new ChatPanel(this.body, {
      send: (text) => this.say(text),
      mute: (who) => this.mute(who),
      isMine: (by) => this.session.chat.mine.has(by),
    });
    this.unreadBadge = el("span.unread", { hidden: true, title: "Unread messages" });
    this.chat.onUnread((n) => {
      this.unreadBadge.hidden = !n;
      this.unreadBadge.textContent = String(n);
    });

    this.session = new GameSession(conn, {
      game: this.game, token: this.token, role: this.role, adopt: options.adopt,
      seat: this.token ? knownSeat(this.game) : undefined,
    });
    this.session.on("joined", (m) => this.joined(m));
    this.session.on("change", (c) => this.changed(c));
    this.session.on("event", (e) => this.event(e));
    this.session.on("presence", () => this.updatePresence());
    this.session.on("hint", (h) => this.hint(h));
    this.session.on("fatal", (error) => this.fatal(error));
    this.session.on("seat", (s) => this.seatRefused(s));
    this.session.on("chat", (log) => this.chat.setLines(log.lines));
    this.paintChatMember();
    this.keyHandler = (/** @type {KeyboardEvent} */ e) => this.key(e);
    document.addEventListener("keydown", this.keyHandler);
    this.shake = new ShakeDetector(() => this.newDeal(true));
    this.buildShare();
    if (this.kind) this.setKind(this.kind);
  }

  get isPlayer() {
    return this.role === "player";
  }

  /** Klondike tables on the board: the table tools, hints and keys apply. */
  get hasTables() {
    return this.kind === "klondike" || this.kind === "race";
  }

  /** The Klondike state this page plays (or watches, in Klondike), if any. */
  get ownTable() {
    const s = this.session.state;
    if (!s) return null;
    if (this.kind === "klondike") return s;
    if (this.kind === "race" && this.isPlayer && this.session.you) return s.tables?.[this.session.you] ?? null;
    return null;
  }

  /** @param {any} m */
  joined(m) {
    this.role = m.role;
    this.roleBadge.hidden = this.isPlayer;
    const delay = this.session.delay;
    this.delayNote.hidden = !delay;
    this.delayNote.textContent = delay ? ` \u00b7 ${formatDelay(delay)} behind` : "";
    this.roleBadge.title = delay ? `You see the game ${formatDelay(delay)} after the players do` : "";
    if (!this.kind || this.kind !== m.kind) this.setKind(m.kind);
    // A reload of this tab sits down at the same table.
    if (m.kind === "race" && m.role === "player" && m.you) rememberSeat(this.game, m.you);
    this.buildShare();
    this.paintChatMember();
  }

  /** Which room this page writes to, whether it may mute, and who reads what. */
  paintChatMember() {
    const delay = this.session.delay;
    this.chat.setMember(this.isPlayer ? "players" : "spectators", this.isPlayer);
    if (this.isPlayer) {
      this.chat.setNote(`Spectators read this too${delay ? `, ${formatDelay(delay)} late` : ""}.${this.kind === "plane" ? "" : " Theirs shows here after the game."}`);
    } else {
      this.chat.setNote(`Players don\u2019t see this room while they play.${delay ? ` The game reaches you ${formatDelay(delay)} late.` : ""}`);
    }
  }

  /**
   * Sends a chat line to this page's own room; resolves with the ack, rejects
   * with the server's error.
   * @param {string} text
   */
  async say(text) {
    const room = this.isPlayer ? "players" : "spectators";
    const chat = this.session.chat;
    chat.expect(room, text);
    try {
      return await this.conn.request({ type: "say", text, to: room });
    } finally {
      chat.forget(room, text);
    }
  }

  /** Stops a spectator writing in this game (a player's page only). @param {string} who */
  async mute(who) {
    try {
      await this.conn.request({ type: "mute", who });
    } catch (e) {
      toast(/** @type {Error} */ (e).message, "error");
      return;
    }
    this.session.chat.muted.add(who);
    this.chat.setMuted(this.session.chat.muted);
    toast(`${who} can no longer write in this game`);
  }

  /** Our seat is held by another connection: say so while the session asks again. @param {{seat: string, held: boolean, attempt: number}} s */
  seatRefused(s) {
    if (s.held && s.attempt === 1) toast(`Taking back your seat ${seatName(s.seat)}\u2026`);
    if (!s.held) rememberSeat(this.game, undefined);
  }

  /** @param {string} kind */
  setKind(kind) {
    this.kind = kind;
    this.root.dataset.kind = kind;
    this.board?.destroy();
    const send = (/** @type {any} */ message) => this.command(message);
    if (kind === "plane") {
      this.board = new PlaneView(this.boardHost, { interactive: this.isPlayer, send, you: () => this.session.you });
    } else if (kind === "race") {
      this.board = new RaceView(this.boardHost, { interactive: this.isPlayer, send, you: () => this.session.you });
      this.board.setPlayers(this.session.players);
    } else {
      this.board = new KlondikeView(this.boardHost, { interactive: this.isPlayer, send });
    }
    if (this.session.state) this.board.setState(this.session.state, false);
    this.buildTools();
    this.updateTitle();
  }

  updateTitle() {
    const s = this.session.state;
    let name = this.kind === "plane" ? "Plane" : this.kind === "race" ? "Race" : "Klondike";
    if (this.kind === "klondike" && s) name += ` \u00b7 Draw ${s.draw}`;
    // A race's details go in a part of the title a phone may leave out.
    let detail = "";
    if (this.kind === "race" && s) {
      const seats = seatsOf(s);
      const draw = s.tables?.[seats[0]]?.draw;
      detail = ` \u00b7 ${plural(seats.length, "seat")}${draw ? ` \u00b7 Draw ${draw}` : ""}`;
    }
    this.title.replaceChildren(document.createTextNode(name), detail ? el("span.title-detail", {}, detail) : "", el("code.game-id", {}, this.game));
    document.title = `${name}${detail} ${this.game} \u00b7 Boardcast`;
  }

  buildTools() {
    const b = (/** @type {string} */ label, /** @type {string} */ name, /** @type {string} */ key, /** @type {() => void} */ fn, /** @type {string} */ cls) =>
      el(`button.btn.tool.${cls}`, { type: "button", onclick: fn, title: key ? `${label} (${key})` : label, "aria-keyshortcuts": key || undefined }, icon(name), el("span.label", {}, label));
    const tools = [];
    if (this.hasTables) {
      if (this.isPlayer) tools.push(b("Undo", "undo", "Control+Z", () => this.undo(), "undo"));
      // A race's hints are for a seated player's own table.
      if (this.kind === "klondike" || this.isPlayer) tools.push(b("Hint", "hint", "H", () => this.askHint(), "hint"));
      if (this.isPlayer) tools.push(this.kind === "race"
        ? b("New race", "deal", "N", () => this.newDeal(false), "new-deal")
        : b("New deal", "deal", "N", () => this.newDeal(false), "new-deal"));
    }
    if (this.isPlayer && ShakeDetector.needsPermission() && !this.shake.listening) {
      tools.push(b("Shake", "shake", "", () => this.enableShake(), "shake-enable"));
    }
    tools.push(el("a.btn.tool.replay-link", { href: routeHash({ name: "replay", game: this.game }), title: "Replay from the start" }, icon("replay"), el("span.label", {}, "Replay")));
    // On a phone the chat is under the table, out of sight: this takes you there.
    tools.push(el("button.btn.tool.chat-jump", { type: "button", title: "Chat", onclick: () => this.chat.reveal() }, icon("chat"), el("span.label", {}, "Chat"), this.unreadBadge));
    this.tools.replaceChildren(...tools);
    this.updateStats();
    if (this.isPlayer && ShakeDetector.available() && !ShakeDetector.needsPermission()) this.shake.enable();
  }

  async enableShake() {
    const ok = await this.shake.enable();
    toast(ok ? "Shake the phone for a new deal" : "Motion access was not allowed", ok ? "info" : "error");
    this.buildTools();
  }

  buildShare() {
    const watchURL = routeURL({ name: "watch", game: this.game });
    const copy = (/** @type {string} */ label, /** @type {string} */ url, /** @type {string} */ cls, /** @type {string} */ what) =>
      el(`button.btn.small.share-btn.${cls}`, {
        type: "button",
        dataset: { url },
        title: `Copy the ${what} link`,
        onclick: async () => {
          if (await copyText(url)) toast(`${what[0].toUpperCase()}${what.slice(1)} link copied`);
          else this.showLink(url);
        },
      }, icon("link"), el("span.label", {}, label));
    const buttons = [copy("Watch link", watchURL, "share-watch", "watch")];
    if (this.isPlayer && this.token) buttons.push(copy("Play link", routeURL({ name: "play", game: this.game, token: this.token }), "share-play", "play"));
    this.share.replaceChildren(...buttons);
  }

  /** The clipboard refused: show the link selected for a manual copy. @param {string} url */
  showLink(url) {
    const dialog = /** @type {HTMLDialogElement} */ (el("dialog.confirm.link-dialog", { "aria-label": "Link" }));
    const input = /** @type {HTMLInputElement} */ (el("input.link-field", { type: "text", readonly: true, value: url, "aria-label": "Link" }));
    dialog.append(el("form", { method: "dialog" }, el("h2", {}, "Copy this link"), input, el("div.dialog-buttons", {}, el("button.btn.primary", { type: "submit" }, "Done"))));
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
    input.select();
  }

  /** @param {{prev: any, state: any, via: string}} change */
  changed(change) {
    if (!this.kind && this.session.kind) this.setKind(this.session.kind);
    this.board?.setState(change.state, change.prev !== null);
    this.updateTitle();
    this.updateStats();
    const s = change.state;
    if (this.kind === "klondike") {
      if (s.status === "won" && change.via === "snapshot" && this.overlay.hidden) {
        // A late joiner: the won event was before our time; show what the state says.
        this.showWon({ moves: s.moves, score: s.score });
      } else if (s.status !== "won" && !this.overlay.hidden) {
        this.hideWon();
      }
    } else if (this.kind === "race") {
      if (s.status === "finished" && change.via === "snapshot" && this.overlay.hidden) {
        this.showPodium();
      } else if (s.status !== "finished" && this.overlay.dataset.kind === "podium" && !this.overlay.hidden) {
        this.hideWon();
      }
    }
    // The solver's verdict was about the position it was asked about.
    const own = this.ownTable;
    if (this.lostAt !== null && (!own || own.moves !== this.lostAt || own.status === "won")) this.showLost(false);
  }

  updateStats() {
    const s = this.session.state;
    if (!s) return;
    const stat = (/** @type {string} */ label, /** @type {any} */ value, /** @type {string} */ cls) =>
      el(`span.stat.${cls}`, {}, el("span.stat-label", {}, label), el("span.stat-value", {}, String(value)));
    const undo = /** @type {HTMLButtonElement | null} */ (this.tools.querySelector(".undo"));
    if (this.kind === "klondike") {
      // Undo stops at a win (the server would refuse it).
      if (undo) undo.disabled = s.status === "won" || s.moves === 0;
      this.stats.replaceChildren(stat("Moves", s.moves, "moves"), stat("Score", s.score, "score"),
        el(`span.badge.status.${s.status}`, {}, s.status === "won" ? "Won" : "Playing"));
    } else if (this.kind === "race") {
      const own = this.ownTable;
      if (undo) undo.disabled = !own || s.status !== "playing" || own.status === "won" || own.moves === 0;
      const hint = /** @type {HTMLButtonElement | null} */ (this.tools.querySelector(".hint"));
      if (hint) hint.disabled = !own || own.status === "won";
      const again = /** @type {HTMLButtonElement | null} */ (this.tools.querySelector(".new-deal"));
      if (again) {
        again.disabled = s.status !== "finished";
        again.title = s.status === "finished" ? "New race (N)" : "A new race can be dealt once every table is won";
      }
      const label = s.status === "waiting" ? "Waiting" : s.status === "finished" ? "Finished" : "Racing";
      const done = (s.finished || []).length, seats = seatsOf(s).length;
      this.stats.replaceChildren(
        ...(own ? [stat("Moves", own.moves, "moves"), stat("Score", own.score, "score")] : [stat("Finished", `${done}/${seats}`, "finished")]),
        el(`span.badge.status.${s.status}`, {}, label));
    } else {
      const count = (s.order || []).length;
      this.stats.replaceChildren(stat("Rectangles", count, "count"));
    }
  }

  updatePresence() {
    const { players, spectators } = this.session;
    this.presence.replaceChildren(
      el("span.presence-players", {}, plural(players, "player")),
      el("span.presence-watching", {}, `${spectators} watching`));
    if (this.board instanceof RaceView) this.board.setPlayers(players);
  }

  /** @param {any} e */
  event(e) {
    if (this.kind === "race") {
      this.raceEvent(e);
      return;
    }
    if (e.event === "won") this.showWon(e);
    else if (e.event === "reset") { this.hideWon(); this.showLost(false); }
  }

  /** @param {any} e */
  raceEvent(e) {
    const board = this.board instanceof RaceView ? this.board : null;
    if (e.event === "start") {
      toast("Every seat is taken: the race is on!");
    } else if (e.event === "won") {
      board?.addWin(e);
      // The finishing diff came first: the state already says whether the race is over.
      if (this.session.state?.status === "finished") this.showPodium();
      else if (this.isPlayer && e.by === this.session.you) this.showFinish(e);
      else toast(`${seatName(String(e.by))} finished ${ordinal(Number(e.place))}`);
    } else if (e.event === "reset") {
      board?.clearWins();
      this.hideWon();
      this.showLost(false);
      toast("A new race is dealt");
    }
  }

  /** @param {{moves?: number, score?: number, seconds?: number}} info */
  showWon(info) {
    const actions = [];
    if (this.isPlayer && this.kind === "klondike") actions.push(el("button.btn.primary.won-new", { type: "button", onclick: () => this.newDeal(false) }, "New deal"));
    actions.push(el("a.btn.won-replay", { href: routeHash({ name: "replay", game: this.game }) }, "Replay"));
    actions.push(el("button.btn.ghost.won-close", { type: "button", onclick: () => this.hideWon() }, "Look at the table"));
    this.showOverlay("won", this.isPlayer ? "You won!" : "Game won!", [this.figures(info)], actions);
  }

  /** This player's table is won while others play on. @param {any} e */
  showFinish(e) {
    this.showOverlay("finish", `You finished ${ordinal(Number(e.place))}!`, [this.figures(e)], [
      el("button.btn.primary.won-close", { type: "button", onclick: () => this.hideWon() }, "Watch the others"),
      el("a.btn.won-replay", { href: routeHash({ name: "replay", game: this.game }) }, "Replay"),
    ]);
  }

  /** Every table is won: the full podium. */
  showPodium() {
    const s = this.session.state;
    if (!s) return;
    const places = podium(s, this.board instanceof RaceView ? this.board.wins : new Map());
    const you = this.isPlayer ? this.session.you : undefined;
    const mine = places.find((p) => p.seat === you);
    const list = el("ol.podium-list", {}, ...places.map((p) => {
      const figures = [
        p.moves !== undefined ? plural(p.moves, "move") : null,
        p.score !== undefined ? plural(p.score, "point") : null,
        typeof p.seconds === "number" ? formatDuration(p.seconds) : null,
      ].filter(Boolean).join(" \u00b7 ");
      return el("li", { dataset: { seat: p.seat, place: String(p.place) }, class: p.seat === you ? "you" : undefined },
        el("span.podium-place", {}, ordinal(p.place)),
        el("span.podium-seat", {}, p.seat === you ? `You (${seatName(p.seat)})` : seatName(p.seat)),
        el("span.podium-figures", {}, figures));
    }));
    const actions = [];
    if (this.isPlayer) actions.push(el("button.btn.primary.won-new", { type: "button", onclick: () => this.newDeal(false) }, "New race"));
    actions.push(el("a.btn.won-replay", { href: routeHash({ name: "replay", game: this.game }) }, "Replay"));
    actions.push(el("button.btn.ghost.won-close", { type: "button", onclick: () => this.hideWon() }, "Look at the tables"));
    this.showOverlay("podium", "Race finished", [mine ? el("p.won-sub", {}, `You finished ${ordinal(mine.place)}`) : null, list], actions);
  }

  /** Moves, score and time as a row of figures. @param {{moves?: number, score?: number, seconds?: number}} info */
  figures(info) {
    const rows = [
      ["Moves", info.moves],
      ["Score", info.score],
      ["Time", typeof info.seconds === "number" ? formatDuration(info.seconds) : undefined],
    ].filter(([, v]) => v !== undefined && v !== null);
    return el("dl.won-stats", {}, ...rows.map(([k, v]) => el("div", {}, el("dt", {}, String(k)), el("dd", { dataset: { stat: String(k).toLowerCase() } }, String(v)))));
  }

  /**
   * @param {string} kind "won", "finish" or "podium"
   * @param {string} title
   * @param {(Node | null)[]} body
   * @param {Node[]} actions
   */
  showOverlay(kind, title, body, actions) {
    this.overlay.dataset.kind = kind;
    this.overlay.replaceChildren(el("div.won-card", {},
      el("div.won-suits", { "aria-hidden": "true" }, el("span", {}, "\u2660\uFE0E"), el("span.red", {}, "\u2665\uFE0E"), el("span", {}, "\u2663\uFE0E"), el("span.red", {}, "\u2666\uFE0E")),
      el("h2#won-title", {}, title),
      ...body,
      el("div.won-actions", {}, ...actions)));
    const wasHidden = this.overlay.hidden;
    this.overlay.hidden = false;
    if (wasHidden) /** @type {HTMLElement | null} */ (this.overlay.querySelector(".btn"))?.focus({ preventScroll: true });
  }

  hideWon() {
    this.overlay.hidden = true;
  }

  /** A game command; errors other than illegal moves are shown. @param {any} message */
  command(message) {
    return this.session.command(message).catch((error) => {
      if (error.code !== "illegal-move" && error.code !== "cancelled") toast(error.message || error.code, "error");
      throw error;
    });
  }

  undo() {
    this.command({ type: "undo" }).catch((e) => { if (e.code === "illegal-move") toast("Nothing to undo"); });
  }

  askHint() {
    this.conn.request({ type: "hint" }).catch((e) => toast(e.message || "No hint", "error"));
  }

  /**
   * A hint: the move is marked on the table. `winnable: false` (PROTOCOL
   * section 12) means the position is lost whatever is played: that is said
   * until the table changes; `true`, `null` or no verdict say nothing more.
   * @param {any} h
   */
  hint(h) {
    if (!(this.board instanceof KlondikeView || this.board instanceof RaceView)) return;
    const lost = h.winnable === false;
    this.showLost(lost);
    if (!h.from) {
      if (!lost) toast(this.kind === "race" ? "No useful move left" : "No useful move left: try a new deal");
      return;
    }
    this.board.showHint(h.from, h.to);
  }

  /** Shows or clears the solver's "lost" verdict. @param {boolean} lost */
  showLost(lost) {
    this.lostAt = lost ? this.ownTable?.moves ?? 0 : null;
    this.note.hidden = !lost;
    this.note.dataset.winnable = lost ? "false" : "";
    this.note.textContent = lost ? `${LOST_DEAL_TEXT}. ${this.kind === "race" ? "Undo to go back." : "Undo, or start a new deal."}` : "";
  }

  /** @param {boolean} fromShake */
  async newDeal(fromShake) {
    if (!this.isPlayer) return;
    const s = this.session.state;
    if (this.kind === "plane") {
      if (this.board instanceof PlaneView) this.board.clear();
      return;
    }
    if (this.kind === "race") {
      // Nothing is lost by then: every table is won.
      if (s && s.status === "finished") this.command({ type: "reset" }).catch(() => {});
      else if (!fromShake) toast("A new race can be dealt once every table is won");
      return;
    }
    if (document.querySelector("dialog[open]")) return;
    const inProgress = s && s.status === "playing" && s.moves > 0;
    if (inProgress && !(await confirmDialog("New deal?", fromShake ? "You shook the phone. Start a new deal? This one will be lost." : "Start a new deal? This one will be lost.", "New deal"))) return;
    this.command({ type: "reset" }).catch(() => {});
  }

  /** @param {KeyboardEvent} e */
  key(e) {
    const target = /** @type {HTMLElement} */ (e.target);
    if (target.closest("input, textarea, select, dialog, [contenteditable]") || e.altKey) return;
    if (e.key === "Escape" && !this.overlay.hidden) {
      this.hideWon();
      return;
    }
    if (!this.hasTables) return;
    const k = e.key.toLowerCase();
    if ((e.ctrlKey || e.metaKey) && k === "z" && !e.shiftKey) {
      if (!this.isPlayer) return;
      e.preventDefault();
      this.undo();
    } else if (e.ctrlKey || e.metaKey) {
      return;
    } else if (k === "h") {
      if (this.kind === "klondike" || this.isPlayer) this.askHint();
    } else if (k === "n" && this.isPlayer) {
      this.newDeal(false);
    }
  }

  /** @param {any} error */
  fatal(error) {
    // A race refuses a valid token when no seat is free (the message says which).
    const seats = error.code === "forbidden" && /\bseat/.test(String(error.message));
    const body = [el("h2", {}, error.code === "not-found" ? "No such game" : seats ? "No free seat" : "Cannot open this game"),
      el("p", {}, error.code === "not-found" ? `There is no game ${this.game} on this server.`
        : seats ? `You cannot sit down at this race: ${error.message}.`
        : error.code === "forbidden" ? "This play link's token is not valid for this game." : error.message)];
    const actions = [el("a.btn.primary", { href: "#/" }, "Back to the lobby")];
    if (error.code === "forbidden") actions.push(el("a.btn", { href: routeHash({ name: "watch", game: this.game }) }, "Watch instead"));
    this.session.close();
    this.board?.destroy();
    this.board = null;
    if ((error.code === "forbidden" && !seats) || error.code === "not-found") forgetToken(this.game);
    rememberSeat(this.game, undefined);
    this.tools.replaceChildren();
    this.share.replaceChildren();
    this.presence.replaceChildren();
    this.stats.replaceChildren();
    this.showLost(false);
    this.roleBadge.hidden = true;
    this.title.textContent = "Game not available";
    this.chat.root.hidden = true;
    this.body.classList.add("no-chat");
    this.boardHost.replaceChildren(el("div.notice", { role: "alert" }, ...body, el("div.notice-actions", {}, ...actions)));
  }

  destroy() {
    document.removeEventListener("keydown", this.keyHandler);
    this.shake.disable();
    this.session.close();
    this.board?.destroy();
    this.chat.destroy();
    if (this.conn.status === "open") this.conn.request({ type: "leave" }).catch(() => {});
    this.root.remove();
  }
}
