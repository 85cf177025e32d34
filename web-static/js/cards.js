// @ts-check
/** Card names (`"TD"`, `"AS"`, `"??"`) and the DOM of one card. */
import { el } from "./ui.js";

export const SUITS = /** @type {const} */ ({
  S: { symbol: "\u2660\uFE0E", name: "spades", red: false },
  H: { symbol: "\u2665\uFE0E", name: "hearts", red: true },
  D: { symbol: "\u2666\uFE0E", name: "diamonds", red: true },
  C: { symbol: "\u2663\uFE0E", name: "clubs", red: false },
});

const RANK_LABEL = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };
const RANK_NAME = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

/** @param {string} card */
export function isFaceUp(card) {
  return typeof card === "string" && /^[A2-9TJQK][SHDC]$/.test(card);
}

/** @param {string} card */
export function rankLabel(card) {
  const r = card[0];
  return /** @type {any} */ (RANK_LABEL)[r] ?? r;
}

/** "7 of hearts", for screen readers. @param {string} card */
export function cardName(card) {
  if (!isFaceUp(card)) return "face-down card";
  const r = card[0];
  const suit = SUITS[/** @type {keyof typeof SUITS} */ (card[1])];
  return `${/** @type {any} */ (RANK_NAME)[r] ?? r} of ${suit.name}`;
}

/**
 * A card element: a face when `card` names one, else a back.
 * @param {string} card
 * @returns {HTMLElement}
 */
export function cardElement(card) {
  const node = el("div.card", { role: "img" });
  paintCard(node, card);
  return node;
}

/**
 * Redraws an existing card element as `card` (face or back).
 * @param {HTMLElement} node
 * @param {string} card
 */
export function paintCard(node, card) {
  node.replaceChildren();
  node.classList.remove("back", "face", "red", "black", "court");
  node.setAttribute("aria-label", cardName(card));
  node.dataset.card = card;
  if (!isFaceUp(card)) {
    node.classList.add("back");
    node.append(el("div.back-art"));
    return;
  }
  const suit = SUITS[/** @type {keyof typeof SUITS} */ (card[1])];
  const rank = rankLabel(card);
  const court = "JQK".includes(card[0]);
  node.classList.add("face", suit.red ? "red" : "black");
  if (court) node.classList.add("court");
  node.append(
    el("div.idx", {}, el("span.rank", {}, rank), el("span.suit", {}, suit.symbol)),
    court
      ? el("div.center", {}, el("span.court-rank", {}, rank), el("span.court-suit", {}, suit.symbol))
      : el("div.center", {}, el("span.pip", {}, suit.symbol)),
    el("div.idx.corner-br", { "aria-hidden": "true" }, el("span.rank", {}, rank), el("span.suit", {}, suit.symbol)),
  );
}
