/// Turns the search's winning line into protocol gestures by playing it on a copy of the
/// game: talon moves become taps until the card shows plus a drag from the waste, and
/// foundations are named by the pile the game actually keeps each suit on.
enum SolverGestures {
    /// Nil when the rules refuse a step or the line does not end in a win.
    static func expand(_ line: [SolverMove], from start: Klondike) -> [KlondikeHint]? {
        var game = start
        var gestures: [KlondikeHint] = []
        let context = MoveContext(player: "solver", time: start.dealTime)

        func play(_ command: KlondikeCommand, _ hint: KlondikeHint) -> Bool {
            guard case .success = game.apply(command, context: context) else { return false }
            gestures.append(hint)
            return true
        }

        func drag(_ from: Target, _ to: Target) -> Bool {
            play(.drag(from: from, to: to), KlondikeHint(from: from.pointer, to: to.pointer))
        }

        /// Taps until `card` is the waste's top: at most two passes through stock and waste.
        func tapUntilShowing(_ card: Card) -> Bool {
            let table = game.table
            let cycle = table.piles[KlondikeTable.stock].count + table.piles[KlondikeTable.waste].count
            var taps = 0
            while game.table.piles[KlondikeTable.waste].last != card {
                guard taps <= 2 * (cycle + 1),
                    play(.tap(.stock), KlondikeHint(from: Target.stock.pointer, to: Target.waste.pointer))
                else { return false }
                taps += 1
            }
            return true
        }

        func home(for card: Card) -> Target? {
            game.table.foundation(for: card).map { Target(PileID(slot: $0)) }
        }

        for move in line {
            let card = SolverCard.card(move.card)
            let ok: Bool
            switch move.kind {
            case .tableauToFoundation:
                let slot = KlondikeTable.tableau.lowerBound + move.from
                let pile = game.table.piles[slot]
                guard pile.last == card, let home = home(for: card) else { return nil }
                ok = drag(.tableau(move.from, card: pile.count - 1), home)
            case .tableauToTableau:
                let pile = game.table.piles[KlondikeTable.tableau.lowerBound + move.from]
                guard move.index < pile.count, pile[move.index] == card else { return nil }
                ok = drag(.tableau(move.from, card: move.index), .tableau(move.to))
            case .talonToFoundation:
                guard tapUntilShowing(card), let home = home(for: card) else { return nil }
                ok = drag(.waste, home)
            case .talonToTableau:
                ok = tapUntilShowing(card) && drag(.waste, .tableau(move.to))
            case .foundationToTableau:
                guard let slot = KlondikeTable.foundations.first(where: { game.table.piles[$0].last == card }) else {
                    return nil
                }
                ok = drag(Target(PileID(slot: slot)), .tableau(move.to))
            }
            guard ok else { return nil }
        }
        return game.isWon ? gestures : nil
    }
}
