/// The solver's verdict on a position, as hints: on a win, one hint per position of the line,
/// so that following hints alone follows that line to the win and never loops; otherwise the
/// rules' own hint with the verdict.
enum KlondikeSolverHints {
    /// The hint's own field on a line proven to win.
    static let winnable: [(key: String, value: JSON)] = [("winnable", true)]

    static func hints(from table: Klondike, budget: Int) -> [(PositionKey, Hint)] {
        // A player looks at the table before the stock: the move the rules see first (a card home,
        // a run that turns a card up) is the hint when the deal is still won after it. Proving
        // that position first costs one search when it holds, as it mostly does.
        if !table.isWon, let open = openMove(table) {
            let solution = KlondikeSolver.solve(open.after, budget: budget)
            if solution.verdict == .winnable {
                return [(table.hintKey, Hint(from: open.hint.from, to: open.hint.to, fields: Self.winnable))]
                    + line(from: open.after, moves: solution.moves)
            }
        }
        let solution = KlondikeSolver.solve(table, budget: budget)
        guard solution.verdict == .winnable, !table.isWon else {
            let winnable: JSON = table.isWon ? true : solution.verdict == .unwinnable ? false : .null
            let hint = table.hint()
            return [(table.hintKey, Hint(from: hint?.from, to: hint?.to, fields: [("winnable", winnable)]))]
        }
        return line(from: table, moves: solution.moves)
    }

    /// The rules' first hint when it is a move on the table (not a tap on the stock), and the
    /// table after it.
    private static func openMove(_ table: Klondike) -> (hint: KlondikeHint, after: Klondike)? {
        guard let hint = table.hint(), let command = hint.command else { return nil }
        if case .tap = command { return nil }
        var after = table
        guard case .success = after.apply(command, context: MoveContext(player: "solver", time: 0)) else { return nil }
        return (hint, after)
    }

    private static func line(from table: Klondike, moves: [KlondikeHint]) -> [(PositionKey, Hint)] {
        var answers: [(PositionKey, Hint)] = []
        var position = table
        for move in moves {
            answers.append((position.hintKey, Hint(from: move.from, to: move.to, fields: Self.winnable)))
            guard let command = move.command,
                  case .success = position.apply(command, context: MoveContext(player: "solver", time: 0)) else {
                return answers
            }
        }
        answers.append((position.hintKey, Hint(from: nil, to: nil, fields: Self.winnable)))  // the won table
        return answers
    }
}
