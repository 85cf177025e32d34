// @ts-check
/**
 * A game's history for the replay: a base state at some seq and the diffs
 * after it; any state is rebuilt from the nearest checkpoint.
 */
import { applyPatch } from "./boardcast.js";

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
    this.checkpoints = new Map([[baseSeq, structuredClone(base)]]);
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
    case "start":
      return "The game starts";
    default:
      return by + String(cause.type ?? "");
  }
}
