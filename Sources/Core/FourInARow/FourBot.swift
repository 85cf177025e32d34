// The four-in-a-row bots of PROTOCOL section 18, levels 1 to 3. Pure: a bot's column depends on
// the position, its level, the node budget and the generator passed in, nothing else (no clock,
// no state kept between calls). Written against FourPosition's and FourSearch's public API only.

public enum FourBot {
    public static let levels = 1...3

    /// The column a bot of `level` drops into for the side to move; nil if the board is full.
    /// Level 1 drops at random but takes a four it can make. Level 2 also blocks every four the
    /// opponent could make next, and never drops where the opponent could then make one (unless
    /// every column does). Level 3 searches ahead (FourSearch, within nodeBudget): it never loses to
    /// levels 1 and 2 and, moving first, wins every game against a player who drops at random.
    ///
    /// A level outside `levels` is a programming error (a precondition fails). Levels 1 and 2 draw
    /// from `random` (one draw a move at most); level 3 never does: the same position and budget
    /// always give it the same column.
    public static func column(for position: FourPosition, level: Int, random: inout some RandomNumberGenerator,
                              nodeBudget: Int = 2_000_000) -> Int? {
        precondition(levels.contains(level), "a four-in-a-row bot's level is 1, 2 or 3, not \(level)")
        let playable = centerFirst.filter { position.canPlay($0) }
        guard !playable.isEmpty else { return nil }
        // Every level takes a four it can make.
        if let win = playable.first(where: { position.isWinningMove($0) }) { return win }
        switch level {
        case 1:
            return pick(playable.sorted(), &random)
        case 2:
            return levelTwo(position, playable, &random)
        default:
            return levelThree(position, playable, nodeBudget: nodeBudget)
        }
    }

    // MARK: Level 2

    /// A column that leaves the opponent no four at once, at random; when every column does, a
    /// block of one of the opponent's fours if it has any, else any column.
    private static func levelTwo(_ p: FourPosition, _ playable: [Int], _ random: inout some RandomNumberGenerator) -> Int {
        let safe = playable.filter { !handsOverAFour(p, $0) }.sorted()
        if !safe.isEmpty { return pick(safe, &random) }
        let threats = opponentFours(p, playable).sorted()
        return pick(threats.isEmpty ? playable.sorted() : threats, &random)
    }

    // MARK: Level 3

    private static func levelThree(_ p: FourPosition, _ playable: [Int], nodeBudget: Int) -> Int {
        // Forced moves first: the only column that leaves the opponent no four at once.
        let safe = playable.filter { !handsOverAFour(p, $0) }
        if safe.count == 1 { return safe[0] }
        if safe.isEmpty {
            // Lost at once whatever it does: block a four all the same, the opponent may miss the other.
            return opponentFours(p, playable).first ?? playable[0]
        }
        if let column = openingBook(p) { return column }
        // The search: a winning column when its solver proves one, else its best by the negamax.
        guard let column = FourSearch.bestColumn(p, nodeBudget: nodeBudget), safe.contains(column) else {
            return safe[0]
        }
        return column
    }

    /// The first player's opening: the middle column.
    private static func openingBook(_ p: FourPosition) -> Int? {
        p.moves == 0 ? 3 : nil
    }

    // MARK: Helpers (public API of FourPosition only)

    /// Columns from the middle out: 3, 2, 4, 1, 5, 0, 6.
    private static let centerFirst = [3, 2, 4, 1, 5, 0, 6]

    /// A uniform pick from `columns` (not empty): exactly one draw from `random`.
    private static func pick(_ columns: [Int], _ random: inout some RandomNumberGenerator) -> Int {
        columns[Int(random.next(upperBound: UInt64(columns.count)))]
    }

    /// Whether dropping in `column` (playable, not a four) lets the opponent make four with its next disc.
    private static func handsOverAFour(_ p: FourPosition, _ column: Int) -> Bool {
        var child = p
        child.play(column)
        return (0..<7).contains { child.isWinningMove($0) }
    }

    /// The columns (of `playable`) where the opponent would make four if it were its turn.
    ///
    /// Dropping a disc of ours into another column first doesn't change that column's next cell,
    /// nor the opponent's discs, so the opponent makes four there after it exactly when it could now.
    private static func opponentFours(_ p: FourPosition, _ playable: [Int]) -> [Int] {
        playable.filter { column in
            guard let other = playable.first(where: { $0 != column }) else { return false }
            var child = p
            child.play(other)
            return child.isWinningMove(column)
        }
    }
}
