extension Klondike {
    /// The protocol's shuffle: the ordered deck, then for i = 51 down to 1 swap cards i and
    /// `SplitMix64(seed).next() % (i + 1)`. A seed deals the same game forever.
    public static func shuffledDeck(seed: UInt64) -> [Card] {
        var deck = Card.orderedDeck
        var generator = SplitMix64(seed: seed)
        for i in stride(from: 51, through: 1, by: -1) {
            let j = Int(generator.next() % UInt64(i + 1))
            deck.swapAt(i, j)
        }
        return deck
    }

    /// Parses a deck written as one string of 52 card names, e.g. `"AS2S3S..."`.
    public static func parseDeck(_ text: String) throws(GameError) -> [Card] {
        let bytes = Array(text.utf8)
        guard bytes.count % 2 == 0, bytes.count <= 104 else {
            throw .badRequest(
                "deck-length", "a deck is 52 card names of 2 letters (104 characters), not \(bytes.count) characters")
        }
        var deck: [Card] = []
        deck.reserveCapacity(52)
        for position in 0..<(bytes.count / 2) {
            let name = bytes[(position * 2)..<(position * 2 + 2)]
            guard let rank = Rank(letter: name.first!), let suit = Suit(letter: name.last!) else {
                let shown = String(decoding: name, as: UTF8.self)
                throw .badRequest(
                    "deck-unknown-card",
                    "\"\(shown)\" (card \(position + 1) of the deck) is not a card: use a rank of A23456789TJQK, then a suit of SHDC"
                )
            }
            deck.append(Card(rank, suit))
        }
        try validateDeck(deck)
        return deck
    }

    /// A deck must hold each of the 52 cards exactly once.
    static func validateDeck(_ deck: [Card]) throws(GameError) {
        var seen = [Bool](repeating: false, count: 52)
        for card in deck {
            guard !seen[card.deckIndex] else {
                throw .badRequest("deck-duplicate", "the deck has \(card.name) more than once")
            }
            seen[card.deckIndex] = true
        }
        guard deck.count == 52 else {
            let missing = Card.orderedDeck.filter { !seen[$0.deckIndex] }.map(\.name)
            throw .badRequest(
                "deck-missing", "a deck has 52 cards, not \(deck.count): missing \(missing.joined(separator: " "))")
        }
    }
}
