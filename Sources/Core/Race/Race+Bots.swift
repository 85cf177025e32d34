// A race's bots (PROTOCOL section 18): a bot table follows the solver's hints at its level's pace,
// now and then a later move of its winning line first, so no two bots play alike.
extension Race: BotPlayable {
    public static var botLevels: ClosedRange<Int> { 1...3 }

    public static func checkBots(creating options: JSON) throws(GameError) {
        guard options["winnable"] == .bool(true) else {
            throw .illegal("bots-need-winnable", "a race with bots needs winnable: true (a deal the solver proved)")
        }
    }

    public func awaits(_ seat: String) -> Bool { phase == .playing && table(of: seat)?.isWon == false }

    public static func botPace(level: Int) -> Double { [3.0, 1.5, 0.6][min(max(level, 1), 3) - 1] }

    /// One move in this many, a bot of the level plays a later move of its winning line first,
    /// where that is legal now and the table stays winnable: every table of a race is dealt the
    /// same, so bots of one level that always played the line's first move would play one game.
    static let wanderOdds = [3, 4, 6]

    public func botMove(seat: String, level: Int, random: inout SplitMix64, budget: Int) -> ReadCommand<RaceCommand>? {
        guard awaits(seat), let table = table(of: seat) else { return nil }
        let line = KlondikeSolver.solve(table, budget: budget).moves
        guard let first = line.first ?? table.hint(), let move = command(for: first) else { return nil }
        guard line.count > 1, random.next() % UInt64(Self.wanderOdds[min(max(level, 1), 3) - 1]) == 0 else { return move }
        for later in line.dropFirst().prefix(3) where later != first {
            var trial = self
            guard let other = command(for: later), case .success = trial.apply(other.command, context: MoveContext(player: seat, time: 0)),
                  let after = trial.table(of: seat), KlondikeSolver.solve(after, budget: budget / 2).verdict == .winnable else { continue }
            return other
        }
        return move
    }

    private func command(for hint: KlondikeHint) -> ReadCommand<RaceCommand>? {
        let message: JSON = hint.from == "/stock" ? .object(["type": "tap", "target": "/stock"])
            : .object(["type": "drag", "from": .string(hint.from), "to": .string(hint.to)])
        return try? Self.read(message["type"]?.stringValue ?? "", message)
    }
}
