/// The cards on a Klondike table: thirteen piles in one flat array, so a move between
/// any two piles is one code path. Every pile lists its cards bottom first (top = last).
struct KlondikeTable: Sendable, Equatable {
    static let stock = 0
    static let waste = 1
    static let foundations = 2..<6
    static let tableau = 6..<13
    static let pileCount = 13

    var piles: [[Card]]
    /// Face-down cards at the bottom of each tableau pile. Other piles keep 0 here: the
    /// stock is all face down and the waste and foundations all face up.
    var faceDown: [Int]

    init(piles: [[Card]], faceDown: [Int]) {
        precondition(piles.count == Self.pileCount && faceDown.count == Self.pileCount)
        self.piles = piles
        self.faceDown = faceDown
    }

    /// Deals a deck as the protocol says: for row r = 0..6, for pile p = r..6, pile p takes
    /// the next card; each pile's last card is face up; the 24 left form the stock, the
    /// first of them on top (drawn first).
    init(dealing deck: [Card]) {
        precondition(deck.count == 52)
        var piles = [[Card]](repeating: [], count: Self.pileCount)
        var next = 0
        for row in 0..<7 {
            for pile in row..<7 {
                piles[Self.tableau.lowerBound + pile].append(deck[next])
                next += 1
            }
        }
        piles[Self.stock] = deck[next...].reversed()
        var faceDown = [Int](repeating: 0, count: Self.pileCount)
        for pile in 0..<7 { faceDown[Self.tableau.lowerBound + pile] = pile }
        self.init(piles: piles, faceDown: faceDown)
    }

    /// How many cards at the bottom of a pile are face down.
    @inline(__always)
    func hidden(_ slot: Int) -> Int {
        slot == Self.stock ? piles[slot].count : faceDown[slot]
    }

    /// A card as the public state shows it: its name, or `??` while face down.
    @inline(__always)
    func publicCard(_ slot: Int, _ index: Int) -> JSON {
        index < hidden(slot) ? .string("??") : .string(piles[slot][index].name)
    }

    func publicPile(_ slot: Int) -> JSON {
        .array(piles[slot].indices.map { publicCard(slot, $0) })
    }

    /// Every card sits on a foundation.
    var isCleared: Bool {
        piles[Self.stock].isEmpty && piles[Self.waste].isEmpty && Self.tableau.allSatisfy { piles[$0].isEmpty }
    }

    /// May `card` go onto foundation `slot`: an Ace on an empty one, else the next rank of its suit.
    @inline(__always)
    func fits(_ card: Card, onFoundation slot: Int) -> Bool {
        guard let top = piles[slot].last else { return card.rank == .ace }
        return top.suit == card.suit && top.rank.rawValue + 1 == card.rank.rawValue
    }

    /// May a run headed by `card` go onto tableau pile `slot`: a King on an empty pile,
    /// else one rank below the top card, in the other colour.
    @inline(__always)
    func fits(_ card: Card, onTableau slot: Int) -> Bool {
        guard let top = piles[slot].last else { return card.rank == .king }
        return top.isRed != card.isRed && top.rank.rawValue == card.rank.rawValue + 1
    }

    /// The foundation a card goes to when sent home: an Ace to the leftmost empty one,
    /// another card to the one of its suit whose top is one rank lower.
    func foundation(for card: Card) -> Int? {
        Self.foundations.first { fits(card, onFoundation: $0) }
    }
}
