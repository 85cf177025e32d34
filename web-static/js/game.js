// @ts-check
/**
 * A game being played or watched: the session (state from the server), the
 * board its kind draws, the toolbar, sharing, presence, the chat, and the
 * result. Everything that depends on the kind of game comes from its
 * descriptor in the registry (games.js): this view is the shell around it
 * (the `Shell` a kind's Play is given).
 *
 * As on lichess, the result never covers the board: it is a panel beside it
 * (above the chat) on a wide screen, and under it on a narrow one.
 */
import { GameSession } from "./session.js";
import { gameKind } from "./games.js";
import { ShakeDetector } from "./motion.js";
import { ChatPanel } from "./chatpanel.js";
import { formatDelay } from "./chat.js";
import { el, icon, toast, formatDuration, plural, keepSideFitted } from "./ui.js";
import { routeHash, routeURL, rememberToken, forgetToken, knownSeat, rememberSeat, rememberKey, knownKey } from "./routes.js";
import { rememberEnd, knownEnd } from "./ends.js";

export { LOST_DEAL_TEXT } from "./tableplay.js";

/** @typedef {import("./boardcast.js").Connection} Connection */
/** @typedef {import("./games.js").GameKind} GameKind */
/** @typedef {import("./games.js").Play} Play */

export class GameView {
  /**
   * @param {HTMLElement} host
   * @param {Connection} conn
   * @param {{game: string, token?: string, role: "player" | "spectator", adopt?: boolean, kind?: string, key?: string,
   *   auth?: import("./auth.js").Auth}} options
   *   key: a spectator's watch key (`#/watch/GAME/KEY`); auth: this page's sign-in, if any
   */
  constructor(host, conn, options) {
    this.conn = conn;
    this.game = options.game;
    this.token = options.token;
    this.role = options.role;
    this.auth = options.auth ?? null;
    /** @type {string | null} */
    this.kind = options.kind || null;
    /** @type {GameKind | null} the kind's descriptor */
    this.gameKind = null;
    /** @type {any} the kind's board view */
    this.board = null;
    /** @type {Play | null} what the kind does around its board */
    this.play = null;
    /** what the share buttons were last built from, so a change of state rebuilds them only when it matters */
    this.shareKey = "";
    if (this.token) rememberToken(this.game, this.token);

    this.title = el("h1.game-title", {}, "Loading\u2026");
    this.stats = el("div.stats", { "aria-live": "polite" });
    this.presence = el("span.presence", {}, "");
    this.delayNote = el("span.delay-note", { hidden: true });
    this.roleBadge = el("span.badge.role.watching", { hidden: this.role === "player" }, "Watching", this.delayNote);
    this.tools = el("div.tools", { role: "toolbar", "aria-label": "Game" });
    this.note = el("p.hint-note", { role: "status", hidden: true });
    // The solver's word on a position that can still be won, or that it could not decide (PROTOCOL section 12).
    this.verdict = el("p.verdict-note", { role: "status", hidden: true });
    // A table without seats open in more than one window: every one of them moves its cards.
    this.sharedNote = el("p.shared-note", { role: "status", hidden: true });
    this.share = el("div.share");
    this.boardHost = el("div.board-host");
    // The result (and "playing in another window"): a panel beside or under the board, never over it.
    this.overlay = el("section.won-overlay", { hidden: true, "aria-live": "polite", "aria-labelledby": "won-title" });
    this.side = el("div.game-side", {}, this.overlay);
    this.boardWrap = el("div.board-wrap", {}, this.boardHost);
    this.body = el("div.game-body", {}, this.boardWrap, this.side);
    this.root = el("section.game", { dataset: { game: this.game } },
      el("header.game-head", {},
        el("div.head-left", {}, el("a.btn.icon-btn.back", { href: "#/", "aria-label": "Back to the lobby", title: "Lobby" }, icon("back")), this.title, this.roleBadge),
        el("div.head-right", {}, this.presence, this.share)),
      el("div.game-bar", {}, this.stats, this.tools),
      el("div.notes", {}, this.note, this.verdict, this.sharedNote),
      this.body);
    host.append(this.root);
    const head = /** @type {HTMLElement[]} */ ([...this.root.children].filter((e) => e !== this.body));
    this.stopFitting = keepSideFitted(this.side, this.boardWrap, head);
    this.chat = new ChatPanel(this.side, {
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
      key: options.key,
      signedIn: () => !!this.auth?.hasToken,
    });
    this.session.on("joined", (m) => this.joined(m));
    this.session.on("change", (c) => this.changed(c));
    this.session.on("event", (e) => this.event(e));
    this.session.on("presence", () => this.updatePresence());
    this.session.on("hint", (h) => this.play?.hint?.(h));
    this.session.on("fatal", (error) => this.fatal(error));
    this.session.on("seat", (s) => this.seatRefused(s));
    this.session.on("chat", (log) => this.chat.setLines(log.lines));
    this.session.on("names", () => this.namesChanged());
    this.session.on("left", () => this.replaced());
    this.paintChatMember();
    this.keyHandler = (/** @type {KeyboardEvent} */ e) => this.key(e);
    document.addEventListener("keydown", this.keyHandler);
    this.shake = new ShakeDetector(() => this.newDeal(true));
    // A kind whose shake only means something once the game is over asks for motion on the first
    // move on its board (a gesture, as iOS requires), not with a Shake button in the middle of the game.
    this.motionAsked = false;
    this.boardHost.addEventListener("pointerup", () => this.askMotion());
    this.boardHost.addEventListener("click", () => this.askMotion());
    this.buildShare();
    if (this.kind) this.setKind(this.kind);
  }

