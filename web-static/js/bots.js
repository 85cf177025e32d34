// @ts-check
/**
 * Bots (PROTOCOL section 18): seats the server plays itself. `joined` and the
 * lobby's objects carry `bots`, the seats with their levels (`{"p2": 2}`); a
 * bot's diffs say `"bot": true` in their cause. These helpers name them the
 * same way on every page: a robot icon and "Computer (level 2)".
 */
import { el, icon } from "./ui.js";

/** The levels a bot plays at, by number. */
export const LEVELS = /** @type {{[level: number]: string}} */ ({ 1: "Easy", 2: "Medium", 3: "Hard" });

/**
 * The seats with bots, as the server says (only seats with a level 1 to 3 count).
 * @param {any} bots
 * @returns {{[seat: string]: number}}
 */
export function botsOf(bots) {
  /** @type {{[seat: string]: number}} */
  const out = {};
  if (!bots || typeof bots !== "object") return out;
  for (const [seat, level] of Object.entries(bots)) {
    const n = Number(level);
    if (Number.isInteger(n) && n >= 1) out[seat] = n;
  }
  return out;
}

/** A bot seat's level, or 0 for a person's seat. @param {any} bots @param {string | null | undefined} seat */
export function botLevel(bots, seat) {
  return seat ? botsOf(bots)[seat] ?? 0 : 0;
}

/** "Computer (level 2)". @param {number} level */
export function botName(level) {
  return `Computer (level ${level})`;
}

/**
 * A robot, then "Computer (level 2)", for a seat's name; where room is short the
 * page's style shows "Computer L2" instead (the two forms are in the element).
 * @param {number} level
 */
export function botTag(level) {
  return el("span.bot-tag", { dataset: { level: String(level) }, title: `${botName(level)}: ${LEVELS[level]?.toLowerCase() ?? "a bot"}` },
    icon("bot"), el("span.bot-name", {}, "Computer", el("span.bot-level", {}, ` (level ${level})`),
      el("span.bot-level-short", { "aria-hidden": "true" }, `L${level}`)));
}

/** What a lobby row says of a game's bots: "vs the computer (level 2)", "2 computers (levels 2, 1)". @param {any} bots */
export function botsSummary(bots) {
  const levels = Object.entries(botsOf(bots)).sort(([a], [b]) => a.localeCompare(b, undefined, { numeric: true })).map(([, l]) => l);
  if (!levels.length) return "";
  if (levels.length === 1) return `vs the computer (level ${levels[0]})`;
  return `${levels.length} computers (level${new Set(levels).size > 1 ? "s" : ""} ${[...new Set(levels)].join(", ")})`;
}
