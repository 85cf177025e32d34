/// A card's suit, in the order of the protocol's ordered deck (S, H, D, C).
public enum Suit: Int, CaseIterable, Sendable {
    case spades, hearts, diamonds, clubs

    public var letter: Character {
        switch self {
        case .spades: "S"
        case .hearts: "H"
        case .diamonds: "D"
        case .clubs: "C"
        }
    }

    public var isRed: Bool { self == .hearts || self == .diamonds }

    init?(letter: UInt8) {
        switch letter {
        case UInt8(ascii: "S"): self = .spades
        case UInt8(ascii: "H"): self = .hearts
        case UInt8(ascii: "D"): self = .diamonds
        case UInt8(ascii: "C"): self = .clubs
        default: return nil
        }
    }
}

public enum Rank: Int, CaseIterable, Sendable {
    case ace = 1, two, three, four, five, six, seven, eight, nine, ten, jack, queen, king

    public var letter: Character { Character(Unicode.Scalar(Rank.letters[rawValue - 1])) }

    /// `A 2 3 4 5 6 7 8 9 T J Q K`, as bytes so parsing needs no string work.
    private static let letters: [UInt8] = Array("A23456789TJQK".utf8)

    init?(letter: UInt8) {
        guard let i = Rank.letters.firstIndex(of: letter) else { return nil }
        self.init(rawValue: i + 1)
    }
}

/// One card of the 52. Two bytes, so piles of cards copy cheaply.
public struct Card: Hashable, Sendable, CustomStringConvertible {
    public let rank: Rank
    public let suit: Suit

    public init(_ rank: Rank, _ suit: Suit) {
        self.rank = rank
        self.suit = suit
    }

    /// Parses a protocol name such as `"TD"` or `"AS"` (rank letter, then suit letter).
    public init?(name: String) {
        var bytes = name.utf8.makeIterator()
        guard let r = bytes.next(), let s = bytes.next(), bytes.next() == nil,
            let rank = Rank(letter: r), let suit = Suit(letter: s)
        else { return nil }
        self.init(rank, suit)
    }

    /// The protocol name, e.g. `"TD"`; read from a table so diffs build no strings.
    public var name: String { Card.names[deckIndex] }

    public var description: String { name }

    public var isRed: Bool { suit.isRed }

    /// Position in the protocol's ordered deck: 0 is `AS`, 13 is `AH`, 51 is `KC`.
    public var deckIndex: Int { suit.rawValue * 13 + rank.rawValue - 1 }

    public init(deckIndex: Int) {
        precondition((0..<52).contains(deckIndex), "a deck index is 0..51")
        self.init(Rank(rawValue: deckIndex % 13 + 1)!, Suit(rawValue: deckIndex / 13)!)
    }

    /// The protocol's ordered deck: spades, hearts, diamonds, clubs, each ace to king.
    public static let orderedDeck: [Card] = (0..<52).map(Card.init(deckIndex:))

    private static let names: [String] = orderedDeck.map { String($0.rank.letter) + String($0.suit.letter) }
}
