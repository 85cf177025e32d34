// @ts-check
/**
 * One game as this page knows it, on the page's one connection: the state the client
 * module's HeldState keeps (a snapshot, then diffs in seq order), and what the page adds
 * around it (the seat it asks for again, the chat's backlog, names, being replaced by
 * another page). A gap in seq or a lost connection resyncs with `join`/`watch` + `since`,
 * on the connection's open before the commands it sends again (PROTOCOL section 21).
 */
import { HeldState, BoardcastError } from "./boardcast.js";
import { ChatLog, chatLine, delayOf } from "./chat.js";
import { hasSeats } from "./games.js";
import { ServerClock } from "./clocks.js";
import { botsOf } from "./bots.js";

/** How often a seated player asks again for a seat its own dropped connection still holds. */
const SEAT_RETRIES = 30;

/** @typedef {import("./boardcast.js").Connection} Connection */
/** @typedef {import("./boardcast.js").Message} Message */

/**
 * @typedef {object} StateChange
 * @property {any} prev the state before (null for the first snapshot)
 * @property {any} state the state now
 * @property {"snapshot" | "diff"} via
 * @property {Message | null} cause the diff's cause
 */

export class GameSession {
  /**
   * @param {Connection} conn
   * @param {{game: string, token?: string, role: "player" | "spectator", adopt?: boolean, seat?: string, key?: string, signedIn?: () => boolean}} options
   *   adopt: the server is already joining us (after `create`); do not send join.
   *   seat: the seat to ask for on the first join (the one this tab held before a reload), in a kind with seats
   *   key: the watch key of a game watched by link only (PROTOCOL section 19), sent with `watch`
   *   signedIn: whether this page signs its connection in (auth.js): a player without the
   *     game's token then joins without one, and the server gives a signed-in user's seat back
   */
  constructor(conn, options) {
    this.conn = conn;
    this.game = options.game;
    this.token = options.token;
    this.role = options.role;
    /** @type {string | undefined} the watch key: the one a spectator came with, or the one `joined` gives a player */
    this.key = options.key;
    this.signedIn = options.signedIn ?? (() => false);
    /** @type {string} who may watch (PROTOCOL section 19): "anyone", "link" or "players" */
    this.watch = "anyone";
    /** @type {{[player: string]: string}} names of the players signed-in users hold (PROTOCOL section 19) */
    this.names = {};
    /** another connection of the same user took this page's place in the game (`left`) */
    this.replaced = false;
    /** @type {string} what the last (re)join sent: "join" or "watch" */
    this.sent = "";
    /** @type {string | undefined} a remembered seat, asked for until we hold one */
    this.seat = options.seat;
    this.seatRetries = 0;
    this.seatTimer = 0;
    /** @type {string | null} */
    this.kind = null;
    /** @type {string | undefined} */
    this.you = undefined;
    /** the state held (`seq`, `state`): the client module's, as any of its clients keeps it */
    this.held = new HeldState();
    /** the server's time, corrected by the offset `joined`'s `now` gives (turn clocks, PROTOCOL section 17) */
    this.serverClock = new ServerClock();
    /** @type {{[seat: string]: number}} the seats bots play, with their levels (PROTOCOL section 18) */
    this.bots = {};
    /** @type {{initial: number, increment: number} | null} the game's turn clock, if it has one */
    this.clockOption = null;
    this.players = 0;
    this.spectators = 0;
    /** the spectator delay in seconds, 0 for none (from `joined`) */
    this.delay = 0;
    this.chat = new ChatLog();
    this.closed = false;
    this.resyncing = false;
    /** the connection dropped since we last joined */
    this.lost = false;
    /** @type {{[name: string]: Set<(arg: any) => void>}} */
    this.listeners = { change: new Set(), event: new Set(), presence: new Set(), joined: new Set(), hint: new Set(), fatal: new Set(), seat: new Set(), chat: new Set(), names: new Set(), left: new Set() };
    this.unsubscribe = [
      conn.on("message", (m) => this.handle(m)),
      conn.on("status", (s) => { if (s === "reconnecting") this.lost = true; }),
      // On the open connection, awaited: the commands it sends again follow the re-join.
      conn.onOpen(() => {
        if (!this.lost) return;
        this.lost = false;
        if (!this.resyncing) return this.rejoin(false, true);
      }),
    ];
    if (!options.adopt) this.rejoin();
  }

  /** @type {any} the state held (null before the first snapshot) */
  get state() {
    return this.held.state ?? null;
  }

  /** @type {number | null} its seq */
  get seq() {
    return this.held.seq;
  }

  /**
   * @param {"change" | "event" | "presence" | "joined" | "hint" | "fatal" | "seat" | "chat" | "names" | "left"} name
   * @param {(arg: any) => void} listener
   */
  on(name, listener) {
    this.listeners[name].add(listener);
    return () => this.listeners[name].delete(listener);
  }

