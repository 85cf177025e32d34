"""The protocol's deal, written independently of the server: SplitMix64, the
Fisher-Yates shuffle it drives, and the Klondike layout of a deck."""
from __future__ import annotations

SUITS = "SHDC"
RANKS = "A23456789TJQK"
ORDERED_DECK = [rank + suit for suit in SUITS for rank in RANKS]
MASK = (1 << 64) - 1


def splitmix64(seed: int):
    state = seed & MASK
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def shuffled_deck(seed: int) -> list[str]:
    deck = list(ORDERED_DECK)
    numbers = splitmix64(seed)
    for i in range(51, 0, -1):
        j = next(numbers) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal_positions() -> list[tuple[int, int]]:
    """(pile, row) taken by deck cards 0..27, in dealing order."""
    return [(pile, row) for row in range(7) for pile in range(row, 7)]


def dealt_piles(deck: list[str]) -> tuple[list[list[str]], list[str]]:
    piles: list[list[str]] = [[] for _ in range(7)]
    for card, (pile, _row) in zip(deck, deal_positions()):
        piles[pile].append(card)
    return piles, deck[28:]


def initial_state(deck: list[str], draw: int) -> dict:
    """The STATE a fresh deal of `deck` must show: face-down cards hidden as "??"."""
    piles, stock = dealt_piles(deck)
    return {
        "draw": draw,
        "stock": ["??"] * len(stock),
        "waste": [],
        "foundations": [[], [], [], []],
        "tableau": [["??"] * (len(pile) - 1) + [pile[-1]] for pile in piles],
        "moves": 0,
        "score": 0,
        "status": "playing",
    }


def deck_from(piles: list[list[str]], stock_in_draw_order: list[str]) -> list[str]:
    """The deck that deals `piles` (bottom first) and a stock drawn in the given order."""
    deck: list[str] = []
    for pile, row in deal_positions():
        deck.append(piles[pile][row])
    deck += stock_in_draw_order
    assert sorted(deck) == sorted(ORDERED_DECK)
    return deck


def winnable_deck() -> tuple[list[str], list[dict]]:
    """A deck that wins by double-taps and taps alone, and those gestures in order."""
    def run(suit: str, low: str, high: str) -> list[str]:
        return [rank + suit for rank in RANKS[RANKS.index(low):RANKS.index(high) + 1]]

    piles = [
        ["6D"],
        list(reversed(run("H", "7", "8"))),   # 8H bottom, 7H on top
        list(reversed(run("S", "8", "T"))),   # TS 9S 8S
        list(reversed(run("C", "A", "4"))),
        list(reversed(run("D", "A", "5"))),
        list(reversed(run("H", "A", "6"))),
        list(reversed(run("S", "A", "7"))),
    ]
    stock = run("D", "7", "K") + run("C", "5", "K") + run("H", "9", "K") + run("S", "J", "K")
    gestures: list[dict] = []
    for pile in (6, 5, 4, 3, 2, 1, 0):
        gestures += [{"type": "double-tap", "target": f"/tableau/{pile}"}] * len(piles[pile])
    for _ in stock:
        gestures += [{"type": "tap", "target": "/stock"}, {"type": "double-tap", "target": "/waste"}]
    return deck_from(piles, stock), gestures
