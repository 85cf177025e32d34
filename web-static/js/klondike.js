// @ts-check
/**
 * The Klondike table: lays out the state's piles like the original app
 * (foundations left and stock right in the top row, seven fanned tableau
 * columns below), animates cards from where they were to where the new state
 * puts them (FLIP, by card identity), and turns pointer gestures into
 * protocol messages. It never changes the state itself: the server does.
 */
import { cardElement, paintCard, isFaceUp, cardName } from "./cards.js";
import { el, svg, confirmDialog, toast, roomBelow } from "./ui.js";
import { TablePlay } from "./tableplay.js";

export const CARD_RATIO = 1.27;
const DOUBLE_TAP_MS = 420;
const DRAG_THRESHOLD = 6;

const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/**
 * @typedef {object} Placed one card where the layout puts it
 * @property {string} key identity: the card name, or pile + index for a face-down card
 * @property {string} card "7H" or "??"
 * @property {string} pile "/tableau/3", "/waste", ...
 * @property {number} index position in the pile, 0 = bottom
 * @property {number} x
 * @property {number} y
 * @property {number} z
 */

/**
 * @typedef {object} Geometry
 * @property {number} cw card width
 * @property {number} ch card height
 * @property {number} gap
 * @property {number} left x of column 0
 * @property {number} top y of the top row
 * @property {number} tableauTop y of the tableau row
 * @property {number} width
 */

/** @param {number} x @param {number} y */
const translate = (x, y) => `translate3d(${x.toFixed(2)}px, ${y.toFixed(2)}px, 0)`;

/** The pile pointer of a tableau/foundation index. @param {string} pile */
function pileOf(pile) {
  return pile;
}

/**
 * Where every card of `state` goes, for a table of the given geometry.
 * Pure: the tests and the replay use it too.
 * @param {any} state
 * @param {Geometry} g
 * @param {number} maxHeight tallest the table may be before the fans close up
 * @returns {{cards: Placed[], height: number}}
 */
export function layout(state, g, maxHeight) {
  /** @type {Placed[]} */
  const cards = [];
  const col = (/** @type {number} */ i) => g.left + i * (g.cw + g.gap);
  const keyOf = (/** @type {string} */ card, /** @type {string} */ pile, /** @type {number} */ i) =>
    isFaceUp(card) ? card : `down:${pile}:${i}`;

  (state.foundations || []).forEach((/** @type {string[]} */ pile, /** @type {number} */ f) => {
    pile.forEach((card, i) => cards.push({ key: keyOf(card, `/foundations/${f}`, i), card, pile: `/foundations/${f}`, index: i, x: col(f), y: g.top, z: 10 + i }));
  });

  const stock = state.stock || [];
  stock.forEach((/** @type {string} */ card, /** @type {number} */ i) => {
    // A slight lift every few cards gives the pile some depth.
    const lift = Math.floor(i / 6) * 0.6;
    cards.push({ key: keyOf(card, "/stock", i), card, pile: "/stock", index: i, x: col(6) - lift, y: g.top - lift, z: 10 + i });
  });

  const waste = state.waste || [];
  const fanned = state.draw === 3 ? 3 : 1;
  const fanStep = Math.min(g.cw * 0.45, (g.cw + g.gap) / 2);
  waste.forEach((/** @type {string} */ card, /** @type {number} */ i) => {
    const fromTop = waste.length - 1 - i; // 0 for the top card
    const slot = Math.min(fromTop, fanned - 1);
    cards.push({ key: keyOf(card, "/waste", i), card, pile: "/waste", index: i, x: col(5) - slot * fanStep, y: g.top, z: 10 + i });
  });

  const down = Math.max(4, g.ch * 0.12);
  const up = Math.max(10, g.ch * 0.27);
  let height = g.tableauTop + g.ch;
  (state.tableau || []).forEach((/** @type {string[]} */ pile, /** @type {number} */ t) => {
    const downs = pile.filter((c) => !isFaceUp(c)).length;
    const ups = pile.length - downs;
    let upStep = up;
    let downStep = down;
    const needed = g.tableauTop + downs * down + Math.max(0, ups - 1) * up + g.ch;
    if (needed > maxHeight && ups > 1) {
      // Close the fan so the column fits, but keep every rank readable.
      const room = maxHeight - g.tableauTop - g.ch - downs * down;
      upStep = Math.max(up * 0.5, room / (ups - 1));
      if (upStep === up * 0.5) downStep = Math.max(3, down * 0.6);
    }
    let y = g.tableauTop;
    pile.forEach((card, i) => {
      cards.push({ key: keyOf(card, `/tableau/${t}`, i), card, pile: `/tableau/${t}`, index: i, x: col(t), y, z: 10 + i });
      y += isFaceUp(card) ? upStep : downStep;
    });
    if (pile.length) height = Math.max(height, y - (isFaceUp(pile[pile.length - 1]) ? upStep : downStep) + g.ch);
  });
  return { cards, height: height + g.gap };
}

