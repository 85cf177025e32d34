/// Names a Klondike position for caches of solver answers: equal for two games with the
/// same draw and the same cards in the same places, face up or down alike (stock and waste
/// order included). Moves, score and turns of the waste are left out: passes through the
/// stock are unlimited, so they change nothing about how the game can go on.
public struct KlondikePositionKey: Hashable, Sendable {
    /// The draw, then for each of the thirteen piles its size, its face-down count and its
    /// cards' deck indices, bottom first.
    let bytes: [UInt8]

    init(_ game: Klondike) {
        var bytes: [UInt8] = [UInt8(game.draw)]
        bytes.reserveCapacity(1 + 2 * KlondikeTable.pileCount + 52)
        for slot in 0..<KlondikeTable.pileCount {
            let pile = game.table.piles[slot]
            bytes.append(UInt8(pile.count))
            bytes.append(UInt8(game.table.hidden(slot)))
            for card in pile { bytes.append(UInt8(card.deckIndex)) }
        }
        self.bytes = bytes
    }
}