  get isPlayer() {
    return this.role === "player";
  }

  /** Whether the game shown is over (won, drawn, finished): a kind that never ends never is. */
  get over() {
    const s = this.session.state;
    return !!s && !!this.gameKind?.over?.(s);
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
    // A reload of this tab sits down at the same seat.
    if (this.gameKind?.seats && m.role === "player" && m.you) rememberSeat(this.game, m.you);
    // A player's watch key, for the watch and replay links of a game watched by link (PROTOCOL section 19).
    if (m.role === "player" && typeof m.key === "string" && m.key) rememberKey(this.game, m.key);
    if (this.root.dataset.watch !== this.session.watch) {
      this.root.dataset.watch = this.session.watch;
      // The Replay tool goes in a game nobody may watch.
      if (this.gameKind) this.buildTools();
    }
    this.buildShare();
    this.paintChatMember();
  }

  /** Which room this page writes to, whether it may mute, and who reads what. */
  paintChatMember() {
    const delay = this.session.delay;
    this.chat.setMember(this.isPlayer ? "players" : "spectators", this.isPlayer);
    if (this.isPlayer) {
      const after = this.gameKind ? this.gameKind.playersReadSpectatorsAfter : true;
      const late = delay ? `, ${formatDelay(delay)} late` : "";
      this.chat.setNote(after && this.over
        ? `The game is over: the spectators\u2019 messages show here too. They read yours${late}.`
        : `Spectators read this too${late}.${after ? " Theirs show here once the game is over." : ""}`);
    } else {
      this.chat.setNote(`Players don\u2019t see this room while they play.${delay ? ` The game reaches you ${formatDelay(delay)} late.` : ""}`);
    }
    this.chat.root.dataset.over = String(this.over);
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
    if (s.held && s.attempt === 1) toast(`Taking back your seat ${s.seat.toUpperCase()}\u2026`);
    if (!s.held) rememberSeat(this.game, undefined);
  }

  /** Draws the game as its kind says. @param {string} kind */
  setKind(kind) {
    this.kind = kind;
    this.root.dataset.kind = kind;
    this.play?.destroy?.();
    this.board?.destroy();
    this.play = null;
    this.board = null;
    this.gameKind = gameKind(kind);
    if (!this.gameKind) {
      this.boardHost.replaceChildren(el("div.notice", { role: "alert" },
        el("h2", {}, "Cannot show this game"),
        el("p", {}, `This page does not know games of kind \u201c${kind}\u201d.`),
        el("div.notice-actions", {}, el("a.btn.primary", { href: "#/" }, "Back to the lobby"))));
      this.tools.replaceChildren();
      this.updateTitle();
      return;
    }
    const send = (/** @type {any} */ message) => this.command(message);
    this.board = this.gameKind.board(this.boardHost, {
      interactive: this.isPlayer, send, you: () => this.session.you,
      now: () => this.session.shownNow(), bots: () => this.session.bots, names: () => this.session.names,
      below: () => this.belowBoard(),
    });
    this.play = this.gameKind.play(this, this.board);
    if (this.session.state) this.board.setState(this.session.state, false, null);
    this.buildTools();
    this.updateTitle();
    this.paintChatMember();
  }

  /** What stands under the board on a narrow screen (the result), for a board sized to the screen. */
  belowBoard() {
    if (this.overlay.hidden) return 0;
    const under = getComputedStyle(this.side).display === "contents";
    return under ? this.overlay.getBoundingClientRect().height + 14 : 0;
  }