/**
 * The cards the last move moved, for its mark (lichess marks the last move), by the
 * keys the table draws them with: the face-up cards now in another pile than before, a
 * card drawn from the stock, and on a rival's masked table (its cards all `??`) the cards
 * a pile gained. A card turned face up where it lay moved nowhere; a new deal or the waste
 * turned back over marks nothing.
 * @param {any} before
 * @param {any} after
 * @returns {Set<string>} card names, and `down:PILE:INDEX` for cards face down
 */
export function movedCards(before, after) {
  const moved = new Set();
  if (!before || !after) return moved;
  /** @param {any} state @returns {[string, string[]][]} */
  const piles = (state) => [["/waste", state.waste || []], ["/stock", state.stock || []],
    ...(state.foundations || []).map((/** @type {any} */ f, /** @type {number} */ i) => [`/foundations/${i}`, f || []]),
    ...(state.tableau || []).map((/** @type {any} */ t, /** @type {number} */ i) => [`/tableau/${i}`, t || []])];
  /** @type {Map<string, string>} */
  const was = new Map();
  for (const [name, pile] of piles(before)) for (const c of pile) if (isFaceUp(c)) was.set(c, name);
  const lengths = new Map(piles(before).map(([name, pile]) => [name, pile.length]));
  for (const [name, pile] of piles(after)) {
    pile.forEach((c, i) => {
      if (isFaceUp(c)) {
        const old = was.get(c);
        if (old ? old !== name : name === "/waste") moved.add(c);
      } else if (name !== "/stock" && i >= (lengths.get(name) ?? 0)) {
        moved.add(`down:${name}:${i}`);
      }
    });
  }
  // A run moves 13 cards at most, and draw 3 draws 3: more is a new deal.
  return moved.size > 13 ? new Set() : moved;
}

/**
 * The table geometry for a container of width `width`.
 * @param {number} width
 * @returns {Geometry}
 */
export function geometry(width) {
  const gap = Math.max(3, Math.min(14, width * 0.012));
  const cw = Math.min(112, (width - gap * 8) / 7);
  const ch = cw * CARD_RATIO;
  const used = cw * 7 + gap * 6;
  const left = Math.max(gap, (width - used) / 2);
  const top = gap;
  return { cw, ch, gap, left, top, tableauTop: top + ch + Math.max(gap * 2, ch * 0.16), width };
}

/**
 * @typedef {object} KlondikeOptions
 * @property {boolean} interactive gestures allowed (a player, not a spectator or a replay)
 * @property {(message: {[key: string]: any}) => Promise<any>} send a game command; rejects on `error`
 * @property {string} [label] what the table is called for screen readers ("Klondike table")
 * @property {boolean} [compact] a small table (a rival's in a race, a thumbnail): lighter details
 */

