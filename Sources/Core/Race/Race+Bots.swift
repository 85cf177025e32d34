// A race's bots (PROTOCOL section 18): a bot table follows the solver's hints at its level's pace.
extension Race: BotPlayable {
    public static var botLevels: ClosedRange<Int> { 1...3 }

    public static func checkBots(creating options: JSON) throws(GameError) {
        guard options["winnable"] == .bool(true) else {
            throw .illegal("bots-need-winnable", "a race with bots needs winnable: true (a deal the solver proved)")
        }
    }

    public func awaits(_ seat: String) -> Bool { phase == .playing && table(of: seat)?.isWon == false }

    public static func botPace(level: Int) -> Double { [3.0, 1.5, 0.6][min(max(level, 1), 3) - 1] }

    public func botMove(seat: String, level: Int, random: inout SplitMix64, budget: Int) -> ReadCommand<RaceCommand>? {
        guard awaits(seat), let table = table(of: seat),
              let hint = KlondikeSolver.solve(table, budget: budget).moves.first ?? table.hint() else { return nil }
        let message: JSON = hint.from == "/stock" ? .object(["type": "tap", "target": "/stock"])
            : .object(["type": "drag", "from": .string(hint.from), "to": .string(hint.to)])
        return try? Self.read(message["type"]?.stringValue ?? "", message)
    }
}
