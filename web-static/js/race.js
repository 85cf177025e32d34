// @ts-check
/**
 * A race (PROTOCOL section 13): one Klondike table per seat, all dealt alike.
 * A seated player sees their own table full size, with every gesture of the
 * Klondike table, and the rivals' tables small beside it (their cards arrive
 * as `??`, foundations real). A spectator sees every table side by side; on a
 * phone, one large and the others as thumbnails to switch to. Every table is
 * a KlondikeView showing `state.tables[seat]`; this view never changes the
 * state itself.
 */
import { KlondikeView } from "./klondike.js";
import { TablePlay } from "./tableplay.js";
import { el, icon, playerColor, plural, toast, formatDuration } from "./ui.js";
import { botLevel, botTag, LEVELS } from "./bots.js";

// ---- the race as data ---------------------------------------------------

/**
 * The seats of a race state in order: p1, p2, ..., p10.
 * @param {any} state
 * @returns {string[]}
 */
export function seatsOf(state) {
  const tables = state && state.tables && typeof state.tables === "object" ? Object.keys(state.tables) : [];
  const number = (/** @type {string} */ s) => Number(/(\d+)$/.exec(s)?.[1] ?? Infinity);
  return tables.sort((a, b) => number(a) - number(b) || a.localeCompare(b));
}

/** "1st", "2nd", "3rd", "4th", ..., "11th". @param {number} n */
export function ordinal(n) {
  const tens = n % 100, ones = n % 10;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ones === 1 ? "st" : ones === 2 ? "nd" : ones === 3 ? "rd" : "th";
  return `${n}${suffix}`;
}

/** How a seat is called on the page: "P2". @param {string} seat */
export function seatName(seat) {
  return seat.toUpperCase();
}

/**
 * A seat's name, saying when the computer plays it (PROTOCOL section 18): "P2 (computer)";
 * the name of the signed-in user who holds it (section 19), else "P2".
 * @param {string} seat @param {any} bots @param {{[seat: string]: string}} [names]
 */
export function playerName(seat, bots, names = {}) {
  if (botLevel(bots, seat)) return `${seatName(seat)} (computer)`;
  return (typeof names?.[seat] === "string" && names[seat]) || seatName(seat);
}

/** Cards on a table's foundations, 0 to 52. @param {any} table */
export function homeCount(table) {
  return (table?.foundations || []).reduce((/** @type {number} */ n, /** @type {any} */ f) => n + (Array.isArray(f) ? f.length : 0), 0);
}

/**
 * @typedef {object} Place
 * @property {number} place 1 for the first to finish
 * @property {string} seat
 * @property {number | undefined} moves
 * @property {number | undefined} score
 * @property {number | undefined} seconds only known from the `won` event
 */

/**
 * The podium so far: `finished` in order, with the figures of each `won` event
 * this page saw (a late joiner has only what the state says).
 * @param {any} state
 * @param {Map<string, any>} wins won events by seat
 * @returns {Place[]}
 */
export function podium(state, wins) {
  const finished = Array.isArray(state?.finished) ? state.finished : [];
  return finished.map((/** @type {string} */ seat, /** @type {number} */ i) => {
    const e = wins.get(seat), table = state.tables?.[seat];
    return { place: i + 1, seat, moves: e?.moves ?? table?.moves, score: e?.score ?? table?.score, seconds: e?.seconds };
  });
}

/**
 * The line shown until the race starts. The state does not say which seats were
 * taken; the players present (presence) do.
 * @param {number} seats
 * @param {number} players
 */
export function waitingText(seats, players) {
  return `Waiting for players: ${Math.max(0, Math.min(seats, players))} of ${seats} seats taken`;
}

// ---- the view ----------------------------------------------------------------

/**
 * @typedef {object} RaceOptions
 * @property {boolean} interactive a seated player: gestures on their own table
 * @property {(message: {[key: string]: any}) => Promise<any>} send a game command
 * @property {() => (string | undefined)} you this connection's seat
 * @property {() => {[seat: string]: number}} [bots] the seats bots play, with their levels
 * @property {() => {[seat: string]: string}} [names] the seats' signed-in users' names (PROTOCOL section 19)
 */