  updateTitle() {
    const { name, detail = "" } = this.gameKind ? this.gameKind.title(this.session.state) : { name: "Game" };
    this.title.replaceChildren(document.createTextNode(name), detail ? el("span.title-detail", {}, detail) : "", el("code.game-id", {}, this.game));
    document.title = `${name}${detail} ${this.game} \u00b7 Boardcast`;
  }

  /**
   * A toolbar button.
   * @param {string} label @param {string} name the icon @param {string} key its shortcut, for the title
   * @param {() => void} fn @param {string} cls
   */
  tool(label, name, key, fn, cls) {
    return el(`button.btn.tool.${cls}`, { type: "button", onclick: fn, title: key ? `${label} (${key})` : label, "aria-keyshortcuts": key || undefined }, icon(name), el("span.label", {}, label));
  }

  /** A figure of the stats row. @param {string} label @param {any} value @param {string} cls */
  stat(label, value, cls) {
    return el(`span.stat.${cls}`, {}, el("span.stat-label", {}, label), el("span.stat-value", {}, String(value)));
  }

  buildTools() {
    const tools = [...(this.play?.tools?.() ?? [])];
    // Shaking does something mid-game only in some kinds (a new deal, a clear plane): only they ask for motion.
    if (this.isPlayer && this.gameKind?.shake && ShakeDetector.needsPermission() && !this.shake.listening) {
      tools.push(this.tool("Shake", "shake", "", () => this.enableShake(), "shake-enable"));
    }
    // A game with no spectators has no replay either (PROTOCOL section 19).
    if (this.session.watch !== "players") tools.push(el("a.btn.tool.replay-link", { href: routeHash(this.replayRoute()), title: "Replay from the start" }, icon("replay"), el("span.label", {}, "Replay")));
    // On a phone the chat is under the table, out of sight: this takes you there.
    tools.push(el("button.btn.tool.chat-jump", { type: "button", title: "Chat", onclick: () => this.chat.reveal() }, icon("chat"), el("span.label", {}, "Chat"), this.unreadBadge));
    this.tools.replaceChildren(...tools);
    this.updateStats();
    if (this.isPlayer && ShakeDetector.available() && !ShakeDetector.needsPermission()) this.shake.enable();
  }

  /** The first gesture on a board whose kind shakes for a rematch: motion is asked for, quietly. */
  askMotion() {
    if (this.motionAsked || !this.isPlayer || !this.gameKind?.shakeOver || this.shake.listening || !ShakeDetector.needsPermission()) return;
    this.motionAsked = true;
    this.shake.enable().catch(() => {});
  }

  async enableShake() {
    const ok = await this.shake.enable();
    const what = this.gameKind?.shake;
    toast(ok ? `Shake the phone ${what ?? "for a new game"}` : "Motion access was not allowed", ok ? "info" : "error");
    this.buildTools();
  }

  /** The play link, when this page holds the game's token and the game still has room for someone to play. */
  playURL() {
    if (!this.isPlayer || !this.token) return null;
    const offered = this.gameKind?.invites ? this.gameKind.invites(this.session.state, this.session.bots) : true;
    return offered ? routeURL({ name: "play", game: this.game, token: this.token }) : null;
  }

  /**
   * The replay of this game, with the watch key when it has one (a player's `joined`
   * gives it; a spectator came with it).
   */
  replayRoute() {
    return /** @type {const} */ ({ name: "replay", game: this.game, key: this.session.key });
  }

  /** The watch link: with the key of a game watched by link (`#/watch/GAME/KEY`). */
  watchURL() {
    return routeURL({ name: "watch", game: this.game, key: this.session.key });
  }

  buildShare() {
    const watchURL = this.watchURL();
    const play = this.playURL();
    const key = `${this.session.watch}|${watchURL}|${play ?? ""}`;
    if (key === this.shareKey) return;
    this.shareKey = key;
    /** @param {string} label @param {string} short what a phone shows @param {string} name the icon @param {string} url @param {string} cls @param {"watch" | "play"} what */
    const button = (label, short, name, url, cls, what) =>
      el(`button.btn.small.share-btn.${cls}`, {
        type: "button",
        dataset: { url },
        "aria-label": label,
        title: `${label}: show it and copy it`,
        onclick: () => this.copyLink(url, what),
      }, icon(name), el("span.label", { "aria-hidden": "true" }, el("span.label-long", {}, label), el("span.label-short", {}, short)));
    // A game for its players only has nobody to share a watch link with.
    const buttons = this.session.watch === "players"
      ? [el("span.badge.players-only", { title: "Nobody may watch this game" }, "Players only")]
      : [button("Watch link", "Watch", "eye", watchURL, "share-watch", "watch")];
    if (play) buttons.push(button(this.gameKind?.seats ? "Invite" : "Play link", this.gameKind?.seats ? "Invite" : "Play", "invite", play, "share-play", "play"));
    this.share.replaceChildren(...buttons);
  }

