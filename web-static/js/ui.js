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

/**
 * A short message at the bottom of the screen.
 * @param {string} text
 * @param {"info" | "error"} [kind]
 */
export function toast(text, kind = "info") {
  const host = document.getElementById("toasts");
  if (!host) return;
  const node = el(`div.toast.${kind}`, { role: kind === "error" ? "alert" : "status" }, text);
  host.append(node);
  const done = () => node.remove();
  setTimeout(() => {
    node.classList.add("leaving");
    node.addEventListener("animationend", done, { once: true });
    setTimeout(done, 600);
  }, kind === "error" ? 4000 : 2600);
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
 * Copies text to the clipboard: the async Clipboard API where allowed,
 * else a selected textarea and execCommand, else the caller shows the text.
 * @param {string} text
 * @returns {Promise<boolean>}
 */
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Permission refused or no focus: try the old way.
  }
  const area = /** @type {HTMLTextAreaElement} */ (el("textarea.offscreen", { readonly: true, "aria-hidden": "true" }));
  area.value = text;
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
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
