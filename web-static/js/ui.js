// @ts-check
/** Small DOM helpers shared by the views. No innerHTML with data: text goes in as text. */

/**
 * Creates an element: el("button.primary", {type: "button", onclick}, "Text", child).
 * Keys starting with "on" add listeners; "dataset" and "aria" objects set data-/aria- attributes.
 * @param {string} spec tag, then .class and #id parts
 * @param {{[key: string]: any}} [props]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElement}
 */
export function el(spec, props = {}, ...children) {
  const [tag, ...rest] = spec.split(/(?=[.#])/);
  const node = document.createElement(tag || "div");
  for (const part of rest) {
    if (part[0] === ".") node.classList.add(part.slice(1));
    else node.id = part.slice(1);
  }
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "text") node.textContent = String(value);
    else if (key === "class") node.className = value;
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child);
  }
  return node;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * @param {string} tag
 * @param {{[key: string]: string | number}} [attrs]
 * @param {...SVGElement} children
 */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  for (const child of children) node.append(child);
  return node;
}

/** An icon from the sprite in index.html. @param {string} name */
export function icon(name) {
  const node = svg("svg", { class: "icon", "aria-hidden": "true", focusable: "false" });
  const use = document.createElementNS(SVG_NS, "use");
  use.setAttribute("href", `#i-${name}`);
  node.append(use);
  return node;
}

/** At most this many toasts show at once: a newer one takes the place of the oldest. */
const MAX_TOASTS = 2;

/**
 * A short message at the top of the screen, over the app bar, where it covers
 * neither the board, nor what is written under it, nor the chat. The same text
 * again while it shows is not a second toast: the one showing stays longer.
 * @param {string} text
 * @param {"info" | "error"} [kind]
 */
export function toast(text, kind = "info") {
  const host = document.getElementById("toasts");
  if (!host) return;
  const ms = kind === "error" ? 4000 : 2600;
  const same = /** @type {HTMLElement[]} */ ([...host.children]).find((n) => n.textContent === text && !n.classList.contains("leaving"));
  if (same) {
    same.className = `toast ${kind}`;
    same.dataset.repeat = String(Number(same.dataset.repeat || "1") + 1);
    schedule(same, ms);
    return;
  }
  const node = el(`div.toast.${kind}`, { role: kind === "error" ? "alert" : "status" }, text);
  host.append(node);
  while (host.childElementCount > MAX_TOASTS) host.firstElementChild?.remove();
  schedule(node, ms);
}

/** (Re)starts a toast's time on screen. @param {HTMLElement} node @param {number} ms */
function schedule(node, ms) {
  const done = () => node.remove();
  clearTimeout(Number(node.dataset.timer || 0));
  node.dataset.timer = String(setTimeout(() => {
    node.classList.add("leaving");
    node.addEventListener("animationend", done, { once: true });
    setTimeout(done, 600);
  }, ms));
}

/**
 * A modal question; resolves true when confirmed.
 * @param {string} title
 * @param {string} text
 * @param {string} confirmLabel
 * @returns {Promise<boolean>}
 */
export function confirmDialog(title, text, confirmLabel) {
  return new Promise((resolve) => {
    const dialog = /** @type {HTMLDialogElement} */ (el("dialog.confirm", { "aria-labelledby": "confirm-title" }));
    const form = el("form", { method: "dialog" },
      el("h2#confirm-title", {}, title),
      el("p", {}, text),
      el("div.dialog-buttons", {},
        el("button.btn", { type: "submit", value: "cancel" }, "Cancel"),
        el("button.btn.primary", { type: "submit", value: "ok", autofocus: true }, confirmLabel)));
    dialog.append(form);
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "ok");
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * The room a page keeps under a board sized to the screen: the phone's tool bar pinned
 * over the bottom of the page, else the page's own bottom padding (so it does not scroll).
 */
export function roomBelow() {
  const bar = /** @type {HTMLElement | null} */ (document.querySelector(".game-bar .tools"));
  const covered = bar && getComputedStyle(bar).position === "fixed" ? bar.offsetHeight : 0;
  const main = document.querySelector("main");
  const pad = main ? parseFloat(getComputedStyle(main).paddingBottom) || 0 : 0;
  return covered ? covered + 8 : pad;
}

/**
 * Sizes a game's side column (the result and the chat, beside the board on a wide screen)
 * to the screen under its top, so it ends where the screen does and the page does not
 * scroll; on a narrow screen (where it stacks under the board) it keeps its own height.
 * @param {HTMLElement} side @param {HTMLElement} level an element whose top is the column's
 */
export function fitSide(side, level) {
  if (side.hidden || getComputedStyle(side).display === "contents") {
    side.style.height = "";
    return;
  }
  const top = level.getBoundingClientRect().top + window.scrollY;
  const h = Math.max(320, Math.min(680, window.innerHeight - top - roomBelow() - 2));
  side.style.height = `${Math.floor(h)}px`;
}

/**
 * Keeps a side column fitted as the window and the page above it change.
 * @param {HTMLElement} side @param {HTMLElement} level @param {Element[]} above what may grow over it
 * @returns {() => void} stops
 */
export function keepSideFitted(side, level, above) {
  const fit = () => fitSide(side, level);
  const observer = new ResizeObserver(fit);
  for (const e of above) observer.observe(e);
  window.addEventListener("resize", fit);
  fit();
  return () => {
    observer.disconnect();
    window.removeEventListener("resize", fit);
  };
}

/** @param {number} seconds */
export function formatDuration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(r)}` : `${m}:${two(r)}`;
}

/** "3 min ago" for an RFC 3339 time. @param {string} iso */
export function timeAgo(iso) {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const s = Math.max(0, (Date.now() - t) / 1000);
  if (s < 45) return "just now";
  if (s < 90 * 60) return `${Math.round(s / 60)} min ago`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/**
 * A stable colour for a player id, the same in every browser: p1, p2, ... get
 * hues spread by the golden angle so neighbours differ.
 * @param {string} player
 */
export function playerColor(player) {
  const n = Number(/(\d+)$/.exec(player)?.[1] ?? NaN);
  let hue;
  if (Number.isFinite(n)) {
    hue = (200 + n * 137.508) % 360;
  } else {
    let h = 0;
    for (const c of player) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    hue = h % 360;
  }
  return `hsl(${hue.toFixed(0)} 85% 45%)`;
}

/** @param {number} n @param {string} one @param {string} [many] */
export function plural(n, one, many = one + "s") {
  return `${n} ${n === 1 ? one : many}`;
}
