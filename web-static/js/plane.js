// @ts-check
/**
 * The Plane: the state's rectangles drawn to scale, each with its colour and
 * alpha/10 opacity; selections outlined in their player's colour; a side panel
 * for the selection (colour, alpha, add). Gestures become messages; the view
 * changes only when the server's diff arrives.
 */
import { el, playerColor, confirmDialog } from "./ui.js";

const DOUBLE_TAP_MS = 420;
const DRAG_THRESHOLD = 5;

/** @param {number} n */
const hex2 = (n) => Math.max(0, Math.min(255, Math.round(n))).toString(16).padStart(2, "0").toUpperCase();

/** "#RRGGBB" of a rectangle. @param {{r: number, g: number, b: number}} rect */
export function rectHex(rect) {
  return `#${hex2(rect.r)}${hex2(rect.g)}${hex2(rect.b)}`;
}

/**
 * The topmost rectangle containing a point (inclusive edges, like the server).
 * @param {any} state
 * @param {number} x
 * @param {number} y
 * @returns {string | null}
 */
export function topmostAt(state, x, y) {
  const order = state.order || [];
  for (let i = order.length - 1; i >= 0; i--) {
    const r = state.rectangles[order[i]];
    if (r && x >= r.x && x <= r.x + r.width && y >= r.y && y <= r.y + r.height) return order[i];
  }
  return null;
}

/**
 * @typedef {object} PlaneOptions
 * @property {boolean} interactive
 * @property {(message: {[key: string]: any}) => Promise<any>} send
 * @property {() => (string | undefined)} you this connection's player id
 * @property {string} [readOnlyTitle] what the panel says when not interactive
 */

export class PlaneView {
  /**
   * @param {HTMLElement} host
   * @param {PlaneOptions} options
   */
  constructor(host, options) {
    this.host = host;
    this.options = options;
    /** @type {any} */
    this.state = null;
    this.scale = 1;
    /** @type {Map<string, HTMLElement>} */
    this.rects = new Map();
    this.root = el("div.plane-layout");
    this.stage = el("div.plane-stage");
    this.plane = el("div.plane", { role: "application", "aria-label": "Plane of rectangles" });
    this.stage.append(this.plane);
    this.root.append(this.stage);
    this.panel = this.buildPanel();
    this.root.append(this.panel);
    host.append(this.root);
    /** @type {any} */
    this.gesture = null;
    /** counts states shown, so a reply can tell whether its diff has been drawn */
    this.version = 0;
    /** @type {string | null} the rectangle the last change added, moved or changed (marked) */
    this.last = null;
    /** @type {{x: number, y: number, time: number} | null} */
    this.lastTap = null;
    /** @type {(() => void)[]} */
    this.off = [];
    this.resizeObserver = new ResizeObserver(() => this.render(false));
    this.resizeObserver.observe(this.stage);
    if (options.interactive) this.bindGestures();
    else this.plane.classList.add("read-only");
  }

  buildPanel() {
    const interactive = this.options.interactive;
    this.selTitle = el("p.sel-title", {}, "Nothing selected");
    this.selId = el("code.sel-id", { hidden: !interactive }, "");
    this.colorButton = /** @type {HTMLButtonElement} */ (el("button.btn.color-btn", { type: "button", "aria-label": "Background colour: tap for a random colour", title: "Random colour" },
      el("span.swatch", { "aria-hidden": "true" }), el("span.color-hex", {}, "#------")));
    this.alphaDown = /** @type {HTMLButtonElement} */ (el("button.btn.round.alpha-down", { type: "button", "aria-label": "Less opaque" }, "\u2212"));
    this.alphaUp = /** @type {HTMLButtonElement} */ (el("button.btn.round.alpha-up", { type: "button", "aria-label": "More opaque" }, "+"));
    this.alphaValue = el("output.alpha-value", { "aria-live": "polite" }, "\u2013");
    this.alphaBar = el("div.alpha-bar", { "aria-hidden": "true" }, el("div.alpha-fill"));
    this.addButton = /** @type {HTMLButtonElement} */ (el("button.btn.primary.add-rect", { type: "button" }, "Add rectangle"));
    this.clearButton = /** @type {HTMLButtonElement} */ (el("button.btn.ghost.clear-plane", { type: "button" }, "Clear plane"));
    this.countLine = el("p.muted.rect-count", {}, "");
    this.legend = el("ul.legend", { "aria-label": "Players with a selection", hidden: true });
    const panel = el("aside.plane-panel", { "aria-label": "Selection" },
      el("div.sel-head", {}, this.selTitle, this.selId),
      interactive ? el("div.field", {}, el("span.field-label", {}, "Colour"), this.colorButton) : null,
      interactive ? el("div.field", {}, el("span.field-label", {}, "Alpha"),
        el("div.alpha-row", {}, this.alphaDown, el("div.alpha-mid", {}, this.alphaValue, this.alphaBar), this.alphaUp)) : null,
      interactive ? el("div.panel-actions", {}, this.addButton, this.clearButton) : null,
      this.countLine,
      this.legend,
      interactive ? el("p.muted.panel-help", {}, "Tap to select \u00b7 double-tap to add \u00b7 drag to move") : null,
    );
    if (interactive) {
      this.colorButton.addEventListener("click", () => this.command({ type: "color" }));
      this.alphaDown.addEventListener("click", () => this.command({ type: "alpha", step: -1 }));
      this.alphaUp.addEventListener("click", () => this.command({ type: "alpha", step: 1 }));
      this.addButton.addEventListener("click", () => this.command({ type: "add" }));
      this.clearButton.addEventListener("click", () => this.clear());
    }
    return panel;
  }