export class KlondikeView {
  /**
   * @param {HTMLElement} host
   * @param {KlondikeOptions} options
   */
  constructor(host, options) {
    this.host = host;
    this.options = options;
    /** @type {any} */
    this.state = null;
    /** @type {Map<string, HTMLElement>} */
    this.cards = new Map();
    /** @type {WeakMap<HTMLElement, Placed>} */
    this.placed = new WeakMap();
    this.table = el("div.kl-table", { role: "application", "aria-label": options.label || "Klondike table" });
    if (options.compact) this.table.classList.add("compact");
    this.slots = new Map();
    for (let f = 0; f < 4; f++) this.addSlot(`/foundations/${f}`, "foundation", "A");
    this.addSlot("/waste", "waste", "");
    this.addSlot("/stock", "stock", "");
    for (let t = 0; t < 7; t++) this.addSlot(`/tableau/${t}`, "tableau", "K");
    this.refresh = svg("svg", { class: "refresh", viewBox: "0 0 24 24", "aria-hidden": "true" },
      svg("path", { d: "M17.65 6.35A7.96 7.96 0 0 0 12 4a8 8 0 1 0 7.73 10h-2.08A6 6 0 1 1 12 6c1.66 0 3.14.69 4.22 1.78L13 11h7V4l-2.35 2.35z" }));
    this.slots.get("/stock").append(this.refresh);
    this.stockButton = el("button.stock-hit", { type: "button", "aria-label": "Stock: draw a card" });
    this.table.append(this.stockButton);
    host.append(this.table);
    /** @type {Geometry} */
    this.geo = geometry(host.clientWidth || 360);
    /** @type {{key: string, time: number, x: number, y: number} | null} */
    this.lastTap = null;
    /** @type {any} */
    this.drag = null;
    /** counts states shown, so a reply can tell whether its diff has been drawn */
    this.version = 0;
    this.hintTimer = 0;
    /** @type {Set<string>} the cards the last move moved (marked) */
    this.lastMoved = new Set();
    /** @type {(() => void)[]} */
    this.off = [];
    this.resizeObserver = new ResizeObserver(() => this.relayout());
    this.resizeObserver.observe(host);
    const onWindowResize = () => this.relayout();
    window.addEventListener("resize", onWindowResize);
    this.off.push(() => window.removeEventListener("resize", onWindowResize));
    if (options.interactive) this.bindGestures();
    else this.table.classList.add("read-only");
    this.stockButton.disabled = !options.interactive;
  }

  /** @param {string} pile @param {string} kind @param {string} mark */
  addSlot(pile, kind, mark) {
    const slot = el(`div.slot.${kind}`, { dataset: { pile } }, mark ? el("span.slot-mark", { "aria-hidden": "true" }, mark) : null);
    this.slots.set(pile, slot);
    this.table.append(slot);
  }

  relayout() {
    const width = this.host.clientWidth;
    if (!width || Math.abs(width - this.geo.width) < 0.5) {
      if (width) this.render(false);
      return;
    }
    this.geo = geometry(width);
    this.render(false);
  }

  /** Tallest the table may be: what is left of the window under its top edge. */
  maxHeight() {
    const top = this.host.getBoundingClientRect().top + window.scrollY;
    // On a phone the toolbar is pinned to the bottom of the screen, over the page; else the page's padding.
    return Math.max(this.geo.ch * 4.5, window.innerHeight - top - roomBelow() - 2 - this.geo.gap);
  }

  /**
   * Shows `state`; cards that moved slide from where they are now, and the cards the
   * last move moved are marked.
   * @param {any} state
   * @param {boolean} animate
   * @param {any} [before] the state before the last move (null: none to mark; a snapshot keeps the mark of cards still in place)
   */
  setState(state, animate, before = null) {
    const prev = this.state;
    this.state = state;
    this.version++;
    this.clearHint();
    if (before) this.lastMoved = movedCards(before, state);
    else if (!prev) this.lastMoved = new Set();
    // No move given (a snapshot): the mark stays while nothing moved.
    else if (prev !== state && movedCards(prev, state).size) this.lastMoved = new Set();
    this.render(animate);
  }

