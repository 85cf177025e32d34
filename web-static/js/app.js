// @ts-check
/** The page: one connection, a status line, who we are signed in as, and a router over lobby, game and replay. */
import { loadPageModules } from "./games.js";
import { Connection } from "./boardcast.js";
import { parseRoute, routeHash, rememberToken, rememberKey, knownKey, knownTokens } from "./routes.js";
import { Auth, showAuth, takeFragmentToken } from "./auth.js";
import { LobbyView } from "./lobby.js";
import { GameView } from "./game.js";
import { ReplayView } from "./replay.js";
import { el } from "./ui.js";

const main = /** @type {HTMLElement} */ (document.getElementById("main"));
const statusLine = /** @type {HTMLElement} */ (document.getElementById("conn-status"));

// A token handed over in the fragment (`#auth=JWT&/route`) leaves the address bar
// before anything reads it, and before the connection is made (auth.js).
const handed = takeFragmentToken();
// The client module's connection (clients/js, linked as js/boardcast.js): its reconnection,
// pacing and re-sent commands are every client's (PROTOCOL section 21).
const scheme = location.protocol === "https:" ? "wss:" : "ws:";
const conn = new Connection(`${scheme}//${location.host}/ws`);
// An open hook of its own that comes first: `auth` goes out before anything else on every (re)connect.
const auth = new Auth(conn, handed);
showAuth(/** @type {HTMLElement} */ (document.getElementById("auth-status")), auth);

// ---- connection status -------------------------------------------------

let statusTimer = 0;
function showStatus() {
  clearInterval(statusTimer);
  // "syncing": open, signing in and joining again; the page counts it as still connecting.
  const s = conn.status === "ready" ? "open" : conn.status === "syncing" ? "connecting" : conn.status;
  statusLine.dataset.state = s;
  if (s === "open") {
    statusLine.replaceChildren(el("span.dot"), el("span.status-text", {}, "Connected"));
  } else if (s === "connecting") {
    statusLine.replaceChildren(el("span.dot"), el("span.status-text", {}, "Connecting\u2026"));
  } else {
    const paint = () => {
      const secs = Math.max(0, Math.ceil((conn.retryAt - Date.now()) / 1000));
      statusLine.replaceChildren(el("span.dot"),
        el("span.status-text", {}, secs > 0 ? `Reconnecting in ${secs}s` : "Reconnecting\u2026"),
        el("button.linklike.retry", { type: "button", onclick: () => conn.retryNow() }, "Retry"));
    };
    paint();
    statusTimer = window.setInterval(paint, 1000);
  }
  document.body.classList.toggle("offline", s !== "open");
}
conn.on("status", showStatus);
showStatus();
document.addEventListener("visibilitychange", () => { if (!document.hidden) conn.retryNow(); });
window.addEventListener("online", () => conn.retryNow());

// ---- router --------------------------------------------------------------

/** @type {{key: string, view: {destroy(): void}} | null} */
let current = null;

/** @param {import("./routes.js").Route} route */
function routeKey(route) {
  if (route.name === "lobby") return "lobby";
  if (route.name === "play") return `play:${route.game}:${route.token ?? ""}`;
  return `${route.name}:${route.game}:${route.key ?? ""}`;
}

/** @param {import("./routes.js").Route} route @param {any} [extra] */
function mount(route, extra = {}) {
  const key = routeKey(route);
  if (current && current.key === key) return;
  current?.view.destroy();
  current = null;
  window.scrollTo(0, 0);
  document.body.dataset.route = route.name;
  /** @type {{destroy(): void}} */
  let view;
  switch (route.name) {
    case "play":
      // `#/play/GAME` without a token: the one this browser holds, else a signed-in
      // player's seat back (the server knows who played it).
      view = new GameView(main, conn, { game: route.game, token: route.token ?? knownTokens()[route.game], role: "player", auth, ...extra });
      break;
    case "watch":
      view = new GameView(main, conn, { game: route.game, role: "spectator", key: route.key, auth });
      break;
    case "replay":
      view = new ReplayView(main, conn, route.game, route.key ?? knownKey(route.game));
      break;
    default:
      document.title = "Boardcast";
      view = new LobbyView(main, conn, create, auth);
  }
  current = { key, view };
}

/**
 * Creates a game. The server answers `created` and joins us at once
 * (`joined`, `snapshot`), so the game view must exist before those arrive:
 * it is mounted from inside the `created` handler.
 * @param {string} kind
 * @param {any} options
 */
async function create(kind, options) {
  // `created` carries no id; the first one after our `create` is ours.
  const off = conn.on("message", (m) => {
    if (m.type !== "created") return;
    off();
    rememberToken(m.game, m.token);
    // A game watched by link only (or by its players only) has a watch key for its players to share.
    if (typeof m.key === "string" && m.key) rememberKey(m.game, m.key);
    const route = { name: /** @type {const} */ ("play"), game: m.game, token: m.token };
    mount(route, { adopt: true, kind });
    history.pushState(null, "", routeHash(route));
  });
  const request = conn.request({ type: "create", kind, options });
  try {
    await request;
  } finally {
    off();
  }
}

function route() {
  // A token handed over in a fragment after load (a link opened in this tab): out of the address bar, and used.
  const fresh = takeFragmentToken();
  if (fresh) auth.use(fresh);
  const r = parseRoute(location);
  if (location.search && r.name !== "lobby") {
    // Turn ?game=&token= links into the hash form the rest of the page uses.
    history.replaceState(null, "", `${location.pathname}${routeHash(r)}`);
  }
  mount(r);
}

window.addEventListener("hashchange", route);
window.addEventListener("popstate", route);
// Games from the operator's own package bring their page modules: known before the first route is drawn.
loadPageModules().finally(route);

// Exposed for the browser tests and for poking at from the console.
// (Who we are signed in as, never the token.)
/** @type {any} */ (window).boardcast = { conn, get view() { return current?.view; }, get auth() { return { ...auth.current }; } };