/**
 * @typedef {object} SeatTable
 * @property {HTMLElement} figure
 * @property {HTMLElement} caption
 * @property {KlondikeView} view
 * @property {string} shown the table state last given to the view, as JSON
 */

const refuse = () => Promise.reject(new Error("not your table"));

export class RaceView {
  /**
   * @param {HTMLElement} host
   * @param {RaceOptions} options
   */
  constructor(host, options) {
    this.host = host;
    this.options = options;
    /** @type {any} */
    this.state = null;
    /** seated players present, from presence */
    this.players = 0;
    /** @type {Map<string, any>} won events by seat */
    this.wins = new Map();
    /** @type {Map<string, SeatTable>} */
    this.tables = new Map();
    /** @type {string | null} the table a spectator on a narrow screen sees large */
    this.focus = null;
    this.shape = "";
    this.banner = el("div.race-banner", { role: "status", "aria-live": "polite", hidden: true });
    this.area = el("div.race-area");
    this.root = el("div.race", {}, this.banner, this.area);
    host.append(this.root);
  }

  /** The seat whose table is played here, if this page holds one. */
  get own() {
    const you = this.options.interactive ? this.options.you() : undefined;
    return you && this.state?.tables?.[you] ? you : undefined;
  }

  /** The seats bots play, with their levels. @returns {{[seat: string]: number}} */
  get bots() {
    return this.options.bots?.() ?? {};
  }

  /** The seats' signed-in users' names. @returns {{[seat: string]: string}} */
  get names() {
    return this.options.names?.() ?? {};
  }

  /** The names changed: the captions and the podium say them. */
  namesChanged() {
    if (!this.state) return;
    for (const seat of this.tables.keys()) this.paintCaption(seat);
    this.paintBanner();
  }

  /** The view of the table played here (hints show on it). */
  get ownView() {
    const own = this.own;
    return own ? this.tables.get(own)?.view ?? null : null;
  }

  /**
   * @param {any} state a race state
   * @param {boolean} animate
   * @param {any} [before] the race before the last move: its table's move is marked
   */
  setState(state, animate, before = null) {
    this.state = state;
    const seats = seatsOf(state);
    const own = this.own;
    const shape = `${own || ""}|${seats.join(",")}`;
    if (shape !== this.shape) {
      this.build(seats, own);
      this.shape = shape;
      animate = false;
    }
    for (const seat of seats) {
      const t = /** @type {SeatTable} */ (this.tables.get(seat));
      const table = state.tables[seat];
      // A diff touches one table: only that one is drawn again (and loses its hint).
      const json = JSON.stringify(table);
      if (json !== t.shown) {
        t.shown = json;
        t.view.setState(table, animate, before?.tables?.[seat] ?? null);
      }
      this.paintCaption(seat);
    }
    this.root.dataset.status = String(state.status);
    this.paintBanner();
  }

  /** The page around the tables changed size: each table fits again. */
  relayout() {
    for (const t of this.tables.values()) t.view?.relayout();
  }