  /** @param {boolean} animate */
  render(animate) {
    const g = this.geo;
    const t = this.table;
    t.style.setProperty("--cw", `${g.cw}px`);
    t.style.setProperty("--ch", `${g.ch}px`);
    const col = (/** @type {number} */ i) => g.left + i * (g.cw + g.gap);
    const place = (/** @type {HTMLElement} */ node, /** @type {number} */ x, /** @type {number} */ y) => { node.style.transform = translate(x, y); };
    for (let f = 0; f < 4; f++) place(this.slots.get(`/foundations/${f}`), col(f), g.top);
    place(this.slots.get("/waste"), col(5), g.top);
    place(this.slots.get("/stock"), col(6), g.top);
    place(this.stockButton, col(6), g.top);
    for (let i = 0; i < 7; i++) place(this.slots.get(`/tableau/${i}`), col(i), g.tableauTop);
    if (!this.state) {
      t.style.height = `${g.tableauTop + g.ch + g.gap}px`;
      return;
    }
    const state = this.state;
    const stockEmpty = !(state.stock || []).length;
    this.slots.get("/stock").classList.toggle("empty-stock", stockEmpty);
    this.slots.get("/stock").classList.toggle("exhausted", stockEmpty && !(state.waste || []).length);
    this.stockButton.setAttribute("aria-label", stockEmpty ? "Turn the waste back over" : "Stock: draw");
    this.table.classList.toggle("won", state.status === "won");

    const { cards: placed, height } = layout(state, g, this.maxHeight());
    t.style.height = `${height}px`;
    const motion = animate && !reducedMotion();

    /** where each element is on screen now, before anything moves */
    /** @type {Map<string, {x: number, y: number, placed: Placed | undefined}>} */
    const before = new Map();
    for (const [key, node] of this.cards) before.set(key, { ...this.currentPosition(node), placed: this.placed.get(node) });

    // Cards that left: a face-down card at the same place as a new face-up one is that card turning over.
    /** @type {Map<string, {x: number, y: number}>} */
    const vanished = new Map();
    const keep = new Set(placed.map((p) => p.key));
    for (const [key, node] of this.cards) {
      if (!keep.has(key)) {
        const p = this.placed.get(node);
        const pos = before.get(key);
        if (p && pos) vanished.set(`${p.pile}:${p.index}`, pos);
        node.getAnimations().forEach((a) => a.cancel());
        node.remove();
        this.cards.delete(key);
      }
    }

    const lifted = new Set(this.drag && this.drag.moved && !this.drag.done ? this.drag.nodes : []);
    const wasteTop = { x: col(5), y: g.top };
    const stockTop = { x: col(6), y: g.top };
    let moving = 0;
    for (const p of placed) {
      let node = this.cards.get(p.key);
      /** @type {{x: number, y: number} | undefined} */
      let from;
      let flip = false;
      if (node) {
        from = before.get(p.key);
        if (node.dataset.card !== p.card) paintCard(node, p.card);
      } else {
        node = cardElement(p.card);
        node.dataset.key = p.key;
        this.cards.set(p.key, node);
        this.table.append(node);
        const same = vanished.get(`${p.pile}:${p.index}`);
        if (same) { from = same; flip = true; }
        else if (p.pile === "/waste") { from = stockTop; flip = true; }
        else if (p.pile === "/stock" && before.size) { from = wasteTop; flip = true; }
      }
      node.dataset.pile = pileOf(p.pile);
      node.dataset.index = String(p.index);
      const length = this.pileLength(p.pile);
      node.classList.toggle("top", p.index === length - 1);
      node.classList.toggle("last-move", this.lastMoved.has(p.key));
      // Cards squared up under others in a pile would stack their shadows into a dark rim.
      const shown = p.pile === "/waste" ? (state.draw === 3 ? 4 : 2) : 2;
      node.classList.toggle("buried", (p.pile === "/waste" || p.pile.startsWith("/foundations/")) && p.index < length - shown);
      this.placed.set(node, p);
      // Cards under the pointer stay with it; the drop decides where they go.
      if (lifted.has(node)) continue;
      node.classList.remove("dragging", "drop-target");
      node.style.transform = translate(p.x, p.y);
      node.style.zIndex = String(p.z);
      if (!motion || !from) continue;
      const dx = from.x - p.x, dy = from.y - p.y;
      if (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5 && !flip) continue;
      node.getAnimations().forEach((a) => a.cancel());
      const distance = Math.hypot(dx, dy);
      const duration = Math.min(420, 170 + distance * 0.35);
      const delay = Math.min(moving, 12) * 18;
      moving++;
      node.style.zIndex = String(500 + p.z);
      const to = translate(p.x, p.y);
      const keyframes = flip
        ? [{ transform: `${translate(from.x, from.y)} scaleX(1)` }, { transform: `${translate((from.x + p.x) / 2, (from.y + p.y) / 2)} scaleX(0.05)`, offset: 0.5 }, { transform: `${to} scaleX(1)` }]
        : [{ transform: translate(from.x, from.y) }, { transform: to }];
      const anim = node.animate(keyframes, { duration, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" });
      const n = node, z = p.z;
      anim.addEventListener("finish", () => { n.style.zIndex = String(z); });
      anim.addEventListener("cancel", () => { n.style.zIndex = String(z); });
    }
  }

  /** @param {string} pile */
  pileLength(pile) {
    const v = pile.split("/").slice(1).reduce((/** @type {any} */ o, k) => (o == null ? o : o[k]), this.state);
    return Array.isArray(v) ? v.length : 0;
  }

  /**
   * Where a card is drawn right now, mid-animation included.
   * @param {HTMLElement} node
   */
  currentPosition(node) {
    if (node.getAnimations().length) {
      const m = new DOMMatrixReadOnly(getComputedStyle(node).transform);
      return { x: m.m41, y: m.m42 };
    }
    const p = this.placed.get(node);
    const m = /translate3d\(([-\d.]+)px, ([-\d.]+)px/.exec(node.style.transform);
    if (m) return { x: Number(m[1]), y: Number(m[2]) };
    return p ? { x: p.x, y: p.y } : { x: 0, y: 0 };
  }

  // ---- gestures -------------------------------------------------------

  bindGestures() {
    const t = this.table;
    /** @param {string} type @param {(e: any) => void} fn */
    const on = (type, fn) => { t.addEventListener(type, fn); this.off.push(() => t.removeEventListener(type, fn)); };
    on("pointerdown", (/** @type {PointerEvent} */ e) => this.pointerDown(e));
    on("pointermove", (/** @type {PointerEvent} */ e) => this.pointerMove(e));
    on("pointerup", (/** @type {PointerEvent} */ e) => this.pointerUp(e));
    on("pointercancel", (/** @type {PointerEvent} */ e) => this.pointerCancel(e));
    on("lostpointercapture", (/** @type {PointerEvent} */ e) => { if (this.drag && this.drag.pointerId === e.pointerId && !this.drag.done) this.pointerCancel(e); });
    on("contextmenu", (/** @type {Event} */ e) => { if (/** @type {HTMLElement} */ (e.target).closest(".card")) e.preventDefault(); });
    this.stockButton.addEventListener("click", () => this.tapStock());
  }

  tapStock() {
    if (!this.state) return;
    if (!(this.state.stock || []).length && !(this.state.waste || []).length) {
      this.nudge([this.slots.get("/stock")]);
      return;
    }
    this.options.send({ type: "tap", target: "/stock" }).catch(() => this.nudge([this.slots.get("/stock")]));
  }

  /** Table coordinates of a pointer event. @param {PointerEvent} e */
  point(e) {
    const r = this.table.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  /** @param {PointerEvent} e */
  pointerDown(e) {
    if (e.button !== 0 || this.drag || !this.state) return;
    const target = /** @type {HTMLElement} */ (e.target);
    if (target.closest(".stock-hit")) return;
    const node = /** @type {HTMLElement | null} */ (target.closest(".card"));
    if (!node || !node.dataset.key) return;
    const start = this.point(e);
    this.drag = { pointerId: e.pointerId, node, key: node.dataset.key, start, moved: false, time: performance.now(), nodes: [], origins: [], done: false };
    try { this.table.setPointerCapture(e.pointerId); } catch { /* a synthetic pointer may not be capturable */ }
  }

  /** The cards a drag of `node` lifts, bottom first, or null if it cannot move. @param {HTMLElement} node */
  liftable(node) {
    const p = this.placed.get(node);
    if (!p || !isFaceUp(p.card) || p.pile === "/stock") return null;
    const length = this.pileLength(p.pile);
    if (p.pile.startsWith("/tableau/")) {
      const run = [];
      for (let i = p.index; i < length; i++) {
        const pile = /** @type {string[]} */ (this.state.tableau[Number(p.pile.split("/")[2])]);
        const other = this.cards.get(isFaceUp(pile[i]) ? pile[i] : `down:${p.pile}:${i}`);
        if (other) run.push(other);
      }
      return run;
    }
    return p.index === length - 1 ? [node] : null;
  }

  /** @param {PointerEvent} e */
  pointerMove(e) {
    const d = this.drag;
    if (!d || d.pointerId !== e.pointerId || d.done) return;
    const now = this.point(e);
    const dx = now.x - d.start.x, dy = now.y - d.start.y;
    if (!d.moved) {
      if (Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
      const run = this.liftable(d.node);
      if (!run) { this.drag = null; return; }
      d.moved = true;
      d.nodes = run;
      d.origins = run.map((n) => this.currentPosition(n));
      run.forEach((n, i) => {
        n.getAnimations().forEach((a) => a.cancel());
        n.classList.add("dragging");
        n.style.zIndex = String(1000 + i);
      });
    }
    e.preventDefault();
    d.dx = dx;
    d.dy = dy;
    d.pointer = now;
    if (!d.frame) {
      d.frame = requestAnimationFrame(() => {
        d.frame = 0;
        if (d.done) return;
        d.nodes.forEach((/** @type {HTMLElement} */ n, /** @type {number} */ i) => { n.style.transform = translate(d.origins[i].x + d.dx, d.origins[i].y + d.dy); });
        this.markDropTarget(this.dropTarget(d));
      });
    }
  }

  /** @param {string | null} pile */
  markDropTarget(pile) {
    for (const n of this.table.querySelectorAll(".drop-target")) n.classList.remove("drop-target");
    if (!pile) return;
    const length = this.pileLength(pile);
    const top = length ? this.nodeAt(pile, length - 1) : null;
    (top && !top.classList.contains("dragging") ? top : this.slots.get(pile))?.classList.add("drop-target");
  }

  /** @param {string} pile @param {number} index */
  nodeAt(pile, index) {
    for (const node of this.cards.values()) {
      const p = this.placed.get(node);
      if (p && p.pile === pile && p.index === index) return node;
    }
    return null;
  }

  /**
   * The pile a drag would land on: the one under the pointer, else the one the
   * lifted card overlaps most; never the pile it came from.
   * @param {any} d
   * @returns {string | null}
   */
  dropTarget(d) {
    const g = this.geo;
    const head = d.origins[0];
    const hx = head.x + d.dx, hy = head.y + d.dy;
    const from = this.placed.get(d.nodes[0])?.pile;
    const col = (/** @type {number} */ i) => g.left + i * (g.cw + g.gap);
    /** @type {{pile: string, x: number, y: number, w: number, h: number}[]} */
    const zones = [];
    for (let f = 0; f < 4; f++) zones.push({ pile: `/foundations/${f}`, x: col(f), y: g.top, w: g.cw, h: g.ch });
    for (let i = 0; i < 7; i++) {
      const length = this.pileLength(`/tableau/${i}`);
      const last = length ? this.placed.get(/** @type {HTMLElement} */ (this.nodeAt(`/tableau/${i}`, length - 1))) : null;
      const bottom = Math.max(g.tableauTop + g.ch, (last ? last.y : 0) + g.ch) + g.ch * 0.5;
      zones.push({ pile: `/tableau/${i}`, x: col(i) - g.gap / 2, y: g.tableauTop - g.gap, w: g.cw + g.gap, h: bottom - g.tableauTop + g.gap });
    }
    // The pile it came from counts too: dropping back there (or mostly there) is no move.
    const p = d.pointer;
    const under = p && zones.find((z) => p.x >= z.x && p.x <= z.x + z.w && p.y >= z.y && p.y <= z.y + z.h);
    if (under) return under.pile === from ? null : under.pile;
    let best = null, bestArea = 0;
    for (const z of zones) {
      const w = Math.min(hx + g.cw, z.x + z.w) - Math.max(hx, z.x);
      const h = Math.min(hy + g.ch, z.y + z.h) - Math.max(hy, z.y);
      if (w > 0 && h > 0 && w * h > bestArea) { bestArea = w * h; best = z.pile; }
    }
    return best === from ? null : best;
  }

  /** @param {PointerEvent} e */
  pointerUp(e) {
    const d = this.drag;
    if (!d || d.pointerId !== e.pointerId) return;
    this.drag = null;
    d.done = true;
    if (d.frame) cancelAnimationFrame(d.frame);
    if (d.moved) {
      d.pointer = this.point(e);
      d.dx = d.pointer.x - d.start.x;
      d.dy = d.pointer.y - d.start.y;
      d.nodes.forEach((/** @type {HTMLElement} */ n, /** @type {number} */ i) => { n.style.transform = translate(d.origins[i].x + d.dx, d.origins[i].y + d.dy); });
      this.drop(d);
      return;
    }
    const now = performance.now();
    const p = this.point(e);
    const last = this.lastTap;
    if (last && now - last.time < DOUBLE_TAP_MS && Math.hypot(p.x - last.x, p.y - last.y) < 24) {
      // The second tap of a double tap (or click): the first one already moved the card.
      this.lastTap = null;
      return;
    }
    this.lastTap = { key: d.key, time: now, x: p.x, y: p.y };
    this.tap(d.node);
  }

  /**
   * A tap (or click) on a card moves it where it goes, as solitaire apps do: a top card
   * home or onto the first pile that takes it (the server's double-tap), a run inside a
   * pile onto the first pile that takes it; a card with nowhere to go shakes, and says so.
   * @param {HTMLElement} node
   */
  tap(node) {
    const p = this.placed.get(node);
    if (!p || p.pile === "/stock") return;
    if (!isFaceUp(p.card)) {
      this.refuse([node], "That card is face down: move the cards on it first");
      return;
    }
    const length = this.pileLength(p.pile);
    if (p.pile.startsWith("/foundations/")) {
      this.refuse([node], `The ${cardName(p.card)} is home: drag it to take it back`);
      return;
    }
    if (p.index === length - 1) {
      this.doubleTap(node);
      return;
    }
    if (p.pile === "/waste") {
      this.refuse([node], "Only the waste's top card can move");
      return;
    }
    const to = this.runTarget(p);
    const run = this.liftable(node) ?? [node];
    if (!to) {
      this.refuse(run, `No place for the ${cardName(p.card)} and the cards on it`);
      return;
    }
    this.options.send({ type: "drag", from: `${p.pile}/${p.index}`, to }).catch(() => this.nudge(run));
  }

  /** A card that cannot go anywhere: a shake and a word. @param {(Element | undefined | null)[]} nodes @param {string} why */
  refuse(nodes, why) {
    this.nudge(nodes);
    toast(why);
  }

  /**
   * Where a run headed by a tableau card goes: the first other pile whose top card is one
   * rank higher and of the other colour, else (a King) the first empty pile.
   * @param {Placed} p
   * @returns {string | null}
   */
  runTarget(p) {
    const ranks = "A23456789TJQK";
    const red = (/** @type {string} */ c) => c[1] === "H" || c[1] === "D";
    const rank = ranks.indexOf(p.card[0]);
    const tableau = /** @type {string[][]} */ (this.state?.tableau || []);
    let empty = null;
    for (let t = 0; t < tableau.length; t++) {
      const pile = `/tableau/${t}`;
      if (pile === p.pile) continue;
      const top = tableau[t][tableau[t].length - 1];
      if (!top) {
        if (rank === 12 && empty === null) empty = pile;
        continue;
      }
      if (isFaceUp(top) && ranks.indexOf(top[0]) === rank + 1 && red(top) !== red(p.card)) return pile;
    }
    return empty;
  }

  /** @param {PointerEvent} e */
  pointerCancel(e) {
    const d = this.drag;
    if (!d || d.pointerId !== e.pointerId) return;
    this.drag = null;
    d.done = true;
    if (d.moved) this.render(true);
  }

  /** @param {any} d */
  drop(d) {
    const target = this.dropTarget(d);
    this.markDropTarget(null);
    const placedHead = this.placed.get(d.nodes[0]);
    if (!target || !placedHead) {
      this.render(true);
      return;
    }
    const from = placedHead.pile.startsWith("/tableau/") ? `${placedHead.pile}/${placedHead.index}` : placedHead.pile;
    for (const n of d.nodes) n.classList.remove("dragging");
    // The cards stay where they were dropped: the server's diff slides them
    // home, or its error slides them back.
    const version = this.version;
    // An ack with no new state (a repeated id) must not leave the cards in mid-air.
    this.options.send({ type: "drag", from, to: target }).then(
      () => { if (this.version === version) this.render(true); },
      () => this.render(true));
  }

  /** @param {HTMLElement} node */
  doubleTap(node) {
    const p = this.placed.get(node);
    if (!p || !isFaceUp(p.card)) return;
    if (p.pile !== "/waste" && !p.pile.startsWith("/tableau/")) return;
    if (p.index !== this.pileLength(p.pile) - 1) {
      this.nudge([node]);
      return;
    }
    this.options.send({ type: "double-tap", target: p.pile }).catch((e) => {
      this.nudge([node]);
      if (e?.code === "illegal-move") toast(`No move for the ${cardName(p.card)}`);
    });
  }

  /** A small shake: "that did not work". @param {(Element | undefined | null)[]} nodes */
  nudge(nodes) {
    if (reducedMotion()) return;
    for (const n of nodes) {
      if (!(n instanceof HTMLElement)) continue;
      const base = n.style.transform;
      n.animate([{ transform: base }, { transform: `${base} translateX(-5px)` }, { transform: `${base} translateX(5px)` }, { transform: `${base} translateX(-3px)` }, { transform: base }], { duration: 280, easing: "ease-in-out" });
    }
  }

  /**
   * Highlights the cards a hint names.
   * @param {string | null} from
   * @param {string | null} to
   */
  showHint(from, to) {
    this.clearHint();
    if (!from || !this.state) return;
    const mark = (/** @type {string} */ pointer, /** @type {string} */ cls) => {
      const parts = pointer.split("/");
      let pile = pointer, start = -1;
      if (parts[1] === "tableau" && parts.length === 4) { pile = `/tableau/${parts[2]}`; start = Number(parts[3]); }
      const length = this.pileLength(pile);
      if (start < 0) start = length - 1;
      if (pile === "/stock" || length === 0) {
        this.slots.get(pile)?.classList.add(cls);
        if (pile === "/stock" && length) this.nodeAt(pile, length - 1)?.classList.add(cls);
        return;
      }
      for (let i = Math.max(0, start); i < length; i++) this.nodeAt(pile, i)?.classList.add(cls);
    };
    mark(from, "hint-from");
    if (to) mark(to, "hint-to");
    this.hintTimer = window.setTimeout(() => this.clearHint(), 3500);
  }

  clearHint() {
    clearTimeout(this.hintTimer);
    for (const n of this.table.querySelectorAll(".hint-from, .hint-to")) n.classList.remove("hint-from", "hint-to");
  }

  destroy() {
    this.resizeObserver.disconnect();
    for (const off of this.off) off();
    clearTimeout(this.hintTimer);
    this.table.remove();
  }
}

// ---- the game: what the page does around the table ---------------------------

/** A Klondike game being played or watched (PROTOCOL section 5). */
export class KlondikePlay extends TablePlay {
  /** @param {import("./games.js").Shell} shell @param {KlondikeView} board */
  constructor(shell, board) {
    super(shell, board, { hintsForAll: true, newLabel: "New deal", lostAdvice: "Undo, or start a new deal.", noMove: "No useful move left: try a new deal" });
  }

  get ownTable() {
    return this.shell.session.state;
  }

  /** @param {any} s */
  stats(s) {
    // Undo stops at a win (the server would refuse it).
    if (this.undoButton) this.undoButton.disabled = s.status === "won" || s.moves === 0;
    const stat = this.shell.stat;
    return [stat("Moves", s.moves, "moves"), stat("Score", s.score, "score"),
      el(`span.badge.status.${s.status}`, {}, s.status === "won" ? "Won" : "Playing")];
  }

  /** @param {import("./session.js").StateChange} change */
  changed(change) {
    const s = change.state, overlay = this.shell.overlay;
    if (s.status === "won" && change.via === "snapshot" && overlay.hidden) {
      // A late joiner or a reload: the won event was before our time; show what the state
      // says, with the time the event gave if this browser saw it.
      this.showWon({ moves: s.moves, score: s.score, seconds: this.shell.knownEnd(s)?.seconds });
    } else if (s.status !== "won" && !overlay.hidden) {
      this.shell.hideWon();
    }
    super.changed(change);
  }

  /** @param {any} e */
  event(e) {
    if (e.event === "won") this.showWon(e);
    else if (e.event === "reset") { this.shell.hideWon(); this.showLost(false); }
  }

  /** @param {{moves?: number, score?: number, seconds?: number}} info */
  showWon(info) {
    const s = this.shell;
    const actions = [];
    if (s.isPlayer) actions.push(el("button.btn.primary.won-new", { type: "button", onclick: () => s.newDeal(false) }, "New deal"));
    actions.push(s.replayButton());
    actions.push(el("button.btn.ghost.won-close", { type: "button", onclick: () => s.hideWon() }, "Hide"));
    s.showOverlay("won", s.isPlayer ? "You won!" : "Game won!", [s.figures(info)], actions);
  }

  /** @param {boolean} fromShake */
  async newGame(fromShake) {
    if (document.querySelector("dialog[open]")) return;
    const s = this.shell.session.state;
    const inProgress = s && s.status === "playing" && s.moves > 0;
    if (inProgress && !(await confirmDialog("New deal?", fromShake ? "You shook the phone. Start a new deal? This one will be lost." : "Start a new deal? This one will be lost.", "New deal"))) return;
    this.shell.command({ type: "reset" }).catch(() => {});
  }
}

/** @type {import("./games.js").GameKind} */
export const klondikeGame = {
  kind: "klondike",
  name: "Klondike",
  noun: "game",
  icon: "cards",
  seats: false,
  playersReadSpectatorsAfter: true,
  over: (state) => state?.status === "won",
  shake: "for a new deal",
  solo: true,
  inviteText: "This link plays this very table: open it on another device to carry on there. Whoever opens it moves the same cards as you, and both windows say so.",
  title: (state) => ({ name: state ? `Klondike \u00b7 Draw ${state.draw}` : "Klondike" }),
  board: (host, options) => new KlondikeView(host, { interactive: options.interactive, send: options.send }),
  play: (shell, board) => new KlondikePlay(shell, board),
  replayStart: "The deal",
  tiles: (lobby) => [
    lobby.button("Klondike", "Draw 1", "klondike", () => lobby.withWinnable({ draw: 1 }), "draw1"),
    lobby.button("Klondike", "Draw 3", "klondike", () => lobby.withWinnable({ draw: 3 }), "draw3"),
  ],
};