  async clear() {
    if (!this.state || !(this.state.order || []).length) return;
    if (await confirmDialog("Clear the plane?", "Every rectangle goes, for everyone on this plane.", "Clear")) this.command({ type: "reset" });
  }

  /** @param {{[key: string]: any}} message */
  command(message) {
    return this.options.send(message).catch(() => {});
  }

  /**
   * @param {any} state @param {boolean} animate
   * @param {any} [before] the plane before the last change: the rectangle it added, moved or
   *   changed is marked (none for a change of selection, a clear plane, or a snapshot)
   */
  setState(state, animate, before = null) {
    const prev = this.state;
    this.state = state;
    this.version++;
    if (before) {
      const changed = (state.order || []).filter((/** @type {string} */ id) =>
        JSON.stringify(before.rectangles?.[id] ?? null) !== JSON.stringify(state.rectangles?.[id]));
      this.last = changed.length === 1 ? changed[0] : null;
    } else if (!prev) this.last = null;
    if (this.last && !state.rectangles?.[this.last]) this.last = null;
    this.render(animate);
  }

  /** The page around the plane changed size. */
  relayout() {
    this.render(false);
  }

  /** @param {boolean} animate */
  render(animate) {
    const state = this.state;
    if (!state) return;
    const availableW = this.stage.clientWidth || 320;
    const top = this.stage.getBoundingClientRect().top + window.scrollY;
    const availableH = Math.max(200, window.innerHeight - top - 36);
    const wide = window.innerWidth >= 760;
    this.scale = Math.min(availableW / state.width, (wide ? availableH : Infinity) / state.height, 2);
    const s = this.scale;
    this.plane.style.width = `${state.width * s}px`;
    this.plane.style.height = `${state.height * s}px`;

    const motion = animate && !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    /** @type {Map<string, DOMRect>} */
    const before = new Map();
    if (motion) for (const [id, node] of this.rects) before.set(id, node.getBoundingClientRect());

    const order = state.order || [];
    const present = new Set(order);
    for (const [id, node] of this.rects) {
      if (!present.has(id)) { node.remove(); this.rects.delete(id); }
    }
    /** @type {Map<string, string[]>} who selects each rectangle */
    const selectedBy = new Map();
    for (const [player, id] of Object.entries(state.selections || {})) {
      if (!selectedBy.has(id)) selectedBy.set(id, []);
      /** @type {string[]} */ (selectedBy.get(id)).push(player);
    }
    const you = this.options.you();
    order.forEach((/** @type {string} */ id, /** @type {number} */ i) => {
      const r = state.rectangles[id];
      if (!r) return;
      let node = this.rects.get(id);
      if (!node) {
        node = el("div.rect", { dataset: { id } });
        this.rects.set(id, node);
      }
      if (this.plane.children[i] !== node) this.plane.insertBefore(node, this.plane.children[i] || null);
      node.style.left = `${r.x * s}px`;
      node.style.top = `${r.y * s}px`;
      node.style.width = `${r.width * s}px`;
      node.style.height = `${r.height * s}px`;
      node.style.backgroundColor = `rgb(${r.r} ${r.g} ${r.b} / ${r.alpha / 10})`;
      if (!(this.gesture && this.gesture.moved && this.gesture.id === id)) node.style.transform = "";
      node.dataset.alpha = String(r.alpha);
      node.dataset.color = rectHex(r);
      const players = selectedBy.get(id) || [];
      node.classList.toggle("selected", players.length > 0);
      node.classList.toggle("mine", !!you && players.includes(you));
      node.classList.toggle("last-move", id === this.last);
      node.dataset.selectedBy = players.join(" ");
      // One ring per selecting player, each in that player's colour.
      node.style.boxShadow = players.length
        ? players.flatMap((p, k) => [`0 0 0 ${(k + 1) * 3}px ${playerColor(p)}`]).join(", ")
        : "";
      node.replaceChildren(...players.map((p, k) => el("span.sel-tag", { dataset: { player: p } }, p === you ? "you" : p)));
      node.querySelectorAll(".sel-tag").forEach((tag, k) => {
        /** @type {HTMLElement} */ (tag).style.backgroundColor = playerColor(players[k]);
        /** @type {HTMLElement} */ (tag).style.left = `${k * 34}px`;
      });
      if (motion) {
        const old = before.get(id);
        if (old) {
          const now = node.getBoundingClientRect();
          const dx = old.left - now.left, dy = old.top - now.top;
          if (Math.abs(dx) > 0.5 || Math.abs(dy) > 0.5) {
            node.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], { duration: 180, easing: "cubic-bezier(.2,.7,.3,1)" });
          }
        } else {
          node.animate([{ opacity: 0, transform: "scale(0.85)" }, { opacity: 1, transform: "none" }], { duration: 160, easing: "ease-out" });
        }
      }
    });
    this.plane.style.setProperty("--mine", you ? playerColor(you) : "#333");
    this.updatePanel();
  }

  updatePanel() {
    const state = this.state;
    const you = this.options.you();
    const id = you ? (state.selections || {})[you] : undefined;
    const r = id ? state.rectangles[id] : undefined;
    const count = (state.order || []).length;
    this.countLine.textContent = `${count} ${count === 1 ? "rectangle" : "rectangles"}`;
    const selecting = Object.keys(state.selections || {}).sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
    this.legend.replaceChildren(...selecting.map((p) => {
      const chip = el("span.chip", { "aria-hidden": "true" });
      chip.style.backgroundColor = playerColor(p);
      return el("li", {}, chip, p === you ? `${p} (you)` : p);
    }));
    this.legend.hidden = selecting.length === 0;
    if (!this.options.interactive) {
      this.selTitle.textContent = this.options.readOnlyTitle || "Watching";
      this.selId.textContent = "";
      return;
    }
    this.selTitle.textContent = r ? "Selected" : "Nothing selected";
    this.selId.textContent = r ? /** @type {string} */ (id) : "";
    const hex = r ? rectHex(r) : "#------";
    /** @type {HTMLElement} */ (this.colorButton.querySelector(".color-hex")).textContent = hex;
    /** @type {HTMLElement} */ (this.colorButton.querySelector(".swatch")).style.setProperty("--swatch", r ? `rgb(${r.r} ${r.g} ${r.b} / ${r.alpha / 10})` : "transparent");
    this.colorButton.disabled = !r;
    this.alphaValue.textContent = r ? String(r.alpha) : "\u2013";
    /** @type {HTMLElement} */ (this.alphaBar.firstElementChild).style.width = r ? `${r.alpha * 10}%` : "0%";
    this.alphaDown.disabled = !r || r.alpha <= 1;
    this.alphaUp.disabled = !r || r.alpha >= 10;
    this.clearButton.disabled = count === 0;
  }

  // ---- gestures -------------------------------------------------------

  bindGestures() {
    const p = this.plane;
    /** @param {string} type @param {(e: any) => void} fn */
    const on = (type, fn) => { p.addEventListener(type, fn); this.off.push(() => p.removeEventListener(type, fn)); };
    on("pointerdown", (/** @type {PointerEvent} */ e) => this.pointerDown(e));
    on("pointermove", (/** @type {PointerEvent} */ e) => this.pointerMove(e));
    on("pointerup", (/** @type {PointerEvent} */ e) => this.pointerUp(e));
    on("pointercancel", () => { if (this.gesture?.moved) this.render(true); this.gesture = null; });
  }

  /** Plane coordinates of a pointer event. @param {PointerEvent} e */
  point(e) {
    const r = this.plane.getBoundingClientRect();
    const round = (/** @type {number} */ v) => Math.round(v * 10) / 10;
    return {
      x: round(Math.max(0, Math.min(this.state.width, (e.clientX - r.left) / this.scale))),
      y: round(Math.max(0, Math.min(this.state.height, (e.clientY - r.top) / this.scale))),
    };
  }

  /** @param {PointerEvent} e */
  pointerDown(e) {
    if (e.button !== 0 || !this.state || this.gesture) return;
    const at = this.point(e);
    this.gesture = { pointerId: e.pointerId, from: at, id: topmostAt(this.state, at.x, at.y), moved: false, clientX: e.clientX, clientY: e.clientY };
    try { this.plane.setPointerCapture(e.pointerId); } catch { /* synthetic pointers */ }
  }

  /** @param {PointerEvent} e */
  pointerMove(e) {
    const g = this.gesture;
    if (!g || g.pointerId !== e.pointerId || !g.id) return;
    const dx = e.clientX - g.clientX, dy = e.clientY - g.clientY;
    if (!g.moved && Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
    e.preventDefault();
    const node = this.rects.get(g.id);
    const r = this.state.rectangles[g.id];
    if (!node || !r) return;
    if (!g.moved) {
      g.moved = true;
      node.classList.add("dragging");
    }
    // Preview inside the plane, as the server will keep it.
    const s = this.scale;
    const cx = Math.max(-r.x * s, Math.min((this.state.width - r.x - r.width) * s, dx));
    const cy = Math.max(-r.y * s, Math.min((this.state.height - r.y - r.height) * s, dy));
    node.style.transform = `translate(${cx}px, ${cy}px)`;
  }

  /** @param {PointerEvent} e */
  pointerUp(e) {
    const g = this.gesture;
    if (!g || g.pointerId !== e.pointerId) return;
    this.gesture = null;
    const at = this.point(e);
    if (g.moved) {
      this.rects.get(g.id)?.classList.remove("dragging");
      if (at.x === g.from.x && at.y === g.from.y) { this.render(true); return; }
      const version = this.version;
      this.options.send({ type: "drag", from: g.from, to: at }).then(
        () => { if (this.version === version) this.render(true); },
        () => this.render(true));
      return;
    }
    const now = performance.now();
    const last = this.lastTap;
    if (last && now - last.time < DOUBLE_TAP_MS && Math.hypot(at.x - last.x, at.y - last.y) * this.scale < 24) {
      this.lastTap = null;
      this.command({ type: "double-tap", x: at.x, y: at.y });
      return;
    }
    this.lastTap = { x: at.x, y: at.y, time: now };
    const you = this.options.you();
    const mine = you ? (this.state.selections || {})[you] : undefined;
    const hit = topmostAt(this.state, at.x, at.y);
    // A tap that would change nothing is not sent (the server would call it illegal).
    if (hit === (mine ?? null)) return;
    this.command({ type: "tap", x: at.x, y: at.y });
  }

  destroy() {
    this.resizeObserver.disconnect();
    for (const off of this.off) off();
    this.root.remove();
  }
}

