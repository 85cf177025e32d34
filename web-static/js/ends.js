// @ts-check
/**
 * How games ended, as their `won` and `drawn` events said (PROTOCOL sections 4, 13
 * and 16): the events carry what a state does not keep (the seconds it took), so a
 * reload of a game that is over still shows its time. Kept per browser, for the
 * last few games only.
 */

const KEY = "boardcast.ends";
const KEEP = 40;

/** @returns {{[game: string]: any}} */
function all() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || "{}");
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
}

/**
 * Remembers a game's end event.
 * @param {string} game @param {any} e the event (`won` or `drawn`)
 */
export function rememberEnd(game, e) {
  try {
    const ends = all();
    delete ends[game];
    ends[game] = { seq: e.seq, event: e.event, by: e.by, reason: e.reason, moves: e.moves, score: e.score, seconds: e.seconds };
    const games = Object.keys(ends);
    for (const old of games.slice(0, Math.max(0, games.length - KEEP))) delete ends[old];
    localStorage.setItem(KEY, JSON.stringify(ends));
  } catch {
    // No storage: a reload shows the result without its time.
  }
}

/**
 * The end event of the game a state shows, if this browser saw it: the same end (its
 * seq at most the state's, the same moves), not an earlier game's of the same id.
 * @param {string} game @param {number | null} seq the state's seq @param {any} state
 */
export function knownEnd(game, seq, state) {
  const e = all()[game];
  if (!e || typeof e !== "object") return null;
  if (typeof e.seq === "number" && seq !== null && e.seq > seq) return null;
  if (state && typeof state.moves === "number" && typeof e.moves === "number" && state.moves !== e.moves) return null;
  return e;
}
