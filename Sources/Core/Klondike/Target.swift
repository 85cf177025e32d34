/// One of the thirteen piles of a Klondike table.
public enum PileID: Hashable, Sendable {
    case stock, waste, foundation(Int), tableau(Int)

    /// The pile's JSON Pointer into the public state, e.g. `/tableau/3`.
    public var pointer: String {
        guard let slot = slot else { return Target(self).pointer }
        return KlondikePaths.piles[slot]
    }

    /// Position in the table's flat pile array (stock, waste, 4 foundations, 7 tableau piles),
    /// or nil for an index out of range.
    var slot: Int? {
        switch self {
        case .stock: return KlondikeTable.stock
        case .waste: return KlondikeTable.waste
        case .foundation(let i): return (0..<4).contains(i) ? KlondikeTable.foundations.lowerBound + i : nil
        case .tableau(let i): return (0..<7).contains(i) ? KlondikeTable.tableau.lowerBound + i : nil
        }
    }

    init(slot: Int) {
        switch slot {
        case KlondikeTable.stock: self = .stock
        case KlondikeTable.waste: self = .waste
        case KlondikeTable.foundations: self = .foundation(slot - KlondikeTable.foundations.lowerBound)
        default: self = .tableau(slot - KlondikeTable.tableau.lowerBound)
        }
    }
}

/// A gesture's target: a JSON Pointer into the public state, in one of the forms
/// the protocol allows (`/stock`, `/waste`, `/foundations/I`, `/tableau/I`, `/tableau/I/J`).
public struct Target: Hashable, Sendable, CustomStringConvertible {
    public var pile: PileID
    /// A card of a tableau pile, 0 = bottom; nil means the pile (its top card).
    public var cardIndex: Int?

    public init(_ pile: PileID, cardIndex: Int? = nil) {
        self.pile = pile
        self.cardIndex = cardIndex
    }

    public static let stock = Target(.stock)
    public static let waste = Target(.waste)
    public static func foundation(_ i: Int) -> Target { Target(.foundation(i)) }
    public static func tableau(_ i: Int, card: Int? = nil) -> Target { Target(.tableau(i), cardIndex: card) }

    /// Parses a JSON Pointer such as `/tableau/2/4`. Anything that is not one of the
    /// protocol's forms is a `bad-request`: a pointer without its leading `/` (only the
    /// terminal shorthand may drop it, and it adds it back before this), or a card index
    /// on any pile but a tableau pile (`/waste/0`).
    public static func parse(_ pointer: String) throws(GameError) -> Target {
        guard pointer.first == "/" else { throw badTarget(pointer) }
        let tokens = pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        let target: Target?
        switch (tokens.first, tokens.count) {
        case ("stock", 1): target = .stock
        case ("waste", 1): target = .waste
        case ("foundations", 2):
            target = index(tokens[1], below: 4).map { .foundation($0) }
        case ("tableau", 2):
            target = index(tokens[1], below: 7).map { .tableau($0) }
        case ("tableau", 3):
            if let pile = index(tokens[1], below: 7), let card = index(tokens[2], below: Int.max) {
                target = .tableau(pile, card: card)
            } else {
                target = nil
            }
        default: target = nil
        }
        guard let target else { throw badTarget(pointer) }
        return target
    }

    private static func badTarget(_ pointer: String) -> GameError {
        .badRequest(
            "bad-target",
            "\"\(pointer)\" is not a target: use /stock, /waste, /foundations/0..3, /tableau/0..6 or /tableau/I/J")
    }

    /// A JSON Pointer array index (`0` or digits without a leading zero) below `limit`.
    /// Indices too large for `Int` read as `Int.max`: well formed, but past any pile's top.
    private static func index(_ token: Substring, below limit: Int) -> Int? {
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            token == "0" || token.first != "0"
        else { return nil }
        let value = Int(token) ?? Int.max
        return value < limit || limit == Int.max ? value : nil
    }

    /// The canonical pointer, with its leading `/`.
    public var pointer: String {
        if let cardIndex {
            guard let slot = pile.slot else { return Target(pile).pointer + "/\(cardIndex)" }
            return KlondikePaths.card(slot, cardIndex)
        }
        switch pile {
        case .stock: return "/stock"
        case .waste: return "/waste"
        case .foundation(let i): return "/foundations/\(i)"
        case .tableau(let i): return "/tableau/\(i)"
        }
    }

    public var description: String { pointer }
}
