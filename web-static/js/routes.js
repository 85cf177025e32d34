// @ts-check
/**
 * Links: `#/play/GAME/TOKEN`, `#/watch/GAME`, `#/replay/GAME`, `#/` (lobby).
 * A game watched by link only (PROTOCOL section 19) is watched and replayed with
 * its key: `#/watch/GAME/KEY`, `#/replay/GAME/KEY`. `#/play/GAME` (no token) is a
 * signed-in player taking their seat back: the server knows them.
 * The query forms `?game=G&token=T`, `?watch=G` and `?replay=G` are accepted too.
 * A token handed over in the fragment (`#auth=JWT&/play/...`) is taken out before
 * any of this reads the address (auth.js).
 */

/**
 * @typedef {{name: "lobby"} | {name: "play", game: string, token?: string} | {name: "watch", game: string, key?: string} | {name: "replay", game: string, key?: string}} Route
 */

/** @param {string} s */
const decode = (s) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/**
 * @param {{hash: string, search: string}} where
 * @returns {Route}
 */
export function parseRoute(where) {
  const parts = where.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decode);
  if (parts[0] === "play" && parts[1]) return parts[2] ? { name: "play", game: parts[1], token: parts[2] } : { name: "play", game: parts[1] };
  if ((parts[0] === "watch" || parts[0] === "replay") && parts[1]) {
    return parts[2] ? { name: parts[0], game: parts[1], key: parts[2] } : { name: parts[0], game: parts[1] };
  }
  if (parts.length === 0) {
    const q = new URLSearchParams(where.search);
    const game = q.get("game"), token = q.get("token"), watch = q.get("watch"), replay = q.get("replay");
    if (game && token) return { name: "play", game, token };
    if (watch || game) return { name: "watch", game: /** @type {string} */ (watch || game) };
    if (replay) return { name: "replay", game: replay };
  }
  return { name: "lobby" };
}

/** @param {Route} route */
export function routeHash(route) {
  const e = encodeURIComponent;
  switch (route.name) {
    case "play": return route.token ? `#/play/${e(route.game)}/${e(route.token)}` : `#/play/${e(route.game)}`;
    case "watch": return route.key ? `#/watch/${e(route.game)}/${e(route.key)}` : `#/watch/${e(route.game)}`;
    case "replay": return route.key ? `#/replay/${e(route.game)}/${e(route.key)}` : `#/replay/${e(route.game)}`;
    default: return "#/";
  }
}

/** An absolute link to a route on this server. @param {Route} route */
export function routeURL(route) {
  return `${location.origin}${location.pathname}${routeHash(route)}`;
}

/**
 * A route from whatever a user pasted: a full link, a hash, or a bare game id.
 * @param {string} text
 * @returns {Route | null}
 */
export function routeFromText(text) {
  const t = text.trim();
  if (!t) return null;
  if (/^[A-Za-z0-9_-]{1,64}$/.test(t)) return { name: "watch", game: t };
  try {
    const url = new URL(t, location.href);
    const route = parseRoute({ hash: url.hash, search: url.search });
    return route.name === "lobby" ? null : route;
  } catch {
    return null;
  }
}

const TOKENS_KEY = "boardcast.tokens";

/** Play tokens this browser has held, so the lobby can offer "Play". @returns {{[game: string]: string}} */
export function knownTokens() {
  try {
    const v = JSON.parse(localStorage.getItem(TOKENS_KEY) || "{}");
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
}

/** @param {string} game @param {string} token */
export function rememberToken(game, token) {
  try {
    const all = knownTokens();
    all[game] = token;
    localStorage.setItem(TOKENS_KEY, JSON.stringify(all));
  } catch {
    // Private mode: links still work, the lobby just cannot offer "Play".
  }
}

/** @param {string} game */
export function forgetToken(game) {
  try {
    const all = knownTokens();
    delete all[game];
    localStorage.setItem(TOKENS_KEY, JSON.stringify(all));
  } catch {
    // Nothing stored, nothing to forget.
  }
}

const SEATS_KEY = "boardcast.seats";

/**
 * The seat this tab last held in a game with seats (a race, four in a row), so
 * a reload sits down at the same seat. Per tab (sessionStorage): another tab with the same play link is
 * another player and takes a free seat.
 * @param {string} game
 * @returns {string | undefined}
 */
export function knownSeat(game) {
  try {
    const v = JSON.parse(sessionStorage.getItem(SEATS_KEY) || "{}");
    return v && typeof v === "object" && typeof v[game] === "string" ? v[game] : undefined;
  } catch {
    return undefined;
  }
}

/** @param {string} game @param {string | undefined} seat undefined forgets it */
export function rememberSeat(game, seat) {
  try {
    const v = JSON.parse(sessionStorage.getItem(SEATS_KEY) || "{}");
    const all = v && typeof v === "object" ? v : {};
    if (seat) all[game] = seat;
    else delete all[game];
    sessionStorage.setItem(SEATS_KEY, JSON.stringify(all));
  } catch {
    // No storage: a reload takes the first free seat instead.
  }
}

const KEYS_KEY = "boardcast.keys";

/**
 * Watch keys of the games this browser played that are watched by link only
 * (PROTOCOL section 19), so their watch and replay links carry the key.
 * @returns {{[game: string]: string}}
 */
export function knownKeys() {
  try {
    const v = JSON.parse(localStorage.getItem(KEYS_KEY) || "{}");
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
}

/** @param {string} game @returns {string | undefined} */
export function knownKey(game) {
  const k = knownKeys()[game];
  return typeof k === "string" && k ? k : undefined;
}

/** @param {string} game @param {string} key */
export function rememberKey(game, key) {
  try {
    const all = knownKeys();
    if (all[game] === key) return;
    all[game] = key;
    localStorage.setItem(KEYS_KEY, JSON.stringify(all));
  } catch {
    // The links this page shows still carry it.
  }
}
