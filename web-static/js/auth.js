// @ts-check
/**
 * Signing in (PROTOCOL section 19): Boardcast keeps no accounts; the operator's
 * own site signs its users in and hands this page a short-lived JSON Web Token.
 * The token never travels in a query string, and this page never puts it in a
 * URL, the DOM or the console. Two ways to hand it over:
 *
 * 1. In the fragment, when opening the page:
 *
 *        https://boardcast.example/#auth=JWT
 *        https://boardcast.example/#auth=JWT&/play/GAME/TOKEN
 *
 *    `auth=` is followed by the JWT, then optionally `&` and the route to open
 *    (`/play/GAME/TOKEN`, `/play/GAME`, `/watch/GAME/KEY`, `/replay/GAME`, `/`...;
 *    a leading `#` is allowed). At load the page takes the JWT out, keeps it in
 *    sessionStorage (this tab only, gone with it), and puts the route back in
 *    the address bar with history.replaceState, so the JWT is in no history
 *    entry and no link copied from the address bar.
 *
 * 2. At any time, from the window that opened this page or the page embedding it:
 *
 *        boardcastWindow.postMessage({ type: "boardcast-auth", jwt: JWT }, origin)
 *
 *    (messages from any other window are ignored, and when the server names the
 *    operator's sites with `--auth-site`, so are those from any other origin:
 *    `/api/auth` lists them). Use it to sign in later or to hand a fresh token
 *    before the old one expires. When the one held expires, the page asks its
 *    opener or parent for a new one with `{type: "boardcast-auth-expired"}` (no
 *    token in it), posted only to those sites when they are named.
 *
 * The page sends `{"type":"auth","jwt":...}` on every (re)connect before anything
 * else, and again whenever a fresh token arrives. The header shows "Signed in as
 * NAME" from the server's `authed` answer, or why the server refused the token.
 */
import { el } from "./ui.js";

/** @typedef {import("./boardcast.js").Connection} Connection */

const STORAGE_KEY = "boardcast.auth";
/** The server's limit on a token's length (docs/PROTOCOL.md, section 19). */
export const MAX_JWT = 8192;

/** Whether a string looks like a compact JWT: three base64url parts. @param {any} jwt */
export function looksLikeJWT(jwt) {
  return typeof jwt === "string" && jwt.length <= MAX_JWT && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(jwt);
}

/**
 * Splits a fragment that hands over a token: `#auth=JWT` or `#auth=JWT&ROUTE`.
 * Null when the fragment hands over none.
 * @param {string} hash location.hash, with or without its `#`
 * @returns {{jwt: string, rest: string} | null} rest: the route's hash (`#/play/G/T`), "" for none
 */