  /** @param {string[]} seats @param {string | undefined} own */
  build(seats, own) {
    for (const t of this.tables.values()) t.view.destroy();
    this.tables.clear();
    /** @type {{seat: string, host: HTMLElement, compact: boolean}[]} */
    const hosts = [];
    const figure = (/** @type {string} */ seat, /** @type {boolean} */ compact) => {
      const host = el("div.seat-table");
      const caption = el("figcaption.seat-caption");
      const node = el("figure.race-seat", { dataset: { seat } }, caption, host);
      node.style.setProperty("--seat", playerColor(seat));
      hosts.push({ seat, host, compact });
      this.tables.set(seat, { figure: node, caption, view: /** @type {any} */ (null), shown: "" });
      return node;
    };
    if (own) {
      const rivals = seats.filter((s) => s !== own);
      this.area.className = "race-area player";
      this.area.replaceChildren(
        el("section.race-own", { "aria-label": "Your table" }, figure(own, false)),
        el("aside.race-rivals", { "aria-label": "Rivals", dataset: { count: String(rivals.length) } }, ...rivals.map((s) => figure(s, true))));
    } else {
      if (!this.focus || !seats.includes(this.focus)) this.focus = seats[0] ?? null;
      this.area.className = "race-area spectator";
      const grid = el("div.race-grid", { dataset: { count: String(seats.length) } }, ...seats.map((s) => figure(s, false)));
      for (const seat of seats) {
        const t = /** @type {SeatTable} */ (this.tables.get(seat));
        t.figure.append(el("button.seat-switch", { type: "button", "aria-label": `Show ${seatName(seat)}'s table`, onclick: () => this.setFocus(seat) }));
      }
      this.area.replaceChildren(grid);
      this.setFocus(this.focus);
    }
    // The views measure their hosts, so they are made once the hosts are in the page.
    for (const { seat, host, compact } of hosts) {
      const mine = seat === own;
      const view = new KlondikeView(host, {
        interactive: mine,
        send: mine ? this.options.send : refuse,
        label: mine ? "Your table" : `${seatName(seat)}'s table`,
        compact,
      });
      /** @type {SeatTable} */ (this.tables.get(seat)).view = view;
    }
  }

  /** A spectator on a narrow screen: which table is large. @param {string | null} seat */
  setFocus(seat) {
    this.focus = seat;
    for (const [s, t] of this.tables) {
      const on = s === seat;
      t.figure.classList.toggle("selected", on);
      t.figure.querySelector(".seat-switch")?.setAttribute("aria-pressed", String(on));
    }
  }

  /** @param {string} seat */
  paintCaption(seat) {
    const t = /** @type {SeatTable} */ (this.tables.get(seat));
    const table = this.state.tables[seat];
    const place = (this.state.finished || []).indexOf(seat);
    const mine = seat === this.own;
    const level = botLevel(this.bots, seat);
    const name = this.names[seat];
    const parts = [
      el("span.seat-chip", { "aria-hidden": "true" }),
      el("strong.seat-name", { title: name ? `${name} (${seatName(seat)})` : undefined },
        mine ? `You \u00b7 ${name || seatName(seat)}` : name || seatName(seat)),
      level ? botTag(level) : null,
      place >= 0 ? el("span.badge.place", { dataset: { place: String(place + 1) } }, ordinal(place + 1)) : null,
      el("span.seat-home", { title: "Cards on the foundations" }, `${homeCount(table)}/52`),
      el("span.seat-moves", {}, plural(table?.moves ?? 0, "move")),
    ];
    t.caption.replaceChildren(...parts.filter((n) => n !== null));
    t.figure.classList.toggle("done", place >= 0);
    if (level) t.figure.dataset.bot = String(level);
    else delete t.figure.dataset.bot;
  }

  paintBanner() {
    const s = this.state;
    if (!s) return;
    const seats = seatsOf(s).length;
    if (s.status === "waiting") {
      this.banner.hidden = false;
      this.banner.dataset.kind = "waiting";
      this.banner.replaceChildren(
        el("span.race-spinner", { "aria-hidden": "true" }),
        el("div.banner-text", {},
          el("strong.waiting-count", {}, waitingText(seats, this.players)),
          el("span", {}, this.own
            ? "Share the play link: whoever opens it takes a free seat. The race starts when every seat is taken."
            : "The race starts when every seat is taken.")));
      return;
    }
    const places = podium(s, this.wins);
    if (!places.length) {
      this.banner.hidden = true;
      return;
    }
    this.banner.hidden = false;
    this.banner.dataset.kind = "podium";
    const left = seats - places.length;
    this.banner.replaceChildren(
      el("div.banner-text", {},
        el("strong", {}, s.status === "finished" ? "Race finished" : "Podium"),
        el("ol.race-places", {}, ...places.map((p) => el("li", { dataset: { seat: p.seat, place: String(p.place) } },
          el("span.place", {}, ordinal(p.place)), " ", p.seat === this.own ? `You (${seatName(p.seat)})` : playerName(p.seat, this.bots, this.names)))),
        left > 0 ? el("span.still-playing", {}, `${left} still playing`) : null));
  }

