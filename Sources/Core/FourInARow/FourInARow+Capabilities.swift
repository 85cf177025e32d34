// Four in a row's optional capabilities: hints from its search (section 16), its clock's timeout and its
// bots (sections 17 and 18).

extension FourInARow {
    public static var takesTurns: Bool { true }
    static let hintBudget = 300_000
    /// Level 3 keeps its promises at 200,000 positions (FourBotTests, and 1,000 games a level in
    /// release); more than twice that keeps its answer well inside the protocol's two seconds.
    static let botBudget = 500_000

    public func timeout(of seat: String) -> ReadCommand<Command>? {
        Self.readServerCommand("timeout", .object(["seat": .string(seat)]))
    }

    public static var botLevels: ClosedRange<Int>? { FourBot.levels }

    /// A short pause, so a person sees their own disc land before the answer.
    public static func botPace(level: Int) -> Double { 0.3 }

    public func botMove(seat: String, level: Int, random: inout SplitMix64, budget: Int) -> ReadCommand<Command>? {
        guard turn == seat, let mover,
              let column = FourBot.column(for: FourPosition(columns: columns, toMove: mover), level: level,
                                          random: &random, nodeBudget: min(budget, Self.botBudget)) else { return nil }
        return ReadCommand(.drop(column: column), cause: .object(["type": "tap", "target": .string("/columns/\(column)")]))
    }

    public func hintPlan(for asker: HintContext) -> HintPlan {
        if asker.isPlayer && phase == .playing && !asker.againstBot {
            return .refused(GameError(.forbidden, rule: "hint-plays-for-you", "a player's hint would play for them: spectators may ask"))
        }
        return .search(PositionKey(kind: Self.kind, bytes: columns.map { UInt8($0.count) } + columns.flatMap { $0.map(UInt8.init) }
                                   + [UInt8(mover ?? 2)]))
    }

    public func hints(for viewer: Viewer, budget: Int) -> [(PositionKey, Hint)] {
        guard case .search(let key) = hintPlan(for: HintContext(viewer: viewer, isPlayer: false)) else { return [] }
        // A hint needs a good column, not a proof: a fifth of the server's budget answers at once.
        let position = FourPosition(columns: columns, toMove: mover ?? 0)
        guard mover != nil, let column = FourSearch.bestColumn(position, nodeBudget: min(budget, Self.hintBudget)) else {
            return [(key, Hint(from: nil, to: nil))]
        }
        return [(key, Hint(from: nil, to: "/columns/\(column)"))]
    }
}
