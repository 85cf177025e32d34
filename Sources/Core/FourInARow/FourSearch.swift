// The search's public face: the column to play, the safe columns, and an exact score when the
// budget allows (the search itself: FourSearcher.swift). Everything is counted in nodes, never
// timed: the same position and budget always give the same answer.

public enum FourSearch {
    /// The column the side to move should play: a win at once if there is one, else a block of
    /// the opponent's immediate four, else the best column by a depth-limited negamax with
    /// alpha-beta and a transposition table (center-first move order), searching at most
    /// `nodeBudget` nodes (deterministic: the same position and budget give the same column).
    /// nil when the board is full.
    ///
    /// Past the immediate win and block: when only one column doesn't hand the opponent a four
    /// at once, that one (when none, the middlemost). Otherwise the negamax deepens iteratively
    /// over the columns that don't, its last completed depth deciding; before the 6th disc it has
    /// the whole budget. From the 6th disc on it has an eighth, and the exact solver the rest: it
    /// judges the columns in the negamax's order (its choice first, then by the threats each makes
    /// and nearness to the middle) and plays the first that wins, else the first that draws;
    /// when the budget runs out first, the first not shown to lose. A position where a four
    /// already stands gets the middlemost playable column.
    public static func bestColumn(_ position: FourPosition, nodeBudget: Int = 2_000_000) -> Int? {
        let p = position
        guard p.possible != 0 else { return nil }
        let playable = (0..<fourWidth).map(fourCenterFirst).filter { p.canPlay($0) }
        // A finished game (a four already stands): any column.
        if p.hasFour { return playable[0] }
        // Win at once.
        let wins = fourWinningCells(p.current, p.mask) & p.possible
        if let column = playable.first(where: { p.cell($0) & wins != 0 }) { return column }
        // Block the opponent's four (the first of two is as good as any: both can't be blocked).
        let threats = fourWinningCells(p.opponent, p.mask) & p.possible
        if let column = playable.first(where: { p.cell($0) & threats != 0 }) { return column }
        // Columns that don't let the opponent win on top: all lose at once when there are none.
        let safe = p.nonLosingMoves
        var candidates = playable.filter { p.cell($0) & safe != 0 }
        if candidates.count <= 1 { return candidates.first ?? playable[0] }
        candidates = FourSearcher.staticOrder(p, candidates)

        let budget = max(0, nodeBudget)
        let table = FourTable(budget: budget)
        defer { table.deallocate() }
        let solving = p.moves >= FourSearcher.solverFromMoves
        var searcher = FourSearcher(table: table, limit: solving ? budget / FourSearcher.negamaxShare : budget)
        let (column, score) = searcher.deepen(p, candidates)
        // Without the solver, or with a result the solver can't better: the negamax's column.
        if !solving || abs(score) > FourSearcher.proven { return column }
        table.clear()
        var solver = FourSearcher(table: table, limit: budget - searcher.nodes)
        candidates.removeAll { $0 == column }
        candidates.insert(column, at: 0)
        return solver.choose(p, candidates)
    }

    /// Columns that do not hand the opponent an immediate four (dropping there doesn't let the
    /// opponent win by playing on top, and doesn't leave an existing threat unblocked), for a bot of level 2.
    ///
    /// Ascending. A column that makes four at once counts as safe (the game ends there). Empty when
    /// every column loses at once (two opponent threats, or one that can only be blocked under another).
    public static func safeColumns(_ position: FourPosition) -> [Int] {
        let p = position
        let safe = p.nonLosingMoves | (fourWinningCells(p.current, p.mask) & p.possible)
        return (0..<fourWidth).filter { p.cell($0) & safe != 0 }
    }

    /// Exact game-theoretic score if it can be proven within the budget (positive: side to move wins), else nil.
    ///
    /// The score counts in the manner of Pascal Pons's solver: a win with the side's k-th disc
    /// (of the 21 each side has) scores 22 - k, so faster wins score more; a loss is the
    /// opponent's win negated; 0 is a draw. A position where a four already stands scores as
    /// won by whoever made it with their last disc (the side not to move, when both have one).
    public static func solve(_ position: FourPosition, nodeBudget: Int) -> Int? {
        let p = position
        if fourHasFour(p.opponent) { return -(fourCells + 2 - p.moves) / 2 }
        if fourHasFour(p.current) { return (fourCells + 2 - p.moves) / 2 }
        if p.possible == 0 { return 0 }
        if p.canWinNext { return (fourCells + 1 - p.moves) / 2 }
        let table = FourTable(budget: max(0, nodeBudget))
        defer { table.deallocate() }
        var solver = FourSearcher(table: table, limit: max(0, nodeBudget))
        return solver.solve(p)
    }
}