  /** Seated players present (presence), for the waiting line. @param {number} players */
  setPlayers(players) {
    this.players = players;
    if (this.state?.status === "waiting") this.paintBanner();
  }

  /** A `won` event: its figures go on the podium. @param {any} e */
  addWin(e) {
    if (typeof e.by === "string") this.wins.set(e.by, e);
    this.paintBanner();
  }

  /** A new race was dealt. */
  clearWins() {
    this.wins.clear();
    this.paintBanner();
  }

  /** @param {string | null} from @param {string | null} to */
  showHint(from, to) {
    this.ownView?.showHint(from, to);
  }

  destroy() {
    for (const t of this.tables.values()) t.view?.destroy();
    this.tables.clear();
    this.root.remove();
  }
}

// ---- the game: what the page does around the tables ----------------------------

/** A race being played or watched: its tools, the podium, and its events. */
export class RacePlay extends TablePlay {
  /** @param {import("./games.js").Shell} shell @param {RaceView} board */
  constructor(shell, board) {
    // A race's hints are for a seated player's own table.
    super(shell, board, { hintsForAll: false, newLabel: "New race", lostAdvice: "Undo to go back.", noMove: "No useful move left" });
    this.race = board;
    board.setPlayers(shell.session.players);
  }

  /** The own table, for a seated player. */
  get ownTable() {
    const s = this.shell.session.state;
    if (!s) return null;
    const you = this.shell.session.you;
    return this.shell.isPlayer && you ? s.tables?.[you] ?? null : null;
  }

  /** @param {any} s */
  stats(s) {
    const own = this.ownTable;
    if (this.undoButton) this.undoButton.disabled = !own || s.status !== "playing" || own.status === "won" || own.moves === 0;
    if (this.hintButton) this.hintButton.disabled = !own || own.status === "won";
    const again = this.newButton;
    if (again) {
      again.disabled = s.status !== "finished";
      again.title = s.status === "finished" ? "New race (N)" : "A new race can be dealt once every table is won";
    }
    const label = s.status === "waiting" ? "Waiting" : s.status === "finished" ? "Finished" : "Racing";
    const done = (s.finished || []).length, seats = seatsOf(s).length;
    const stat = this.shell.stat;
    return [
      ...(own ? [stat("Moves", own.moves, "moves"), stat("Score", own.score, "score")] : [stat("Finished", `${done}/${seats}`, "finished")]),
      el(`span.badge.status.${s.status}`, {}, label)];
  }

  /** @param {import("./session.js").StateChange} change */
  changed(change) {
    const s = change.state, overlay = this.shell.overlay;
    if (s.status === "finished" && change.via === "snapshot" && overlay.hidden) {
      this.showPodium();
    } else if (s.status !== "finished" && overlay.dataset.kind === "podium" && !overlay.hidden) {
      this.shell.hideWon();
    }
    super.changed(change);
  }

  /** @param {number} players */
  presence(players) {
    this.race.setPlayers(players);
  }

  /** @param {any} e */
  event(e) {
    const shell = this.shell;
    if (e.event === "start") {
      const bots = Object.keys(shell.session.bots ?? {}).length;
      toast(bots ? `The race is on, with ${plural(bots, "computer player")}` : "Every seat is taken: the race is on!");
    } else if (e.event === "won") {
      this.race.addWin(e);
      // The finishing diff came first: the state already says whether the race is over.
      if (shell.session.state?.status === "finished") this.showPodium();
      else if (shell.isPlayer && e.by === shell.session.you) this.showFinish(e);
      else toast(`${playerName(String(e.by), shell.session.bots, shell.session.names)} finished ${ordinal(Number(e.place))}`);
    } else if (e.event === "reset") {
      this.race.clearWins();
      shell.hideWon();
      this.showLost(false);
      toast("A new race is dealt");
    }
  }

