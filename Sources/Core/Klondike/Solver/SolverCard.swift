/// Cards as the solver numbers them: rank-major, `rank * 4 + suit` with rank 0 = Ace and
/// suits in the protocol's order (S, H, D, C). Rank, suit, colour and the two cards a card
/// may lie on are then a few bit operations, where the search spends its time.
enum SolverCard {
    static let king = 12

    @inline(__always) static func code(_ card: Card) -> UInt8 {
        UInt8((card.rank.rawValue - 1) * 4 + card.suit.rawValue)
    }

    static func card(_ code: UInt8) -> Card {
        // Codes come only from `code(_:)`, so both raw values are in range.
        Card(Rank(rawValue: Int(code >> 2) + 1) ?? .ace, Suit(rawValue: Int(code & 3)) ?? .spades)
    }

    @inline(__always) static func rank(_ code: UInt8) -> Int { Int(code >> 2) }
    @inline(__always) static func suit(_ code: UInt8) -> Int { Int(code & 3) }
    @inline(__always) static func isKing(_ code: UInt8) -> Bool { code >> 2 == 12 }

    /// Hearts (1) and diamonds (2) are red; spades (0) and clubs (3) black.
    @inline(__always) static func isRed(suit: Int) -> Bool { (suit ^ (suit >> 1)) & 1 == 1 }

    /// The other suit of the same colour: spades and clubs, hearts and diamonds.
    @inline(__always) static func twin(suit: Int) -> Int { 3 - suit }

    /// The two suits of the other colour, as (first, second).
    @inline(__always) static func otherColour(suit: Int) -> (Int, Int) {
        isRed(suit: suit) ? (0, 3) : (1, 2)
    }
}
