extension Klondike {
    /// One legal move that makes progress, or nil when none is left (or the game is won).
    ///
    /// In this order, the first found (piles left to right):
    /// 1. a tableau pile's top card to a foundation;
    /// 2. the waste's top card to a foundation;
    /// 3. a tableau pile's whole face-up run to another tableau pile, when that turns up a
    ///    face-down card or empties a pile (never a King run that already lies on an empty
    ///    pile: that only changes columns);
    /// 4. the waste's top card to a tableau pile;
    /// 5. a tap on the stock, only when tapping on (through turns of the waste, with no other
    ///    move between) would bring to the top of the waste a card that fits on a foundation
    ///    or a tableau pile as they are now.
    /// Each suggestion moves a card out of the stock and waste, onto a foundation, or turns a
    /// card up, so following hints never loops; moves it leaves out (part of a run, a card
    /// back down from a foundation) may still be legal.
    public func hint() -> KlondikeHint? {
        guard !isWon else { return nil }
        let waste = KlondikeTable.waste
        for slot in KlondikeTable.tableau {
            if let card = table.piles[slot].last, let home = table.foundation(for: card) {
                return hint(from: slot, card: table.piles[slot].count - 1, to: home)
            }
        }
        if let card = table.piles[waste].last, let home = table.foundation(for: card) {
            return hint(from: waste, card: nil, to: home)
        }
        for slot in KlondikeTable.tableau where !table.piles[slot].isEmpty {
            let head = table.faceDown[slot]
            let card = table.piles[slot][head]
            guard head > 0 || card.rank != .king else { continue }
            if let pile = KlondikeTable.tableau.first(where: { $0 != slot && table.fits(card, onTableau: $0) }) {
                return hint(from: slot, card: head, to: pile)
            }
        }
        if let card = table.piles[waste].last,
            let pile = KlondikeTable.tableau.first(where: { table.fits(card, onTableau: $0) })
        {
            return hint(from: waste, card: nil, to: pile)
        }
        return tappingFindsAPlay ? KlondikeHint(from: KlondikePaths.piles[KlondikeTable.stock], to: KlondikePaths.piles[waste]) : nil
    }

    private func hint(from slot: Int, card: Int?, to destination: Int) -> KlondikeHint {
        KlondikeHint(
            from: card.map { KlondikePaths.card(slot, $0) } ?? KlondikePaths.piles[slot],
            to: KlondikePaths.piles[destination])
    }

    /// Plays the stock out in imagination: would some card reach the top of the waste that
    /// fits somewhere on the table as it is? Follows taps until the waste has been turned
    /// over once and gone through a whole pass, which visits every top the taps can show.
    private var tappingFindsAPlay: Bool {
        // The cards of stock and waste in drawing order, as after the next turn of the waste.
        let waste = table.piles[KlondikeTable.waste]
        let cycle = waste + table.piles[KlondikeTable.stock].reversed()
        guard !cycle.isEmpty else { return false }
        var drawn = waste.count
        var turned = false
        while true {
            if drawn == cycle.count {
                if turned { return false }
                turned = true
                drawn = 0
            } else {
                drawn = min(drawn + draw, cycle.count)
                if fitsSomewhere(cycle[drawn - 1]) { return true }
            }
        }
    }

    private func fitsSomewhere(_ card: Card) -> Bool {
        table.foundation(for: card) != nil || KlondikeTable.tableau.contains { table.fits(card, onTableau: $0) }
    }

    /// Every command the rules accept now, except reset and undo: the stock tap, double-taps
    /// and every legal drag (a tableau run from each of its face-up cards, destinations as
    /// pile pointers). For random play and benchmarks; the same rules as `apply`, checked
    /// without building refusals.
    public func legalCommands() -> [KlondikeCommand] {
        guard !isWon else { return [] }
        var commands: [KlondikeCommand] = []
        let waste = KlondikeTable.waste
        if !table.piles[KlondikeTable.stock].isEmpty || !table.piles[waste].isEmpty {
            commands.append(.tap(.stock))
        }
        for slot in [waste] + Array(KlondikeTable.tableau) {
            guard let card = table.piles[slot].last else { continue }
            let sendable = table.foundation(for: card) != nil
                || KlondikeTable.tableau.contains { $0 != slot && table.fits(card, onTableau: $0) }
            if sendable { commands.append(.doubleTap(Target(PileID(slot: slot)))) }
        }
        for source in [waste] + Array(KlondikeTable.foundations) + Array(KlondikeTable.tableau) {
            let pile = table.piles[source]
            guard !pile.isEmpty else { continue }
            let firsts = KlondikeTable.tableau.contains(source) ? table.hidden(source)..<pile.count : pile.count - 1..<pile.count
            for first in firsts.reversed() {
                if first < pile.count - 1 {
                    let above = pile[first + 1]
                    // Runs only grow downwards from the top: once broken, no deeper card heads one.
                    guard above.isRed != pile[first].isRed && above.rank.rawValue + 1 == pile[first].rank.rawValue else { break }
                }
                let from: Target = KlondikeTable.tableau.contains(source)
                    ? .tableau(source - KlondikeTable.tableau.lowerBound, card: first) : Target(PileID(slot: source))
                for destination in KlondikeTable.foundations where destination != source && first == pile.count - 1
                    && table.fits(pile[first], onFoundation: destination)
                {
                    commands.append(.drag(from: from, to: Target(PileID(slot: destination))))
                }
                for destination in KlondikeTable.tableau where destination != source
                    && table.fits(pile[first], onTableau: destination)
                {
                    commands.append(.drag(from: from, to: Target(PileID(slot: destination))))
                }
            }
        }
        return commands
    }
}