  /** This player's table is won while others play on. @param {any} e */
  showFinish(e) {
    const s = this.shell;
    s.showOverlay("finish", `You finished ${ordinal(Number(e.place))}!`, [s.figures(e)], [
      el("button.btn.primary.won-close", { type: "button", onclick: () => s.hideWon() }, "Watch the others"),
      s.replayButton(),
    ]);
  }

  /** Every table is won: the full podium. */
  showPodium() {
    const shell = this.shell;
    const s = shell.session.state;
    if (!s) return;
    const places = podium(s, this.race.wins);
    const you = shell.isPlayer ? shell.session.you : undefined;
    const mine = places.find((p) => p.seat === you);
    const list = el("ol.podium-list", {}, ...places.map((p) => {
      const figures = [
        p.moves !== undefined ? plural(p.moves, "move") : null,
        p.score !== undefined ? plural(p.score, "point") : null,
        typeof p.seconds === "number" ? formatDuration(p.seconds) : null,
      ].filter(Boolean).join(" \u00b7 ");
      return el("li", { dataset: { seat: p.seat, place: String(p.place) }, class: p.seat === you ? "you" : undefined },
        el("span.podium-place", {}, ordinal(p.place)),
        el("span.podium-seat", {}, p.seat === you ? `You (${seatName(p.seat)})` : playerName(p.seat, shell.session.bots, shell.session.names)),
        el("span.podium-figures", {}, figures));
    }));
    const actions = [];
    if (shell.isPlayer) actions.push(el("button.btn.primary.won-new", { type: "button", onclick: () => shell.newDeal(false) }, "New race"));
    actions.push(shell.replayButton());
    actions.push(el("button.btn.ghost.won-close", { type: "button", onclick: () => shell.hideWon() }, "Hide"));
    shell.showOverlay("podium", "Race finished", [mine ? el("p.won-sub", {}, `You finished ${ordinal(mine.place)}`) : null, list], actions);
  }

  /** @param {boolean} fromShake */
  newGame(fromShake) {
    // Nothing is lost by then: every table is won.
    const s = this.shell.session.state;
    if (s && s.status === "finished") this.shell.command({ type: "reset" }).catch(() => {});
    else if (!fromShake) toast("A new race can be dealt once every table is won");
  }
}

/**
 * The lobby's race tile: seats and draw, then Start.
 * @param {import("./games.js").LobbyContext} lobby
 */
function raceTile(lobby) {
  const choices = lobby.choices;
  choices.seats ??= 2;
  choices.raceDraw ??= 1;
  const seats = /** @type {HTMLSelectElement} */ (el("select#race-seats.race-seats", { "aria-label": "Seats" },
    ...[2, 3, 4, 5, 6, 7, 8].map((n) => el("option", { value: String(n), selected: n === choices.seats }, `${n} seats`))));
  seats.addEventListener("change", () => { choices.seats = Number(seats.value); });
  const draw = /** @type {HTMLSelectElement} */ (el("select#race-draw.race-draw", { "aria-label": "Cards drawn from the stock" },
    el("option", { value: "1", selected: true }, "Draw 1"), el("option", { value: "3" }, "Draw 3")));
  draw.addEventListener("change", () => { choices.raceDraw = Number(draw.value); });
  const raceButton = /** @type {HTMLButtonElement} */ (el("button.btn.primary.start-race", { type: "submit", "aria-label": "Start a race" }, "Start"));
  return el("form.create-tile.tile-race", {
    dataset: { create: "race" },
    "aria-label": "Race",
    onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      lobby.start(raceButton, "race", lobby.withWinnable({ seats: choices.seats, draw: choices.raceDraw }));
    },
  },
    el("span.tile-art", { "aria-hidden": "true" }, icon("race")),
    el("span.tile-text", {}, el("strong", {}, "Race"), el("span", {}, "Same deal, one table each")),
    el("span.race-controls", {}, seats, draw, raceButton));
}

