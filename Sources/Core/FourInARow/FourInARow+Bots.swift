// Four in a row's bots (PROTOCOL section 18): three levels (FourBot), one disc at a time.

extension FourInARow: BotPlayable {
    /// Level 3 keeps its promises at 200,000 positions (FourBotTests, and 1,000 games a level in
    /// release); a little more keeps its answer inside the protocol's two seconds even in a debug
    /// build on a busy machine (500,000 took 2.4 s there at load 13).
    static let botBudget = 250_000

    public static var botLevels: ClosedRange<Int> { FourBot.levels }

    /// A short pause, so a person sees their own disc land before the answer.
    public static func botPace(level: Int) -> Double { 0.3 }

    public func botMove(seat: String, level: Int, random: inout SplitMix64, budget: Int) -> ReadCommand<Command>? {
        guard turn == seat, let mover = turns.mover,
              let column = FourBot.column(for: FourPosition(columns: columns, toMove: mover), level: level,
                                          random: &random, nodeBudget: min(budget, Self.botBudget)) else { return nil }
        return ReadCommand(.move(column), cause: .object(["type": "tap", "target": .string("/columns/\(column)")]))
    }
}
