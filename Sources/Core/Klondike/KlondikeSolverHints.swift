/// The solver's verdict on a position, as hints: on a win, one hint per position of the line,
/// so that following hints alone follows that line to the win and never loops; otherwise the
/// rules' own hint with the verdict.
enum KlondikeSolverHints {
    /// The hint's own field on a line proven to win.
    static let winnable: [(key: String, value: JSON)] = [("winnable", true)]

    static func hints(from table: Klondike, budget: Int) -> [(PositionKey, Hint)] {
        let solution = KlondikeSolver.solve(table, budget: budget)
        guard solution.verdict == .winnable, !table.isWon else {
            let winnable: JSON = table.isWon ? true : solution.verdict == .unwinnable ? false : .null
            let hint = table.hint()
            return [(table.hintKey, Hint(from: hint?.from, to: hint?.to, fields: [("winnable", winnable)]))]
        }
        var answers: [(PositionKey, Hint)] = []
        var position = table
        for move in solution.moves {
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
