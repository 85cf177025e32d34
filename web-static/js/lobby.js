// @ts-check
/**
 * The lobby: a tile per way to start a game (each kind's, from the registry), the
 * options that go with them, and every live game kept current with `list follow`,
 * apart as lichess keeps them: open seats, games being played, games that ended.
 */
import { el, icon, timeAgo, plural, toast } from "./ui.js";
import { knownTokens, routeHash, routeFromText } from "./routes.js";
import { delayOf, formatDelay } from "./chat.js";
import { GAMES, gameKind } from "./games.js";
import { botsOf, botsSummary } from "./bots.js";
import { clockLabel } from "./clocks.js";

/** @typedef {import("./boardcast.js").Connection} Connection */

/** The spectator delays a new game may have (PROTOCOL section 15), in seconds. */
export const DELAYS = [0, 10, 30, 60, 120];

/** Who may watch a new game (PROTOCOL section 19): the `watch` option's values, and how the lobby says them. */
export const WATCH_CHOICES = /** @type {const} */ ([
  ["anyone", "Anyone"],
  ["link", "People with the link"],
  ["players", "Players only"],
]);

/**
 * The names of a lobby object's signed-in players, in seat order ("Ada", "Grace").
 * @param {any} g
 * @returns {string[]}
 */
export function namesOf(g) {
  const names = g?.names;
  if (!names || typeof names !== "object") return [];
  return Object.entries(names)
    .filter(([, n]) => typeof n === "string" && n)
    .sort(([a], [b]) => a.localeCompare(b, undefined, { numeric: true }))
    .map(([, n]) => /** @type {string} */ (n));
}

/** How a lobby row shows each status. @type {{[status: string]: {label: string, cls: string}}} */
const STATUS = {
  playing: { label: "Playing", cls: "playing" },
  won: { label: "Won", cls: "won" },
  waiting: { label: "Waiting for players", cls: "waiting" },
  finished: { label: "Finished", cls: "won" },
  drawn: { label: "Drawn", cls: "won" },
};

/**
 * Which part of the lobby lists a game: "open" (a seat is free for a person), "live"
 * (being played), "finished" (won, drawn, finished).
 * @param {any} g a lobby object
 * @returns {"open" | "live" | "finished"}
 */
export function groupOf(g) {
  if (g.status === "waiting") return "open";
  if (g.status === "won" || g.status === "drawn" || g.status === "finished") return "finished";
  return "live";
}

/** The lobby's groups, in order, with their headings. */
export const GROUPS = /** @type {const} */ ([
  ["open", "Open seats", "Games waiting for players: open one to watch, or take its play link"],
  ["live", "Live games", "Being played now"],
  ["finished", "Finished", "Over: replay them"],
]);

/**
 * The seats held in a game with seats: the players connected, plus the seats bots
 * play (they count as held, PROTOCOL section 18, and are no connection).
 * @param {any} g a lobby object
 */
export function seatedCount(g) {
  const players = Number(g.players) || 0;
  const bots = Object.keys(botsOf(g.bots)).length;
  const seats = Number(g.seats);
  return Number.isFinite(seats) && seats > 0 ? Math.min(seats, players + bots) : players + bots;
}

