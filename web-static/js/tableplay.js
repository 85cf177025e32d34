// @ts-check
/**
 * What Klondike and races share beyond their boards: Undo, Hint and New on the
 * toolbar, their keys (Ctrl+Z, H, N), and the solver's verdict on a hint
 * (PROTOCOL section 12), said until the table it was about changes.
 */
import { toast } from "./ui.js";

/** What the page says when the solver finds the position lost (PROTOCOL section 12). */
export const LOST_DEAL_TEXT = "This deal can no longer be won";
/** What it says when the solver proves the position can still be won. */
export const WINNABLE_TEXT = "This deal can still be won";
/** What it says when the solver could not decide within its budget. */
export const UNDECIDED_TEXT = "The solver could not tell in time whether this deal can still be won";

/** @typedef {import("./games.js").Shell} Shell */

export class TablePlay {
  /**
   * @param {Shell} shell
   * @param {any} board a view with `showHint(from, to)`
   * @param {{hintsForAll: boolean, newLabel: string, lostAdvice: string, noMove: string}} words
   *   hintsForAll: spectators may ask for hints too
   */
  constructor(shell, board, words) {
    this.shell = shell;
    this.board = board;
    this.words = words;
    /** @type {number | null} the own table's move count when the solver said the deal was lost */
    this.lostAt = null;
    /** @type {number | null} the own table's move count when the solver said it can be won, or could not tell */
    this.verdictAt = null;
    /** @type {HTMLButtonElement | null} */
    this.undoButton = null;
    /** @type {HTMLButtonElement | null} */
    this.hintButton = null;
    /** @type {HTMLButtonElement | null} */
    this.newButton = null;
  }

  /** The Klondike state this page plays (or watches), if any. @returns {any} */
  get ownTable() {
    return null;
  }

  tools() {
    const s = this.shell;
    const tools = [];
    this.undoButton = this.hintButton = this.newButton = null;
    if (s.isPlayer) tools.push(this.undoButton = /** @type {HTMLButtonElement} */ (s.tool("Undo", "undo", "Control+Z", () => this.undo(), "undo")));
    if (this.words.hintsForAll || s.isPlayer) tools.push(this.hintButton = /** @type {HTMLButtonElement} */ (s.tool("Hint", "hint", "H", () => s.askHint(), "hint")));
    if (s.isPlayer) tools.push(this.newButton = /** @type {HTMLButtonElement} */ (s.tool(this.words.newLabel, "deal", "N", () => s.newDeal(false), "new-deal")));
    return tools;
  }

  /** @param {import("./session.js").StateChange} change */
  changed(change) {
    // The solver's verdict was about the position it was asked about.
    const own = this.ownTable;
    if (this.lostAt !== null && (!own || own.moves !== this.lostAt || own.status === "won")) this.showLost(false);
    if (this.verdictAt !== null && (!own || own.moves !== this.verdictAt || own.status === "won")) this.showVerdict(undefined, null);
  }

  undo() {
    this.shell.command({ type: "undo" }).catch((e) => { if (e.code === "illegal-move") toast("Nothing to undo"); });
  }

  /**
   * A hint: the move is marked on the table, and the solver's verdict (PROTOCOL
   * section 12) is said until the table changes: `false`, the position is lost
   * whatever is played (a warning); `true`, it can still be won; `null`, the
   * solver could not tell in time; no verdict (a server without a solver), nothing.
   * @param {any} h
   */
  hint(h) {
    const lost = h.winnable === false;
    this.showLost(lost);
    this.showVerdict(lost ? undefined : h.winnable, h.from);
    if (!h.from) {
      if (!lost && h.winnable !== true) toast(this.words.noMove);
      return;
    }
    this.board.showHint(h.from, h.to);
  }

  /**
   * The solver's word when the deal is not lost.
   * @param {boolean | null | undefined} winnable undefined clears it
   * @param {string | null} from the hinted move's source
   */
  showVerdict(winnable, from) {
    const own = this.ownTable;
    if (winnable === true) {
      const won = own?.status === "won";
      const line = from === "/stock" ? " The winning line the solver found draws from the stock next." : "";
      this.verdictAt = own?.moves ?? 0;
      this.shell.setVerdict(won ? "" : `${WINNABLE_TEXT}.${line}`, won ? "" : "true");
    } else if (winnable === null) {
      this.verdictAt = own?.moves ?? 0;
      this.shell.setVerdict(`${UNDECIDED_TEXT}.`, "null");
    } else {
      this.verdictAt = null;
      this.shell.setVerdict("", "");
    }
  }

  /** Shows or clears the solver's "lost" verdict. @param {boolean} lost */
  showLost(lost) {
    this.lostAt = lost ? this.ownTable?.moves ?? 0 : null;
    const note = this.shell.note;
    note.hidden = !lost;
    note.dataset.winnable = lost ? "false" : "";
    note.textContent = lost ? `${LOST_DEAL_TEXT}. ${this.words.lostAdvice}` : "";
  }

  /** @param {KeyboardEvent} e */
  key(e) {
    const s = this.shell;
    const k = e.key.toLowerCase();
    if ((e.ctrlKey || e.metaKey) && k === "z" && !e.shiftKey) {
      if (!s.isPlayer) return;
      e.preventDefault();
      this.undo();
    } else if (e.ctrlKey || e.metaKey) {
      return;
    } else if (k === "h") {
      if (this.words.hintsForAll || s.isPlayer) s.askHint();
    } else if (k === "n" && s.isPlayer) {
      s.newDeal(false);
    }
  }

  destroy() {
    if (this.lostAt !== null) this.showLost(false);
    if (this.verdictAt !== null) this.showVerdict(undefined, null);
  }
}