// ---- the game: what the page does around the plane ---------------------------

/** A plane being drawn on or watched: it has no end, no hints and no tools of its own. */
class PlanePlay {
  /** @param {import("./games.js").Shell} shell @param {PlaneView} board */
  constructor(shell, board) {
    this.shell = shell;
    this.board = board;
  }

  /** @param {any} s */
  stats(s) {
    return [this.shell.stat("Rectangles", (s.order || []).length, "count")];
  }

  /** A shake: clear the plane (after asking). */
  newGame() {
    this.board.clear();
  }
}

/** @type {import("./games.js").GameKind} */
export const planeGame = {
  kind: "plane",
  name: "Plane",
  noun: "plane",
  icon: "plane",
  seats: false,
  playersReadSpectatorsAfter: false,
  shake: "to clear the plane",
  inviteText: "Whoever opens this link draws on this plane with you: every player's rectangles and selections show to all.",
  title: () => ({ name: "Plane" }),
  board: (host, options) => new PlaneView(host, { interactive: options.interactive, send: options.send, you: options.you, readOnlyTitle: options.replay ? "Replay" : undefined }),
  play: (shell, board) => new PlanePlay(shell, board),
  replayStart: "An empty plane",
  tiles: (lobby) => [lobby.button("Plane", "Shared rectangles", "plane", () => lobby.withDelay({}), "plane")],
};