  /** @param {string} name @param {any} arg */
  emit(name, arg) {
    for (const listener of this.listeners[name]) listener(arg);
  }

  /**
   * The server's time as of the state this page shows, in ms: a spectator of a
   * delayed game (PROTOCOL section 15) is shown everything `delay` seconds late,
   * so its clocks run that much behind the server's (section 17).
   */
  shownNow() {
    return this.serverClock.now() - (this.role === "spectator" ? this.delay * 1000 : 0);
  }

  /**
   * The seat a join asks for, in a kind with seats: the one this page holds (a
   * join without it would take the first free seat, which may be another
   * player's), else the one remembered from before a reload.
   * @returns {string | undefined}
   */
  seatToAsk() {
    if (this.role !== "player" || !this.token) return undefined;
    if (hasSeats(this.kind) && this.you) return this.you;
    return this.seat;
  }

  /**
   * What a join or watch sends: a player's `join` with the game's token; without
   * one, a signed-in player's `join` all the same (the server gives their seat
   * back, or answers forbidden); else `watch`, with the key of a game watched by link.
   * @returns {Message}
   */
  joinBody() {
    if (this.role === "player" && this.token) return { type: "join", game: this.game, token: this.token };
    if (this.role === "player" && this.signedIn()) return { type: "join", game: this.game };
    return this.key ? { type: "watch", game: this.game, key: this.key } : { type: "watch", game: this.game };
  }

  /**
   * The game ended and a player now reads the spectators' room (PROTOCOL section 15): the
   * server gives its earlier lines with a join, so the page joins again from what it holds,
   * keeping its own player id (a game without seats gives another one to a plain join).
   */
  catchUpChat() {
    if (this.role !== "player" || this.resyncing || this.closed || this.replaced || this.seq === null) return;
    const body = this.joinBody();
    if (body.type !== "join") return;
    if (this.you) body.seat = this.you;
    body.since = this.seq;
    this.resyncing = true;
    // Nothing is lost if it fails: the lines come with the next join (a reconnect, a reload).
    const done = (/** @type {any} */ error) => {
      this.resyncing = false;
      this.chatSynced();
      if (error?.code === "disconnected") this.lost = true;
    };
    this.conn.request(body).then(() => done(null), done);
  }

  /**
   * Join (player) or watch (spectator) the game, with `since` when a state is held.
   * @param {boolean} [fresh] ask for a snapshot
   * @param {boolean} [opening] from the connection's open hook: sent at once, before what waits
   * @returns {Promise<void>} when it is answered (it never rejects)
   */
  rejoin(fresh = false, opening = false) {
    if (this.closed || this.replaced) return Promise.resolve();
    clearTimeout(this.seatTimer);
    const body = this.joinBody();
    this.sent = body.type;
    const seat = this.seatToAsk();
    if (seat) body.seat = seat;
    if (this.seq !== null && !fresh) body.since = this.seq;
    this.resyncing = true;
    return (opening ? this.conn.exchange(body) : this.conn.request(body)).then(
      () => { this.resyncing = false; this.seatRetries = 0; this.chatSynced(); },
      (error) => {
        this.resyncing = false;
        this.chatSynced();
        if (error.code === "disconnected") this.lost = true;
        else if (this.closed) return;
        else if (error.code === "forbidden" && seat) this.seatRefused(seat, fresh, error);
        else this.emit("fatal", error);
      },
    );
  }

  /**
   * The seat we asked for is held by another connection.
   * @param {string} seat @param {boolean} fresh @param {any} error
   */
  seatRefused(seat, fresh, error) {
    if (hasSeats(this.kind) && this.you === seat) {
      // Our own seat: most likely held by our previous connection, which the
      // server has not seen drop yet (it does within two ping intervals).
      if (this.seatRetries++ < SEAT_RETRIES) {
        this.emit("seat", { seat, held: true, attempt: this.seatRetries });
        // While disconnected, the reconnect joins again by itself.
        this.seatTimer = window.setTimeout(() => { if (this.conn.status === "ready") this.rejoin(fresh); },
          Math.min(5000, 500 * 2 ** Math.min(this.seatRetries, 4)));
        return;
      }
      this.emit("fatal", error);
      return;
    }
    // A seat remembered from before a reload: the page we replaced may still hold
    // it for a moment, so ask once more; then it is someone else's: take a free one.
    if (this.seatRetries++ < 1) {
      this.seatTimer = window.setTimeout(() => { if (this.conn.status === "ready") this.rejoin(fresh); }, 1000);
      return;
    }
    this.seatRetries = 0;
    this.seat = undefined;
    this.emit("seat", { seat, held: false, attempt: 0 });
    this.rejoin(fresh);
  }