export class LobbyView {
  /**
   * @param {HTMLElement} host
   * @param {Connection} conn
   * @param {(kind: string, options: any) => Promise<void>} create
   * @param {import("./auth.js").Auth} [auth] this page's sign-in: a signed-in player's games offer Play
   */
  constructor(host, conn, create, auth) {
    this.conn = conn;
    this.create = create;
    this.auth = auth ?? null;
    /** @type {any[] | null} */
    this.games = null;
    /** What the next game is created with; the form controls only change it (each kind's tiles add their own). */
    this.choices = { winnable: false, delay: 0, watch: "anyone" };
    this.list = el("div.game-list", { "aria-live": "polite", "aria-busy": "true" }, el("p.muted.loading", {}, "Loading games\u2026"));
    /** @type {import("./games.js").LobbyContext} */
    const lobby = {
      choices: this.choices,
      start: (button, kind, options) => this.start(button, kind, options),
      withWinnable: (options) => this.withWinnable(options),
      withDelay: (options) => this.withDelay(options),
      // A one-click tile: the whole tile starts the game, and says so with a Start like the others'.
      button: (label, sub, kind, options, cls) =>
        el(`button.create-tile.tile-one.tile-${cls}`, { type: "button", dataset: { create: cls }, "aria-label": `Start ${label}, ${sub}`,
          onclick: (/** @type {Event} */ e) => this.start(/** @type {HTMLButtonElement} */ (e.currentTarget), kind, options()) },
          el("span.tile-art", { "aria-hidden": "true" }, icon(gameKind(kind)?.icon ?? "cards")),
          el("span.tile-text", {}, el("strong", {}, label), el("span", {}, sub)),
          el("span.tile-go", { "aria-hidden": "true" }, "Start")),
    };
    const tiles = GAMES.flatMap((g) => g.tiles?.(lobby) ?? []);
    const computerTiles = GAMES.flatMap((g) => g.computerTiles?.(lobby) ?? []);
    const winnable = /** @type {HTMLInputElement} */ (el("input#winnable-deals", { type: "checkbox" }));
    winnable.addEventListener("change", () => { this.choices.winnable = winnable.checked; });
    const winnableChoice = el("label.winnable-choice", { for: "winnable-deals" }, winnable,
      el("span", {}, el("strong", {}, "Winnable deals"), " ", el("span.choice-help", {}, "(Klondike and races): only deals the server\u2019s solver proved can be won")));
    const delay = /** @type {HTMLSelectElement} */ (el("select#spectator-delay.spectator-delay", {},
      ...DELAYS.map((d) => el("option", { value: String(d), selected: d === this.choices.delay }, d ? formatDelay(d) : "None"))));
    delay.addEventListener("change", () => { this.choices.delay = Number(delay.value); });
    const delayChoice = el("label.delay-choice", { for: "spectator-delay", title: "Spectators see every game you start this many seconds after the players" },
      el("strong", {}, "Spectator delay"), delay);
    const watch = /** @type {HTMLSelectElement} */ (el("select#who-may-watch.who-may-watch", {},
      ...WATCH_CHOICES.map(([value, label]) => el("option", { value, selected: value === this.choices.watch }, label))));
    watch.addEventListener("change", () => { this.choices.watch = watch.value; });
    const watchChoice = el("label.delay-choice.watch-choice", { for: "who-may-watch", title: "Who may watch the games you start: anyone (listed in the lobby), only people you give the watch link, or nobody but the players" },
      el("strong", {}, "Who may watch"), watch);
    const linkInput = /** @type {HTMLInputElement} */ (el("input#open-link", { type: "text", placeholder: "Paste a game link or id", autocomplete: "off", spellcheck: "false", "aria-label": "Game link or id" }));
    const openForm = el("form.open-form", {
      onsubmit: (/** @type {Event} */ e) => {
        e.preventDefault();
        const route = routeFromText(linkInput.value);
        if (route) location.hash = routeHash(route);
        else toast("That is not a game link or id", "error");
      },
    }, linkInput, el("button.btn", { type: "submit" }, "Open"));
    this.root = el("section.lobby", { "aria-labelledby": "lobby-title" },
      el("h1#lobby-title.visually-hidden", {}, "Lobby"),
      el("section.friend-games", { "aria-labelledby": "friend-title" },
        el("h2#friend-title.section-title", {}, icon("cards"), "Play alone or with friends"),
        el("div.create-row", {}, ...tiles)),
      computerTiles.length ? el("section.computer-games", { "aria-labelledby": "computer-title" },
        el("h2#computer-title.section-title", {}, icon("bot"), "Play the computer"),
        el("div.create-row.computer-row", {}, ...computerTiles)) : null,
      // What goes with every game started above, said as such.
      el("div.create-options", { role: "group", "aria-labelledby": "options-title" },
        el("h2#options-title.options-title", {}, "Options for the games you start above"),
        winnableChoice, delayChoice, watchChoice),
      el("div.list-head", {}, el("h2", {}, "Games"), openForm),
      this.list);
    host.append(this.root);
    this.offMessage = conn.on("message", (m) => { if (m.type === "lobby" && Array.isArray(m.games)) this.show(m.games); });
    this.offOpen = conn.onOpen(() => this.follow(true));
    // Signed in (or out): the games this user played offer Play.
    this.offAuth = this.auth?.onChange(() => { if (this.games) this.show(this.games); }) ?? (() => {});
    if (conn.status === "ready") this.follow(true);
    this.clock = window.setInterval(() => { if (this.games) this.show(this.games); }, 30000);
  }

  /** @param {boolean} on */
  follow(on) {
    this.conn.request({ type: "list", follow: on }).catch(() => {});
  }

  /** Options of a kind with a solver, with `winnable` when that is chosen (PROTOCOL section 12). @param {any} options */
  withWinnable(options) {
    return this.withDelay(this.choices.winnable ? { ...options, winnable: true } : options);
  }

  /**
   * Any game's options, with the spectator delay when one is chosen (PROTOCOL section 15)
   * and who may watch when not anyone (section 19).
   * @param {any} options
   */
  withDelay(options) {
    const delayed = this.choices.delay ? { ...options, delay: this.choices.delay } : options;
    return this.choices.watch && this.choices.watch !== "anyone" ? { ...delayed, watch: this.choices.watch } : delayed;
  }

  /** @param {HTMLButtonElement} button @param {string} kind @param {any} options */
  async start(button, kind, options) {
    button.disabled = true;
    button.classList.add("busy");
    try {
      await this.create(kind, options);
    } catch (e) {
      toast(`Could not start the game: ${/** @type {Error} */ (e).message}`, "error");
    } finally {
      button.disabled = false;
      button.classList.remove("busy");
    }
  }

