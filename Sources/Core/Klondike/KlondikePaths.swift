/// Pointer strings of every pile and card slot, built once: diffs name the same few
/// hundred paths over and over, and sharing them keeps the move path free of string building.
enum KlondikePaths {
    static let piles: [String] = (0..<KlondikeTable.pileCount).map { slot in
        switch slot {
        case KlondikeTable.stock: "/stock"
        case KlondikeTable.waste: "/waste"
        case KlondikeTable.foundations: "/foundations/\(slot - KlondikeTable.foundations.lowerBound)"
        default: "/tableau/\(slot - KlondikeTable.tableau.lowerBound)"
        }
    }

    /// Enough for any pile of a 52-card table.
    private static let cached = 53

    private static let cards: [[String]] = piles.map { pile in (0..<cached).map { pile + "/\($0)" } }

    static func card(_ slot: Int, _ index: Int) -> String {
        // A negative index (a target built in code, refused by the rules) is named, not looked up.
        (0..<cached).contains(index) ? cards[slot][index] : piles[slot] + "/\(index)"
    }
}
