// Four in a row's hints (PROTOCOL section 16): the search's column for the seat to move.

extension FourInARow: HintingGame {
    static let hintBudget = 300_000

    public func hintPlan(for asker: HintContext) -> HintPlan {
        if asker.isPlayer && turns.phase == .playing && !asker.againstBot {
            return .refused(GameError(.forbidden, rule: "hint-plays-for-you", "a player's hint would play for them: spectators may ask"))
        }
        return .search(PositionKey(kind: Self.kind, bytes: columns.map { UInt8($0.count) } + columns.flatMap { $0.map(UInt8.init) }
                                   + [UInt8(turns.mover ?? 2)]))
    }

    public func hints(for viewer: Viewer, budget: Int) -> [(PositionKey, Hint)] {
        guard case .search(let key) = hintPlan(for: HintContext(viewer: viewer, isPlayer: false)) else { return [] }
        // A hint needs a good column, not a proof: a fifth of the server's budget answers at once.
        let position = FourPosition(columns: columns, toMove: turns.mover ?? 0)
        guard turns.mover != nil, let column = FourSearch.bestColumn(position, nodeBudget: min(budget, Self.hintBudget)) else {
            return [(key, Hint(from: nil, to: nil))]
        }
        return [(key, Hint(from: nil, to: "/columns/\(column)"))]
    }
}