  /** @param {Message} m */
  handle(m) {
    if (this.closed || m.game !== this.game) {
      if (m.type === "hint" && m.game === undefined && !this.closed) this.emit("hint", m);
      return;
    }
    switch (m.type) {
      case "joined":
        this.kind = m.kind;
        this.role = m.role;
        this.you = m.you;
        this.delay = delayOf(m);
        // Every `joined` carries the server's time: clocks count down from it.
        this.serverClock.sync(m.now);
        this.bots = botsOf(m.bots);
        this.clockOption = m.clock && typeof m.clock === "object" ? m.clock : null;
        this.watch = m.watch === "link" || m.watch === "players" ? m.watch : "anyone";
        // A player's `joined` carries the watch key, for the watch link.
        if (typeof m.key === "string" && m.key) this.key = m.key;
        this.setNames(m.names);
        if (m.you) this.chat.mine.add(m.you);
        // Our join's reply carries the last lines again (a game just created has none).
        if (this.resyncing) this.chat.begin();
        this.emit("joined", m);
        break;
      case "snapshot": {
        this.kind = m.kind || this.kind;
        const change = this.held.snapshot(m);
        this.emit("change", { prev: change.prev ?? null, state: change.state, via: "snapshot", cause: null });
        break;
      }
      case "diff":
        this.applyDiff(m);
        break;
      case "event":
        this.emit("event", m);
        break;
      case "presence":
        this.players = m.players;
        this.spectators = m.spectators;
        this.setNames(m.names);
        this.emit("presence", m);
        break;
      case "left":
        // Our own `leave` closes the session first: this is another connection of
        // the same signed-in user taking the seat (PROTOCOL section 19). Not taken back
        // by itself: two pages would take it from each other for ever.
        this.replaced = true;
        clearTimeout(this.seatTimer);
        this.dropCommands();
        this.emit("left", m);
        break;
      case "hint":
        this.emit("hint", m);
        break;
      case "chat": {
        const line = chatLine(m);
        if (!line) break;
        this.chat.add(line);
        if (!this.chat.backlog) this.emit("chat", this.chat);
        break;
      }
    }
  }

  /**
   * The names of a `joined` or `presence` (absent when the server signs no one in: kept as they were).
   * @param {any} names
   */
  setNames(names) {
    if (!names || typeof names !== "object" || Array.isArray(names)) return;
    /** @type {{[player: string]: string}} */
    const next = {};
    for (const [player, name] of Object.entries(names)) if (typeof name === "string" && name) next[player] = name;
    if (JSON.stringify(next) === JSON.stringify(this.names)) return;
    this.names = next;
    this.emit("names", next);
  }

  /** How a player id is called: its signed-in user's name, else the id. @param {string | null | undefined} player */
  nameOf(player) {
    return (player && this.names[player]) || String(player ?? "");
  }

  /** Takes the game back after another page of ours took it (`left`). */
  takeBack() {
    if (this.closed) return;
    this.replaced = false;
    this.held.forget();
    this.rejoin(true);
  }

  /** The join's reply is complete: its chat backlog is laid over the lines held. */
  chatSynced() {
    if (!this.chat.backlog || this.closed) return;
    this.chat.end();
    this.emit("chat", this.chat);
  }

  /** @param {Message} m */
  applyDiff(m) {
    const result = this.held.diff(m);
    switch (result.outcome) {
      case "applied": {
        const { prev, state, cause } = result.change;
        this.emit("change", { prev: prev ?? null, state, via: "diff", cause });
        return;
      }
      case "gap":
        // Something was missed: ask again from what we hold; the server sends the rest in order.
        if (!this.resyncing) this.rejoin();
        return;
      case "broken":
        console.warn("diff did not apply, asking for a snapshot", m.seq, result.error.message);
        this.held.forget();
        this.rejoin(true);
        return;
      default:
        return; // before the first snapshot, or a seq already held
    }
  }

  /**
   * A game command; resolves with the ack, rejects with the module's BoardcastError.
   * Sent again with the same id after a reconnect, since ids are applied at most once; refused
   * `stale` instead if, by then, the server has shown a newer state than the one it was
   * chosen from (PROTOCOL section 21).
   * @param {Message} body
   */
  command(body) {
    const basedOn = this.seq;
    const check = () => this.held.staleness(basedOn);
    const refused = check();
    if (refused) return Promise.reject(refused);
    return this.conn.request(body, { resend: true, check });
  }

  /** Forgets the game commands still waiting for an answer (the game was left or taken over). */
  dropCommands() {
    this.conn.cancel((_, resend) => resend, new BoardcastError("cancelled", "left the game"));
  }

  close() {
    this.closed = true;
    clearTimeout(this.seatTimer);
    this.dropCommands();
    for (const off of this.unsubscribe) off();
  }
}