  /** What a link does, said where it is shown. @param {"watch" | "play"} what */
  linkText(what) {
    const noun = this.gameKind?.noun ?? "game";
    if (what === "play") return this.gameKind?.inviteText ?? `Whoever opens this link plays this ${noun}.`;
    const delay = this.session.delay;
    const who = this.session.watch === "link" ? "Only people with this link may watch. " : "";
    return `${who}Whoever opens it watches this ${noun} live${delay ? `, ${formatDelay(delay)} behind the players` : ""}; they cannot move.`;
  }

  /**
   * Shows a link with what it does, selected, and copies it at once: the address is always
   * in sight, so it can be read out or copied by hand where the clipboard is refused.
   * @param {string} url @param {"watch" | "play"} what
   */
  async copyLink(url, what) {
    document.querySelector("dialog.link-dialog")?.remove();
    const title = what === "play" ? (this.gameKind?.seats ? "Invite a friend" : "Play link") : "Watch link";
    const dialog = /** @type {HTMLDialogElement} */ (el("dialog.confirm.link-dialog", { "aria-labelledby": "link-title", dataset: { what } }));
    const input = /** @type {HTMLInputElement} */ (el("input.link-field", { type: "text", readonly: true, value: url, "aria-label": title, spellcheck: "false" }));
    const said = el("p.link-copied", { role: "status" }, "");
    const copy = /** @type {HTMLButtonElement} */ (el("button.btn.link-copy", { type: "button" }, "Copy"));
    const doCopy = async () => {
      input.focus();
      input.select();
      // The field in the dialog is what is copied: the rest of the page is inert while it is open.
      let ok = false;
      try {
        if (navigator.clipboard && window.isSecureContext) {
          await navigator.clipboard.writeText(url);
          ok = true;
        }
      } catch {
        ok = false;
      }
      if (!ok) {
        input.select();
        try { ok = document.execCommand("copy"); } catch { ok = false; }
      }
      said.textContent = ok ? "Copied to the clipboard." : "Select the link and copy it.";
      copy.textContent = ok ? "Copied" : "Copy";
      said.dataset.ok = String(ok);
    };
    copy.addEventListener("click", doCopy);
    dialog.append(el("form", { method: "dialog" },
      el("h2#link-title", {}, title),
      el("p.link-what", {}, this.linkText(what)),
      el("div.link-row", {}, input, copy),
      said,
      el("div.dialog-buttons", {}, el("button.btn.primary", { type: "submit" }, "Done"))));
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
    await doCopy();
  }

  /** @param {import("./session.js").StateChange} change */
  changed(change) {
    if (!this.kind && this.session.kind) this.setKind(this.session.kind);
    // The last move is marked (lichess): from the state before the diff; a snapshot has none.
    this.board?.setState(change.state, change.prev !== null, change.via === "diff" ? change.prev : null);
    this.updateTitle();
    this.updateStats();
    this.play?.changed?.(change);
    const over = this.over;
    const wasOver = change.prev ? !!this.gameKind?.over?.(change.prev) : over;
    if (change.via === "diff" && over && !wasOver && this.isPlayer && this.gameKind?.playersReadSpectatorsAfter) {
      // The players read the spectators' room from now on: the server gives its earlier lines on a join.
      this.session.catchUpChat();
    }
    if (over !== wasOver || change.via === "snapshot") this.paintChatMember();
    this.buildShare();
  }

  updateStats() {
    const s = this.session.state;
    if (!s || !this.play) return;
    this.stats.replaceChildren(...(this.play.stats?.(s) ?? []));
  }