  /** @param {any[]} games */
  show(games) {
    this.games = games;
    this.list.setAttribute("aria-busy", "false");
    // Keep keyboard focus on the same button across a refresh.
    const focused = /** @type {HTMLElement | null} */ (document.activeElement);
    const focusKey = focused && this.list.contains(focused) ? focused.dataset.focusKey : undefined;
    const tokens = knownTokens();
    // Signed in: a game whose seats carry our name may be ours to take back without its token
    // (the server decides: it knows who played, the lobby only names).
    const me = this.auth?.name;
    const sorted = [...games].sort((a, b) => String(b.updated).localeCompare(String(a.updated)));
    if (!sorted.length) {
      this.list.replaceChildren(el("p.empty", {}, "No games yet. Start one above, then share its link."));
      return;
    }
    const row = (/** @type {any} */ g) => {
      const token = tokens[g.game];
      const link = (/** @type {string} */ label, /** @type {string} */ href, /** @type {string} */ cls) =>
        el(`a.btn.small.${cls}`, { href, dataset: { focusKey: `${cls}:${g.game}` } }, label);
      const game = gameKind(g.kind);
      const kind = game ? game.lobbyLabel?.(g) ?? game.name : String(g.kind);
      const seated = !!game?.seats;
      const status = STATUS[g.status] ?? STATUS.playing;
      const names = namesOf(g);
      const mine = !token && !!me && names.includes(me);
      const finished = groupOf(g) === "finished";
      const bots = Object.keys(botsOf(g.bots)).length;
      // A game of one person against the computer: whether that person is here, not "1 of 2 seated".
      const versusComputer = seated && bots > 0 && Number(g.seats) === bots + 1 && Number(g.seats) === 2;
      const who = versusComputer ? (Number(g.players) > 0 ? "Player here" : "Player away")
        : seated ? `${seatedCount(g)} of ${g.seats ?? game?.seatCount ?? "?"} seated` : plural(g.players ?? 0, "player");
      // The game's own play link: to play on while it is played, to open (and play again) once it is over.
      const play = token ? routeHash({ name: "play", game: g.game, token }) : mine ? routeHash({ name: "play", game: g.game }) : null;
      return el("article.game-row", { dataset: { game: g.game, kind: g.kind, status: g.status, group: groupOf(g) } },
        el("span.row-art", { "aria-hidden": "true" }, icon(game?.icon ?? "cards")),
        el("div.row-main", {},
          el("div.row-title", {}, el("strong.row-kind", {}, kind), el("code.game-id", {}, g.game),
            el(`span.badge.${status.cls}`, {}, status.label)),
          el("div.row-meta", {},
            el("span.players", {}, who),
            names.length ? el("span.names", { title: "Players signed in" }, names.join(" \u00b7 ")) : null,
            el("span.spectators", {}, `${g.spectators ?? 0} watching`),
            // A game with seats counts its start (the server's, once the seats are taken) in its seq: no move.
            el("span.moves", {}, plural(Math.max(0, (Number(g.seq) || 0) - (seated && g.status !== "waiting" ? 1 : 0)), "move")),
            Object.keys(botsOf(g.bots)).length ? el("span.bots", { title: "Seats the computer plays" }, icon("bot"), botsSummary(g.bots)) : null,
            clockLabel(g.clock) ? el("span.clock-option", { title: "Turn clock: minutes, plus seconds a move" }, icon("clock"), clockLabel(g.clock)) : null,
            delayOf(g) ? el("span.delay", { title: "Spectators see this game this much later than its players" }, `${formatDelay(delayOf(g))} delay`) : null,
            el("span.updated", {}, timeAgo(g.updated)))),
        el("div.row-actions", {},
          play ? link(finished ? "Open" : "Play", play, finished ? "open" : "play") : null,
          finished ? null : link("Watch", routeHash({ name: "watch", game: g.game }), "watch"),
          link("Replay", routeHash({ name: "replay", game: g.game }), finished ? "replay.primary" : "replay")));
    };
    const sections = GROUPS.map(([group, title, sub]) => {
      const mine = sorted.filter((g) => groupOf(g) === group);
      if (!mine.length) return null;
      return el(`section.game-group.group-${group}`, { "aria-labelledby": `group-${group}`, dataset: { group } },
        el("h3.group-title", { id: `group-${group}` }, title, " ", el("span.group-count", {}, String(mine.length)), el("span.group-sub", {}, sub)),
        ...mine.map(row));
    });
    this.list.replaceChildren(...sections.filter((n) => n !== null));
    if (focusKey) /** @type {HTMLElement | null} */ (this.list.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`))?.focus();
  }

  destroy() {
    this.offMessage();
    this.offOpen();
    this.offAuth();
    clearInterval(this.clock);
    if (this.conn.status === "ready") this.follow(false);
    this.root.remove();
  }
}