/**
 * The create options of a race against the computer: the person in p1, bots at
 * `level` in every other seat; bots need a deal the solver can win (PROTOCOL section 18).
 * @param {number} seats 2 to 4
 * @param {number} level 1 to 3
 */
export function botRaceOptions(seats, level) {
  /** @type {{[seat: string]: number}} */
  const bots = {};
  for (let i = 2; i <= seats; i++) bots[`p${i}`] = level;
  return { seats, winnable: true, bots };
}

/**
 * The lobby's tile for a race against the computer: how many rivals, their level, then Start.
 * @param {import("./games.js").LobbyContext} lobby
 */
function raceBotTile(lobby) {
  const choices = lobby.choices;
  choices.raceBotSeats ??= 2;
  choices.raceBotLevel ??= 2;
  const seats = /** @type {HTMLSelectElement} */ (el("select#race-bot-seats.race-bot-seats", { "aria-label": "Computer rivals", title: "Computer rivals" },
    ...[2, 3, 4].map((n) => el("option", { value: String(n), selected: n === choices.raceBotSeats }, `${plural(n - 1, "rival")}`))));
  seats.addEventListener("change", () => { choices.raceBotSeats = Number(seats.value); });
  const level = /** @type {HTMLSelectElement} */ (el("select#race-bot-level.race-bot-level", { "aria-label": "The computer's level", title: "The computer's level" },
    ...Object.entries(LEVELS).map(([n, name]) => el("option", { value: n, selected: Number(n) === choices.raceBotLevel }, name))));
  level.addEventListener("change", () => { choices.raceBotLevel = Number(level.value); });
  const button = /** @type {HTMLButtonElement} */ (el("button.btn.primary.start-race-bot", { type: "submit", "aria-label": "Race the computer" }, "Start"));
  return el("form.create-tile.tile-race-bot.tile-computer", {
    dataset: { create: "race-bot" },
    "aria-label": "Race against the computer",
    onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      lobby.start(button, "race", lobby.withDelay(botRaceOptions(choices.raceBotSeats, choices.raceBotLevel)));
    },
  },
    el("span.tile-art", { "aria-hidden": "true" }, icon("race"), el("span.tile-art-bot", {}, icon("bot"))),
    el("span.tile-text", {}, el("strong", {}, "Race"), el("span", {}, "The same winnable deal against computer players")),
    el("span.tile-controls", {}, seats, level, button));
}

/** @type {import("./games.js").GameKind} */
export const raceGame = {
  kind: "race",
  name: "Race",
  noun: "race",
  icon: "race",
  seats: true,
  playersReadSpectatorsAfter: true,
  over: (state) => state?.status === "finished",
  // A seat is free for a person until the race starts (bots hold theirs from the start).
  invites: (state) => state?.status === "waiting",
  inviteText: "Whoever opens this link takes a free seat; the race starts when every seat is taken. After that it lets nobody else in.",
  title(state) {
    // A race's details go in a part of the title a phone may leave out.
    if (!state) return { name: "Race" };
    const seats = seatsOf(state);
    const draw = state.tables?.[seats[0]]?.draw;
    return { name: "Race", detail: ` \u00b7 ${plural(seats.length, "seat")}${draw ? ` \u00b7 Draw ${draw}` : ""}` };
  },
  board: (host, options) => new RaceView(host, { interactive: options.interactive, send: options.send, you: options.you, bots: options.bots, names: options.names }),
  play: (shell, board) => new RacePlay(shell, board),
  replayStart: "The deal",
  describe: (cause) => (cause?.type === "start" ? "The race starts" : null),
  tiles: (lobby) => [raceTile(lobby)],
  computerTiles: (lobby) => [raceBotTile(lobby)],
  lobbyLabel: (g) => `Race \u00b7 ${plural(Number(g.seats) || 0, "seat")}`,
};
