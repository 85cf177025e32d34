// @ts-check
/** The lobby: start a game or a race, and every live game kept current with `list follow`. */
import { el, icon, timeAgo, plural, toast } from "./ui.js";
import { knownTokens, routeHash, routeFromText } from "./routes.js";
import { delayOf, formatDelay } from "./chat.js";

/** @typedef {import("./net.js").Connection} Connection */

/** The spectator delays a new game may have (PROTOCOL section 15), in seconds. */
export const DELAYS = [0, 10, 30, 60, 120];

/** How a lobby row shows each status. @type {{[status: string]: {label: string, cls: string}}} */
const STATUS = {
  playing: { label: "Playing", cls: "playing" },
  won: { label: "Won", cls: "won" },
  waiting: { label: "Waiting for players", cls: "waiting" },
  finished: { label: "Finished", cls: "won" },
};

export class LobbyView {
  /**
   * @param {HTMLElement} host
   * @param {Connection} conn
   * @param {(kind: string, options: any) => Promise<void>} create
   */
  constructor(host, conn, create) {
    this.conn = conn;
    this.create = create;
    /** @type {any[] | null} */
    this.games = null;
    /** What the next game is created with; the form controls only change it. */
    this.choices = { winnable: false, seats: 2, raceDraw: 1, delay: 0 };
    this.list = el("div.game-list", { "aria-live": "polite", "aria-busy": "true" }, el("p.muted.loading", {}, "Loading games\u2026"));
    const createButton = (/** @type {string} */ label, /** @type {string} */ sub, /** @type {string} */ kind, /** @type {() => any} */ options, /** @type {string} */ cls) =>
      el(`button.create-tile.tile-${cls}`, { type: "button", dataset: { create: cls }, onclick: (/** @type {Event} */ e) => this.start(/** @type {HTMLButtonElement} */ (e.currentTarget), kind, options()) },
        el("span.tile-art", { "aria-hidden": "true" }, icon(kind === "plane" ? "plane" : "cards")),
        el("span.tile-text", {}, el("strong", {}, label), el("span", {}, sub)));
    const seats = /** @type {HTMLSelectElement} */ (el("select#race-seats.race-seats", { "aria-label": "Seats" },
      ...[2, 3, 4, 5, 6, 7, 8].map((n) => el("option", { value: String(n), selected: n === this.choices.seats }, `${n} seats`))));
    seats.addEventListener("change", () => { this.choices.seats = Number(seats.value); });
    const draw = /** @type {HTMLSelectElement} */ (el("select#race-draw.race-draw", { "aria-label": "Cards drawn from the stock" },
      el("option", { value: "1", selected: true }, "Draw 1"), el("option", { value: "3" }, "Draw 3")));
    draw.addEventListener("change", () => { this.choices.raceDraw = Number(draw.value); });
    const raceButton = /** @type {HTMLButtonElement} */ (el("button.btn.primary.start-race", { type: "submit", "aria-label": "Start a race" }, "Start"));
    const raceTile = el("form.create-tile.tile-race", {
      dataset: { create: "race" },
      "aria-label": "Race",
      onsubmit: (/** @type {Event} */ e) => {
        e.preventDefault();
        this.start(raceButton, "race", this.withWinnable({ seats: this.choices.seats, draw: this.choices.raceDraw }));
      },
    },
      el("span.tile-art", { "aria-hidden": "true" }, icon("race")),
      el("span.tile-text", {}, el("strong", {}, "Race"), el("span", {}, "Same deal, one table each")),
      el("span.race-controls", {}, seats, draw, raceButton));
    const winnable = /** @type {HTMLInputElement} */ (el("input#winnable-deals", { type: "checkbox" }));
    winnable.addEventListener("change", () => { this.choices.winnable = winnable.checked; });
    const winnableChoice = el("label.winnable-choice", { for: "winnable-deals" }, winnable,
      el("span", {}, el("strong", {}, "Winnable deals"), " ", el("span.choice-help", {}, "Klondike and races: only deals the server\u2019s solver proved can be won")));
    const delay = /** @type {HTMLSelectElement} */ (el("select#spectator-delay.spectator-delay", {},
      ...DELAYS.map((d) => el("option", { value: String(d), selected: d === this.choices.delay }, d ? formatDelay(d) : "None"))));
    delay.addEventListener("change", () => { this.choices.delay = Number(delay.value); });
    const delayChoice = el("label.delay-choice", { for: "spectator-delay", title: "Spectators see every game you start this many seconds after the players" },
      el("strong", {}, "Spectator delay"), delay);
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
      el("div.create-row", {},
        createButton("Klondike", "Draw 1", "klondike", () => this.withWinnable({ draw: 1 }), "draw1"),
        createButton("Klondike", "Draw 3", "klondike", () => this.withWinnable({ draw: 3 }), "draw3"),
        raceTile,
        createButton("Plane", "Shared rectangles", "plane", () => this.withDelay({}), "plane")),
      el("div.create-options", {}, winnableChoice, delayChoice),
      el("div.list-head", {}, el("h2", {}, "Live games"), openForm),
      this.list);
    host.append(this.root);
    this.offMessage = conn.onMessage((m) => { if (m.type === "lobby" && Array.isArray(m.games)) this.show(m.games); });
    this.offOpen = conn.onOpen(() => this.follow(true));
    if (conn.status === "open") this.follow(true);
    this.clock = window.setInterval(() => { if (this.games) this.show(this.games); }, 30000);
  }

  /** @param {boolean} on */
  follow(on) {
    this.conn.request({ type: "list", follow: on }).catch(() => {});
  }

  /** Klondike or race options, with `winnable` when that is chosen (PROTOCOL section 12). @param {any} options */
  withWinnable(options) {
    return this.withDelay(this.choices.winnable ? { ...options, winnable: true } : options);
  }

  /** Any game's options, with the spectator delay when one is chosen (PROTOCOL section 15). @param {any} options */
  withDelay(options) {
    return this.choices.delay ? { ...options, delay: this.choices.delay } : options;
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
    const live = (/** @type {any} */ g) => (g.status === "playing" || g.status === "waiting" ? 0 : 1);
    const sorted = [...games].sort((a, b) => live(a) - live(b) || String(b.updated).localeCompare(String(a.updated)));
    if (!sorted.length) {
      this.list.replaceChildren(el("p.empty", {}, "No games yet. Start one above, then share its link."));
      return;
    }
    const rows = sorted.map((g) => {
      const token = tokens[g.game];
      const link = (/** @type {string} */ label, /** @type {string} */ href, /** @type {string} */ cls) =>
        el(`a.btn.small.${cls}`, { href, dataset: { focusKey: `${cls}:${g.game}` } }, label);
      const race = g.kind === "race";
      const kind = g.kind === "plane" ? "Plane" : race ? `Race \u00b7 ${plural(Number(g.seats) || 0, "seat")}` : "Klondike";
      const status = STATUS[g.status] ?? STATUS.playing;
      return el("article.game-row", { dataset: { game: g.game, kind: g.kind, status: g.status } },
        el("span.row-art", { "aria-hidden": "true" }, icon(g.kind === "plane" ? "plane" : race ? "race" : "cards")),
        el("div.row-main", {},
          el("div.row-title", {}, el("strong.row-kind", {}, kind), el("code.game-id", {}, g.game),
            el(`span.badge.${status.cls}`, {}, status.label)),
          el("div.row-meta", {},
            el("span.players", {}, race ? `${g.players ?? 0} of ${g.seats ?? "?"} seated` : plural(g.players ?? 0, "player")),
            el("span.spectators", {}, `${g.spectators ?? 0} watching`),
            el("span.moves", {}, plural(g.seq ?? 0, "move")),
            delayOf(g) ? el("span.delay", { title: "Spectators see this game this much later than its players" }, `${formatDelay(delayOf(g))} delay`) : null,
            el("span.updated", {}, timeAgo(g.updated)))),
        el("div.row-actions", {},
          token ? link("Play", routeHash({ name: "play", game: g.game, token }), "play") : null,
          link("Watch", routeHash({ name: "watch", game: g.game }), "watch"),
          link("Replay", routeHash({ name: "replay", game: g.game }), "replay")));
    });
    this.list.replaceChildren(...rows);
    if (focusKey) /** @type {HTMLElement | null} */ (this.list.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`))?.focus();
  }

  destroy() {
    this.offMessage();
    this.offOpen();
    clearInterval(this.clock);
    if (this.conn.status === "open") this.follow(false);
    this.root.remove();
  }
}