  updatePresence() {
    const { players, spectators } = this.session;
    // The signed-in players by name (PROTOCOL section 19): whoever holds a seat, here or not.
    const names = Object.entries(this.session.names).sort(([a], [b]) => a.localeCompare(b, undefined, { numeric: true }));
    const you = this.isPlayer ? this.session.you : undefined;
    const parts = [el("span.presence-players", {}, plural(players, "player"))];
    if (names.length) {
      parts.push(el("span.presence-names", { title: "Players signed in" },
        ...names.flatMap(([player, name], i) => [i ? ", " : "", el("span.presence-name", { dataset: { player } }, player === you ? `${name} (you)` : name)])));
    }
    parts.push(el("span.presence-watching", {}, `${spectators} watching`));
    this.presence.replaceChildren(...parts);
    // A table without seats (Klondike) open in several windows: each moves the same cards.
    const shared = !!this.gameKind?.solo && this.isPlayer && players > 1;
    this.sharedNote.hidden = !shared;
    this.sharedNote.textContent = shared
      ? `This table is open in ${players} windows (its play link was opened elsewhere): a move made in any of them counts here.`
      : "";
    this.play?.presence?.(players);
  }

  /** The players' names changed: on the seats and in the presence line. */
  namesChanged() {
    this.board?.namesChanged?.();
    this.updatePresence();
  }

  /** Another page of the same signed-in user took this game's seat (`left`): say so, offer it back. */
  replaced() {
    this.showOverlay("replaced", "Playing in another window", [
      el("p.won-sub", {}, `You opened this ${this.gameKind?.noun ?? "game"} in another window or on another device, which plays it now.`),
    ], [
      el("button.btn.primary.take-back", { type: "button", onclick: () => { this.hideWon(); this.session.takeBack(); } }, "Play here"),
      el("a.btn", { href: "#/" }, "Back to the lobby"),
    ]);
  }

  /** @param {any} e */
  event(e) {
    // The end of the game (not a race table's finish while others play on): its time, for a reload.
    if ((e.event === "won" || e.event === "drawn") && this.over) rememberEnd(this.game, e);
    this.play?.event?.(e);
  }

