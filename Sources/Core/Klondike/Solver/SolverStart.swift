/// A game's position, checked for what the solver can represent, in plain arrays and
/// solver card codes (see `SolverCard`).
///
/// Every position play can reach from a deal qualifies. Test pictures can draw tables no
/// deal reaches; the solver declines those (its verdict is `unknown`) rather than guess:
/// a tableau pile whose face-up cards are not one run down in alternating colours, a
/// foundation that is not one suit from the Ace up, or more face-down cards and talon
/// cards than the position key has room for (a deal has at most 6 face-down cards in a
/// pile and 24 in stock and waste).
struct SolverStart {
    var draw: Int
    /// The seven tableau piles, bottom first.
    var piles: [[UInt8]]
    /// Face-down cards at the bottom of each pile.
    var hidden: [Int]
    /// Stock and waste as one list in the order the cards are drawn after the next turn of
    /// the waste: the waste bottom first, then the stock from its top. The first
    /// `wasteCount` are the waste, its top last.
    var talon: [UInt8]
    var wasteCount: Int
    /// Cards home per suit (0 to 13).
    var homes: [Int]

    /// Bits of the position key left for the piles, the talon and the waste, after the
    /// foundations (16) and the key's mark bit. A deal needs 16 + 24 + 5.
    static let spareKeyBits = 47

    init?(_ game: Klondike) {
        let table = game.table
        draw = game.draw
        homes = [0, 0, 0, 0]
        var suitsSeen = Set<Suit>()
        for slot in KlondikeTable.foundations {
            let pile = table.piles[slot]
            guard let first = pile.first else { continue }
            guard suitsSeen.insert(first.suit).inserted else { return nil }
            for (i, card) in pile.enumerated() where card.suit != first.suit || card.rank.rawValue != i + 1 {
                return nil
            }
            homes[first.suit.rawValue] = pile.count
        }
        piles = []
        hidden = []
        for slot in KlondikeTable.tableau {
            let pile = table.piles[slot]
            let down = table.hidden(slot)
            for i in pile.indices where i > down {
                let below = pile[i - 1]
                let card = pile[i]
                guard below.isRed != card.isRed && below.rank.rawValue == card.rank.rawValue + 1 else { return nil }
            }
            piles.append(pile.map(SolverCard.code))
            hidden.append(down)
        }
        let waste = table.piles[KlondikeTable.waste]
        talon = (waste + table.piles[KlondikeTable.stock].reversed()).map(SolverCard.code)
        wasteCount = waste.count
        guard pileBits + talon.count + wasteBits <= Self.spareKeyBits else { return nil }
    }

    /// Bits that number every combination of pile digits (see `SolverPosition.pileCode`):
    /// pile p's runs over 0 to hidden[p] + 1.
    var pileBits: Int {
        var combinations = 1
        for down in hidden {
            let (product, overflow) = combinations.multipliedReportingOverflow(by: down + 2)
            guard !overflow else { return Int.max / 2 }
            combinations = product
        }
        return Int.bitWidth - (combinations - 1).leadingZeroBitCount
    }

    /// Bits for the waste's size in the key: none in draw 1, where it never matters.
    var wasteBits: Int { draw == 1 ? 0 : Int.bitWidth - talon.count.leadingZeroBitCount }
}
