// Four in a row's clock and bots (PROTOCOL sections 17 and 18): what the realtime layer asks of it.

extension FourInARow {
    public static var takesTurns: Bool { true }

    public func timeout(of seat: String) -> ReadCommand<Command>? {
        Self.readServerCommand("timeout", .object(["seat": .string(seat)]))
    }

    public static var botLevels: ClosedRange<Int>? { FourBot.levels }

    /// A short pause, so a person sees their own disc land before the answer.
    public static func botPace(level: Int) -> Double { 0.3 }

    public func botMove(seat: String, level: Int, random: inout SplitMix64, budget: Int) -> ReadCommand<Command>? {
        guard turn == seat, let mover,
              let column = FourBot.column(for: FourPosition(columns: columns, toMove: mover), level: level,
                                          random: &random, nodeBudget: budget) else { return nil }
        return ReadCommand(.drop(column: column), cause: .object(["type": "tap", "target": .string("/columns/\(column)")]))
    }
}