  /**
   * The end of the game as an event said it, for a state that shows it ended (a reload):
   * its time, which the state does not keep.
   * @param {any} state
   */
  knownEnd(state) {
    return knownEnd(this.game, this.session.seq, state);
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

  /** The result's link to the replay (none in a game nobody may watch). */
  replayButton() {
    if (this.session.watch === "players") return null;
    return el("a.btn.won-replay", { href: routeHash(this.replayRoute()) }, "Replay");
  }

  /**
   * The result panel (or another message about the game), beside the board or under it.
   * @param {string} kind what the message is about ("won", "finish", "podium"...)
   * @param {string} title
   * @param {(Node | null)[]} body
   * @param {(Node | null)[]} actions
   * @param {Node} [art] what stands beside the title (the four suits unless given)
   */
  showOverlay(kind, title, body, actions, art) {
    this.overlay.dataset.kind = kind;
    delete this.overlay.dataset.result;
    delete this.overlay.dataset.reason;
    this.overlay.replaceChildren(el("div.won-card", {},
      el("div.won-head", {},
        art ?? el("div.won-suits", { "aria-hidden": "true" }, el("span", {}, "\u2660\uFE0E"), el("span.red", {}, "\u2665\uFE0E"), el("span", {}, "\u2663\uFE0E"), el("span.red", {}, "\u2666\uFE0E")),
        el("h2#won-title", {}, title)),
      ...body,
      el("div.won-actions", {}, ...actions)));
    const wasHidden = this.overlay.hidden;
    this.overlay.hidden = false;
    this.root.dataset.result = kind;
    if (wasHidden) this.resultMoved();
  }

  hideWon() {
    if (this.overlay.hidden) return;
    this.overlay.hidden = true;
    delete this.root.dataset.result;
    this.resultMoved();
  }

  /** The result came or went: a board sized to the screen makes room, and the result is brought into sight. */
  resultMoved() {
    this.board?.relayout?.();
    if (!this.overlay.hidden) {
      const r = this.overlay.getBoundingClientRect();
      const bar = /** @type {HTMLElement | null} */ (document.querySelector(".game-bar .tools"));
      const bottom = bar && getComputedStyle(bar).position === "fixed" ? bar.getBoundingClientRect().top : innerHeight;
      if (r.top < 0 || r.bottom > bottom) this.overlay.scrollIntoView({ block: "nearest" });
    }
  }

  /** A game command; errors other than illegal moves are shown. @param {any} message */
  command(message) {
    return this.session.command(message).catch((error) => {
      // `stale`: the board moved on under the gesture (the client module refused to send it); say so plainly.
      if (error.code === "stale") toast("The board changed before your move went out. Look again and play.", "error");
      else if (error.code !== "illegal-move" && error.code !== "cancelled") toast(error.message || error.code, "error");
      throw error;
    });
  }

  askHint() {
    this.conn.request({ type: "hint" }).catch((e) => toast(e.message || "No hint", "error"));
  }

  /**
   * The solver's word on a position (PROTOCOL section 12), said under the game bar
   * until the position changes; empty hides it.
   * @param {string} text @param {"true" | "null" | ""} winnable
   */
  setVerdict(text, winnable) {
    this.verdict.hidden = !text;
    this.verdict.textContent = text;
    this.verdict.dataset.winnable = winnable;
  }

  /** N, a New button, a shake: whatever a new game is in this kind. @param {boolean} fromShake */
  newDeal(fromShake) {
    if (!this.isPlayer) return;
    this.play?.newGame?.(fromShake);
  }

  /** @param {KeyboardEvent} e */
  key(e) {
    const target = /** @type {HTMLElement} */ (e.target);
    if (target.closest("input, textarea, select, dialog, [contenteditable]") || e.altKey) return;
    if (e.key === "Escape" && !this.overlay.hidden) {
      this.hideWon();
      return;
    }
    this.play?.key?.(e);
  }

  /** @param {any} error */
  fatal(error) {
    const forbidden = error.code === "forbidden";
    const why = String(error.message || error.code);
    // Watching refused (PROTOCOL section 19): a game watched by link, without its key
    // or with a wrong one, or a game for its players only.
    const watching = forbidden && this.session.sent === "watch";
    // A player without the token, whom the server does not know in this game.
    const unknown = forbidden && !watching && !this.token;
    // A game with seats refuses a valid token when no seat is free (the message says which).
    const seats = forbidden && !watching && /\bseat/.test(why);
    const noun = this.gameKind?.noun ?? "game";
    const name = this.auth?.name;
    const title = error.code === "not-found" ? "No such game" : watching ? "You may not watch this game" : seats ? "No free seat" : "Cannot open this game";
    const text = error.code === "not-found" ? `There is no game ${this.game} on this server.`
      : watching ? (/spectator/.test(why) ? `This ${noun} is for its players only: nobody may watch it.`
        : `Only people with its watch link may watch this ${noun}, and this link has no key or a wrong one. Ask a player for the watch link.`)
      : seats ? `You cannot sit down at this ${noun}: ${why}.`
      : unknown ? `${name ? `You are signed in as ${name}, who did not play this ${noun}` : "You are not signed in"}: open its play link instead.`
      : forbidden ? "This play link's token is not valid for this game." : why;
    // The server's own words too, where ours put them in other words.
    const detail = watching || unknown ? el("p.notice-detail", {}, `The server says: ${why}.`) : null;
    const body = [el("h2", {}, title), el("p.notice-why", {}, text), detail];
    const actions = [el("a.btn.primary", { href: "#/" }, "Back to the lobby")];
    if (forbidden && !watching) actions.push(el("a.btn", { href: routeHash({ name: "watch", game: this.game, key: knownKey(this.game) }) }, "Watch instead"));
    this.session.close();
    this.play?.destroy?.();
    this.play = null;
    this.board?.destroy();
    this.board = null;
    if ((forbidden && !seats && this.token) || error.code === "not-found") forgetToken(this.game);
    rememberSeat(this.game, undefined);
    this.tools.replaceChildren();
    this.share.replaceChildren();
    this.shareKey = "";
    this.presence.replaceChildren();
    this.stats.replaceChildren();
    this.note.hidden = true;
    this.note.textContent = "";
    this.setVerdict("", "");
    this.sharedNote.hidden = true;
    this.hideWon();
    this.roleBadge.hidden = true;
    this.title.textContent = "Game not available";
    this.chat.root.hidden = true;
    this.side.hidden = true;
    this.body.classList.add("no-chat");
    this.boardHost.replaceChildren(el("div.notice", { role: "alert", dataset: { code: String(error.code), why: watching ? "watch" : unknown ? "unknown" : seats ? "seat" : "" } }, ...body, el("div.notice-actions", {}, ...actions)));
  }

  destroy() {
    this.stopFitting();
    document.removeEventListener("keydown", this.keyHandler);
    document.querySelector("dialog.link-dialog")?.remove();
    this.shake.disable();
    this.session.close();
    this.play?.destroy?.();
    this.board?.destroy();
    this.chat.destroy();
    if (this.conn.status === "ready") this.conn.request({ type: "leave" }).catch(() => {});
    this.root.remove();
  }
}
