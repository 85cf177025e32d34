// @ts-check
/** The lobby: start a game, and every live game kept current with `list follow`. */
import { el, icon, timeAgo, plural, toast } from "./ui.js";
import { knownTokens, routeHash, routeFromText } from "./routes.js";

/** @typedef {import("./net.js").Connection} Connection */

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
    this.list = el("div.game-list", { "aria-live": "polite", "aria-busy": "true" }, el("p.muted.loading", {}, "Loading games\u2026"));
    const createButton = (/** @type {string} */ label, /** @type {string} */ sub, /** @type {string} */ kind, /** @type {any} */ options, /** @type {string} */ cls) =>
      el(`button.create-tile.tile-${cls}`, { type: "button", dataset: { create: cls }, onclick: (/** @type {Event} */ e) => this.start(/** @type {HTMLButtonElement} */ (e.currentTarget), kind, options) },
        el("span.tile-art", { "aria-hidden": "true" }, icon(kind === "plane" ? "plane" : "cards")),
        el("span.tile-text", {}, el("strong", {}, label), el("span", {}, sub)));
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
        createButton("Klondike", "Draw 1", "klondike", { draw: 1 }, "draw1"),
        createButton("Klondike", "Draw 3", "klondike", { draw: 3 }, "draw3"),
        createButton("Plane", "Shared rectangles", "plane", {}, "plane")),
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
    const sorted = [...games].sort((a, b) =>
      (a.status === "playing" ? 0 : 1) - (b.status === "playing" ? 0 : 1) || String(b.updated).localeCompare(String(a.updated)));
    if (!sorted.length) {
      this.list.replaceChildren(el("p.empty", {}, "No games yet. Start one above, then share its link."));
      return;
    }
    const rows = sorted.map((g) => {
      const token = tokens[g.game];
      const link = (/** @type {string} */ label, /** @type {string} */ href, /** @type {string} */ cls) =>
        el(`a.btn.small.${cls}`, { href, dataset: { focusKey: `${cls}:${g.game}` } }, label);
      const kind = g.kind === "plane" ? "Plane" : "Klondike";
      return el("article.game-row", { dataset: { game: g.game, kind: g.kind, status: g.status } },
        el("span.row-art", { "aria-hidden": "true" }, icon(g.kind === "plane" ? "plane" : "cards")),
        el("div.row-main", {},
          el("div.row-title", {}, el("strong", {}, kind), el("code.game-id", {}, g.game),
            el(`span.badge.${g.status === "won" ? "won" : "playing"}`, {}, g.status === "won" ? "Won" : "Playing")),
          el("div.row-meta", {},
            el("span.players", {}, plural(g.players ?? 0, "player")),
            el("span.spectators", {}, `${g.spectators ?? 0} watching`),
            el("span.moves", {}, plural(g.seq ?? 0, "move")),
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
