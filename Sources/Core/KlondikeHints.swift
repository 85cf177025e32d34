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

    /// Every command the rules accept now, except reset and undo: stock tap, double-taps and
    /// every legal drag (a tableau run from each of its face-up cards). For random play and
    /// benchmarks.
    public func legalCommands() -> [KlondikeCommand] {
        guard !isWon else { return [] }
        var commands: [KlondikeCommand] = []
        if !table.piles[KlondikeTable.stock].isEmpty || !table.piles[KlondikeTable.waste].isEmpty {
            commands.append(.tap(.stock))
        }
        var sources: [Target] = []
        if !table.piles[KlondikeTable.waste].isEmpty {
            sources.append(.waste)
            if (try? planSendHome(.waste)) != nil { commands.append(.doubleTap(.waste)) }
        }
        for i in 0..<4 where !table.piles[KlondikeTable.foundations.lowerBound + i].isEmpty {
            sources.append(.foundation(i))
        }
        for i in 0..<7 {
            let slot = KlondikeTable.tableau.lowerBound + i
            let count = table.piles[slot].count
            guard count > 0 else { continue }
            if (try? planSendHome(.tableau(i))) != nil { commands.append(.doubleTap(.tableau(i))) }
            for card in table.faceDown[slot]..<count { sources.append(.tableau(i, card: card)) }
        }
        let destinations = (0..<4).map(Target.foundation) + (0..<7).map { Target.tableau($0) }
        for from in sources {
            for to in destinations where (try? planDrag(from: from, to: to)) != nil {
                commands.append(.drag(from: from, to: to))
            }
        }
        return commands
    }
}