export function splitAuthFragment(hash) {
  const h = hash.replace(/^#/, "");
  if (!h.startsWith("auth=")) return null;
  const amp = h.indexOf("&");
  let jwt = amp < 0 ? h.slice(5) : h.slice(5, amp);
  try {
    jwt = decodeURIComponent(jwt);
  } catch {
    // Left as it came: the server says what is wrong with it.
  }
  const route = amp < 0 ? "" : h.slice(amp + 1).replace(/^#/, "");
  return { jwt, rest: route ? `#${route.startsWith("/") ? route : `/${route}`}` : "" };
}

/** @returns {string | null} */
function storedJWT() {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/**
 * Takes a token out of the address bar, if it holds one: kept in sessionStorage,
 * the address bar left with the route only. Run before anything reads `location`.
 * @returns {string | null} the token taken
 */
export function takeFragmentToken() {
  const found = splitAuthFragment(location.hash);
  if (!found) return null;
  history.replaceState(history.state, "", `${location.pathname}${location.search}${found.rest}`);
  try {
    if (found.jwt) sessionStorage.setItem(STORAGE_KEY, found.jwt);
  } catch {
    // No storage: the Auth below still holds it in memory for this page.
  }
  return found.jwt || null;
}

/**
 * @typedef {object} AuthState
 * @property {"none" | "pending" | "signed-in" | "refused" | "expired"} state
 * @property {string} [user] the `sub` the server read
 * @property {string} [name] the name shown to others
 * @property {string} [expires] RFC 3339
 * @property {string} [reason] why the server refused the token ("bad token: expired")
 */

/** This page's sign-in: holds the token, sends it, and knows who the server says we are. */
export class Auth {
  /**
   * @param {Connection} conn
   * @param {string | null} [handed] a token just taken from the fragment
   */
  constructor(conn, handed = null) {
    this.conn = conn;
    /** @type {string | null} held in memory too, for a page without sessionStorage */
    this.jwt = handed || storedJWT();
    /** @type {AuthState} */
    this.current = { state: this.jwt ? "pending" : "none" };
    /** @type {string | null} the last token the server accepted */
    this.accepted = null;
    this.expiryTimer = 0;
    /** @type {Set<(s: AuthState) => void>} */
    this.listeners = new Set();
    // Before anything else on every (re)connect, so a join after it counts as signed in.
    conn.onOpen(() => this.send(true), { first: true });
    conn.on("message", (m) => { if (m.type === "authed") this.signedIn(m); });
    /** @type {string[] | null} the operator's sites (`--auth-site`): null until `/api/auth` answers, empty for any */
    this.sites = null;
    this.sitesKnown = fetch("/api/auth").then((r) => r.json()).then(
      (a) => { this.sites = Array.isArray(a?.sites) ? a.sites.filter((x) => typeof x === "string") : []; },
      () => { this.sites = []; });
    window.addEventListener("message", (e) => { this.sitesKnown.then(() => this.received(e)); });
  }

  /** Whether this page holds a token (sent before any other message on each connection). */
  get hasToken() {
    return !!this.jwt;
  }

  /** The name the server signed us in as, when it did. */
  get name() {
    return this.current.state === "signed-in" ? this.current.name : undefined;
  }

  /** @param {(s: AuthState) => void} listener */
  onChange(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** @param {AuthState} s */
  set(s) {
    this.current = s;
    for (const listener of this.listeners) listener(s);
  }

  /** A fresh token from the opener or the embedding page. @param {MessageEvent} e */
  received(e) {
    const from = e.source;
    const sites = this.sites ?? [];
    const trusted = !!from && from !== window && (from === window.opener || from === window.parent)
      && (sites.length === 0 || sites.includes(e.origin));
    const data = e.data;
    if (!trusted || !data || typeof data !== "object" || data.type !== "boardcast-auth") return;
    if (typeof data.jwt !== "string" || !data.jwt) return;
    this.use(data.jwt);
  }

  /** Holds a fresh token and signs the connection in with it. @param {string} jwt */
  use(jwt) {
    if (jwt === this.jwt && this.current.state === "signed-in") return;
    this.jwt = jwt;
    this.store(jwt);
    // Signed in already: that holds until the server answers for the fresh one.
    if (this.current.state !== "signed-in") this.set({ state: "pending" });
    this.send();
  }

  /** @param {string | null} jwt null forgets it */
  store(jwt) {
    try {
      if (jwt) sessionStorage.setItem(STORAGE_KEY, jwt);
      else sessionStorage.removeItem(STORAGE_KEY);
    } catch {
      // Memory only.
    }
  }

  /**
   * The server refused `jwt`: sending it again would be refused again. The
   * connection stays as it was: signed in with the token before it, if it was.
   * @param {string} reason
   */
  refused(reason) {
    const before = this.current.state === "signed-in" && this.accepted && this.accepted !== this.jwt ? this.current : null;
    this.jwt = before ? this.accepted : null;
    this.store(this.jwt);
    this.set(before ? { ...before, reason } : { state: "refused", reason });
  }

  /**
   * Sends the token held, if the connection is ready (else the next open sends it).
   * @param {boolean} [opening] from the connection's open hook: at once, before anything else
   * @returns {Promise<void> | undefined} when it is answered (it never rejects)
   */
  send(opening = false) {
    const jwt = this.jwt;
    if (!jwt || (!opening && this.conn.status !== "ready")) return;
    if (!looksLikeJWT(jwt)) {
      // Not worth a round trip; said as the server would say it.
      this.refused(jwt.length > MAX_JWT ? "bad token: too long" : "bad token: malformed");
      return;
    }
    return (opening ? this.conn.exchange({ type: "auth", jwt }) : this.conn.request({ type: "auth", jwt })).then(
      () => { if (jwt === this.jwt) this.accepted = jwt; },
      (error) => {
        if (jwt !== this.jwt || error.code === "disconnected") return; // a fresher one is on its way, or sent again on the next open
        this.refused(String(error.message || error.code));
      });
  }

  /** @param {any} m the `authed` answer */
  signedIn(m) {
    const name = typeof m.name === "string" && m.name ? m.name : String(m.user ?? "");
    this.set({ state: "signed-in", user: String(m.user ?? ""), name, expires: typeof m.expires === "string" ? m.expires : undefined });
    clearTimeout(this.expiryTimer);
    const at = m.expires ? Date.parse(m.expires) : NaN;
    if (Number.isFinite(at)) {
      // setTimeout's limit is about 24.8 days.
      const ms = Math.min(2 ** 31 - 1, Math.max(0, at - Date.now()));
      this.expiryTimer = window.setTimeout(() => this.expired(), ms);
    }
  }

  /** The token's time is up: the server signed us out; ask for a fresh one. */
  expired() {
    if (this.current.state !== "signed-in") return;
    this.set({ ...this.current, state: "expired" });
    const ask = { type: "boardcast-auth-expired" };
    const targets = this.sites?.length ? this.sites : ["*"];
    for (const w of [window.opener, window.parent !== window ? window.parent : null]) {
      for (const target of targets) {
        try {
          w?.postMessage(ask, target);
        } catch {
          // Gone or not reachable.
        }
      }
    }
  }
}

/**
 * What the header says: who we are signed in as, or why not. Everything goes in
 * as text (the name is the operator's users').
 * @param {HTMLElement} host
 * @param {Auth} auth
 */
export function showAuth(host, auth) {
  const paint = (/** @type {AuthState} */ s) => {
    host.dataset.state = s.state;
    host.removeAttribute("role");
    host.title = "";
    switch (s.state) {
      case "signed-in":
        host.hidden = false;
        host.title = s.user && s.user !== s.name ? `User ${s.user}` : "";
        host.replaceChildren(el("span.auth-label", {}, "Signed in as "), el("strong.auth-name", {}, s.name ?? ""),
          // A fresh token was refused; the one before still holds.
          ...(s.reason ? [el("span.auth-reason", { role: "alert" }, ` (a new token was refused: ${s.reason})`)] : []));
        break;
      case "expired":
        host.hidden = false;
        host.replaceChildren(el("span.auth-label", {}, "Sign-in expired: "), el("strong.auth-name", {}, s.name ?? ""));
        break;
      case "refused":
        host.hidden = false;
        host.setAttribute("role", "alert");
        host.replaceChildren(el("span.auth-label", {}, "Not signed in: "), el("span.auth-reason", {}, s.reason ?? "the token was refused"));
        break;
      case "pending":
        host.hidden = false;
        host.replaceChildren(el("span.auth-label", {}, "Signing in\u2026"));
        break;
      default:
        host.hidden = true;
        host.replaceChildren();
    }
  };
  auth.onChange(paint);
  paint(auth.current);
}
