// @ts-check
/**
 * A game's history for the replay: a base state at some seq and the diffs
 * after it; any state is rebuilt from the nearest checkpoint.
 */
import { applyPatch, clone, get } from "./patch.js";
import { isFaceUp } from "./cards.js";

const CHECKPOINT_EVERY = 25;

export class Timeline {
  /**
   * @param {any} base the state at `baseSeq`
   * @param {number} baseSeq
   */
  constructor(base, baseSeq) {
    this.baseSeq = baseSeq;
    /** @type {any[]} diffs baseSeq+1, baseSeq+2, ... */
    this.diffs = [];
    /** @type {Map<number, any>} seq -> state */
    this.checkpoints = new Map([[baseSeq, clone(base)]]);
  }

  get lastSeq() {
    return this.baseSeq + this.diffs.length;
  }

  /**
   * Appends the next diff; false if it is not the next one.
   * @param {any} diff
   */
  push(diff) {
    if (diff.seq !== this.lastSeq + 1) return false;
    this.diffs.push(diff);
    return true;
  }

  /** @param {number} seq @returns {any} the diff that made `seq` */
  diffAt(seq) {
    return this.diffs[seq - this.baseSeq - 1] ?? null;
  }

  /**
   * The state at `seq`, rebuilt from the nearest checkpoint at or below it.
   * @param {number} seq
   */
  stateAt(seq) {
    const target = Math.max(this.baseSeq, Math.min(seq, this.lastSeq));
    let from = target;
    while (!this.checkpoints.has(from)) from--;
    let state = this.checkpoints.get(from);
    for (let s = from + 1; s <= target; s++) {
      state = applyPatch(state, this.diffAt(s).ops);
      if ((s - this.baseSeq) % CHECKPOINT_EVERY === 0) this.checkpoints.set(s, state);
    }
    return state;
  }
}

/**
 * The state at seq 0 when the server sent only the diffs after it.
 * A plane starts empty. A Klondike deal is 24 face-down stock cards and
 * seven piles with one face-up top each; those seven tops are found from the
 * diffs (the first diff that moves a top shows its name) or, if a top never
 * moved, from the current state at the same place.
 * @param {string} kind
 * @param {any[]} diffs diffs 1..N
 * @param {any} current the state at seq N
 * @returns {any}
 */
export function reconstructStart(kind, diffs, current) {
  if (kind === "plane") {
    return { width: current.width, height: current.height, rectangles: {}, order: [], selections: {} };
  }
  const placeholder = (/** @type {number} */ p) => `#${p}`;
  // `draw` changes only by a reset that says so, and has two values: the first
  // such change tells what it was before.
  const firstDrawChange = diffs.flatMap((d) => d.ops || []).find((op) => op.path === "/draw" && (op.op === "replace" || op.op === "add"));
  const base = {
    draw: firstDrawChange ? (firstDrawChange.value === 3 ? 1 : 3) : current.draw,
    stock: Array(24).fill("??"),
    waste: [],
    foundations: [[], [], [], []],
    tableau: Array.from({ length: 7 }, (_, p) => [...Array(p).fill("??"), placeholder(p)]),
    moves: 0,
    score: 0,
    status: "playing",
  };
  /** @type {Map<string, string>} placeholder -> card */
  const known = new Map();
  let doc = clone(base);
  for (const diff of diffs) {
    const before = doc;
    try {
      doc = applyPatch(before, diff.ops);
    } catch {
      break;
    }
    const type = diff.cause && diff.cause.type;
    if (type === "reset" || type === "undo") continue;
    const gone = placeholdersIn(before).filter((p) => !placeholdersIn(doc).includes(p));
    if (!gone.length) continue;
    const had = new Set(cardsIn(before));
    // New names, except cards that turned face up where a face-down card was.
    const appeared = cardPositions(doc).filter(({ card, pointer }) => !had.has(card) && get(before, pointer) !== "??").map((c) => c.card);
    if (gone.length === appeared.length) {
      gone.forEach((p, i) => known.set(p, appeared[i]));
      doc = substitute(doc, known);
    }
  }
  // Tops that never moved are still where the current state shows them.
  for (const { card, pointer } of cardPositions(doc, true)) {
    if (card.startsWith("#") && !known.has(card)) {
      const now = get(current, pointer);
      if (typeof now === "string" && isFaceUp(now)) known.set(card, now);
    }
  }
  return substitute(base, known, true);
}

/** @param {any} doc @returns {string[]} */
function placeholdersIn(doc) {
  return cardPositions(doc, true).map((c) => c.card).filter((c) => c.startsWith("#"));
}

/** @param {any} doc */
function cardsIn(doc) {
  return cardPositions(doc).map((c) => c.card);
}

/**
 * Every card string in the piles, with its pointer.
 * @param {any} doc
 * @param {boolean} [withPlaceholders]
 * @returns {{card: string, pointer: string}[]}
 */
function cardPositions(doc, withPlaceholders = false) {
  /** @type {{card: string, pointer: string}[]} */
  const out = [];
  const visit = (/** @type {any} */ pile, /** @type {string} */ pointer) => {
    if (!Array.isArray(pile)) return;
    pile.forEach((card, i) => {
      if (typeof card !== "string") return;
      if (isFaceUp(card) || (withPlaceholders && card.startsWith("#"))) out.push({ card, pointer: `${pointer}/${i}` });
    });
  };
  visit(doc.stock, "/stock");
  visit(doc.waste, "/waste");
  (doc.foundations || []).forEach((/** @type {any} */ p, /** @type {number} */ i) => visit(p, `/foundations/${i}`));
  (doc.tableau || []).forEach((/** @type {any} */ p, /** @type {number} */ i) => visit(p, `/tableau/${i}`));
  return out;
}

/**
 * @param {any} doc
 * @param {Map<string, string>} known
 * @param {boolean} [unknownAsBack] placeholders never resolved become "??"
 */
function substitute(doc, known, unknownAsBack = false) {
  const copy = clone(doc);
  const fix = (/** @type {any} */ pile) => {
    if (!Array.isArray(pile)) return;
    pile.forEach((card, i) => {
      if (typeof card === "string" && card.startsWith("#")) {
        pile[i] = known.get(card) ?? (unknownAsBack ? "??" : card);
      }
    });
  };
  fix(copy.stock);
  fix(copy.waste);
  (copy.foundations || []).forEach(fix);
  (copy.tableau || []).forEach(fix);
  return copy;
}

/**
 * A line describing what a diff's cause did, for the replay's caption.
 * @param {any} cause
 */
export function describeCause(cause) {
  if (!cause || typeof cause !== "object") return "";
  const by = cause.by ? `${cause.by}: ` : "";
  const strip = (/** @type {any} */ p) => (typeof p === "string" ? p.replace(/^\//, "") : `${Math.round(p?.x)},${Math.round(p?.y)}`);
  switch (cause.type) {
    case "tap":
      return by + (cause.target ? `tap ${strip(cause.target)}` : `tap ${Math.round(cause.x)},${Math.round(cause.y)}`);
    case "double-tap":
      return by + (cause.target ? `double-tap ${strip(cause.target)}` : `double-tap ${Math.round(cause.x)},${Math.round(cause.y)}`);
    case "drag":
      return `${by}drag ${strip(cause.from)} \u2192 ${strip(cause.to)}`;
    case "alpha":
      return `${by}alpha ${cause.step > 0 ? "+1" : "\u22121"}`;
    case "leave":
      return `${by}left`;
    default:
      return by + String(cause.type ?? "");
  }
}
